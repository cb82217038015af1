package seat

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"pullcept/sidecar"
)

const ltCapability = "cap-SECRET-77aa01"

// TestResolveCapabilityOnlyInEnv: the operation capability reaches the CLI
// through its environment only (an inherited value is replaced): never
// argv, never the registration file; Codex forwards it by name.
func TestResolveCapabilityOnlyInEnv(t *testing.T) {
	t.Parallel()
	for _, acc := range []Account{
		{ID: "c", Name: "C", Kind: KindClaudeCode},
		{ID: "x", Name: "X", Kind: KindCodex},
		{ID: "t", Name: "T", Kind: KindCLI, Command: "t {mcp_config}"},
	} {
		w := ltSetup(t)
		req := w.req(acc)
		req.BaseEnv = append(req.BaseEnv, EnvOperationCapability+"=inherited")
		req.Capability = ltCapability
		l, err := Resolve(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.RemoveRegistration() })
		if v, _ := ltEnvGet(l.Env, EnvOperationCapability); v != ltCapability {
			t.Errorf("%s: env capability %q", acc.Kind, v)
		}
		if strings.Contains(strings.Join(l.Argv, "\x00"), ltCapability) || strings.Contains(l.String(), ltCapability) {
			t.Errorf("%s: the capability is in argv or the launch's text", acc.Kind)
		}
		for _, f := range l.Cleanup {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(data), ltCapability) {
				t.Errorf("%s: the capability is in %s", acc.Kind, f)
			}
		}
		if acc.Kind == KindCodex && !slices.Contains(l.Argv, `mcp_servers.pullcept.env_vars=["PULLCEPT_ROOM_TOKEN", "PULLCEPT_OPERATION_CAPABILITY"]`) {
			t.Errorf("codex: the capability is not forwarded by name: %q", l.Argv)
		}
	}
	// Without one, an inherited value does not reach the CLI.
	w := ltSetup(t)
	req := w.req(Account{ID: "t", Name: "T", Kind: KindCLI, Command: "t"})
	req.BaseEnv = append(req.BaseEnv, EnvOperationCapability+"=inherited")
	l, err := Resolve(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.RemoveRegistration() })
	if _, ok := ltEnvGet(l.Env, EnvOperationCapability); ok {
		t.Error("an inherited capability reached the CLI")
	}
}

// TestResolveModes: mode resume resumes the recorded conversation or
// refuses (nothing dropped); mode fresh never resumes and drops the record.
func TestResolveModes(t *testing.T) {
	t.Parallel()
	acc := Account{ID: "c", Name: "C", Kind: KindClaudeCode}
	w := ltSetup(t)
	resume := func() (Launch, error) {
		req := w.req(acc)
		req.Mode = LaunchResume
		l, err := Resolve(req)
		if err == nil {
			t.Cleanup(func() { _ = l.RemoveRegistration() })
		}
		return l, err
	}
	if _, err := resume(); !errors.Is(err, ErrCannotResume) {
		t.Fatalf("no record: %v", err)
	}
	const id = "11111111-2222-4333-8444-555555555555"
	w.record(t, "c", id)
	if _, err := resume(); !errors.Is(err, ErrCannotResume) || !strings.Contains(err.Error(), "no transcript") {
		t.Fatalf("no transcript: %v", err)
	}
	if w.recorded(t, "c") != id {
		t.Fatal("a refused resume dropped the record")
	}
	ltClaudeTranscript(t, w.claudeDir, w.dir, id)
	if l, err := resume(); err != nil || !l.Resumed || l.ResumedFrom != id {
		t.Fatalf("resume: %+v %v", l, err)
	}
	req := w.req(acc)
	req.Mode = LaunchFresh
	l, err := Resolve(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.RemoveRegistration() })
	if l.Resumed || l.SessionID == id || w.recorded(t, "c") == id {
		t.Fatalf("fresh: %+v, record %q", l, w.recorded(t, "c"))
	}
	w.record(t, "n", id)
	if _, err := Resolve(LaunchRequest{Account: Account{ID: "n", Name: "N", Kind: KindCLI, Command: "n"}, Topic: w.topic, Mode: LaunchResume,
		RoomURL: "ws://127.0.0.1:1/room", Token: "t", ExePath: w.exe, RuntimeDir: w.run, Home: w.home, Store: w.store}); !errors.Is(err, ErrCannotResume) {
		t.Fatalf("no resume line: %v", err)
	}
}

// TestSessionOpsNamesMirror: the capability's variable and the sidecar's
// tools (allowed in every Claude launch) are the same on both sides.
func TestSessionOpsNamesMirror(t *testing.T) {
	t.Parallel()
	if EnvOperationCapability != sidecar.EnvOperationCapability {
		t.Errorf("%q != %q", EnvOperationCapability, sidecar.EnvOperationCapability)
	}
	var names []string
	for _, tool := range sidecar.Tools() {
		names = append(names, tool.Name)
	}
	if !slices.Equal(names, SidecarTools) {
		t.Errorf("the sidecar's tools %v, the allowed ones %v", names, SidecarTools)
	}
}

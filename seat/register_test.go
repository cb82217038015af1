package seat

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"pullcept/seat/hook"
	"pullcept/sidecar"
)

func TestRegistrationFile(t *testing.T) {
	t.Parallel()
	w := ltSetup(t)
	hue := 200.5
	acc := Account{ID: "lay", Name: "Claude Lay", Nickname: "Lay", Kind: KindClaudeCode, Hue: &hue}
	l := w.resolve(t, acc)
	l2 := w.resolve(t, acc)
	if l.Registration == l2.Registration {
		t.Errorf("two launches share the registration file %s", l.Registration)
	}
	info, err := os.Stat(l.Registration)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("registration mode %v, want 0600", info.Mode().Perm())
	}
	if dinfo, _ := os.Stat(w.run); dinfo.Mode().Perm() != 0o700 {
		t.Errorf("runtime folder mode %v, want 0700", dinfo.Mode().Perm())
	}
	e := ltReadMCPConfig(t, l.Registration)
	if e.Type != "stdio" || e.Command != w.exe || !filepath.IsAbs(e.Command) || !slices.Equal(e.Args, []string{"sidecar"}) {
		t.Errorf("server entry %+v, want stdio %s sidecar", e, w.exe)
	}
	want := map[string]string{
		sidecar.EnvRoomURL:   "ws://127.0.0.1:4242/room",
		sidecar.EnvRoomToken: ltToken,
		sidecar.EnvAgentName: "Lay",
		// The nickname calls it Lay; its full name goes along.
		sidecar.EnvAgentFullName: "Claude Lay",
		sidecar.EnvRoomID:        w.topic,
		sidecar.EnvAccountID:     "lay",
		sidecar.EnvAgentHue:      "200.5",
	}
	if len(e.Env) != len(want) {
		t.Errorf("env %v, want %v", e.Env, want)
	}
	for k, v := range want {
		if e.Env[k] != v {
			t.Errorf("env %s=%q, want %q", k, e.Env[k], v)
		}
	}
	// The sidecar reads back what the registration says.
	cfg := sidecar.ConfigFromEnv(func(k string) string { return e.Env[k] })
	if len(cfg.Missing) != 0 || cfg.Name != "Lay" || cfg.Room != w.topic || cfg.AccountID != "lay" || cfg.Hue == nil || *cfg.Hue != 201 || cfg.UnseenHistory {
		t.Errorf("sidecar reads %+v", cfg)
	}
	if err := l.RemoveRegistration(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(l.Registration); !os.IsNotExist(err) {
		t.Errorf("registration still there after RemoveRegistration: %v", err)
	}
	if err := l.RemoveRegistration(); err != nil {
		t.Errorf("second RemoveRegistration: %v", err)
	}
}

// TestSidecarEnvNames keeps this package's names equal to the sidecar's.
func TestSidecarEnvNames(t *testing.T) {
	t.Parallel()
	pairs := [][2]string{
		{envRoomURL, sidecar.EnvRoomURL}, {envRoomToken, sidecar.EnvRoomToken},
		{envAgentName, sidecar.EnvAgentName}, {envAgentFullName, sidecar.EnvAgentFullName}, {envRoomID, sidecar.EnvRoomID},
		{envAgentHue, sidecar.EnvAgentHue}, {envAccountID, sidecar.EnvAccountID},
		{envUnseenHistory, sidecar.EnvUnseenHistory},
	}
	for _, p := range pairs {
		if p[0] != p[1] {
			t.Errorf("seat uses %s, the sidecar reads %s", p[0], p[1])
		}
	}
	if len(sidecarEnvNames) != len(pairs) {
		t.Errorf("sidecarEnvNames has %d names, want %d", len(sidecarEnvNames), len(pairs))
	}
}

func TestCodexRegistrationFlags(t *testing.T) {
	t.Parallel()
	args, env := codexRegistration(registration{
		exe: `/opt/my "pull"/pullcept`, server: "pullcept",
		env: [][2]string{{envRoomURL, "ws://h/r"}, {envRoomToken, "tok"}, {envAgentName, "Lay <L>"}, {envUnseenHistory, "1"}},
	})
	want := []string{
		"--disable", "daemon_auto_start", "--no-daemon",
		"-c", `mcp_servers.pullcept.command="/opt/my \"pull\"/pullcept"`,
		"-c", `mcp_servers.pullcept.args=["sidecar"]`,
		"-c", `mcp_servers.pullcept.env={ "PULLCEPT_ROOM_URL" = "ws://h/r", "PULLCEPT_AGENT_NAME" = "Lay <L>", "PULLCEPT_UNSEEN_HISTORY" = "1" }`,
		"-c", `mcp_servers.pullcept.env_vars=["PULLCEPT_ROOM_TOKEN"]`,
		"-c", `mcp_servers.pullcept.default_tools_approval_mode="approve"`,
		"-c", `mcp_servers.pullcept.required=true`,
	}
	if !slices.Equal(args, want) {
		t.Errorf("flags:\n%q\nwant\n%q", args, want)
	}
	if len(env) != 1 || env[0] != [2]string{envRoomToken, "tok"} {
		t.Errorf("env %q, want only the token", env)
	}
}

func TestTomlString(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain":      `"plain"`,
		`q"b\`:       `"q\"b\\"`,
		"a\nb\tc":    `"a\nb\tc"`,
		"<&>":        `"<&>"`,
		"日本":         `"日本"`,
		"del\x7fx":   `"del\u007fx"`,
		"nul\x00end": `"nul\u0000end"`,
	} {
		if got := tomlString(in); got != want {
			t.Errorf("tomlString(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestClaudeAllowedTools(t *testing.T) {
	t.Parallel()
	got := ClaudeAllowedTools("pullcept")
	if got != "mcp__pullcept__say_to_room,mcp__pullcept__read_room_history,mcp__pullcept__my_usage,mcp__pullcept__list_account_sessions,mcp__pullcept__control_account_session,mcp__pullcept__account_session_status" {
		t.Errorf("allowed tools %q", got)
	}
}

// The real-CLI tests register a stand-in sidecar: a shell script at
// ExePath that checks its argument is "sidecar" and runs this test binary
// as a small MCP server (TestSeatStubSidecar). The stand-in records the
// PULLCEPT_* variables it was started with and every tool call.

// stubSidecarDirEnv names the folder the stand-in writes its records to.
const stubSidecarDirEnv = "PULLCEPT_SEAT_TEST_STUB_DIR"

// stubCall is one recorded tool call.
type stubCall struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`
}

// TestSeatStubSidecar is not a test: run as the stand-in sidecar it serves
// MCP on stdio; otherwise it returns at once.
func TestSeatStubSidecar(t *testing.T) {
	dir := os.Getenv(stubSidecarDirEnv)
	if dir == "" {
		return
	}
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "PULLCEPT_") && k != stubSidecarDirEnv {
			env[k] = v
		}
	}
	data, _ := json.Marshal(env)
	_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("env-%d.json", os.Getpid())), data, 0o600)

	var mu sync.Mutex
	s := server.NewMCPServer("pullcept-room", "test", server.WithToolCapabilities(false))
	for _, name := range SidecarTools {
		tool := mcp.NewTool(name, mcp.WithDescription("stand-in for the room's "+name),
			mcp.WithString("content", mcp.Description("What to say.")),
			mcp.WithString("last_seen", mcp.Description("message_id of the newest post read.")))
		s.AddTool(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			line, _ := json.Marshal(stubCall{Tool: req.Params.Name, Args: req.GetArguments()})
			mu.Lock()
			defer mu.Unlock()
			f, err := os.OpenFile(filepath.Join(dir, "calls.jsonl"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			if _, err := f.Write(append(line, '\n')); err != nil {
				return nil, err
			}
			return mcp.NewToolResultText("posted"), nil
		})
	}
	if err := server.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, "stub sidecar:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// stubSidecar writes the stand-in's script and returns its path (to use as
// ExePath) and its record folder.
func stubSidecar(t *testing.T) (exe, dir string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	exe = filepath.Join(t.TempDir(), "pullcept")
	script := fmt.Sprintf("#!/bin/sh\n[ \"$1\" = hook ] && exit 0\n[ \"$#\" = 1 ] && [ \"$1\" = sidecar ] || { echo \"stub: want the argument sidecar, got: $*\" >&2; exit 2; }\n"+
		"%s=%s exec %s -test.run='^TestSeatStubSidecar$'\n", stubSidecarDirEnv, shellQuote(dir), shellQuote(self))
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return exe, dir
}

// stubCalls reads the calls the stand-in recorded.
func stubCalls(t *testing.T, dir string) []stubCall {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "calls.jsonl"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var calls []stubCall
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var c stubCall
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("stub call %q: %v", line, err)
		}
		calls = append(calls, c)
	}
	return calls
}

// stubEnvs reads the PULLCEPT_* variables of each stand-in start.
func stubEnvs(t *testing.T, dir string) []map[string]string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "env-*.json"))
	var out []map[string]string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]string
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// A Codex launch turns off the model-switch pop-up Codex shows near a
// limit: a room post typed into it would choose an answer.
func TestCodexLaunchHidesTheRateLimitNudge(t *testing.T) {
	reg, err := registerCodex(registration{exe: "/usr/bin/pullcept", argv: []string{"codex"}, hook: hook.HookTarget{Base: "http://127.0.0.1:1/hooks", Topic: "t", Account: "a", Secret: "s"}})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.Index(reg.argv, "notice.hide_rate_limit_model_nudge=true")
	if i < 1 || reg.argv[i-1] != "-c" {
		t.Fatalf("argv %q lacks -c notice.hide_rate_limit_model_nudge=true", reg.argv)
	}
}

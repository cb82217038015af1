package seat

import (
	"slices"
	"strings"
	"testing"
)

func TestKindManners(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind                        Kind
		valid, names, launch, picks bool
		command, resume, newLine    string
	}{
		{KindClaudeCode, true, true, true, false, "claude", "claude --resume {session_id}", "claude --session-id {session_id}"},
		{KindCodex, true, true, true, true, "codex", "codex resume {session_id}", ""},
		{KindCLI, true, false, true, false, "", "", ""},
		{KindMCP, true, false, false, false, "", "", ""},
		{Kind("gemini"), false, false, false, false, "", "", ""},
	}
	for _, tc := range tests {
		k := tc.kind
		if k.Valid() != tc.valid || k.NamesCLI() != tc.names || k.Launchable() != tc.launch || k.ChoosesOwnID() != tc.picks {
			t.Errorf("%s: valid %v names %v launchable %v picks %v", k, k.Valid(), k.NamesCLI(), k.Launchable(), k.ChoosesOwnID())
		}
		if k.DefaultCommand() != tc.command || k.ResumeLine() != tc.resume || k.NewSessionLine() != tc.newLine {
			t.Errorf("%s: command %q resume %q new %q", k, k.DefaultCommand(), k.ResumeLine(), k.NewSessionLine())
		}
	}
}

func TestKindArgs(t *testing.T) {
	t.Parallel()
	cmd := []string{"/bin/x", "--opt", "v"}
	tests := []struct {
		kind        Kind
		fresh, back []string
	}{
		{KindClaudeCode, []string{"/bin/x", "--opt", "v", "--session-id", "ID"}, []string{"/bin/x", "--opt", "v", "--resume", "ID"}},
		// The resume subcommand goes right after the program.
		{KindCodex, []string{"/bin/x", "--opt", "v"}, []string{"/bin/x", "resume", "ID", "--opt", "v"}},
	}
	for _, tc := range tests {
		if got := tc.kind.newArgs(cmd, "ID"); !slices.Equal(got, tc.fresh) {
			t.Errorf("%s new: %q, want %q", tc.kind, got, tc.fresh)
		}
		if got := tc.kind.resumeArgs(cmd, "ID"); !slices.Equal(got, tc.back) {
			t.Errorf("%s resume: %q, want %q", tc.kind, got, tc.back)
		}
	}
	if !slices.Equal(cmd, []string{"/bin/x", "--opt", "v"}) {
		t.Errorf("command changed in place: %q", cmd)
	}
}

// TestCodexHookHash checks the trust hash against values Codex 0.171.0
// reported for the same hooks (its hooks/list).
func TestCodexHookHash(t *testing.T) {
	t.Parallel()
	got := codexHookHash("permission_request", `echo "$HOME" x`, 30)
	if !strings.HasPrefix(got, "sha256:111fbae9") || !strings.HasSuffix(got, "6e6a") {
		t.Errorf("hash %s, want sha256:111fbae9…6e6a", got)
	}
}

package seat

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pullcept/seat/hook"
)

// TestClaudeSettingsMerge: an account whose command passes --settings gets
// it merged into the launch's file (its own hooks kept, the room's added);
// an unreadable one is refused with the reason.
func TestClaudeSettingsMerge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	own := filepath.Join(dir, "mine.json")
	if err := os.WriteFile(own, []byte(`{"model":"x","hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo mine"}]}]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := registration{exe: "/opt/pull cept", hook: hook.HookTarget{Base: "http://127.0.0.1:1/hooks", Topic: "t", Account: "a", Secret: "s"}}
	for _, argv := range [][]string{
		{"claude", "--settings", own, "--model", "m"},
		{"claude", "--settings=" + own},
		{"claude", "--settings", `{"model":"x","hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo mine"}]}]}}`},
	} {
		rest, theirs, err := takeClaudeSettings(argv, dir)
		if err != nil {
			t.Fatalf("%q: %v", argv, err)
		}
		if slices.Contains(rest, "--settings") || strings.Contains(strings.Join(rest, " "), "--settings=") {
			t.Errorf("%q: --settings left in %q", argv, rest)
		}
		s := claudeSettings(r, theirs)
		data, _ := json.Marshal(s)
		text := string(data)
		if s["model"] != "x" || !strings.Contains(text, "echo mine") {
			t.Errorf("the account's own settings were lost: %s", text)
		}
		stop := s["hooks"].(map[string]any)["Stop"].([]any)
		if len(stop) != 2 || !strings.Contains(text, r.hook.ActivityURL("Stop")) {
			t.Errorf("Stop hooks %v: want the account's and the room's", stop)
		}
		if !strings.Contains(text, `'/opt/pull cept' hook SessionStart`) || !strings.Contains(text, `'/opt/pull cept' hook status`) {
			t.Errorf("command hooks not shell-quoted: %s", text)
		}
		if strings.Contains(text, `"s"`) || strings.Contains(text, "Bearer s") {
			t.Errorf("the secret is in the settings file: %s", text)
		}
	}
	for _, argv := range [][]string{
		{"claude", "--settings", filepath.Join(dir, "missing.json")},
		{"claude", "--settings", "{not json"},
		{"claude", "--settings", `{"hooks":[1]}`},
		{"claude", "--settings", own, "--settings", own},
	} {
		if _, _, err := takeClaudeSettings(argv, dir); err == nil || !strings.Contains(err.Error(), "--settings") {
			t.Errorf("%q: err %v, want a refusal naming --settings", argv, err)
		}
	}
}

// TestClaudeSeatClosesTheSideChannels: every launch's settings deny the
// cross-session tools and refuse cross-session messages, keeping the
// account's own deny rules.
func TestClaudeSeatClosesTheSideChannels(t *testing.T) {
	t.Parallel()
	r := registration{exe: "/bin/pullcept", hook: hook.HookTarget{Base: "http://127.0.0.1:1/hooks", Topic: "t", Account: "a", Secret: "s"}}
	for _, theirs := range []map[string]any{nil, {"permissions": map[string]any{"deny": []any{"WebFetch", "SendMessage"}, "allow": []any{"Bash"}}, "crossSessionInbound": "accept"}} {
		s := claudeSettings(r, theirs)
		p := s["permissions"].(map[string]any)
		deny := p["deny"].([]any)
		for _, tool := range claudeDenied {
			if n := slices.Index(deny, any(tool)); n < 0 || slices.Contains(deny[n+1:], any(tool)) {
				t.Errorf("deny %v: want %s once", deny, tool)
			}
		}
		if theirs != nil && (!slices.Contains(deny, any("WebFetch")) || p["allow"] == nil) {
			t.Errorf("the account's permissions were lost: %v", p)
		}
		if s["crossSessionInbound"] != "refuse" {
			t.Errorf("crossSessionInbound = %v, want refuse", s["crossSessionInbound"])
		}
	}
}

// TestClaudePermissionMode: a seat launches in "default" unless the person
// chose a mode (command or settings).
func TestClaudePermissionMode(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	r := registration{getenv: func(string) string { return "" }, home: home, dir: dir}
	for _, c := range []struct {
		argv   []string
		theirs map[string]any
		chosen bool
	}{
		{[]string{"claude"}, nil, false},
		{[]string{"claude", "--permission-mode", "auto"}, nil, true},
		{[]string{"claude", "--permission-mode=plan"}, nil, true},
		{[]string{"claude", "--dangerously-skip-permissions"}, nil, true},
		{[]string{"claude"}, map[string]any{"permissions": map[string]any{"defaultMode": "acceptEdits"}}, true},
	} {
		if got := claudeModeChosen(c.argv, c.theirs, r); got != c.chosen {
			t.Errorf("%q %v: chosen %v, want %v", c.argv, c.theirs, got, c.chosen)
		}
	}
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(`{"permissions":{"defaultMode":"auto"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if !claudeModeChosen([]string{"claude"}, nil, r) {
		t.Error("the user's settings.json defaultMode was not seen")
	}
}

// TestCodexHooksArgs: every hook given with -c has its trust entry, with
// the hash of exactly that hook.
func TestCodexHooksArgs(t *testing.T) {
	t.Parallel()
	args, env, err := codexHooks(registration{exe: "/bin/pullcept", hook: hook.HookTarget{Base: "b", Topic: "t", Account: "a", Secret: "s"}})
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(args, "\n")
	if strings.Contains(joined, "s\"") || strings.Contains(joined, "SECRET") {
		t.Errorf("the secret is in argv: %q", args)
	}
	state := args[len(args)-1]
	for _, ev := range codexHookEvents {
		cmd := hookCommandLine("/bin/pullcept", ev.name)
		if !strings.Contains(joined, "hooks."+ev.name+"=[{hooks=[{type=\"command\",command="+tomlString(cmd)) {
			t.Errorf("no -c hook for %s in %q", ev.name, args)
		}
		entry := tomlString(codexSessionFlagsSource+":"+ev.label+":0:0") + "={trusted_hash=" + tomlString(codexHookHash(ev.label, cmd, ev.timeout)) + "}"
		if !strings.Contains(state, entry) {
			t.Errorf("no trust entry for %s in %s", ev.name, state)
		}
	}
	if len(env) == 0 || env[len(env)-1][0] != hook.EnvHookSecret {
		t.Errorf("the secret does not travel in the env: %v", env)
	}
}

// FuzzClaudeSettings: an account's own --settings (inline JSON, from
// config.json) is merged or refused with a reason naming --settings; it
// never panics, and a merged one still carries the room's hooks.
func FuzzClaudeSettings(f *testing.F) {
	for _, s := range []string{`{}`, `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]}}`, `{"hooks":[]}`, `{"statusLine":{"type":"command","command":"y"}}`, `{`, `null`} {
		f.Add(s)
	}
	r := registration{exe: "/bin/pullcept", hook: hook.HookTarget{Base: "http://127.0.0.1:1/hooks", Topic: "t", Account: "a", Secret: "s"}}
	f.Fuzz(func(t *testing.T, value string) {
		if !strings.HasPrefix(strings.TrimSpace(value), "{") {
			return // a file name: read from disk, not fuzzed here
		}
		_, theirs, err := takeClaudeSettings([]string{"claude", "--settings", value}, t.TempDir())
		if err != nil {
			if !strings.Contains(err.Error(), "--settings") {
				t.Fatalf("refusal without a reason: %v", err)
			}
			return
		}
		s := claudeSettings(r, theirs)
		if _, err := json.Marshal(s); err != nil {
			t.Fatalf("merged settings do not encode: %v", err)
		}
		hooks := s["hooks"].(map[string]any)
		if _, ok := hooks["PreToolUse"]; !ok {
			t.Fatal("the room's hooks were lost in the merge")
		}
		_ = claudeOwnStatusLine(theirs, registration{getenv: func(string) string { return "" }, home: t.TempDir(), dir: t.TempDir()})
	})
}

// TestClaudeSettingsStopFailure: the launch's settings register StopFailure
// (a turn ended by an API error), which the oldest supported Claude
// (2.1.197) knows as well as the newest: docs/hooks.md.
func TestClaudeSettingsStopFailure(t *testing.T) {
	t.Parallel()
	r := registration{exe: "/p", hook: hook.HookTarget{Base: "http://127.0.0.1:1/hooks", Topic: "t", Account: "a", Secret: "s"}}
	hooks := claudeSettings(r, nil)["hooks"].(map[string]any)
	groups, _ := hooks["StopFailure"].([]any)
	if len(groups) != 1 {
		t.Fatalf("StopFailure hooks: %v", hooks["StopFailure"])
	}
	data, _ := json.Marshal(groups)
	if !strings.Contains(string(data), r.hook.ActivityURL("StopFailure")) || !strings.Contains(string(data), `"type":"http"`) {
		t.Fatalf("StopFailure's hook: %s", data)
	}
}

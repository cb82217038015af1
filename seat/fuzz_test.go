package seat

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoadConfig: any config.json loads without panicking; every account
// that loads is valid, has a unique id, and every problem names the file.
func FuzzLoadConfig(f *testing.F) {
	for _, s := range []string{
		`{"accounts":[{"id":"claude","name":"Lin","kind":"claude_code"}]}`,
		`{"accounts":[{"id":"a","name":"A","kind":"cli","command":"x {session_id}","resume":"x -r {session_id}","env":{"K":"v"},"hue":200}]}`,
		`{"accounts":[{"id":"a"},{"id":"a","name":"B","kind":"nope"}],"extra":1}`,
		`[]`, `{`, `null`, "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "config.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, errs := Load(path)
		seen := map[string]bool{}
		for _, a := range cfg.Accounts {
			if !ValidAccountID(a.ID) || !a.Kind.Valid() || seen[a.ID] {
				t.Fatalf("loaded an invalid or repeated account %+v", a)
			}
			seen[a.ID] = true
		}
		for _, err := range errs {
			ce, ok := err.(*ConfigError)
			if !ok || ce.File != path {
				t.Fatalf("problem without the file: %v", err)
			}
		}
	})
}

// FuzzReadCodexSessionMeta: a rollout file's first line is outside input.
func FuzzReadCodexSessionMeta(f *testing.F) {
	f.Add([]byte(`{"type":"session_meta","payload":{"id":"0193","cwd":"/x","timestamp":"2026-10-01T00:00:00Z","originator":"codex_cli_rs"}}` + "\n"))
	f.Add([]byte("garbage\n{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "rollout.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		_, _ = ReadCodexSessionMeta(path) // must not panic or hang
	})
}

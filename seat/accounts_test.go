package seat

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// acctWrite writes a config file for a test and returns its path.
func acctWrite(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func acctIDs(as []Account) []string {
	var ids []string
	for _, a := range as {
		ids = append(ids, a.ID)
	}
	return ids
}

func TestLoadValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		// ids that load
		ids []string
		// each wanted problem: substrings of one error, in order of errors
		problems [][]string
		skipped  []bool
	}{
		{
			name: "all valid",
			body: `{"accounts":[
				{"id":"claude","name":"Claude","kind":"claude_code"},
				{"id":"cx","name":"Codex","kind":"codex","command":"codex -m o3","dir":"~/work","hue":200,"nickname":"Cee","env":{"A":"secret-a"}},
				{"id":"aider","name":"Aider","kind":"cli","command":"aider --session {session_id} --mcp {mcp_config}","resume":"aider --resume {session_id}"},
				{"id":"mcp-x","name":"X server","kind":"mcp"}]}`,
			ids: []string{"claude", "cx", "aider", "mcp-x"},
		},
		{
			name:     "bad JSON",
			body:     `{"accounts":[{"id":"a","name":"A","kind":"codex"},]}`,
			problems: [][]string{{"config.json", "not JSON", "line 1"}},
			skipped:  []bool{false},
		},
		{
			name:     "not an object",
			body:     `[1,2]`,
			problems: [][]string{{"not a JSON object"}},
			skipped:  []bool{false},
		},
		{
			name:     "accounts not an array",
			body:     `{"accounts":{"id":"x"}}`,
			problems: [][]string{{`"accounts" must be an array`}},
			skipped:  []bool{false},
		},
		{
			name: "missing fields, the valid ones still load",
			body: `{"accounts":[
				{"name":"No id","kind":"codex"},
				{"id":"noname","kind":"codex"},
				{"id":"nokind","name":"K"},
				{"id":"ok","name":"OK","kind":"codex"},
				{"id":"clicmd","name":"C","kind":"cli"}]}`,
			ids: []string{"ok"},
			problems: [][]string{
				{"accounts[0]", `field "id"`, "missing"},
				{"accounts[1]", `(id "noname")`, `field "name"`, "missing"},
				{"accounts[2]", `field "kind"`, "missing"},
				{"accounts[4]", `field "command"`, "missing"},
			},
			skipped: []bool{true, true, true, true},
		},
		{
			name: "unknown kind",
			body: `{"accounts":[{"id":"g","name":"G","kind":"gemini"},{"id":"c","name":"C","kind":"claude_code"}]}`,
			ids:  []string{"c"},
			problems: [][]string{
				{"accounts[0]", `field "kind"`, `unknown kind "gemini"`},
			},
			skipped: []bool{true},
		},
		{
			name: "duplicate ids: the first stays",
			body: `{"accounts":[
				{"id":"a","name":"First","kind":"codex"},
				{"id":"a","name":"Second","kind":"claude_code"},
				{"id":"b","name":"B","kind":"codex"}]}`,
			ids:      []string{"a", "b"},
			problems: [][]string{{"accounts[1]", `field "id"`, "duplicate id, first used by accounts[0]"}},
			skipped:  []bool{true},
		},
		{
			name: "bad values",
			body: `{"accounts":[
				{"id":"has space","name":"A","kind":"codex"},
				{"id":"b","name":"B","kind":"codex","hue":400},
				{"id":"c","name":"C","kind":"codex","dir":"relative/dir"},
				{"id":"d","name":"D","kind":"codex","env":{"K":1}},
				{"id":"e","name":"E","kind":"cli","command":"x","resume":"x --continue"},
				{"id":"f","name":"F","kind":"claude_code","command":"claude --session-id {session_id}"},
				{"id":"g","name":"G","kind":"cli","command":"x 'unterminated"},
				{"id":"h","name":7,"kind":"codex"},
				{"id":"i","name":"I","kind":"codex","command":"codex --x {mcp_config}"}]}`,
			problems: [][]string{
				{"accounts[0]", `field "id"`, "must be 1-64"},
				{"accounts[1]", `field "hue"`, "between 0 and 360"},
				{"accounts[2]", `field "dir"`, "absolute"},
				{"accounts[3]", `field "env"`, `value of "K" must be a string`},
				{"accounts[4]", `field "resume"`, "must hold {session_id}"},
				{"accounts[5]", `field "command"`, "hands out the id itself"},
				{"accounts[6]", `field "command"`, "unterminated"},
				{"accounts[7]", `field "name"`, "must be a string"},
				{"accounts[8]", `field "command"`, "cli accounts only"},
			},
			skipped: []bool{true, true, true, true, true, true, true, true, true},
		},
		{
			name: "ignored fields keep the account",
			body: `{"accounts":[
				{"id":"a","name":"A","kind":"claude_code","resume":"claude -r {session_id}","colour":"red"}]}`,
			ids: []string{"a"},
			problems: [][]string{
				{"accounts[0]", `field "resume"`, "knows its own resume line", "field ignored"},
				{"accounts[0]", `field "colour"`, "unknown field", "field ignored"},
			},
			skipped: []bool{false, false},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := acctWrite(t, tc.body)
			cfg, errs := Load(p)
			if !cfg.Exists {
				t.Error("Exists = false for a file that exists")
			}
			if got := acctIDs(cfg.Accounts); strings.Join(got, ",") != strings.Join(tc.ids, ",") {
				t.Errorf("loaded ids %v, want %v", got, tc.ids)
			}
			if len(errs) != len(tc.problems) {
				t.Fatalf("got %d problems, want %d:\n%v", len(errs), len(tc.problems), errs)
			}
			for i, e := range errs {
				if !errors.Is(e, ErrConfig) {
					t.Errorf("problem %d does not match ErrConfig: %v", i, e)
				}
				for _, want := range tc.problems[i] {
					if !strings.Contains(e.Error(), want) {
						t.Errorf("problem %d = %q, want it to contain %q", i, e, want)
					}
				}
				var ce *ConfigError
				if errors.As(e, &ce) && ce.Skipped != tc.skipped[i] {
					t.Errorf("problem %d Skipped = %v, want %v", i, ce.Skipped, tc.skipped[i])
				}
			}
		})
	}
}

func TestLoadValues(t *testing.T) {
	t.Parallel()
	p := acctWrite(t, `{"accounts":[{"id":"cx","name":"  Codex  ","kind":"codex","hue":200.5,"nickname":" Cee ","env":{"A":"1"}}]}`)
	cfg, errs := Load(p)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	a, ok := cfg.Account("cx")
	if !ok {
		t.Fatal("account cx missing")
	}
	if a.Name != "Codex" || a.Nickname != "Cee" || a.CallName() != "Cee" || *a.Hue != 200.5 || a.Env["A"] != "1" {
		t.Errorf("account = %+v", a)
	}
	if a.CommandLine() != "codex" || a.ResumeLine() != "codex resume {session_id}" {
		t.Errorf("command %q resume %q, want the kind's", a.CommandLine(), a.ResumeLine())
	}
}

func TestLoadMissingAndUnreadable(t *testing.T) {
	t.Parallel()
	cfg, errs := Load(filepath.Join(t.TempDir(), "none.json"))
	if cfg.Exists || len(errs) != 0 || len(cfg.Accounts) != 0 {
		t.Errorf("missing file: %+v %v", cfg, errs)
	}
	dir := t.TempDir() // a directory is unreadable as a file
	_, errs = Load(dir)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "cannot read") {
		t.Errorf("unreadable: %v", errs)
	}
}

func TestLoadWarnsOfReadableSecrets(t *testing.T) {
	t.Parallel()
	p := acctWrite(t, `{"accounts":[{"id":"a","name":"A","kind":"codex","env":{"K":"v"}}]}`)
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, errs := Load(p)
	if len(cfg.Accounts) != 1 || len(errs) != 1 || !strings.Contains(errs[0].Error(), "chmod 600") {
		t.Errorf("accounts %v, problems %v; want the account and one chmod warning", acctIDs(cfg.Accounts), errs)
	}
	if strings.Contains(errs[0].Error(), `"v"`) {
		t.Errorf("warning shows an env value: %v", errs[0])
	}
}

// acctLook is a lookPath that finds only the names given.
func acctLook(found ...string) func(string) (string, error) {
	return func(name string) (string, error) {
		for _, f := range found {
			if f == name {
				return "/usr/bin/" + name, nil
			}
		}
		return "", errors.New("not found")
	}
}

func TestFirstRunDetection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		found  []string
		ids    []string
		notice string
		writes bool
	}{
		{"both", []string{"claude", "codex"}, []string{"claude", "codex"}, "Found claude and codex on PATH and wrote 2 accounts", true},
		{"claude only", []string{"claude"}, []string{"claude"}, "Found claude on PATH and wrote an account", true},
		{"codex only", []string{"codex", "other"}, []string{"codex"}, "Found codex on PATH", true},
		{"neither", nil, nil, "the room works for you alone", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), "sub", "config.json")
			cfg, notice, errs := LoadOrDetect(p, acctLook(tc.found...))
			if len(errs) != 0 {
				t.Fatal(errs)
			}
			if got := acctIDs(cfg.Accounts); strings.Join(got, ",") != strings.Join(tc.ids, ",") {
				t.Errorf("accounts %v, want %v", got, tc.ids)
			}
			if !strings.Contains(notice, tc.notice) {
				t.Errorf("notice %q, want it to contain %q", notice, tc.notice)
			}
			info, err := os.Stat(p)
			if tc.writes != (err == nil) {
				t.Fatalf("file written = %v, want %v", err == nil, tc.writes)
			}
			if !tc.writes {
				if !strings.Contains(notice, "pullcept accounts add") {
					t.Errorf("notice %q does not say how to add an account", notice)
				}
				return
			}
			if info.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600", info.Mode().Perm())
			}
			// The written file is the accounts, loadable as they are, with
			// their command spelled out for the person to edit.
			data, _ := os.ReadFile(p)
			if !strings.Contains(string(data), `"command": "`+tc.found[0]+`"`) {
				t.Errorf("written file lacks the command:\n%s", data)
			}
			// A second run reads the file and says nothing new.
			cfg2, notice2, errs2 := LoadOrDetect(p, acctLook())
			if notice2 != "" || len(errs2) != 0 || len(cfg2.Accounts) != len(tc.ids) {
				t.Errorf("second run: %v %q %v", acctIDs(cfg2.Accounts), notice2, errs2)
			}
		})
	}
}

func TestFirstRunNeverTouchesAnExistingFile(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`{not json`, `{"accounts":[]}`, ``} {
		p := acctWrite(t, body)
		cfg, notice, _ := LoadOrDetect(p, acctLook("claude", "codex"))
		got, _ := os.ReadFile(p)
		if string(got) != body || notice != "" || len(cfg.Accounts) != 0 {
			t.Errorf("file %q became %q (notice %q, accounts %v)", body, got, notice, acctIDs(cfg.Accounts))
		}
	}
}

func TestNotifySettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "config.json")
	if err := os.WriteFile(p, []byte(`{"accounts":[],"notify":{"permission":"both","unanswered":"loud","colour":"red"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, errs := Load(p)
	if cfg.Notify.Permission != NotifyBoth || cfg.Notify.Mention != NotifyBell || cfg.Notify.Unanswered != NotifyMark {
		t.Errorf("notify %+v: want permission both, the defaults elsewhere", cfg.Notify)
	}
	if len(errs) != 2 {
		t.Errorf("errors %v: want the bad value and the unknown key", errs)
	}
	none, _ := Load(filepath.Join(dir, "missing.json"))
	if none.Notify != DefaultNotify {
		t.Errorf("no file: %+v", none.Notify)
	}
	if !Rings(NotifyBell) || Rings(NotifyMark) || !Desktop(NotifyBoth) || Marks(NotifyOff) {
		t.Error("the ways of telling")
	}
}

// TestLoopSettings (issue 36): "agent_posts_per_person_post" and
// "agent_loop" read, their defaults (12, tell) kept on a bad value, and the
// needs-you kind "agent_loop" in "notify".
func TestLoopSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "config.json")
	write := func(s string) {
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"accounts":[],"agent_posts_per_person_post":3,"agent_loop":"hold","notify":{"agent_loop":"mark"}}`)
	cfg, errs := Load(p)
	if len(errs) != 0 || cfg.AgentPostsPerPersonPost != 3 || cfg.AgentLoop != AgentLoopHold || cfg.Notify.AgentLoop != NotifyMark {
		t.Fatalf("read %+v %v", cfg, errs)
	}
	write(`{"accounts":[],"agent_posts_per_person_post":-1,"agent_loop":"stop"}`)
	cfg, errs = Load(p)
	if len(errs) != 2 || cfg.AgentPostsPerPersonPost != DefaultAgentPostsPerPersonPost || cfg.AgentLoop != AgentLoopTell || cfg.Notify.AgentLoop != NotifyBell {
		t.Fatalf("bad values: %+v %v", cfg, errs)
	}
	none, _ := Load(filepath.Join(dir, "missing.json"))
	if none.AgentPostsPerPersonPost != 12 || none.AgentLoop != AgentLoopTell {
		t.Fatalf("no file: %+v", none)
	}
}

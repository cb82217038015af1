package seat

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rivo/uniseg"
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

// TestEditsNeverLoseEntries: add and remove keep every other entry and key,
// readable or not; a file that is not JSON is never rewritten.
func TestEditsNeverLoseEntries(t *testing.T) {
	t.Parallel()
	body := `{
  "theme": {"dark": true},
  "accounts": [
    {"id": "claude", "name": "Claude", "kind": "claude_code"},
    {"id": "broken", "name": "Broken", "kind": "gemini", "env": {"TOKEN": "keep-me"}},
    {"name": "no id at all"},
    {"id": "codex", "name": "Codex", "kind": "codex"}
  ],
  "later": 1
}`
	p := acctWrite(t, body)
	var out bytes.Buffer
	if err := AccountsCommand([]string{"add", "--kind", "cli", "--id", "aider", "--name", "Aider", "--command", "aider"}, p, &out, acctLook("aider")); err != nil {
		t.Fatal(err)
	}
	if err := AccountsCommand([]string{"remove", "codex"}, p, &out, nil); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Theme    map[string]any   `json:"theme"`
		Later    int              `json:"later"`
		Accounts []map[string]any `json:"accounts"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("rewritten file is not JSON: %v\n%s", err, data)
	}
	if doc.Theme["dark"] != true || doc.Later != 1 {
		t.Errorf("other keys lost:\n%s", data)
	}
	var names []string
	for _, a := range doc.Accounts {
		names = append(names, a["name"].(string))
	}
	if strings.Join(names, ",") != "Claude,Broken,no id at all,Aider" {
		t.Errorf("entries %v, want Claude,Broken,no id at all,Aider", names)
	}
	if !strings.Contains(string(data), "keep-me") {
		t.Error("the skipped entry's env was lost")
	}
	if i, j := strings.Index(string(data), `"theme"`), strings.Index(string(data), `"later"`); i > j {
		t.Error("top-level key order changed")
	}
	if info, _ := os.Stat(p); info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", info.Mode().Perm())
	}

	// Unreadable JSON: refused, file untouched.
	bad := acctWrite(t, `{"accounts": [ {"id": "x", `)
	for _, args := range [][]string{
		{"add", "--kind", "codex"},
		{"remove", "x"},
	} {
		err := AccountsCommand(args, bad, &out, acctLook("codex"))
		if err == nil || !strings.Contains(err.Error(), "nothing was written") {
			t.Errorf("%v on a broken file: err %v, want a refusal", args, err)
		}
		if got, _ := os.ReadFile(bad); string(got) != `{"accounts": [ {"id": "x", ` {
			t.Errorf("%v rewrote a broken file: %q", args, got)
		}
	}
}

func TestAccountsCommand(t *testing.T) {
	t.Setenv("SEAT_TEST_SECRET_FROM_ENV", "value-from-env")
	p := filepath.Join(t.TempDir(), "config.json")
	run := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := AccountsCommand(args, p, &out, acctLook("claude", "codex"))
		return out.String(), err
	}

	out, err := run("list")
	if err != nil || !strings.Contains(out, "does not exist") || !strings.Contains(out, "accounts add") {
		t.Errorf("list without a file: %q %v", out, err)
	}
	if _, err := run("add", "--kind", "claude_code", "--env", "ANTHROPIC_API_KEY=sk-very-secret", "--env", "SEAT_TEST_SECRET_FROM_ENV", "--hue", "30"); err != nil {
		t.Fatal(err)
	}
	if _, err := run("add", "--kind", "codex", "--nickname", "Cee", "--dir", "/tmp"); err != nil {
		t.Fatal(err)
	}
	out, err = run("add", "--kind", "codex")
	if err == nil || !strings.Contains(err.Error(), `id "codex" is taken`) {
		t.Errorf("duplicate add: %q %v", out, err)
	}
	out, err = run("add", "--kind", "cli", "--id", "x", "--name", "X")
	if err == nil || !strings.Contains(err.Error(), "--command: missing") {
		t.Errorf("cli without command: %v", err)
	}
	out, err = run("add", "--kind", "cli", "--id", "nowhere", "--name", "N", "--command", "not-installed-cli {session_id}")
	if err != nil || !strings.Contains(out, "not found on PATH") {
		t.Errorf("add of a missing program: %q %v, want a warning", out, err)
	}
	out, err = run("add", "--kind", "codex", "--id", "c2", "--hue", "x")
	if err == nil {
		t.Error("bad hue accepted")
	}

	out, err = run("list")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"claude", "claude_code", "claude (default)", "claude --resume {session_id}", "ANTHROPIC_API_KEY,SEAT_TEST_SECRET_FROM_ENV", "30", "Cee (Codex)", "/tmp", "nowhere"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	for _, secret := range []string{"sk-very-secret", "value-from-env"} {
		if strings.Contains(out, secret) {
			t.Errorf("list prints the env value %q:\n%s", secret, out)
		}
	}
	cfg, errs := Load(p)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if a, _ := cfg.Account("claude"); a.Env["SEAT_TEST_SECRET_FROM_ENV"] != "value-from-env" || a.Env["ANTHROPIC_API_KEY"] != "sk-very-secret" {
		t.Errorf("env not stored: %v", a.Env)
	}
	if info, _ := os.Stat(p); info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", info.Mode().Perm())
	}

	if _, err := run("remove", "claude"); err != nil {
		t.Fatal(err)
	}
	if _, err := run("remove", "claude"); err == nil {
		t.Error("removing a missing id succeeded")
	}
	cfg, _ = Load(p)
	if got := strings.Join(acctIDs(cfg.Accounts), ","); got != "codex,nowhere" {
		t.Errorf("after remove: %s", got)
	}
	if _, err := run("frobnicate"); err == nil {
		t.Error("unknown subcommand accepted")
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

// accounts list lines its columns up in cells: a CJK name takes two per
// character (tabwriter counted runes and pushed the next columns left).
// A dir that does not exist is named as a problem, and `add` warns of it.
func TestAccountsListCJKAndMissingDir(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	cfg := `{"accounts":[{"id":"lin","name":"林","kind":"claude_code"},{"id":"lay","name":"Lay","kind":"codex","dir":"/no/such/folder"}]}`
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := AccountsCommand([]string{"list"}, path, &out, nil); err != nil {
		t.Fatal(err)
	}
	var kindCols []int
	for _, l := range strings.Split(out.String(), "\n") {
		if i := strings.Index(l, "claude_code"); i >= 0 {
			kindCols = append(kindCols, uniseg.StringWidth(l[:i]))
		}
		if i := strings.Index(l, "codex"); i >= 0 && !strings.Contains(l, "claude") {
			kindCols = append(kindCols, uniseg.StringWidth(l[:i]))
		}
	}
	if len(kindCols) != 2 || kindCols[0] != kindCols[1] {
		t.Errorf("the KIND column starts at cells %v:\n%s", kindCols, out.String())
	}
	if !strings.Contains(out.String(), "problem: account lay: dir /no/such/folder does not exist") {
		t.Errorf("no problem line for the missing dir:\n%s", out.String())
	}
	out.Reset()
	if err := AccountsCommand([]string{"add", "--kind", "cli", "--id", "x", "--name", "X", "--command", "true", "--dir", "/no/such/other"}, path, &out, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "warning: account x: dir /no/such/other does not exist") {
		t.Errorf("add did not warn of the missing dir:\n%s", out.String())
	}
}

// accounts nickname sets and clears the key in place, keeping every other
// entry, key and order; a bad nickname or an unknown id writes nothing.
func TestAccountsNickname(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.json")
	orig := `{"accounts":[{"id":"a","kind":"cli","name":"Claude Lin","command":"x","zz":true},{"id":"b","kind":"cli","name":"B","command":"y","nickname":"Bee"}],"other":[1]}`
	if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := AccountsCommand([]string{"nickname", "a", " Lin "}, path, &out, nil); err != nil {
		t.Fatal(err)
	}
	cfg, errs := Load(path)
	a, _ := cfg.Account("a")
	b, _ := cfg.Account("b")
	if len(errs) != 1 || a.CallName() != "Lin" || a.Name != "Claude Lin" || b.CallName() != "Bee" { // the one: "zz" is unknown
		t.Fatalf("after setting: %+v %+v %v", a, b, errs)
	}
	data, _ := os.ReadFile(path)
	if i, j := bytes.Index(data, []byte(`"zz"`)), bytes.Index(data, []byte(`"nickname": "Lin"`)); i < 0 || j < i || !bytes.Contains(data, []byte(`"other"`)) {
		t.Errorf("the entry's keys were not kept in order, the nickname last:\n%s", data)
	}
	if err := AccountsCommand([]string{"nickname", "b"}, path, &out, nil); err != nil {
		t.Fatal(err)
	}
	cfg, _ = Load(path)
	if b, _ := cfg.Account("b"); b.CallName() != "B" || b.Nickname != "" {
		t.Errorf("clearing left %+v", b)
	}
	before, _ := os.ReadFile(path)
	for _, args := range [][]string{{"nickname", "nobody", "X"}, {"nickname", "a", "two\nlines"}, {"nickname"}} {
		if err := AccountsCommand(args, path, &out, nil); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Errorf("a refused nickname wrote the file")
	}
}

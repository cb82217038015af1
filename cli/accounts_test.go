package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rivo/uniseg"

	"pullcept/seat"
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

func acctIDs(as []seat.Account) []string {
	var ids []string
	for _, a := range as {
		ids = append(ids, a.ID)
	}
	return ids
}

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
	if err := accountsCommand([]string{"add", "--kind", "cli", "--id", "aider", "--name", "Aider", "--command", "aider"}, p, &out, acctLook("aider")); err != nil {
		t.Fatal(err)
	}
	if err := accountsCommand([]string{"remove", "codex"}, p, &out, nil); err != nil {
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
		err := accountsCommand(args, bad, &out, acctLook("codex"))
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
		err := accountsCommand(args, p, &out, acctLook("claude", "codex"))
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
	cfg, errs := seat.Load(p)
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
	cfg, _ = seat.Load(p)
	if got := strings.Join(acctIDs(cfg.Accounts), ","); got != "codex,nowhere" {
		t.Errorf("after remove: %s", got)
	}
	if _, err := run("frobnicate"); err == nil {
		t.Error("unknown subcommand accepted")
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
	if err := accountsCommand([]string{"list"}, path, &out, nil); err != nil {
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
	if err := accountsCommand([]string{"add", "--kind", "cli", "--id", "x", "--name", "X", "--command", "true", "--dir", "/no/such/other"}, path, &out, nil); err != nil {
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
	if err := accountsCommand([]string{"nickname", "a", " Lin "}, path, &out, nil); err != nil {
		t.Fatal(err)
	}
	cfg, errs := seat.Load(path)
	a, _ := cfg.Account("a")
	b, _ := cfg.Account("b")
	if len(errs) != 1 || a.CallName() != "Lin" || a.Name != "Claude Lin" || b.CallName() != "Bee" { // the one: "zz" is unknown
		t.Fatalf("after setting: %+v %+v %v", a, b, errs)
	}
	data, _ := os.ReadFile(path)
	if i, j := bytes.Index(data, []byte(`"zz"`)), bytes.Index(data, []byte(`"nickname": "Lin"`)); i < 0 || j < i || !bytes.Contains(data, []byte(`"other"`)) {
		t.Errorf("the entry's keys were not kept in order, the nickname last:\n%s", data)
	}
	if err := accountsCommand([]string{"nickname", "b"}, path, &out, nil); err != nil {
		t.Fatal(err)
	}
	cfg, _ = seat.Load(path)
	if b, _ := cfg.Account("b"); b.CallName() != "B" || b.Nickname != "" {
		t.Errorf("clearing left %+v", b)
	}
	before, _ := os.ReadFile(path)
	for _, args := range [][]string{{"nickname", "nobody", "X"}, {"nickname", "a", "two\nlines"}, {"nickname"}} {
		if err := accountsCommand(args, path, &out, nil); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Errorf("a refused nickname wrote the file")
	}
}

package mcpserv

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestParseErrorsNameTheLine(t *testing.T) {
	data := `{
  "other": {"kept": true},
  "mcpServers": {
    "good": {"command": "node", "args": ["/a b/c.mjs"], "env": {"URL": "https://x"}},
    "noCommand": {"args": []},
    "bad name": {"command": "x"},
    "badArgs": {
      "command": "x",
      "args": "not a list"
    },
    "badEnv": {"command": "x", "env": {"A B": "1"}},
    "extra": {"command": "x", "type": "stdio"}
  }
}`
	got, errs := Parse("f.json", []byte(data))
	var names []string
	for _, e := range got {
		names = append(names, e.Name)
	}
	if !slices.Equal(names, []string{"good", "extra"}) {
		t.Fatalf("entries = %v", names)
	}
	if g := got[0]; g.Command != "node" || !slices.Equal(g.Args, []string{"/a b/c.mjs"}) || g.Env["URL"] != "https://x" || g.Line != 4 {
		t.Fatalf("good = %+v", g)
	}
	want := []string{
		"f.json:5: mcpServers.noCommand.command: missing (say what to run)",
		`f.json:6: mcpServers.bad name: the name "bad name" may hold only`,
		"f.json:9: mcpServers.badArgs.args: must be an array of strings",
		`f.json:11: mcpServers.badEnv.env: the name "A B" holds a space`,
		"f.json:12: mcpServers.extra.type: unknown key (ignored)",
	}
	if len(errs) != len(want) {
		t.Fatalf("errors = %v", errs)
	}
	for i, w := range want {
		if !strings.HasPrefix(errs[i].Error(), w) {
			t.Errorf("error %d = %q, want %q…", i, errs[i], w)
		}
		var fe *FieldError
		if !errors.As(errs[i], &fe) {
			t.Errorf("error %d is not a FieldError", i)
		}
	}
}

func TestParseBadJSON(t *testing.T) {
	for data, want := range map[string]string{
		"{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}": "line 3",
		"[1]":                   "line 1: not a JSON object",
		"{\"mcpServers\": 3}":   "mcpServers: must be an object",
		"{\"mcpServers\": {}}x": "data after the top-level object",
		"{\"mcpServers\": {":    "the file ends inside a value",
	} {
		_, errs := Parse("f", []byte(data))
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), want) {
			t.Errorf("%q: %v, want %q", data, errs, want)
		}
	}
	if got, errs := Parse("f", []byte(`{"mcpServers": null, "x": 1}`)); len(got) != 0 || len(errs) != 0 {
		t.Errorf("null servers: %v %v", got, errs)
	}
}

func TestEnvValuesNeverInErrors(t *testing.T) {
	_, errs := Parse("f", []byte(`{"mcpServers": {"a": {"command": "x", "env": {"TOKEN": "s3cret", "A=B": "s3cret2"}}}}`))
	for _, e := range errs {
		if strings.Contains(e.Error(), "s3cret") {
			t.Fatalf("an env value in %q", e)
		}
	}
	if s := (Entry{Name: "a", Command: "x", Env: map[string]string{"TOKEN": "s3cret"}}).String(); strings.Contains(s, "s3cret") || !strings.Contains(s, "TOKEN") {
		t.Fatalf("String = %q", s)
	}
}

// Adding and removing an entry touch nothing else of a hand-written file.
func TestAddRemoveKeepTheRest(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	hand := "{\n  // not JSON\n}"
	os.WriteFile(path, []byte(hand), 0o600)
	if err := AddEntry(path, Entry{Name: "x", Command: "node"}); err == nil {
		t.Fatal("a file that is not JSON was written")
	}
	if b, _ := os.ReadFile(path); string(b) != hand {
		t.Fatal("the bad file changed")
	}
	hand = `{
    "theme":   "dark",
    "mcpServers": {
        "first": { "command": "a",   "args": [ "1" ] }
    },
    "tail": [1,2]
}
`
	os.WriteFile(path, []byte(hand), 0o644)
	if err := AddEntry(path, Entry{Name: "second", Command: "node", Args: []string{"/p q.mjs"}, Env: map[string]string{"K": "v"}}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(b), "{\n    \"theme\":   \"dark\",\n    \"mcpServers\": {\n        \"first\": { \"command\": \"a\",   \"args\": [ \"1\" ] },\n") ||
		!strings.HasSuffix(string(b), "\n    },\n    \"tail\": [1,2]\n}\n") {
		t.Fatalf("the rest changed:\n%s", b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode().Perm())
	}
	f := Load(path)
	if len(f.Errors) != 0 || len(f.Entries) != 2 || f.Entries[1].Name != "second" || f.Entries[1].Env["K"] != "v" || f.Entries[1].Args[0] != "/p q.mjs" {
		t.Fatalf("%+v", f)
	}
	if err := AddEntry(path, Entry{Name: "second", Command: "x"}); !errors.Is(err, ErrExists) {
		t.Fatalf("twice: %v", err)
	}
	if err := RemoveEntry(path, "second"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != hand {
		t.Fatalf("remove did not give the hand-written file back:\n%s", b)
	}
	if err := RemoveEntry(path, "first"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "{\n    \"theme\":   \"dark\",\n    \"mcpServers\": {\n    },\n    \"tail\": [1,2]\n}\n" {
		t.Fatalf("after removing the last:\n%s", b)
	}
	if err := AddEntry(path, Entry{Name: "again", Command: "a"}); err != nil {
		t.Fatal(err)
	}
	if f := Load(path); len(f.Errors) != 0 || len(f.Entries) != 1 || f.Entries[0].Name != "again" {
		t.Fatalf("%+v", f)
	}
	// The middle of three, and a file without mcpServers.
	os.WriteFile(path, []byte(`{"mcpServers": {"a": {"command": "1"}, "b": {"command": "2"}, "c": {"command": "3"}}}`), 0o600)
	RemoveEntry(path, "b")
	if b, _ := os.ReadFile(path); string(b) != `{"mcpServers": {"a": {"command": "1"}, "c": {"command": "3"}}}` {
		t.Fatalf("%s", b)
	}
	os.WriteFile(path, []byte(`{"x": 1}`), 0o600)
	AddEntry(path, Entry{Name: "n", Command: "c"})
	if f := Load(path); len(f.Entries) != 1 || len(f.Errors) != 0 {
		t.Fatalf("%+v", f)
	}
	if err := RemoveEntry(filepath.Join(dir, "none.json"), "x"); !errors.Is(err, ErrNoEntry) {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "none.json")); err == nil {
		t.Fatal("a missing file was written by a removal")
	}
}

func TestDefaultOnlyWhenTheBridgeExists(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	if FindBridge([]string{dir}) != "" {
		t.Fatal("found a bridge in an empty folder")
	}
	if wrote, err := WriteDefault(path, filepath.Join(dir, BridgeScript)); wrote || err != nil {
		t.Fatal("wrote a path that does not exist", err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("the file was written")
	}
	os.WriteFile(filepath.Join(dir, BridgeScript), []byte("//"), 0o644)
	if FindBridge([]string{dir}) != "" {
		t.Fatal("found a wrapper whose package is not installed")
	}
	pkg := filepath.Join(dir, "node_modules", "github-webhook-mcp", "server")
	os.MkdirAll(pkg, 0o755)
	os.WriteFile(filepath.Join(pkg, "index.js"), []byte("//"), 0o644)
	bridge := FindBridge([]string{filepath.Join(dir, "nothing"), dir})
	if bridge != filepath.Join(dir, BridgeScript) {
		t.Fatalf("FindBridge = %q", bridge)
	}
	if wrote, err := WriteDefault(path, bridge); !wrote || err != nil {
		t.Fatal(wrote, err)
	}
	f := Load(path)
	if len(f.Entries) != 1 || f.Entries[0].Name != DefaultName || f.Entries[0].Command != "node" || !slices.Equal(f.Entries[0].Args, []string{bridge}) || len(f.Entries[0].Env) != 0 {
		t.Fatalf("%+v", f)
	}
	os.WriteFile(path, []byte(`{}`), 0o600)
	if wrote, _ := WriteDefault(path, bridge); wrote {
		t.Fatal("replaced a file")
	}
}

func TestParseEnvField(t *testing.T) {
	env, errs := ParseEnv("A=1\nB=\"quoted value\"\n\nC='x'=y\nnovalue\n=1\nA B=2\nA=again\nD=\"half", 10)
	if env["A"] != "1" || env["B"] != "quoted value" || env["C"] != "'x'=y" || env["D"] != "\"half" || len(env) != 4 {
		t.Fatalf("env = %q", env)
	}
	want := []string{"line 14: env: no =", "line 15: env: no name before =", `line 16: env: the name "A B" holds a space`, "line 17: env: A is written twice (first on line 10)"}
	if len(errs) != len(want) {
		t.Fatalf("errs = %v", errs)
	}
	for i, w := range want {
		if !strings.HasPrefix(errs[i].Error(), w) {
			t.Errorf("%d: %q, want %q", i, errs[i], w)
		}
	}
	if got := ParseArgs("/a b/c.mjs\n--flag\n\n"); !slices.Equal(got, []string{"/a b/c.mjs", "--flag"}) {
		t.Fatalf("args = %q", got)
	}
}

func TestFormRoundTrip(t *testing.T) {
	f := Form{Name: "Hooks", Command: "node", Args: []string{"/x y/b.mjs", "--v"}, Env: map[string]string{"URL": "https://w", "B": "2"}}
	got, errs := ParseForm(FormText(f, "/c/mcp-servers.json"))
	if len(errs) != 0 || got.Name != f.Name || got.Command != f.Command || !slices.Equal(got.Args, f.Args) || got.Env["URL"] != "https://w" || got.Env["B"] != "2" {
		t.Fatalf("%+v %v", got, errs)
	}
	text := strings.Replace(FormText(f, "p"), "B=2", "B 2", 1)
	_, errs = ParseForm(text)
	line := 0
	for i, l := range strings.Split(text, "\n") {
		if l == "B 2" {
			line = i + 1
		}
	}
	if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), "line "+strconv.Itoa(line)+": env: no =") {
		t.Fatalf("errs = %v (line %d)", errs, line)
	}
	if got, _ := ParseForm(FormText(Form{}, "p")); got.Name != "" {
		t.Fatal("an empty form names a server")
	}
}

func TestNewEntryName(t *testing.T) {
	used := map[string]bool{"Web-hooks": true, "Web-hooks-2": true}
	u := func(s string) bool { return used[s] }
	for in, want := range map[string]string{"Web hooks": "Web-hooks-3", "  ": "mcp-server", "フック": "mcp-server", "a b\tc": "a-b-c", "x": "x"} {
		if got := NewEntryName(in, u); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
	if got := NewEntryName(strings.Repeat("n", 100), u); ValidName(got) != "" {
		t.Errorf("too long: %q", got)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"mcpServers": {"a": {"command": "node", "args": ["x"], "env": {"K": "v"}}}}`))
	f.Add([]byte(`{"mcpServers": {"a": {"command": "node"}, "a": {"command": "y"}}}`))
	f.Add([]byte("{\n\"mcpServers\": {\"b c\": {}}, \"z\": [1, {\"q\": null}]}"))
	f.Add([]byte(`{"mcpServers": 1}`))
	f.Add([]byte(`{`))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, errs := Parse("f", data)
		for _, e := range entries {
			if ValidName(e.Name) != "" || checkCommand(e.Command) != "" || e.Line < 1 {
				t.Fatalf("an invalid entry loaded: %+v", e)
			}
		}
		for _, e := range errs {
			var fe *FieldError
			if !errors.As(e, &fe) {
				t.Fatalf("not a FieldError: %v", e)
			}
		}
		// An entry added to a file that parses reads back, and removing
		// it gives the file back.
		if len(errs) > 0 || len(entries) > 20 {
			return
		}
		dir := t.TempDir()
		path := filepath.Join(dir, FileName)
		os.WriteFile(path, data, 0o600)
		n := NewEntryName("fuzz new", func(s string) bool { _, ok := (File{Entries: entries}).Entry(s); return ok })
		if err := AddEntry(path, Entry{Name: n, Command: "c", Args: []string{"a"}}); err != nil {
			return // e.g. mcpServers null
		}
		after := Load(path)
		if _, ok := after.Entry(n); !ok || len(after.Entries) != len(entries)+1 {
			t.Fatalf("added entry not read back: %+v", after)
		}
		if err := RemoveEntry(path, n); err != nil {
			t.Fatal(err)
		}
		again, _ := os.ReadFile(path)
		back, _ := Parse("f", again)
		if len(back) != len(entries) {
			t.Fatalf("after removal %d entries, want %d:\n%s", len(back), len(entries), again)
		}
	})
}

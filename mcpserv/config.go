// Package mcpserv runs the local MCP servers of mcp-servers.json as the
// app's own MCP clients (spec 003 "ローカル MCP サーバ", "webhook の通知",
// "書き手は本文の最終行の署名で見分ける"): the file (read, and edited one
// entry at a time so a hand-written file keeps its shape), each server's
// process (no shell, its own process group, killed with the app), its
// states and its log, the client (mark3labs/mcp-go's, on the process's own
// pipes), and the notices a notifications/claude/channel push becomes, in
// the order they arrived, signed when the event's body carries a signature.
//
// The package knows nothing of rooms: the app gives a Manager the function
// that posts a notice.
package mcpserv

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"

	"pullcept/safefile"
)

// FileName is the servers file in the config folder.
const FileName = "mcp-servers.json"

// AccountPrefix starts the id of a server's account: mcp-<entry name>.
const AccountPrefix = "mcp-"

// MaxNameLen bounds an entry's name, so its account id (mcp-<name>) stays
// within an account id's 64 characters.
const MaxNameLen = 64 - len(AccountPrefix)

// Entry is one server of the file: what to run.
type Entry struct {
	// Name is the key under mcpServers; the account is mcp-<Name>.
	Name    string
	Command string
	Args    []string
	// Env is added to the app's own environment for the process. Its
	// values are secrets: never in argv, logs or listings.
	Env map[string]string
	// Line is where the entry starts in the file (1-based; 0 when not read
	// from a file).
	Line int
}

// AccountID is the id of the account entry name speaks as.
func AccountID(name string) string { return AccountPrefix + name }

// ServerOf is the entry name an mcp account's id names ("" when id is no
// server's account id).
func ServerOf(accountID string) string {
	if name, ok := strings.CutPrefix(accountID, AccountPrefix); ok && name != "" {
		return name
	}
	return ""
}

// Same reports whether two entries run the same thing (the file changed
// under a running server when they do not).
func (e Entry) Same(o Entry) bool {
	return e.Command == o.Command && slices.Equal(e.Args, o.Args) && mapsEqual(e.Env, o.Env)
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// EnvKeys are the entry's variable names, sorted (what a listing may show).
func (e Entry) EnvKeys() []string {
	keys := make([]string, 0, len(e.Env))
	for k := range e.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// String names the entry with its env keys only.
func (e Entry) String() string {
	return fmt.Sprintf("%s: %s %q env keys %q", e.Name, e.Command, e.Args, e.EnvKeys())
}

// FieldError is one problem of the file or of a field's text: where
// (file, line) and why. It never quotes an env value.
type FieldError struct {
	File string // "" for a field's text
	// Field is what the line belongs to: "args", "env", "name",
	// "command", or mcpServers.NAME.FIELD in the file.
	Field  string
	Line   int // 1-based; 0 when the whole file or field is meant
	Reason string
}

func (e *FieldError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	} else if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Reason)
	return b.String()
}

// ValidName reports why name cannot name an entry ("" when it can): its
// account id is mcp-<name>, so it takes an account id's characters.
func ValidName(name string) string {
	switch {
	case name == "":
		return "the name is empty"
	case len(name) > MaxNameLen:
		return fmt.Sprintf("the name is longer than %d characters", MaxNameLen)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return fmt.Sprintf("the name %q may hold only A-Z a-z 0-9 - _ . (it makes the account id %s)", name, AccountID(name))
		}
	}
	return ""
}

// doc is the file as written, with the byte positions an edit needs: the
// top-level object and the mcpServers object, each key's start and each
// value's end.
type doc struct {
	data []byte
	// top-level object
	open, close int // offsets of '{' and '}'
	topKeys     []span
	// mcpServers (servers < 0: absent)
	servers        int // index in topKeys
	sOpen, sClose  int
	entries        []span
	entriesInvalid bool // mcpServers is not an object
}

// span is one key: value member.
type span struct {
	key        string
	start, end int // key's first byte, value's end
	value      json.RawMessage
}

// parseDoc reads the file's JSON with positions.
func parseDoc(data []byte) (*doc, error) {
	d := &doc{data: data, servers: -1}
	var err error
	d.open, d.close, d.topKeys, err = members(data, 0)
	if err != nil {
		return nil, err
	}
	if rest := bytes.TrimSpace(data[d.close+1:]); len(rest) > 0 {
		return nil, fmt.Errorf("line %d: data after the top-level object", lineAt(data, d.close+1+bytes.Index(data[d.close+1:], rest)))
	}
	for i, k := range d.topKeys {
		if k.key != "mcpServers" {
			continue
		}
		d.servers = i
		start := k.end - len(k.value)
		if t := bytes.TrimSpace(k.value); len(t) == 0 || t[0] != '{' {
			d.entriesInvalid = true
			continue
		}
		o, c, es, err := members(data[:k.end], start)
		if err != nil {
			return nil, err
		}
		d.sOpen, d.sClose, d.entries, d.entriesInvalid = o, c, es, false
	}
	return d, nil
}

// members reads the object starting at or after off in data: the offsets
// of its braces and its members.
func members(data []byte, off int) (open, close int, out []span, err error) {
	dec := json.NewDecoder(bytes.NewReader(data[off:]))
	dec.UseNumber()
	pos := func() int { return off + int(dec.InputOffset()) }
	fail := func(e error) (int, int, []span, error) {
		return 0, 0, nil, fmt.Errorf("not JSON: %s", describe(e, data, off))
	}
	tok, err := dec.Token()
	if err != nil {
		return fail(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return 0, 0, nil, fmt.Errorf(`line %d: not a JSON object (want {"mcpServers": {...}})`, lineAt(data, skipSpace(data, off)))
	}
	open = pos() - 1
	for dec.More() {
		before := pos()
		tok, err := dec.Token()
		if err != nil {
			return fail(err)
		}
		key, _ := tok.(string)
		start := skipSep(data, before)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fail(err)
		}
		out = append(out, span{key: key, start: start, end: pos(), value: raw})
	}
	if _, err := dec.Token(); err != nil {
		return fail(err)
	}
	close = pos() - 1
	return open, close, out, nil
}

// skipSpace is the first offset at or after i that is not white space.
func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipSep is the first offset at or after i that is not white space or a
// comma: where a member's key starts.
func skipSep(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r' || data[i] == ',') {
		i++
	}
	return i
}

// lineAt is the 1-based line of offset i.
func lineAt(data []byte, i int) int {
	if i > len(data) {
		i = len(data)
	}
	if i < 0 {
		i = 0
	}
	return 1 + bytes.Count(data[:i], []byte("\n"))
}

// describe is a decoding error with its line.
func describe(err error, data []byte, off int) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v (line %d)", err, lineAt(data, off+int(se.Offset)))
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("%v (line %d)", err, lineAt(data, off+int(te.Offset)))
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Sprintf("the file ends inside a value (line %d)", lineAt(data, len(data)))
	}
	return err.Error()
}

// Parse reads the file's text: the valid entries in file order, and a
// *FieldError for each problem (an entry with a bad field is left out, the
// others load; an unknown key is reported and ignored). file names the
// file in the errors.
func Parse(file string, data []byte) ([]Entry, []error) {
	d, err := parseDoc(data)
	if err != nil {
		return nil, []error{&FieldError{File: file, Reason: err.Error()}}
	}
	return d.entriesOf(file)
}

func (d *doc) entriesOf(file string) ([]Entry, []error) {
	var errs []error
	if d.servers < 0 {
		return nil, nil
	}
	if d.entriesInvalid {
		k := d.topKeys[d.servers]
		if string(bytes.TrimSpace(k.value)) == "null" {
			return nil, nil
		}
		return nil, []error{&FieldError{File: file, Field: "mcpServers", Line: lineAt(d.data, k.start), Reason: "must be an object of name → {command, args, env}"}}
	}
	seen := map[string]int{}
	var out []Entry
	for _, s := range d.entries {
		line := lineAt(d.data, s.start)
		field := "mcpServers." + s.key
		bad := func(f string, l int, reason string) {
			if f != "" {
				f = field + "." + f
			} else {
				f = field
			}
			errs = append(errs, &FieldError{File: file, Field: f, Line: l, Reason: reason})
		}
		if r := ValidName(s.key); r != "" {
			bad("", line, r+"; the server is not started")
			continue
		}
		if first, dup := seen[s.key]; dup {
			bad("", line, fmt.Sprintf("the name is used twice (first on line %d); the second is not started", first))
			continue
		}
		seen[s.key] = line
		e, ok := parseEntry(s, d.data, bad)
		if !ok {
			continue
		}
		e.Name, e.Line = s.key, line
		out = append(out, e)
	}
	return out, errs
}

// parseEntry reads one entry's object; bad reports a problem (field, line).
func parseEntry(s span, data []byte, bad func(field string, line int, reason string)) (Entry, bool) {
	var e Entry
	start := s.end - len(s.value)
	if t := bytes.TrimSpace(s.value); len(t) == 0 || t[0] != '{' {
		bad("", lineAt(data, s.start), "must be an object {command, args, env}")
		return e, false
	}
	_, _, fields, err := members(data[:s.end], start)
	if err != nil {
		bad("", lineAt(data, s.start), err.Error())
		return e, false
	}
	ok := true
	have := map[string]bool{}
	for _, f := range fields {
		line := lineAt(data, f.start)
		if have[f.key] {
			bad(f.key, line, "given twice")
			ok = false
			continue
		}
		have[f.key] = true
		switch f.key {
		case "command":
			var c string
			if json.Unmarshal(f.value, &c) != nil {
				bad(f.key, line, "must be a string")
				ok = false
				continue
			}
			if r := checkCommand(c); r != "" {
				bad(f.key, line, r)
				ok = false
				continue
			}
			e.Command = c
		case "args":
			if string(bytes.TrimSpace(f.value)) == "null" {
				continue
			}
			var args []string
			if json.Unmarshal(f.value, &args) != nil {
				bad(f.key, line, "must be an array of strings")
				ok = false
				continue
			}
			for i, a := range args {
				if strings.IndexByte(a, 0) >= 0 {
					bad(f.key, line, fmt.Sprintf("argument %d holds a NUL byte", i+1))
					ok = false
				}
			}
			e.Args = args
		case "env":
			if string(bytes.TrimSpace(f.value)) == "null" {
				continue
			}
			var env map[string]json.RawMessage
			if json.Unmarshal(f.value, &env) != nil {
				bad(f.key, line, "must be an object of string values")
				ok = false
				continue
			}
			e.Env = make(map[string]string, len(env))
			for _, k := range sortedKeys(env) {
				var v string
				if json.Unmarshal(env[k], &v) != nil {
					bad(f.key, line, fmt.Sprintf("the value of %q must be a string", k))
					ok = false
					continue
				}
				if r := checkEnvName(k); r != "" {
					bad(f.key, line, r)
					ok = false
					continue
				}
				if strings.IndexByte(v, 0) >= 0 {
					bad(f.key, line, fmt.Sprintf("the value of %q holds a NUL byte", k))
					ok = false
					continue
				}
				e.Env[k] = v
			}
		default:
			// Claude Desktop's other keys (type, …) are not ours: say so,
			// keep the entry.
			bad(f.key, line, "unknown key (ignored)")
		}
	}
	if !have["command"] && ok {
		bad("command", lineAt(data, s.start), "missing (say what to run)")
		ok = false
	}
	return e, ok
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// checkCommand checks a command: a program, run without a shell.
func checkCommand(c string) string {
	switch {
	case strings.TrimSpace(c) == "":
		return "empty"
	case strings.IndexByte(c, 0) >= 0:
		return "holds a NUL byte"
	case c != strings.TrimSpace(c):
		return "starts or ends with a space (it is one program, run without a shell)"
	}
	return ""
}

// checkEnvName checks an environment variable's name.
func checkEnvName(k string) string {
	switch {
	case k == "":
		return "a variable without a name"
	case strings.ContainsAny(k, "=\x00"):
		return fmt.Sprintf("the name %q holds = or NUL", k)
	case strings.IndexFunc(k, unicode.IsSpace) >= 0:
		return fmt.Sprintf("the name %q holds a space", k)
	}
	return ""
}

// File is the servers file, read.
type File struct {
	Path    string
	Exists  bool
	Entries []Entry
	Errors  []error
}

// Entry returns the entry called name.
func (f File) Entry(name string) (Entry, bool) {
	for _, e := range f.Entries {
		if e.Name == name {
			return e, true
		}
	}
	return Entry{}, false
}

// Load reads the file at path. A missing file is no problem (Exists
// false).
func Load(path string) File {
	f := File{Path: path}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f
	}
	f.Exists = true
	if err != nil {
		f.Errors = []error{&FieldError{File: path, Reason: "cannot read: " + safefile.ErrText(err)}}
		return f
	}
	f.Entries, f.Errors = Parse(path, data)
	if slices.ContainsFunc(f.Entries, func(e Entry) bool { return len(e.Env) > 0 }) {
		if why := safefile.ReadableByOthers(path); why != "" {
			f.Errors = append(f.Errors, &FieldError{File: path, Reason: why})
		}
	}
	return f
}

// entryJSON is an entry as the file holds it, indented for a member at
// depth 2 (under mcpServers).
func entryJSON(e Entry, indent string) []byte {
	type out struct {
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
	}
	o := out{Command: e.Command, Args: e.Args, Env: e.Env}
	if o.Args == nil {
		o.Args = []string{}
	}
	if o.Env == nil {
		o.Env = map[string]string{}
	}
	b, _ := json.MarshalIndent(o, indent, "  ")
	return b
}

// ErrExists is AddEntry's answer for a name the file already has.
var ErrExists = errors.New("an entry of that name exists")

// AddEntry writes e into the file at path as a new entry after the others,
// touching nothing else of the file (its other entries, keys, spacing).
// A file that is not readable JSON is refused, so it is never replaced.
func AddEntry(path string, e Entry) error {
	if r := ValidName(e.Name); r != "" {
		return errors.New(r)
	}
	if r := checkCommand(e.Command); r != "" {
		return fmt.Errorf("command: %s", r)
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return writeFile(path, fresh([]Entry{e}))
	}
	if err != nil {
		return fmt.Errorf("%s: cannot read: %s", path, safefile.ErrText(err))
	}
	d, err := parseDoc(data)
	if err != nil {
		return fmt.Errorf("%s: %v; fix it first (nothing was written)", path, err)
	}
	if d.entriesInvalid {
		return fmt.Errorf("%s: mcpServers is not an object; fix it first (nothing was written)", path)
	}
	for _, s := range d.entries {
		if s.key == e.Name {
			return fmt.Errorf("%w: %q in %s", ErrExists, e.Name, path)
		}
	}
	var out []byte
	member := func(key string, value []byte, indent string) []byte {
		k, _ := json.Marshal(key)
		return append(append(append([]byte(indent), k...), ": "...), value...)
	}
	if d.servers < 0 {
		m := member("mcpServers", append(append([]byte("{\n"), member(e.Name, entryJSON(e, "    "), "    ")...), "\n  }"...), "  ")
		out = insertMember(data, d.open, d.close, d.topKeys, m)
	} else {
		out = insertMember(data, d.sOpen, d.sClose, d.entries, member(e.Name, entryJSON(e, "    "), "    "))
	}
	return writeFile(path, out)
}

// insertMember puts m as the last member of the object at open..close.
func insertMember(data []byte, open, close int, ms []span, m []byte) []byte {
	var out []byte
	if len(ms) == 0 {
		out = append(out, data[:open+1]...)
		out = append(out, '\n')
		out = append(out, m...)
		out = append(out, '\n')
		// the closing brace keeps its indentation: drop blank space before it
		rest := data[open+1 : close]
		if len(bytes.TrimSpace(rest)) > 0 {
			out = append(out, rest...)
		} else if i := bytes.LastIndexByte(rest, '\n'); i >= 0 {
			out = append(out, rest[i+1:]...)
		}
		return append(out, data[close:]...)
	}
	last := ms[len(ms)-1].end
	out = append(out, data[:last]...)
	out = append(out, ",\n"...)
	out = append(out, m...)
	return append(out, data[last:]...)
}

// fresh is a new file holding entries.
func fresh(entries []Entry) []byte {
	var b bytes.Buffer
	b.WriteString("{\n  \"mcpServers\": {")
	for i, e := range entries {
		if i > 0 {
			b.WriteString(",")
		}
		k, _ := json.Marshal(e.Name)
		b.WriteString("\n    ")
		b.Write(k)
		b.WriteString(": ")
		b.Write(entryJSON(e, "    "))
	}
	if len(entries) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("}\n}\n")
	return b.Bytes()
}

// ErrNoEntry is RemoveEntry's answer for a name the file does not have.
var ErrNoEntry = errors.New("no entry of that name")

// RemoveEntry takes the entry called name out of the file at path,
// touching nothing else. A missing file is not written (ErrNoEntry).
func RemoveEntry(path, name string) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s does not exist", ErrNoEntry, path)
	}
	if err != nil {
		return fmt.Errorf("%s: cannot read: %s", path, safefile.ErrText(err))
	}
	d, err := parseDoc(data)
	if err != nil {
		return fmt.Errorf("%s: %v; fix it first (nothing was written)", path, err)
	}
	idx := -1
	for i, s := range d.entries {
		if s.key == name {
			idx = i // the last of duplicates: what a JSON reader keeps
		}
	}
	if idx < 0 || d.entriesInvalid {
		return fmt.Errorf("%w: %q in %s", ErrNoEntry, name, path)
	}
	s := d.entries[idx]
	var from, to int
	switch {
	case len(d.entries) == 1:
		from, to = d.sOpen+1, d.sClose
		// keep the closing brace's indentation
		if i := bytes.LastIndexByte(data[from:to], '\n'); i >= 0 {
			to = from + i
		}
	case idx == len(d.entries)-1:
		from, to = d.entries[idx-1].end, s.end
	default:
		from, to = s.start, d.entries[idx+1].start
	}
	out := append(append([]byte{}, data[:from]...), data[to:]...)
	return writeFile(path, out)
}

// writeFile replaces path with data (mode 0600).
func writeFile(path string, data []byte) error { return safefile.Replace(path, data) }

// WriteDefault writes the file with the bundled bridge as its one entry
// (spec: 名前は github-webhook-mcp、command は node、args は webhook-bridge.mjs
// の絶対パス、env は空) when there is no file and bridge is a path that
// exists; it never replaces a file. It reports whether it wrote.
func WriteDefault(path, bridge string) (bool, error) {
	if bridge == "" || !filepath.IsAbs(bridge) {
		return false, nil
	}
	if fi, err := os.Stat(bridge); err != nil || !fi.Mode().IsRegular() {
		return false, nil
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	data := fresh([]Entry{{Name: DefaultName, Command: "node", Args: []string{bridge}}})
	return safefile.Create(path, data) // someone's file written meanwhile stays
}

// DefaultName is the default entry's name.
const DefaultName = "github-webhook-mcp"

// BridgeScript is the wrapper the default entry runs with node.
const BridgeScript = "webhook-bridge.mjs"

// FindBridge looks once for the bundled bridge's wrapper: BridgeScript in
// each of dirs, in order, whose github-webhook-mcp package is installed
// beside it (node_modules/github-webhook-mcp/server/index.js). It returns
// the wrapper's absolute path, or "" when none is complete.
func FindBridge(dirs []string) string {
	for _, d := range dirs {
		if d == "" {
			continue
		}
		p, err := filepath.Abs(filepath.Join(d, BridgeScript))
		if err != nil {
			continue
		}
		if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if fi, err := os.Stat(filepath.Join(filepath.Dir(p), "node_modules", "github-webhook-mcp", "server", "index.js")); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		return p
	}
	return ""
}

// BridgeDirs are where FindBridge looks by default: beside the binary
// exe, and in ../share/pullcept of its folder (an install's shared data).
func BridgeDirs(exe string) []string {
	if exe == "" {
		return nil
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	dir := filepath.Dir(exe)
	return []string{dir, filepath.Join(dir, "..", "share", "pullcept")}
}

// Package seat starts AI CLIs as seats in the room: accounts and their
// kinds, the launch line (fresh, resumed, or fresh after a stale resume
// record was dropped), the per-launch MCP registration of the room's
// sidecar, the transcript checks behind the resume decision, and the PTY,
// emulator and terminal input queue of a running seat.
package seat

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"pullcept/safefile"
)

// Account is one configured participant: a CLI to launch as a seat (kinds
// claude_code, codex, cli) or a local MCP server (mcp).
type Account struct {
	// ID names the account in topic records, registration and the room.
	ID string `json:"id"`
	// Name is the account's name; Nickname, when set, is what the room calls
	// it (spec 003 "ニックネームと元の名前").
	Name string `json:"name"`
	Kind Kind   `json:"kind"`
	// Command is the launch line: the program and its options, split like a
	// shell would (quotes, backslashes; no expansion). Empty: the kind's
	// default. A cli account may write {session_id} (the app mints an id)
	// and {mcp_config} (the registration file) in it.
	Command string `json:"command,omitempty"`
	// Resume is a cli account's resume line; it holds {session_id} and its
	// first word is the program. Kinds that name a CLI know their own.
	Resume string `json:"resume,omitempty"`
	// Dir is the working directory (absolute, or ~/...). Empty: the app's.
	Dir string `json:"dir,omitempty"`
	// Env is added to the child's environment. Its values are secrets:
	// listings show the keys only.
	Env map[string]string `json:"env,omitempty"`
	// Hue is the account's colour in degrees, nil when not declared.
	Hue      *float64 `json:"hue,omitempty"`
	Nickname string   `json:"nickname,omitempty"`
}

// String describes the account with its env keys only: env values are
// secrets.
func (a Account) String() string {
	return fmt.Sprintf("account %s (%s, %q) command %q env keys %q", a.ID, a.Kind, a.CallName(), a.CommandLine(), sortedKeys(a.Env))
}

// LogValue logs the account with its env keys only.
func (a Account) LogValue() slog.Value {
	return slog.GroupValue(slog.String("id", a.ID), slog.String("kind", string(a.Kind)),
		slog.String("command", a.CommandLine()), slog.Any("env_keys", sortedKeys(a.Env)))
}

// CallName is what the room calls the account: the nickname, else the name.
func (a Account) CallName() string {
	if n := strings.TrimSpace(a.Nickname); n != "" {
		return n
	}
	return a.Name
}

// CommandLine is the launch line the account runs: Command, else the kind's
// default.
func (a Account) CommandLine() string {
	if strings.TrimSpace(a.Command) != "" {
		return a.Command
	}
	return a.Kind.DefaultCommand()
}

// ResumeLine is the account's resume line as written: the kind's for a kind
// that names a CLI, the account's own for cli; "" when there is none.
func (a Account) ResumeLine() string {
	if a.Kind.NamesCLI() {
		return a.Kind.ResumeLine()
	}
	if a.Kind == KindCLI {
		return a.Resume
	}
	return ""
}

// Config is the accounts file, read.
type Config struct {
	// Path is the file read.
	Path string
	// Exists is false when there was no file.
	Exists bool
	// Accounts are the valid accounts, in file order.
	Accounts []Account
	// Notify is how needs-you signals are told (DefaultNotify when the
	// file says nothing).
	Notify Notify
	// ReopenSeats is what reopening a topic does with the sessions
	// recorded in it: ReopenAuto (the default), ReopenAsk, ReopenOff.
	ReopenSeats string
	// AgentPostsPerPersonPost is the loop budget (0: nothing counted);
	// AgentLoop what it does: AgentLoopTell (the default) or AgentLoopHold.
	AgentPostsPerPersonPost int
	AgentLoop               string
	// HibernateAfter is how long a seat stays idle before it sleeps
	// ("hibernate_after"; 0: never, the default).
	HibernateAfter time.Duration
	// PushURL is where a new needs-you item is POSTed ("" = off).
	PushURL string
}

// Account returns the account with id.
func (c Config) Account(id string) (Account, bool) {
	for _, a := range c.Accounts {
		if a.ID == id {
			return a, true
		}
	}
	return Account{}, false
}

// ErrConfig marks every problem Load reports; test with errors.Is.
var ErrConfig = errors.New("account config")

// ConfigError is one problem in the accounts file: which file, which entry
// and field, and why. Error never includes an env value.
type ConfigError struct {
	File string
	// Index is the entry's position in "accounts", -1 for the file itself.
	Index int
	// ID is the entry's id when it had a readable one.
	ID string
	// Field is the JSON field at fault, "" for the whole entry or file.
	Field  string
	Reason string
	// Skipped reports that the account was left out; otherwise it loaded
	// and only this field was ignored.
	Skipped bool
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Index >= 0 {
		fmt.Fprintf(&b, ": accounts[%d]", e.Index)
		if e.ID != "" {
			fmt.Fprintf(&b, " (id %q)", e.ID)
		}
	}
	if e.Field != "" {
		fmt.Fprintf(&b, ": field %q", e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	switch {
	case e.Index < 0:
	case e.Skipped:
		b.WriteString(" (account skipped)")
	case e.Field != "":
		b.WriteString(" (field ignored)")
	}
	return b.String()
}

// Unwrap makes every ConfigError match ErrConfig.
func (e *ConfigError) Unwrap() error { return ErrConfig }

// knownFields are the fields of an account entry.
var knownFields = []string{"id", "name", "kind", "command", "resume", "dir", "env", "hue", "nickname"}

// Limits on account fields.
const (
	MaxAccountIDLen = 64
	MaxNameRunes    = 64
)

// ValidAccountID reports whether id can name an account: 1 to 64 ASCII
// letters, digits, '-', '_' or '.', not starting with '.'.
func ValidAccountID(id string) bool {
	if id == "" || len(id) > MaxAccountIDLen || id[0] == '.' {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// Load reads the accounts file at path. It returns the valid accounts and a
// *ConfigError (matching ErrConfig) for each problem: a file that is not
// JSON loads no account; an entry with a bad field is skipped and the others
// load; an unknown field is reported and ignored. A missing file is no
// problem: the Config has Exists false. Load never writes.
func Load(path string) (Config, []error) {
	cfg := Config{Path: path, Notify: DefaultNotify, ReopenSeats: ReopenAuto, AgentPostsPerPersonPost: DefaultAgentPostsPerPersonPost, AgentLoop: AgentLoopTell}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return cfg, []error{&ConfigError{File: path, Index: -1, Reason: "cannot read: " + safefile.ErrText(err)}}
	}
	cfg.Exists = true
	doc, err := parseDoc(data)
	if err != nil {
		return cfg, []error{&ConfigError{File: path, Index: -1, Reason: err.Error()}}
	}
	notify, errs := parseNotify(doc.vals["notify"], path)
	cfg.Notify = notify
	reopen, rerrs := parseReopen(doc.vals["reopen_seats"], path)
	cfg.ReopenSeats, errs = reopen, append(errs, rerrs...)
	budget, loop, lerrs := parseLoop(doc.vals["agent_posts_per_person_post"], doc.vals["agent_loop"], path)
	cfg.AgentPostsPerPersonPost, cfg.AgentLoop, errs = budget, loop, append(errs, lerrs...)
	hib, herrs := parseHibernate(doc.vals["hibernate_after"], path)
	cfg.HibernateAfter, errs = hib, append(errs, herrs...)
	push, perrs := parsePushURL(doc.vals["push_url"], path)
	cfg.PushURL, errs = push, append(errs, perrs...)
	seen := map[string]int{}
	for i, raw := range doc.accounts {
		a, probs := parseAccount(raw)
		skip := false
		for _, p := range probs {
			skip = skip || p.fatal
		}
		if !skip {
			if first, dup := seen[a.ID]; dup {
				probs = append(probs, problem{field: "id", reason: fmt.Sprintf("duplicate id, first used by accounts[%d]", first), fatal: true})
				skip = true
			}
		}
		for _, p := range probs {
			errs = append(errs, &ConfigError{File: path, Index: i, ID: a.ID, Field: p.field, Reason: p.reason, Skipped: skip})
		}
		if skip {
			continue
		}
		seen[a.ID] = i
		cfg.Accounts = append(cfg.Accounts, a)
	}
	if slices.ContainsFunc(cfg.Accounts, func(a Account) bool { return len(a.Env) > 0 }) {
		if why := safefile.ReadableByOthers(path); why != "" {
			errs = append(errs, &ConfigError{File: path, Index: -1, Reason: why})
		}
	}
	return cfg, errs
}

// problem is one finding about one entry.
type problem struct {
	field, reason string
	fatal         bool
}

// parseAccount reads one entry and checks every field.
func parseAccount(raw json.RawMessage) (Account, []problem) {
	var a Account
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return a, []problem{{reason: "not a JSON object", fatal: true}}
	}
	var probs []problem
	bad := func(field, reason string) { probs = append(probs, problem{field: field, reason: reason, fatal: true}) }
	ignored := func(field, reason string) { probs = append(probs, problem{field: field, reason: reason}) }
	str := func(field string, required bool) (string, bool) {
		v, ok := fields[field]
		if !ok || string(v) == "null" {
			if required {
				bad(field, "missing")
			}
			return "", false
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			bad(field, "must be a string")
			return "", false
		}
		return s, true
	}

	if id, ok := str("id", true); ok {
		a.ID = id
		if !ValidAccountID(id) {
			bad("id", "must be 1-64 characters of A-Z a-z 0-9 - _ . (not starting with .)")
		}
	}
	if name, ok := str("name", true); ok {
		a.Name = strings.TrimSpace(name)
		if r := checkLabel(a.Name); r != "" {
			bad("name", r)
		}
	}
	if kind, ok := str("kind", true); ok {
		a.Kind = Kind(kind)
		if !a.Kind.Valid() {
			bad("kind", fmt.Sprintf("unknown kind %q (want one of claude_code, codex, cli, mcp)", kind))
		}
	}
	if nick, ok := str("nickname", false); ok {
		a.Nickname = strings.TrimSpace(nick)
		if a.Nickname != "" {
			if r := checkLabel(a.Nickname); r != "" {
				bad("nickname", r)
			}
		}
	}
	if cmd, ok := str("command", false); ok {
		a.Command = cmd
		if r := checkLine(a.Kind, cmd, false); r != "" {
			bad("command", r)
		}
	} else if a.Kind == KindCLI {
		if _, present := fields["command"]; !present || string(fields["command"]) == "null" {
			bad("command", "missing (a cli account must say what to run)")
		}
	}
	if res, ok := str("resume", false); ok && res != "" {
		switch a.Kind {
		case KindCLI:
			a.Resume = res
			if r := checkLine(a.Kind, res, true); r != "" {
				bad("resume", r)
			}
		case KindClaudeCode, KindCodex:
			ignored("resume", fmt.Sprintf("kind %s knows its own resume line (%s); only a cli account sets one", a.Kind, a.Kind.ResumeLine()))
		default:
			ignored("resume", fmt.Sprintf("kind %s is not launched", a.Kind))
		}
	}
	if dir, ok := str("dir", false); ok && dir != "" {
		a.Dir = dir
		if !(filepath.IsAbs(dir) || dir == "~" || strings.HasPrefix(dir, "~/")) {
			bad("dir", "must be an absolute path or start with ~/")
		}
	}
	if v, ok := fields["env"]; ok && string(v) != "null" {
		var env map[string]json.RawMessage
		if err := json.Unmarshal(v, &env); err != nil {
			bad("env", "must be an object of string values")
		} else {
			a.Env = make(map[string]string, len(env))
			for k, rv := range env {
				var s string
				if err := json.Unmarshal(rv, &s); err != nil {
					bad("env", fmt.Sprintf("value of %q must be a string", k))
					continue
				}
				if r := checkEnvKey(k); r != "" {
					bad("env", r)
					continue
				}
				if strings.IndexByte(s, 0) >= 0 {
					bad("env", fmt.Sprintf("value of %q holds a NUL byte", k))
					continue
				}
				a.Env[k] = s
			}
		}
	}
	if v, ok := fields["hue"]; ok && string(v) != "null" {
		var h float64
		if err := json.Unmarshal(v, &h); err != nil {
			bad("hue", "must be a number of degrees")
		} else if math.IsNaN(h) || h < 0 || h > 360 {
			bad("hue", "must be between 0 and 360")
		} else {
			a.Hue = &h
		}
	}
	for k := range fields {
		if !slices.Contains(knownFields, k) {
			ignored(k, "unknown field")
		}
	}
	sortProblems(probs)
	return a, probs
}

// sortProblems orders problems by field (in knownFields order, unknown
// fields last) so reports are stable.
func sortProblems(ps []problem) {
	order := func(f string) int {
		if i := slices.Index(knownFields, f); i >= 0 {
			return i
		}
		return len(knownFields)
	}
	slices.SortStableFunc(ps, func(a, b problem) int {
		if c := cmp.Compare(order(a.field), order(b.field)); c != 0 {
			return c
		}
		return strings.Compare(a.field, b.field)
	})
}

// checkLabel checks a name or nickname: not empty, one line, not too long.
func checkLabel(s string) string {
	if s == "" {
		return "empty"
	}
	if len([]rune(s)) > MaxNameRunes {
		return fmt.Sprintf("longer than %d characters", MaxNameRunes)
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return "holds a control character"
		}
	}
	return ""
}

// checkLine checks a command (resume false) or resume line.
func checkLine(k Kind, line string, resume bool) string {
	words, err := splitWords(line)
	if err != nil {
		return err.Error()
	}
	if len(words) == 0 {
		if resume || k == KindCLI {
			return "empty"
		}
		return "" // "": the kind's default
	}
	hasID := strings.Contains(line, SessionIDPlaceholder)
	switch {
	case resume && !hasID:
		return "must hold " + SessionIDPlaceholder
	case !resume && hasID && k.NamesCLI():
		return fmt.Sprintf("must not hold %s: kind %s hands out the id itself", SessionIDPlaceholder, k)
	case strings.Contains(line, MCPConfigPlaceholder) && k != KindCLI:
		return fmt.Sprintf("%s is for cli accounts only (kind %s is registered by its own flags)", MCPConfigPlaceholder, k)
	case strings.Contains(words[0], "{"):
		return "the program (first word) cannot be a placeholder"
	}
	return ""
}

// checkEnvKey checks an environment variable name.
func checkEnvKey(k string) string {
	if k == "" || strings.ContainsAny(k, "=\x00") {
		return fmt.Sprintf("key %q is not a variable name", k)
	}
	return ""
}

// configDoc is the accounts file as written: its top-level keys in order,
// with the accounts kept as raw entries so that rewriting the file keeps
// every entry and key it had, readable or not.
type configDoc struct {
	keys     []string
	vals     map[string]json.RawMessage
	accounts []json.RawMessage
}

// parseDoc reads the file's JSON: an object whose "accounts", if present, is
// an array.
func parseDoc(data []byte) (*configDoc, error) {
	keys, vals, err := parseObject(data)
	if err != nil {
		return nil, err
	}
	doc := &configDoc{keys: keys, vals: vals}
	if raw, ok := doc.vals["accounts"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &doc.accounts); err != nil {
			return nil, errors.New(`field "accounts" must be an array of account objects`)
		}
	}
	return doc, nil
}

// parseObject reads a JSON object's keys in order and their raw values.
func parseObject(data []byte) ([]string, map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	doc := &configDoc{vals: map[string]json.RawMessage{}}
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, fmt.Errorf("not JSON: %s", jsonErr(err, data))
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, errors.New(`not a JSON object (want {"accounts": [...]})`)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, fmt.Errorf("not JSON: %s", jsonErr(err, data))
		}
		key := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, fmt.Errorf("not JSON: %s", jsonErr(err, data))
		}
		if _, dup := doc.vals[key]; !dup {
			doc.keys = append(doc.keys, key)
		}
		doc.vals[key] = raw
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, fmt.Errorf("not JSON: %s", jsonErr(err, data))
	}
	if _, err := dec.Token(); err == nil {
		return nil, nil, errors.New("not JSON: data after the top-level object")
	}
	return doc.keys, doc.vals, nil
}

// jsonErr describes a decoding error with its line and column.
func jsonErr(err error, data []byte) string {
	var se *json.SyntaxError
	off := int64(-1)
	if errors.As(err, &se) {
		off = se.Offset
	}
	if off < 0 {
		return err.Error()
	}
	line, col := 1, 1
	for i := int64(0); i < off && i < int64(len(data)); i++ {
		if data[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("%v (line %d, column %d)", err, line, col)
}

// encode writes the document back, indented, with its keys in their order.
func (d *configDoc) encode() ([]byte, error) {
	accounts := d.accounts
	if accounts == nil {
		accounts = []json.RawMessage{}
	}
	raw, err := json.Marshal(accounts)
	if err != nil {
		return nil, err
	}
	if _, ok := d.vals["accounts"]; !ok {
		d.keys = append(d.keys, "accounts")
	}
	d.vals["accounts"] = raw
	b := encodeObject(d.keys, d.vals)
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// encodeObject writes a JSON object with its keys in order.
func encodeObject(keys []string, vals map[string]json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteString("{")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(",")
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteString(":")
		b.Write(vals[k])
	}
	b.WriteString("}")
	return b.Bytes()
}

// rawID is the id of a raw entry, "" when it has none readable.
func rawID(raw json.RawMessage) string {
	var e struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(raw, &e) != nil {
		return ""
	}
	s, _ := e.ID.(string)
	return s
}

// writeConfig replaces the file at path with data (mode 0600).
func writeConfig(path string, data []byte) error { return safefile.Replace(path, data) }

// createConfig writes data to path only if it does not exist yet: a file
// someone wrote meanwhile is never replaced.
func createConfig(path string, data []byte) (bool, error) { return safefile.Create(path, data) }

// detected is a CLI the first run looks for on PATH.
type detected struct {
	id, name string
	kind     Kind
}

var firstRunCLIs = []detected{
	{"claude", "Claude", KindClaudeCode},
	{"codex", "Codex", KindCodex},
}

// AddHint tells a person how to add an account.
func AddHint(path string) string {
	return fmt.Sprintf("add one with `pullcept accounts add --kind claude_code` (or codex, or --kind cli --id ID --name NAME --command CMD), or edit %s", path)
}

// LoadOrDetect is Load, except on the first run: when there is no file at
// path, it looks for `claude` and `codex` with lookPath (exec.LookPath in
// production), writes an account for each one found (mode 0600) so the
// person can edit them, and returns them. With neither found it writes
// nothing and the room works for the person alone. notice is one line for
// the person saying what happened ("" when the file existed).
func LoadOrDetect(path string, lookPath func(string) (string, error)) (cfg Config, notice string, errs []error) {
	if _, err := os.Lstat(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		cfg, errs = Load(path)
		return cfg, "", errs
	}
	var entries []json.RawMessage
	var found []string
	for _, c := range firstRunCLIs {
		if _, err := lookPath(c.kind.DefaultCommand()); err != nil {
			continue
		}
		raw, _ := json.Marshal(Account{ID: c.id, Name: c.name, Kind: c.kind, Command: c.kind.DefaultCommand()})
		entries = append(entries, raw)
		found = append(found, c.kind.DefaultCommand())
	}
	if len(entries) == 0 {
		return Config{Path: path, Notify: DefaultNotify, ReopenSeats: ReopenAuto, AgentPostsPerPersonPost: DefaultAgentPostsPerPersonPost, AgentLoop: AgentLoopTell}, "No AI CLI found on PATH (looked for claude and codex): the room works for you alone; " + AddHint(path) + ".", nil
	}
	doc := &configDoc{vals: map[string]json.RawMessage{}, accounts: entries}
	data, err := doc.encode()
	if err != nil {
		return Config{Path: path, Notify: DefaultNotify, ReopenSeats: ReopenAuto, AgentPostsPerPersonPost: DefaultAgentPostsPerPersonPost, AgentLoop: AgentLoopTell}, "", []error{err}
	}
	created, err := createConfig(path, data)
	if err != nil {
		return Config{Path: path, Notify: DefaultNotify, ReopenSeats: ReopenAuto, AgentPostsPerPersonPost: DefaultAgentPostsPerPersonPost, AgentLoop: AgentLoopTell}, "", []error{&ConfigError{File: path, Index: -1, Reason: "cannot create: " + safefile.ErrText(err)}}
	}
	cfg, errs = Load(path)
	if !created {
		return cfg, "", errs
	}
	return cfg, fmt.Sprintf("Found %s on PATH and wrote %s to %s; edit it or use `pullcept accounts` to change them.",
		strings.Join(found, " and "), plural(len(found), "an account", strconv.Itoa(len(found))+" accounts"), path), errs
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// readDoc reads the file for an edit: a missing file is an empty document; a
// file that is not readable JSON is refused, so it is never overwritten.
func readDoc(path string) (*configDoc, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &configDoc{vals: map[string]json.RawMessage{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read: %s", path, safefile.ErrText(err))
	}
	doc, err := parseDoc(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v; fix or move the file first (nothing was written)", path, err)
	}
	return doc, nil
}

// MissingDirs names the accounts whose working folder does not exist (their
// seat cannot start until it does); home is ~ ("" = the user's).
func MissingDirs(accounts []Account, home string) []string {
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	var out []string
	for _, a := range accounts {
		if a.Dir == "" {
			continue
		}
		d := expandHome(a.Dir, home)
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			out = append(out, fmt.Sprintf("account %s: dir %s does not exist (its seat cannot start until it does)", a.ID, a.Dir))
		}
	}
	return out
}

// SetNickname saves account id's nickname in the file at path ("" removes
// the key: the room then calls the account by its name), keeping every
// other entry, key and key order.
func SetNickname(path, id, nickname string) error {
	nickname = strings.TrimSpace(nickname)
	if nickname != "" {
		if r := checkLabel(nickname); r != "" {
			return fmt.Errorf("nickname %s", r)
		}
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s does not exist", path)
	}
	doc, err := readDoc(path)
	if err != nil {
		return err
	}
	found := false
	for i, e := range doc.accounts {
		if rawID(e) != id {
			continue
		}
		keys, vals, err := parseObject(e)
		if err != nil {
			return fmt.Errorf("%s: account %s: %v", path, id, err)
		}
		if _, had := vals["nickname"]; !had && nickname != "" {
			keys = append(keys, "nickname")
		}
		if nickname == "" {
			keys = slices.DeleteFunc(keys, func(k string) bool { return k == "nickname" })
			delete(vals, "nickname")
		} else {
			vals["nickname"], _ = json.Marshal(nickname)
		}
		doc.accounts[i] = encodeObject(keys, vals)
		found = true
	}
	if !found {
		return fmt.Errorf("no account with id %q in %s", id, path)
	}
	data, err := doc.encode()
	if err != nil {
		return err
	}
	return writeConfig(path, data)
}

// MCPAccount is the account of a local MCP server (mcp-servers.json's
// entry Server): id mcp-<Server>, named after the entry.
type MCPAccount struct{ ID, Name string }

// EnsureMCPAccounts adds an mcp account for each of want whose id the file
// at path does not have (spec 003 "ローカル MCP サーバ", migrate_accounts:
// only the id, the name and no colour; an account already there keeps its
// name and colour), keeping every other entry and key. It returns the ids
// added; nothing is written when none is missing.
func EnsureMCPAccounts(path string, want []MCPAccount) ([]string, error) {
	doc, err := readDoc(path)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, e := range doc.accounts {
		have[rawID(e)] = true
	}
	var added []string
	for _, w := range want {
		if have[w.ID] || !ValidAccountID(w.ID) {
			continue
		}
		raw, err := json.Marshal(Account{ID: w.ID, Name: w.Name, Kind: KindMCP})
		if err != nil {
			return nil, err
		}
		doc.accounts = append(doc.accounts, raw)
		have[w.ID] = true
		added = append(added, w.ID)
	}
	if len(added) == 0 {
		return nil, nil
	}
	data, err := doc.encode()
	if err != nil {
		return nil, err
	}
	return added, writeConfig(path, data)
}

// AddAccount adds a to the file at path (kept as the other entries are);
// an id already there is refused.
func AddAccount(path string, a Account) error {
	raw, err := json.Marshal(a)
	if err != nil {
		return err
	}
	parsed, probs := parseAccount(raw)
	if len(probs) > 0 {
		var msgs []string
		for _, p := range probs {
			msgs = append(msgs, fmt.Sprintf("%s: %s", p.field, p.reason))
		}
		return errors.New(strings.Join(msgs, "; "))
	}
	doc, err := readDoc(path)
	if err != nil {
		return err
	}
	for i, e := range doc.accounts {
		if rawID(e) == parsed.ID {
			return &IDTakenError{ID: parsed.ID, Path: path, Index: i}
		}
	}
	doc.accounts = append(doc.accounts, raw)
	data, err := doc.encode()
	if err != nil {
		return err
	}
	return writeConfig(path, data)
}

// RemoveAccount takes account id out of the file at path, keeping every
// other entry and key.
func RemoveAccount(path, id string) error {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("accounts remove: %s does not exist", path)
	}
	doc, err := readDoc(path)
	if err != nil {
		return err
	}
	kept := doc.accounts[:0:0]
	for _, e := range doc.accounts {
		if rawID(e) != id {
			kept = append(kept, e)
		}
	}
	if len(kept) == len(doc.accounts) {
		return fmt.Errorf("accounts remove: no account with id %q in %s", id, path)
	}
	doc.accounts = kept
	data, err := doc.encode()
	if err != nil {
		return err
	}
	return writeConfig(path, data)
}

// FieldProblem is what CheckAccount finds wrong with one field ("" for the
// entry as a whole).
type FieldProblem struct{ Field, Reason string }

// CheckAccount checks a as Load would read it from the file and returns it
// as read (a Kind's defaults applied) with its problems.
func CheckAccount(a Account) (Account, []FieldProblem, error) {
	raw, err := json.Marshal(a)
	if err != nil {
		return Account{}, nil, err
	}
	parsed, probs := parseAccount(raw)
	var out []FieldProblem
	for _, p := range probs {
		out = append(out, FieldProblem{p.field, p.reason})
	}
	return parsed, out, nil
}

// IDTakenError is AddAccount's refusal of an id the file already has, at
// accounts[Index].
type IDTakenError struct {
	ID, Path string
	Index    int
}

func (e *IDTakenError) Error() string { return fmt.Sprintf("id %q is taken in %s", e.ID, e.Path) }

// KindDefaults is the id and name an account of kind k takes when none is
// given (claude_code and codex: those of the first run); "" for other kinds.
func KindDefaults(k Kind) (id, name string) {
	for _, c := range firstRunCLIs {
		if c.kind == k {
			return c.id, c.name
		}
	}
	return "", ""
}

// MissingProgram is the program a's launch line runs when lookPath does not
// find it now ("" when it does, or a's kind launches nothing).
func MissingProgram(a Account, lookPath func(string) (string, error)) string {
	if !a.Kind.Launchable() || lookPath == nil {
		return ""
	}
	if words, err := splitWords(a.CommandLine()); err == nil && len(words) > 0 {
		if _, err := lookPath(expandHome(words[0], "")); err != nil {
			return words[0]
		}
	}
	return ""
}

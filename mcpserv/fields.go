package mcpserv

// The server's fields as text (spec 003 "ローカル MCP サーバ": 欄はテキストで
// あり、読むのはアプリの側である): arguments one a line, never split, so a
// path with spaces stays one; variables NAME=value a line, split at the
// first =, a value wholly inside one pair of quotes unquoted; a line
// without =, without a name, with a space in its name, or a name written
// twice is refused with its line number. The screen shows what Text
// writes and hands back what was typed; the reading is here only.

import (
	"fmt"
	"strings"
	"unicode"
)

// ParseArgs reads the arguments field: one argument a line, as written
// (only a line's trailing \r goes); blank lines at the end are dropped.
func ParseArgs(text string) []string {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return nil
	}
	return lines
}

// ParseEnv reads the variables field. first is the line number of its first
// line in the text the person edited (for the errors); blank lines are
// skipped.
func ParseEnv(text string, first int) (map[string]string, []error) {
	env := map[string]string{}
	seen := map[string]int{}
	var errs []error
	for i, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		n := first + i
		if strings.TrimSpace(line) == "" {
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		switch {
		case !ok:
			errs = append(errs, &FieldError{Field: "env", Line: n, Reason: "no = (write NAME=value)"})
			continue
		case strings.TrimSpace(name) == "":
			errs = append(errs, &FieldError{Field: "env", Line: n, Reason: "no name before ="})
			continue
		case strings.IndexFunc(name, unicode.IsSpace) >= 0:
			errs = append(errs, &FieldError{Field: "env", Line: n, Reason: fmt.Sprintf("the name %q holds a space", name)})
			continue
		case strings.IndexByte(line, 0) >= 0:
			errs = append(errs, &FieldError{Field: "env", Line: n, Reason: "holds a NUL byte"})
			continue
		}
		if at, dup := seen[name]; dup {
			errs = append(errs, &FieldError{Field: "env", Line: n, Reason: fmt.Sprintf("%s is written twice (first on line %d)", name, at)})
			continue
		}
		seen[name] = n
		env[name] = unquote(value)
	}
	return env, errs
}

// unquote takes off one pair of quotes around the whole value.
func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		return v[1 : len(v)-1]
	}
	return v
}

// Form is a new server as the person writes it: the account's name, and the
// entry's fields.
type Form struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string
}

// Form section headers.
const (
	formArgs = "[args]"
	formEnv  = "[env]"
)

// FormText is the text the person edits to create a server: "name =" and
// "command =" lines, then the [args] lines and the [env] lines; lines
// starting with # are notes.
func FormText(f Form, path string) string {
	var b strings.Builder
	b.WriteString("# A new local MCP server for pullcept. Save and quit to create it, or empty\n")
	b.WriteString("# the name to cancel. Only its entry is written to " + path + ";\n")
	b.WriteString("# its account (the name and colour it speaks with) goes to config.json.\n")
	b.WriteString("# Lines starting with # are ignored.\n")
	b.WriteString("name = " + f.Name + "\n")
	b.WriteString("# the program, run without a shell (found on PATH, or an absolute path)\n")
	b.WriteString("command = " + f.Command + "\n")
	b.WriteString("# one argument a line, as it is (spaces included)\n")
	b.WriteString(formArgs + "\n")
	for _, a := range f.Args {
		b.WriteString(a + "\n")
	}
	b.WriteString("# NAME=value a line, added to pullcept's environment (values stay in the file)\n")
	b.WriteString(formEnv + "\n")
	for _, k := range sortedKeys(f.Env) {
		b.WriteString(k + "=" + f.Env[k] + "\n")
	}
	return b.String()
}

// ParseForm reads FormText's text back. Errors name the line.
func ParseForm(text string) (Form, []error) {
	var f Form
	var errs []error
	section := ""
	var args []string
	var envLines []string
	envFirst := 0
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i, line := range lines {
		n := i + 1
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			if section == "env" {
				envLines = append(envLines, "") // keeps the line numbers
			}
			continue
		}
		switch strings.TrimSpace(line) {
		case formArgs:
			section = "args"
			continue
		case formEnv:
			section, envFirst = "env", n+1
			continue
		}
		switch section {
		case "args":
			args = append(args, line)
			continue
		case "env":
			envLines = append(envLines, line)
			continue
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		switch {
		case !ok:
			errs = append(errs, &FieldError{Line: n, Reason: "want name = …, command = …, then [args] and [env]"})
		case key == "name":
			f.Name = value
		case key == "command":
			f.Command = value
		default:
			errs = append(errs, &FieldError{Line: n, Reason: fmt.Sprintf("unknown field %q (name, command, [args], [env])", key)})
		}
	}
	f.Args = ParseArgs(strings.Join(args, "\n"))
	env, eerrs := ParseEnv(strings.Join(envLines, "\n"), envFirst)
	errs = append(errs, eerrs...)
	if len(env) > 0 {
		f.Env = env
	}
	if f.Name == "" {
		return f, errs
	}
	if r := checkCommand(f.Command); r != "" {
		errs = append(errs, &FieldError{Field: "command", Reason: r})
	}
	return f, errs
}

// NewEntryName is the entry name for a new server whose account is called
// name (spec: mcp_servers::new_entry_name): white space becomes -, other
// characters an account id cannot hold too (an all-blank name is
// mcp-server); a used name gets -2, -3, …. used says whether a name is
// taken: an entry of the file, the server an mcp account still names, or
// an account id mcp-<name> already given.
func NewEntryName(name string, used func(string) bool) string {
	var b strings.Builder
	for _, r := range strings.TrimSpace(name) {
		switch {
		case r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.'):
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	base := strings.Trim(b.String(), "-.")
	for strings.Contains(base, "--") {
		base = strings.ReplaceAll(base, "--", "-")
	}
	if base == "" {
		base = "mcp-server"
	}
	if len(base) > MaxNameLen-4 {
		base = base[:MaxNameLen-4]
	}
	cand := base
	for i := 2; used(cand); i++ {
		cand = fmt.Sprintf("%s-%d", base, i)
	}
	return cand
}

package cli

// `pullcept accounts`: the accounts file listed and edited from the command
// line. The accounts themselves (reading, checking, rewriting the file
// keeping every entry) are package seat's.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rivo/uniseg"

	"pullcept/seat"
)

// accountsUsage is the help of `pullcept accounts`.
const accountsUsage = `usage:
  pullcept accounts list
  pullcept accounts add --kind KIND [--id ID] [--name NAME] [--nickname NICK]
                        [--command LINE] [--resume LINE] [--dir DIR]
                        [--env KEY=VALUE | --env KEY]... [--hue DEGREES]
  pullcept accounts remove ID
  pullcept accounts nickname ID [NICK]   what the room calls it (no NICK: its name)

Kinds: claude_code and codex know their CLI (default command claude / codex,
id and resume manners); cli runs any command: write {session_id} in --command
to hand it a new session id, --resume 'LINE {session_id}' to resume, and
{mcp_config} for the room's MCP registration file (also in $PULLCEPT_MCP_CONFIG).
--env KEY takes the value from your environment, so it stays out of your shell
history. Env values are never printed.
`

// accountsCommand runs `pullcept accounts list|add|remove` on the accounts
// file at configPath, printing to stdout. lookPath (exec.LookPath in
// production) checks that an added command exists. add and remove rewrite
// the file (mode 0600) keeping every other entry and key as it was, even
// entries Load skips; they refuse to touch a file that is not JSON.
func accountsCommand(args []string, configPath string, stdout io.Writer, lookPath func(string) (string, error)) error {
	sub := "list"
	if len(args) > 0 {
		sub, args = args[0], args[1:]
	}
	switch sub {
	case "list", "ls":
		if len(args) > 0 {
			return fmt.Errorf("accounts list takes no arguments")
		}
		return listAccounts(configPath, stdout)
	case "add":
		return addAccount(args, configPath, stdout, lookPath)
	case "remove", "rm":
		if len(args) != 1 {
			return fmt.Errorf("accounts remove takes one account id")
		}
		return removeAccount(args[0], configPath, stdout)
	case "nickname", "nick":
		return nicknameCommand(args, configPath, stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, accountsUsage)
		return nil
	}
	fmt.Fprint(stdout, accountsUsage)
	return fmt.Errorf("unknown accounts command %q", sub)
}

func listAccounts(path string, w io.Writer) error {
	cfg, errs := seat.Load(path)
	if !cfg.Exists {
		fmt.Fprintf(w, "No accounts: %s does not exist (pullcept writes it on its first run when claude or codex is on PATH).\n%s.\n", path, capitalize(seat.AddHint(path)))
		return nil
	}
	fmt.Fprintf(w, "Accounts in %s:\n", path)
	if len(cfg.Accounts) == 0 {
		fmt.Fprintf(w, "  (none) %s\n", seat.AddHint(path))
	} else {
		rows := [][]string{{"ID", "NAME", "KIND", "COMMAND", "RESUME", "DIR", "ENV (keys)", "HUE"}}
		for _, a := range cfg.Accounts {
			name := a.Name
			if a.Nickname != "" {
				name = fmt.Sprintf("%s (%s)", a.Nickname, a.Name)
			}
			cmd := a.Command
			if strings.TrimSpace(cmd) == "" {
				cmd = a.Kind.DefaultCommand() + " (default)"
			}
			keys := make([]string, 0, len(a.Env))
			for k := range a.Env {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			hue := "-"
			if a.Hue != nil {
				hue = strconv.FormatFloat(*a.Hue, 'f', -1, 64)
			}
			rows = append(rows, []string{a.ID, name, string(a.Kind), dash(cmd), dash(a.ResumeLine()), dash(a.Dir), dash(strings.Join(keys, ",")), hue})
		}
		if err := writeTable(w, rows); err != nil {
			return err
		}
	}
	for _, m := range seat.MissingDirs(cfg.Accounts, "") {
		fmt.Fprintf(w, "problem: %s\n", m)
	}
	for _, e := range errs {
		fmt.Fprintf(w, "problem: %v\n", e)
	}
	return nil
}

func dash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// envFlag collects repeated --env values.
type envFlag []string

func (e *envFlag) String() string     { return strings.Join(*e, ",") }
func (e *envFlag) Set(v string) error { *e = append(*e, v); return nil }

func addAccount(args []string, path string, w io.Writer, lookPath func(string) (string, error)) error {
	set := flag.NewFlagSet("accounts add", flag.ContinueOnError)
	set.SetOutput(w)
	var a seat.Account
	var kind, hue string
	var env envFlag
	set.StringVar(&a.ID, "id", "", "account id (default: claude / codex for those kinds)")
	set.StringVar(&a.Name, "name", "", "name (default: Claude / Codex for those kinds)")
	set.StringVar(&kind, "kind", "", "claude_code, codex, cli or mcp")
	set.StringVar(&a.Nickname, "nickname", "", "what the room calls it")
	set.StringVar(&a.Command, "command", "", "launch line (default: the kind's)")
	set.StringVar(&a.Resume, "resume", "", "resume line of a cli account, with {session_id}")
	set.StringVar(&a.Dir, "dir", "", "working directory")
	set.Var(&env, "env", "KEY=VALUE, or KEY to take the value from your environment (repeatable)")
	set.StringVar(&hue, "hue", "", "colour in degrees, 0-360")
	if err := set.Parse(args); err != nil {
		return err
	}
	if set.NArg() > 0 {
		return fmt.Errorf("accounts add: unexpected argument %q", set.Arg(0))
	}
	a.Kind = seat.Kind(kind)
	if kind == "" {
		return errors.New("accounts add: --kind is required (claude_code, codex, cli or mcp)")
	}
	if id, name := seat.KindDefaults(a.Kind); id != "" {
		if a.ID == "" {
			a.ID = id
		}
		if a.Name == "" {
			a.Name = name
		}
	}
	if a.Dir != "" && !strings.HasPrefix(a.Dir, "~") && !filepath.IsAbs(a.Dir) {
		abs, err := filepath.Abs(a.Dir)
		if err != nil {
			return fmt.Errorf("accounts add: --dir: %w", err)
		}
		a.Dir = abs
	}
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			v, ok = os.LookupEnv(k)
			if !ok {
				return fmt.Errorf("accounts add: --env %s: not set in your environment (give KEY=VALUE)", k)
			}
		}
		if a.Env == nil {
			a.Env = map[string]string{}
		}
		a.Env[k] = v
	}
	if hue != "" {
		h, err := strconv.ParseFloat(hue, 64)
		if err != nil {
			return fmt.Errorf("accounts add: --hue %q: not a number of degrees", hue)
		}
		a.Hue = &h
	}
	parsed, probs, err := seat.CheckAccount(a)
	if err != nil {
		return fmt.Errorf("accounts add: %w", err)
	}
	if len(probs) > 0 {
		var msgs []string
		for _, p := range probs {
			msgs = append(msgs, fmt.Sprintf("%s: %s", flagName(p.Field), p.Reason))
		}
		return fmt.Errorf("accounts add: %s", strings.Join(msgs, "; "))
	}
	if err := seat.AddAccount(path, a); err != nil {
		if taken, ok := errors.AsType[*seat.IDTakenError](err); ok {
			return fmt.Errorf("accounts add: id %q is taken by accounts[%d] in %s (choose another with --id)", taken.ID, taken.Index, path)
		}
		return err
	}
	fmt.Fprintf(w, "Added account %s (%s) to %s.\n", parsed.ID, parsed.Kind, path)
	for _, m := range seat.MissingDirs([]seat.Account{parsed}, "") {
		fmt.Fprintf(w, "warning: %s.\n", m)
	}
	if prog := seat.MissingProgram(parsed, lookPath); prog != "" {
		fmt.Fprintf(w, "warning: %s is not found on PATH now; the seat will fail to start until it is.\n", prog)
	}
	return nil
}

// writeTable writes rows as columns two spaces apart, measured in cells
// (a CJK name takes two per character: tabwriter counts runes and
// misaligned them).
func writeTable(w io.Writer, rows [][]string) error {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], uniseg.StringWidth(c))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		for i, c := range r {
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-uniseg.StringWidth(c)+2))
			}
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// flagName is the command-line flag for a JSON field.
func flagName(field string) string {
	if field == "" {
		return "account"
	}
	return "--" + field
}

func removeAccount(id, path string, w io.Writer) error {
	if err := seat.RemoveAccount(path, id); err != nil {
		return err
	}
	fmt.Fprintf(w, "Removed account %s from %s.\n", id, path)
	return nil
}

func nicknameCommand(args []string, path string, w io.Writer) error {
	if len(args) < 1 || len(args) > 2 {
		return fmt.Errorf("accounts nickname takes an account id and the nickname (none: clear it)")
	}
	nick := ""
	if len(args) == 2 {
		nick = args[1]
	}
	if err := seat.SetNickname(path, args[0], nick); err != nil {
		return fmt.Errorf("accounts nickname: %w", err)
	}
	if strings.TrimSpace(nick) == "" {
		fmt.Fprintf(w, "Cleared the nickname of %s in %s: the room calls it by its name.\n", args[0], path)
	} else {
		fmt.Fprintf(w, "The room now calls %s %q (%s).\n", args[0], strings.TrimSpace(nick), path)
	}
	return nil
}

// Command pullcept is a room where one person and several AI coding CLIs
// talk together. main wires the packages; each subcommand builds one thing.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime/debug"
	"syscall"

	"pullcept/app"
	"pullcept/control"
	"pullcept/dirs"
	"pullcept/room/wire"
	"pullcept/seat"
	"pullcept/topicstore"
	"pullcept/tui"
)

const usage = `pullcept — a room for one person and several AI coding CLIs

usage:
  pullcept                          the terminal UI (prefix key Ctrl-b, then ? for help)
  pullcept serve                    headless control mode: JSON lines on stdin/stdout (docs/control.md)
  pullcept sidecar                  the room's MCP server on stdio (launched by a CLI, not by you)
  pullcept hook EVENT               report a seat's hook event to the room (run by a seat's CLI)
  pullcept accounts list|add|remove the accounts in config.json (pullcept accounts help)
  pullcept topics list [--json]     list topics
  pullcept version                  the build (module version, commit, protocol)
  pullcept topics show ID [--tail N] [--json]
                                    print a topic's posts
Data lives under $PULLCEPT_HOME, else the XDG folders (README).
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "pullcept:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd := ""
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(ctx, stdin, stdout)
	case "sidecar":
		return runSidecar(ctx, stdin, stdout, stderr)
	case "hook":
		return runHook(ctx, args, stdin, stdout, stderr)
	case "topics":
		return topics(args, stdout)
	case "accounts":
		d, err := dirs.Resolve(os.Getenv)
		if err != nil {
			return err
		}
		return seat.AccountsCommand(args, d.ConfigFile(), stdout, exec.LookPath)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	case "version", "--version", "-V":
		fmt.Fprintln(stdout, version())
		return nil
	case "":
		return runTUI(ctx)
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("unknown command %q", cmd)
	}
}

func personName() string {
	if n := os.Getenv("PULLCEPT_NAME"); n != "" {
		return n
	}
	if n := os.Getenv("USER"); n != "" {
		return n
	}
	return "you"
}

// startApp starts the run for this process's home.
func startApp(ctx context.Context) (*app.App, error) {
	d, err := dirs.Resolve(os.Getenv)
	if err != nil {
		return nil, err
	}
	return app.Start(ctx, app.Options{Dirs: d, PersonName: personName()})
}

func serve(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	a, err := startApp(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	return (&control.Server{App: a}).Serve(ctx, stdin, stdout)
}

// runTUI is `pullcept`: the terminal UI on this process's terminal.
func runTUI(ctx context.Context) error {
	a, err := startApp(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	o := tui.Options{App: a, Prefix: os.Getenv("PULLCEPT_PREFIX"), Status: a.Notice()}
	if len(a.Accounts()) > 0 {
		o.Seats = tuiSeats{a}
	}
	return tui.Run(ctx, o)
}

func topics(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: pullcept topics list [--json] | show ID [--tail N] [--json]")
	}
	d, err := dirs.Resolve(os.Getenv)
	if err != nil {
		return err
	}
	store, err := topicstore.Open(d.Logs())
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("topics "+args[0], flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	tail := fs.Int("tail", 0, "only the last N posts")
	switch args[0] {
	case "list":
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		return listTopics(store, *asJSON, stdout)
	case "show":
		if len(args) < 2 {
			return errors.New("usage: pullcept topics show ID [--tail N] [--json]")
		}
		if err := fs.Parse(args[2:]); err != nil {
			return err
		}
		return showTopic(store, args[1], *tail, *asJSON, stdout)
	default:
		return fmt.Errorf("unknown topics command %q (want list or show)", args[0])
	}
}

// version names this build: the module's version and commit from the
// build info (a plain `go build` in a checkout records the commit), and the
// room protocol it speaks.
func version() string {
	v, commit, dirty := "(devel)", "", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	out := "pullcept " + v
	if commit != "" {
		if len(commit) > 12 {
			commit = commit[:12]
		}
		out += " " + commit
		if dirty {
			out += "+dirty"
		}
	}
	return fmt.Sprintf("%s (room protocol %d)", out, wire.ProtocolVersion)
}

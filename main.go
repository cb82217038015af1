// Command pullcept is a room where one person and several AI coding CLIs
// talk together. main wires the packages; each subcommand builds one thing.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"

	"pullcept/control"
	"pullcept/dirs"
	"pullcept/room"
	"pullcept/room/socket"
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
	case "":
		return runTUI(ctx)
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("unknown command %q", cmd)
	}
}

// openLog opens the app's own log under the state folder.
func openLog(d dirs.Dirs) (*slog.Logger, func(), error) {
	f, err := os.OpenFile(filepath.Join(d.State, "pullcept.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("open log: %w", err)
	}
	return slog.New(slog.NewTextHandler(f, nil)), func() { f.Close() }, nil
}

// core is the engine, store and socket of one run.
type core struct {
	dirs   dirs.Dirs
	store  *topicstore.Store
	engine *room.Engine
	sock   *socket.Server
	log    *slog.Logger
	close  func()
}

func startCore(personName string, typer room.Typer, kind func(string) (string, bool)) (*core, error) {
	d, err := dirs.Resolve(os.Getenv)
	if err != nil {
		return nil, err
	}
	if err := d.Ensure(); err != nil {
		return nil, err
	}
	log, closeLog, err := openLog(d)
	if err != nil {
		return nil, err
	}
	store, err := topicstore.Open(d.Logs())
	if err != nil {
		closeLog()
		return nil, err
	}
	e := room.New(room.Config{Log: store, Typer: typer, AccountKind: kind, PersonName: personName})
	token, err := socket.NewToken()
	if err != nil {
		closeLog()
		return nil, err
	}
	sock, err := socket.Listen(e, token, log)
	if err != nil {
		closeLog()
		return nil, err
	}
	log.Info("room socket listening", "addr", sock.Addr())
	return &core{dirs: d, store: store, engine: e, sock: sock, log: log, close: func() { sock.Close(); closeLog() }}, nil
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

func serve(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	c, s, err := startRun(ctx)
	if err != nil {
		return err
	}
	defer c.close()
	defer s.close()
	srv := &control.Server{Engine: c.engine, Store: c.store, URL: c.sock.URL(), Token: c.sock.Token(), Seats: s}
	return srv.Serve(ctx, stdin, stdout)
}

// startRun starts the engine, store, socket and seats of a run.
func startRun(ctx context.Context) (*core, *seats, error) {
	d, err := dirs.Resolve(os.Getenv)
	if err != nil {
		return nil, nil, err
	}
	accounts, notice := loadAccounts(d.ConfigFile())
	typist := seat.NewTypist(seat.TypistOptions{})
	var mgr *seat.Manager // set below; the room asks it for account kinds
	kind := func(account string) (string, bool) {
		if mgr == nil {
			return "", false
		}
		return mgr.Kind(account)
	}
	c, err := startCore(personName(), typer{typist}, kind)
	if err != nil {
		return nil, nil, err
	}
	s, err := startSeats(ctx, c, accounts, typist, notice)
	if err != nil {
		c.close()
		return nil, nil, err
	}
	mgr = s.mgr
	return c, s, nil
}

// runTUI is `pullcept`: the terminal UI on this process's terminal.
func runTUI(ctx context.Context) error {
	c, s, err := startRun(ctx)
	if err != nil {
		return err
	}
	defer c.close()
	defer s.close()
	o := tui.Options{Engine: c.engine, Store: c.store, Prefix: os.Getenv("PULLCEPT_PREFIX"), Status: s.notice}
	if len(s.mgr.Accounts()) > 0 {
		o.Seats = tuiSeats{s}
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

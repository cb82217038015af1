// Package cli is the pullcept command line: every command of the one
// binary (the module's root, docs/decisions.md "One binary"), from
// attaching and the sidecar to the server itself.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	xterm "github.com/charmbracelet/x/term"

	"pullcept/room/wire"
	"pullcept/topicstore"
)

const usage = `pullcept — a room for one person and several AI coding CLIs

usage:
  pullcept                          the terminal UI (prefix key Ctrl-b, then ? for help); attaches to
                                    the home's server, starting it when none runs (prefix d detaches)
  pullcept attach | a               the same (tmux's names)
  pullcept serve                    headless control mode: JSON lines on stdin/stdout (docs/control.md)
  pullcept ls                       the server, its attached terminals, the topics with running seats
  pullcept kill-server              end the server and every session (their stop sequence)
  pullcept web [--revoke]           the room in a browser: prints the page's address on 127.0.0.1
                                    with its token, once (--listen ADDR needs --tls-cert/--tls-key)
  pullcept server                   run the home's server in the foreground
  pullcept sidecar                  the room's MCP server on stdio (launched by a CLI, not by you)
  pullcept hook EVENT               report a seat's hook event to the room (run by a seat's CLI)
  pullcept accounts list|add|remove the accounts in config.json (pullcept accounts help)
  pullcept topics list [--json]     list topics
  pullcept version                  the build (module version, commit, protocol)
  pullcept topics show ID [--tail N] [--json]
                                    print a topic's posts
Data lives under $PULLCEPT_HOME, else the XDG folders (README).
`

// Main is the binary's main: Run on the process's arguments and stdio, and
// the exit status from its error. No signal handler here: each subcommand
// that has something to undo installs its own (OnStopSignal), the others
// keep the default action.
func Main() {
	if err := Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		var ee ErrExit
		if errors.As(err, &ee) {
			os.Exit(ee.Code)
		}
		fmt.Fprintln(os.Stderr, "pullcept:", err)
		os.Exit(1)
	}
}

// Run runs one command line (args without the program name).
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd := ""
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve", "server", "accounts":
		return engine(ctx, cmd, args, stdin, stdout, stderr)
	case "ls", "list-sessions":
		return listServer(ctx, stdout)
	case "kill-server":
		return killServer(ctx, stdout)
	case "web":
		return openWeb(ctx, args, stdout)
	case "sidecar":
		return runSidecar(ctx, stdin, stdout, stderr)
	case "hook":
		return runHook(ctx, args, stdin, stdout, stderr)
	case "topics":
		if len(args) == 0 {
			return errors.New("usage: pullcept topics list [--json] | show ID [--tail N] [--json]")
		}
		return StoreClient(ctx, append([]string{cmd}, args...), stdout, false, nil)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	case "version", "--version", "-V":
		fmt.Fprintln(stdout, Version())
		return nil
	case "", "attach", "a":
		if len(args) > 0 {
			return fmt.Errorf("usage: pullcept %s (no arguments; it attaches to the home's server)", cmd)
		}
		return attachTUI(ctx)
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("unknown command %q", cmd)
	}
}

// stopSignals end a subcommand that cleans up first (OnStopSignal).
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// OnStopSignal returns ctx cancelled at the first SIGINT, SIGTERM or SIGHUP
// (the signal is then this process's to handle, not its death), and stop,
// which gives the signals their default action back. Only the subcommands
// with something to undo on a signal call it: the server and the engine of
// `serve` (their seats' stop sequence, the socket, the home's lock), the
// attached terminal (raw mode), the sidecar once it has answered initialize
// (a clean exit, status 0), a hook's status-line command (its child) and a
// write to config.json. Every other subcommand dies of the signal, which is
// all they need: the kernel closes their sockets and files and releases
// their flocks, and the stores they read are crash-safe (atomic renames).
// The first call costs start-up time: the signal package's watcher
// goroutine blocks in a system call, so the runtime starts a thread for it
// (0.6 to 0.9 ms of `pullcept help`'s 4.4 ms on a 2-core VM;
// docs/performance.md "Start-up").
func OnStopSignal(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, stopSignals...)
}

// PersonName is what the room calls the person.
func PersonName() string {
	if n := os.Getenv("PULLCEPT_NAME"); n != "" {
		return n
	}
	if n := os.Getenv("USER"); n != "" {
		return n
	}
	return "you"
}

// Topics is `pullcept topics` on a store (here, or in the server).
func Topics(store *topicstore.Store, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: pullcept topics list [--json] | show ID [--tail N] [--json]")
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

// Version names this build: the module's version and commit from the
// build info (a plain `go build` in a checkout records the commit), and the
// room protocol it speaks.
func Version() string {
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

// termSize is the terminal's size in cells.
func termSize(f *os.File) (int, int, error) { return xterm.GetSize(f.Fd()) }

package main

// The client side of the server (issue "Sessions outlive the terminal"):
// `pullcept` attaches (starting the server when none runs), `serve`
// attaches as a control client, `ls` and `kill-server` ask the server, and
// the store commands run in the server while one owns the home.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"

	"pullcept/app"
	"pullcept/attach"
	"pullcept/dirs"
	"pullcept/seat"
	"pullcept/topicstore"
)

// errExit carries a client's exit status from the server's Exit frame.
type errExit struct{ code int }

func (e errExit) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// dialServer connects to the home's server and greets it with h; with
// start, a server is started when none runs. ok false (no error) means no
// server runs.
func dialServer(d dirs.Dirs, h attach.Hello, start bool) (*attach.Conn, net.Conn, bool, error) {
	path := attach.SocketPath(d.Runtime)
	for attempt := 0; ; attempt++ {
		uc, err := attach.Dial(path)
		if err != nil {
			if !attach.NoServer(err) {
				return nil, nil, false, fmt.Errorf("attach to %s: %w", path, err)
			}
			if !start {
				return nil, nil, false, nil
			}
			if attempt > 0 {
				return nil, nil, false, fmt.Errorf("the pullcept server started but %s does not answer: %w", path, err)
			}
			if err := spawnServer(d); err != nil {
				return nil, nil, false, err
			}
			continue
		}
		h.PID, h.Build = os.Getpid(), version()
		c := attach.NewConn(uc)
		if _, err := attach.Greet(c, h); err != nil {
			uc.Close()
			// A server that was ending as we came: start the next one.
			if start && attempt == 0 && isEnding(err) {
				if err := spawnServer(d); err != nil {
					return nil, nil, false, err
				}
				continue
			}
			return nil, nil, false, err
		}
		return c, uc, true, nil
	}
}

func isEnding(err error) bool {
	return err != nil && err.Error() == "the server is ending; run pullcept again to start a new one"
}

// refuseFromSeat stops what only the person does when run from a seat.
func refuseFromSeat(d dirs.Dirs, what string) error {
	if s := seatHere(d); s != "" {
		return fmt.Errorf("this shell runs inside the seat %s of the person's pullcept on this home: %s is for the person to do from their own terminal "+
			"(reading works here: pullcept ls, pullcept topics; an agent may run its own pullcept with another PULLCEPT_HOME)", s, what)
	}
	return nil
}

// attachTUI is `pullcept`: the screen of the home's server on this terminal.
// A SIGTERM or SIGHUP (the terminal closed) detaches and puts the terminal
// back out of raw mode; installed first, as before: RunTerminal's SIGWINCH
// handler starts the signal package's thread anyway, and this way it starts
// while the client waits for the server.
func attachTUI(ctx context.Context) error {
	ctx, stop := onStopSignal(ctx)
	defer stop()
	d, err := dirs.Resolve(os.Getenv)
	if err != nil {
		return err
	}
	if err := refuseFromSeat(d, "attaching to the person's session"); err != nil {
		return err
	}
	if err := d.Ensure(); err != nil {
		return err
	}
	h := attach.Hello{Mode: attach.ModeTUI, Env: attach.TerminalEnv(os.Environ()), Cols: 80, Rows: 24}
	if w, ht, err := termSize(os.Stdout); err == nil {
		h.Cols, h.Rows = w, ht
	}
	if n, err := os.Readlink("/proc/self/fd/0"); err == nil {
		h.TTY = n
	}
	h.Terminal = attach.OfferTerminal(os.Stdin, os.Stdout)
	c, uc, _, err := dialServer(d, h, true)
	if err != nil {
		return err
	}
	defer uc.Close()
	exit, err := attach.RunTerminal(ctx, c, os.Stdin, os.Stdout)
	if err != nil {
		return err
	}
	if exit.Message != "" {
		fmt.Fprintln(os.Stdout, exit.Message)
	}
	if exit.Code != 0 {
		return errExit{exit.Code}
	}
	return nil
}

// serve is `pullcept serve`: a control client of the running server, or
// the engine in the foreground when none runs (never two engines).
func serve(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	d, err := dirs.Resolve(os.Getenv)
	if err != nil {
		return err
	}
	if err := refuseFromSeat(d, "serving as the person"); err != nil {
		return err
	}
	if err := d.Ensure(); err != nil {
		return err
	}
	c, uc, ok, err := dialServer(d, attach.Hello{Mode: attach.ModeControl}, false)
	if err != nil {
		return err
	}
	if !ok {
		return serveForeground(ctx, d, stdin, stdout)
	}
	defer uc.Close()
	return relay(ctx, c, uc, stdin, stdout, os.Stderr)
}

// relay runs a screenless client to its Exit.
func relay(ctx context.Context, c *attach.Conn, uc net.Conn, stdin io.Reader, stdout, stderr io.Writer) error {
	stop := context.AfterFunc(ctx, func() { uc.Close() })
	defer stop()
	exit, err := attach.Relay(ctx, c, stdin, stdout, stderr)
	if err != nil {
		return err
	}
	if exit.Message != "" {
		if exit.Code != 0 {
			fmt.Fprintln(stderr, exit.Message)
		} else {
			fmt.Fprintln(stdout, exit.Message)
		}
	}
	if exit.Code != 0 {
		return errExit{exit.Code}
	}
	return nil
}

// listServer is `pullcept ls`.
func listServer(ctx context.Context, stdout io.Writer) error {
	return askServer(ctx, attach.ModeList, "", stdout)
}

// killServer is `pullcept kill-server`: the server and its seats end (the
// seats' stop sequence) before it returns.
func killServer(ctx context.Context, stdout io.Writer) error {
	return askServer(ctx, attach.ModeKill, "ending the server", stdout)
}

// askServer sends one screenless request (ls, kill) to the running server;
// personOnly names what a seat's shell may not do ("" = anyone may).
func askServer(ctx context.Context, mode, personOnly string, stdout io.Writer) error {
	d, err := dirs.Resolve(os.Getenv)
	if err != nil {
		return err
	}
	if personOnly != "" {
		if err := refuseFromSeat(d, personOnly); err != nil {
			return err
		}
	}
	c, uc, ok, err := dialServer(d, attach.Hello{Mode: mode}, false)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("no server runs for this home (%s)", attach.SocketPath(d.Runtime))
	}
	defer uc.Close()
	return relay(ctx, c, uc, nil, stdout, os.Stderr)
}

// storeClient runs a store command (topics, accounts): in the server when
// one owns the home, else here under the home's lock.
func storeClient(ctx context.Context, args []string, stdout io.Writer) error {
	d, err := dirs.Resolve(os.Getenv)
	if err != nil {
		return err
	}
	if writes(args) {
		if err := refuseFromSeat(d, "changing the accounts"); err != nil {
			return err
		}
		// A signal waits until config.json is written (no temporary file
		// left beside it); nothing here reads ctx. Reading commands keep the
		// default action: Ctrl-C stops a long topics show at once.
		var stop context.CancelFunc
		ctx, stop = onStopSignal(ctx)
		defer stop()
	}
	if err := d.Ensure(); err != nil {
		return err
	}
	c, uc, ok, err := dialServer(d, attach.Hello{Mode: attach.ModeCommand, Args: args}, false)
	if err != nil {
		return err
	}
	if ok {
		defer uc.Close()
		return relay(ctx, c, uc, nil, stdout, os.Stderr)
	}
	release, err := app.LockHome(d.State)
	if err != nil {
		return err
	}
	defer release()
	switch args[0] {
	case "accounts":
		if nick, ok := nicknameArgs(args); ok {
			cfg, _ := seat.Load(d.ConfigFile())
			if acc, found := cfg.Account(nick[0]); found {
				acc.Nickname = nick[1]
				if err := app.CheckCallName(acc.CallName(), personName()); err != nil {
					return fmt.Errorf("accounts nickname: %w", err)
				}
			}
		}
		return seat.AccountsCommand(args[1:], d.ConfigFile(), stdout, execLookPath)
	default:
		store, err := topicstore.Open(d.Logs())
		if err != nil {
			return err
		}
		defer store.Close()
		return topics(store, args[1:], stdout)
	}
}

// writes says whether a store command changes something.
func writes(args []string) bool {
	if len(args) < 2 || args[0] != "accounts" {
		return false
	}
	switch args[1] {
	case "add", "remove", "rm", "nickname", "nick":
		return true
	}
	return false
}

// nicknameArgs is `accounts nickname ID [NICK]`'s id and nickname.
func nicknameArgs(args []string) ([2]string, bool) {
	if len(args) < 3 || len(args) > 4 || args[0] != "accounts" || (args[1] != "nickname" && args[1] != "nick") {
		return [2]string{}, false
	}
	nick := ""
	if len(args) == 4 {
		nick = args[3]
	}
	return [2]string{args[2], nick}, true
}

// storeCommand runs a store command inside the server.
func storeCommand(a *app.App, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("no command")
	}
	switch args[0] {
	case "accounts":
		if nick, ok := nicknameArgs(args); ok {
			// The running app saves it and renames the running seats.
			name, err := a.SetNickname(nick[0], nick[1])
			if err != nil {
				return fmt.Errorf("accounts nickname: %w", err)
			}
			fmt.Fprintf(stdout, "The room now calls %s %q (%s).\n", nick[0], name, a.Dirs().ConfigFile())
			return nil
		}
		if err := seat.AccountsCommand(args[1:], a.Dirs().ConfigFile(), stdout, execLookPath); err != nil {
			return err
		}
		if writes(args) {
			if n := a.ReloadAccounts(); n != "" {
				fmt.Fprintln(stdout, "the running server reloaded config.json:", n)
			}
		}
		return nil
	case "topics":
		return topics(a.Store(), args[1:], stdout)
	}
	return fmt.Errorf("unknown command %q", args[0])
}

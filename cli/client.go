package cli

// The client side of the server (issue "Sessions outlive the terminal"):
// `pullcept` attaches (starting the server when none runs), `ls` and
// `kill-server` ask the server, and the store commands run in the server
// while one owns the home.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"
	"unicode/utf8"

	"pullcept/attach"
	"pullcept/dirs"
	"pullcept/room/wire"
	"pullcept/seat/hook"
	"pullcept/topicstore"
)

// ErrExit carries a client's exit status from the server's Exit frame.
type ErrExit struct{ Code int }

func (e ErrExit) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// DialServer connects to the home's server and greets it with h; with
// start, a server is started when none runs. ok false (no error) means no
// server runs.
func DialServer(d dirs.Dirs, h attach.Hello, start bool) (*attach.Conn, *os.File, bool, error) {
	path := attach.SocketPath(d.Runtime)
	for attempt := 0; ; attempt++ {
		uc, err := attach.Dial(path)
		if err != nil && attach.NoServer(err) && attempt == 0 {
			// No socket, yet perhaps a server: its socket file was deleted.
			uc, err = wakeServer(d, path, err)
		}
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
		h.PID, h.Build = os.Getpid(), Version()
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
			// A refusal is the server's text: printed, never raw.
			return nil, nil, false, errors.New(wire.OneLine(err.Error()))
		}
		return c, uc, true, nil
	}
}

// ErrUnreachable is a server that holds the home's lock and made no socket
// when asked (wakeServer).
type ErrUnreachable struct {
	PID    int
	Socket string
}

func (e *ErrUnreachable) Error() string {
	return fmt.Sprintf("the pullcept server (pid %d) holds this home but does not answer at %s, even after SIGUSR1: end it with pullcept kill-server or kill -TERM %d", e.PID, e.Socket, e.PID)
}

// wakeServer is a dial that found no socket (noSock): when an engine still
// holds the home's lock (dirs.LockHolder checks its pid holds it and is
// this user's), it is sent SIGUSR1, on which the server makes its socket
// again, as tmux does, and the socket is dialled until it answers.
func wakeServer(d dirs.Dirs, path string, noSock error) (*os.File, error) {
	pid, err := dirs.LockHolder(d.State)
	if err != nil {
		return nil, err
	}
	if pid == 0 {
		return nil, noSock
	}
	if err := syscall.Kill(pid, syscall.SIGUSR1); err != nil {
		return nil, fmt.Errorf("signal the pullcept server (pid %d) to make its socket again: %w", pid, err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; {
		uc, err := attach.Dial(path)
		if err == nil || !attach.NoServer(err) {
			return uc, err
		}
		// A server that was ending (its socket gone first, its lock last)
		// makes none: once it lets go of the lock, the next one starts.
		if holder, herr := dirs.LockHolder(d.State); herr == nil && holder != pid {
			return nil, noSock
		}
		if time.Now().After(deadline) {
			return nil, &ErrUnreachable{PID: pid, Socket: path}
		}
		time.Sleep(20 * time.Millisecond) // polling: nothing tells a socket's birth
	}
}

func isEnding(err error) bool {
	return err != nil && err.Error() == "the server is ending; run pullcept again to start a new one"
}

// RefuseFromSeat stops what only the person does when run from a seat.
func RefuseFromSeat(d dirs.Dirs, what string) error {
	if s := seatHere(d); s != "" {
		return fmt.Errorf("this shell runs inside the seat %s of the person's pullcept on this home: %s is for the person to do from their own terminal "+
			"(reading works here: pullcept ls, pullcept topics; an agent may run its own pullcept with another PULLCEPT_HOME)", s, what)
	}
	return nil
}

// attachTUI is `pullcept`: the screen of the home's server on this terminal.
// A SIGTERM or SIGHUP (the terminal closed) detaches and puts the terminal
// back out of raw mode. The handler is installed beside the greeting, in a
// goroutine: the signal package's thread (RunTerminal's SIGWINCH handler
// would start it anyway) starts while the client greets and waits for the
// server, not before the Hello (0.3-0.4 ms sooner; BenchmarkStartup's
// attach-hello). Before RunTerminal there is nothing to undo.
func attachTUI(ctx context.Context) error {
	type handled struct {
		ctx  context.Context
		stop context.CancelFunc
	}
	sig := make(chan handled, 1)
	go func() { c, s := OnStopSignal(ctx); sig <- handled{c, s} }()
	defer func() { (<-sig).stop() }()
	d, err := dirs.Resolve(os.Getenv)
	if err != nil {
		return err
	}
	if err := RefuseFromSeat(d, "attaching to the person's session"); err != nil {
		return err
	}
	if err := d.Ensure(); err != nil {
		return err
	}
	environ := os.Environ()
	h := attach.Hello{Mode: attach.ModeTUI, Env: attach.TerminalEnv(environ), UpdateEnv: attach.PersonEnv(environ), Cols: 80, Rows: 24}
	if w, ht, err := termSize(os.Stdout); err == nil {
		h.Cols, h.Rows = w, ht
	}
	if n, err := os.Readlink("/proc/self/fd/0"); err == nil {
		h.TTY = n
	}
	h.Terminal = attach.OfferTerminal(os.Stdin, os.Stdout)
	c, uc, _, err := DialServer(d, h, true)
	if err != nil {
		return err
	}
	defer uc.Close()
	h2 := <-sig
	sig <- h2
	exit, err := attach.RunTerminal(h2.ctx, c, os.Stdin, os.Stdout)
	if err != nil {
		return err
	}
	if exit.Message != "" {
		fmt.Fprintln(os.Stdout, wire.Visible(exit.Message))
	}
	if exit.Code != 0 {
		return ErrExit{exit.Code}
	}
	return nil
}

// Relay runs a screenless client to its Exit.
func Relay(ctx context.Context, c *attach.Conn, uc io.Closer, stdin io.Reader, stdout, stderr io.Writer) error {
	stop := context.AfterFunc(ctx, func() { uc.Close() })
	defer stop()
	exit, err := attach.Relay(ctx, c, stdin, stdout, stderr)
	if err != nil {
		return err
	}
	if exit.Message != "" {
		// Printed outside any screen: the server's text, never raw.
		msg := wire.Visible(exit.Message)
		if exit.Code != 0 {
			fmt.Fprintln(stderr, msg)
		} else {
			fmt.Fprintln(stdout, msg)
		}
	}
	if exit.Code != 0 {
		return ErrExit{exit.Code}
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
	err := askServer(ctx, attach.ModeKill, "ending the server", stdout)
	var un *ErrUnreachable
	if !errors.As(err, &un) {
		return err
	}
	// A server that cannot make its socket still ends on SIGTERM (its
	// seats' stop sequence, then the lock).
	if err := syscall.Kill(un.PID, syscall.SIGTERM); err != nil {
		return fmt.Errorf("%v; SIGTERM: %w", un, err)
	}
	d, err := dirs.Resolve(os.Getenv)
	if err != nil {
		return err
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		pid, err := dirs.LockHolder(d.State)
		if err != nil {
			return err
		}
		if pid != un.PID {
			fmt.Fprintf(stdout, "pullcept server (pid %d) ended by SIGTERM: its socket %s did not answer\n", un.PID, un.Socket)
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the pullcept server (pid %d) did not end within 30 s of SIGTERM", un.PID)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// openWeb is `pullcept web`: the server (started if none runs) opens the
// page's listener and prints its address with the token, which passes
// through no argument, variable or file (docs/decisions.md "The browser is
// the person's second screen"). --revoke closes it.
func openWeb(ctx context.Context, args []string, stdout io.Writer) error {
	d, err := dirs.Resolve(os.Getenv)
	if err != nil {
		return err
	}
	if err := RefuseFromSeat(d, "opening the room in a browser"); err != nil {
		return err
	}
	if err := d.Ensure(); err != nil {
		return err
	}
	revoke := slices.Contains(args, "--revoke")
	c, uc, ok, err := DialServer(d, attach.Hello{Mode: attach.ModeWeb, Args: args}, !revoke)
	if err != nil {
		return err
	}
	if !ok {
		fmt.Fprintln(stdout, "pullcept web: no server runs for this home, so no page is open")
		return nil
	}
	defer uc.Close()
	out, errOut := &visibleWriter{w: stdout}, &visibleWriter{w: os.Stderr}
	defer out.flush()
	defer errOut.flush()
	return Relay(ctx, c, uc, nil, out, errOut)
}

// askServer sends one screenless request (ls, kill) to the running server;
// personOnly names what a seat's shell may not do ("" = anyone may).
func askServer(ctx context.Context, mode, personOnly string, stdout io.Writer) error {
	d, err := dirs.Resolve(os.Getenv)
	if err != nil {
		return err
	}
	if personOnly != "" {
		if err := RefuseFromSeat(d, personOnly); err != nil {
			return err
		}
	}
	c, uc, ok, err := DialServer(d, attach.Hello{Mode: mode}, false)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("no server runs for this home (%s)", attach.SocketPath(d.Runtime))
	}
	defer uc.Close()
	// What the server says is printed as text: a server is trusted with
	// no escape sequence on the person's terminal.
	out, errOut := &visibleWriter{w: stdout}, &visibleWriter{w: os.Stderr}
	defer out.flush()
	defer errOut.flush()
	return Relay(ctx, c, uc, nil, out, errOut)
}

// visibleWriter writes a server's bytes through wire.Visible: no control
// character reaches the terminal raw. A character cut between two frames
// waits for its end; flush writes what is left.
type visibleWriter struct {
	w    io.Writer
	rest []byte
}

func (v *visibleWriter) Write(p []byte) (int, error) {
	b := append(v.rest, p...)
	cut := len(b)
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				cut = i
			}
			break
		}
	}
	v.rest = append([]byte(nil), b[cut:]...)
	_, err := io.WriteString(v.w, wire.Visible(string(b[:cut])))
	return len(p), err
}

func (v *visibleWriter) flush() {
	if len(v.rest) > 0 {
		_, _ = io.WriteString(v.w, wire.Visible(string(v.rest)))
		v.rest = nil
	}
}

// StoreClient runs a store command (topics, accounts): in the server when
// one owns the home, else here under the home's lock, by offline (nil:
// topics, on the store in this process). writes says the command changes
// something, which a seat's shell may not do.
func StoreClient(ctx context.Context, args []string, stdout io.Writer, writes bool, offline func(d dirs.Dirs, args []string, stdout io.Writer) error) error {
	d, err := dirs.Resolve(os.Getenv)
	if err != nil {
		return err
	}
	if writes {
		if err := RefuseFromSeat(d, "changing the accounts"); err != nil {
			return err
		}
		// A signal waits until config.json is written (no temporary file
		// left beside it); nothing here reads ctx. Reading commands keep the
		// default action: Ctrl-C stops a long topics show at once.
		var stop context.CancelFunc
		ctx, stop = OnStopSignal(ctx)
		defer stop()
	}
	if err := d.Ensure(); err != nil {
		return err
	}
	c, uc, ok, err := DialServer(d, attach.Hello{Mode: attach.ModeCommand, Args: args, UpdateEnv: attach.PersonEnv(os.Environ())}, false)
	if err != nil {
		return err
	}
	if ok {
		defer uc.Close()
		return Relay(ctx, c, uc, nil, stdout, os.Stderr)
	}
	release, err := dirs.LockHomeBriefly(d.State)
	if err != nil {
		return err
	}
	defer release()
	if offline != nil {
		return offline(d, args, stdout)
	}
	store, err := topicstore.Open(d.Logs())
	if err != nil {
		return err
	}
	defer store.Close()
	return Topics(store, args[1:], stdout)
}

// EnvReadyFD names the descriptor a spawned server reports on: "ok\n" once
// it listens, else its error.
const EnvReadyFD = "PULLCEPT_SERVER_READY_FD"

// EnvOrigin names, for a background server, the binary that started it
// (the server runs from the kept one, KeptBinary).
const EnvOrigin = "PULLCEPT_SERVER_ORIGIN"

// spawnServer starts a background server for the home, from the binary
// kept in its runtime folder, and waits until it listens or says why it
// cannot.
func spawnServer(d dirs.Dirs) error {
	exe, err := KeptBinary(d.Runtime)
	if err != nil {
		return fmt.Errorf("the pullcept server did not start: %w", err)
	}
	self, _ := os.Executable()
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		w.Close()
		return err
	}
	defer devnull.Close()
	// The server's stderr (a panic, the race detector) goes to a file: it
	// has no terminal.
	errlog, err := os.OpenFile(filepath.Join(d.State, "server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		w.Close()
		return err
	}
	defer errlog.Close()
	cmd := exec.Command(exe, "server")
	cmd.Env = append(os.Environ(), EnvReadyFD+"=3", EnvOrigin+"="+self)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, devnull, errlog
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = detached()
	err = cmd.Start()
	w.Close()
	if err != nil {
		return fmt.Errorf("start the pullcept server: %w", err)
	}
	go func() { _ = cmd.Wait() }() // reaped if it ends while we run
	b, _ := io.ReadAll(io.LimitReader(r, 4096))
	msg := string(b)
	if msg == "ok\n" {
		return nil
	}
	if msg == "" {
		msg = "it ended without a word (see " + filepath.Join(d.State, "pullcept.log") + ")"
	}
	return fmt.Errorf("the pullcept server did not start: %s", trimNL(msg))
}

func trimNL(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	return s
}

// seatHere says which seat of this home's person this process runs in ("")
// when it runs in none: a pullcept run by an agent in its own shell does
// not act as the person (docs/decisions.md "Agents are not the person").
func seatHere(d dirs.Dirs) string {
	if s := os.Getenv(hook.EnvSeat); s != "" && os.Getenv(hook.EnvSeatHome) == d.Runtime {
		return s
	}
	return ""
}

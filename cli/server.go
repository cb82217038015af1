package cli

// `pullcept server`: the one run of a home, in the background (started by
// the first `pullcept`) or in the foreground; and `pullcept serve` with no
// server running, which is a server whose first client is its own stdio.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"pullcept/app"
	"pullcept/attach"
	"pullcept/control"
	"pullcept/dirs"
	"pullcept/mcpserv"
	"pullcept/server"
)

// startApp starts the run for this home. wait is how long to wait for the
// home's lock (a server that is ending still holds it).
func startApp(ctx context.Context, d dirs.Dirs, wait time.Duration) (*app.App, error) {
	app.TuneServerRuntime()
	exe, err := KeptBinary(d.Runtime)
	if err != nil {
		return nil, err
	}
	// The bundled bridge is looked for beside the binary the person ran,
	// not beside the kept one a background server runs from.
	origin := os.Getenv(EnvOrigin)
	os.Unsetenv(EnvOrigin)
	if origin == "" {
		origin, _ = os.Executable()
	}
	opts := app.Options{Dirs: d, PersonName: PersonName(), ExePath: exe, MCP: app.MCPOptions{BridgeDirs: mcpserv.BridgeDirs(origin)}}
	deadline := time.Now().Add(wait)
	for {
		a, err := app.Start(ctx, opts)
		if err == nil || !errors.Is(err, dirs.ErrHomeBusy) || time.Now().After(deadline) {
			return a, err
		}
		select { // polling: flock has no wait with a deadline
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// newServer makes the server of the app a; closeApp ends the app when the
// server ends (nil: a.Close).
func newServer(a *app.App, d dirs.Dirs, background bool, closeApp func()) (*server.Server, error) {
	if closeApp == nil {
		closeApp = a.Close
	}
	return server.Listen(server.Options{
		App: a, Socket: attach.SocketPath(d.Runtime), Build: Version(), Close: closeApp,
		ExitWhenIdle: background, Prefix: os.Getenv("PULLCEPT_PREFIX"),
		Command: func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
			return storeCommand(ctx, a, args, stdout)
		},
	})
}

// runServer is `pullcept server`. A SIGINT, SIGTERM or SIGHUP stops it as
// kill-server does (its seats' stop sequence, the socket removed, the
// home's lock released): from the start, since startApp may already have
// launched something.
func runServer(ctx context.Context, stderr io.Writer) error {
	ctx, stop := OnStopSignal(ctx)
	defer stop()
	usr1 := onRelistenSignal()
	defer signal.Stop(usr1)
	d, err := dirs.Resolve(os.Getenv)
	if err != nil {
		return err
	}
	var ready *os.File
	if fd, err := strconv.Atoi(os.Getenv(EnvReadyFD)); err == nil && fd > 2 {
		// Close-on-exec: a child started before "ok" (a local MCP server)
		// must not hold the pipe, or the client waits for that child.
		syscall.CloseOnExec(fd)
		ready = os.NewFile(uintptr(fd), "ready")
		os.Unsetenv(EnvReadyFD)
		defer ready.Close()
	}
	fail := func(err error) error {
		if ready != nil {
			fmt.Fprintln(ready, err)
		}
		return err
	}
	a, err := startApp(ctx, d, 10*time.Second)
	if err != nil {
		return fail(err)
	}
	srv, err := newServer(a, d, ready != nil, nil)
	if err != nil {
		a.Close()
		return fail(err)
	}
	go relistenOn(usr1, srv)
	if ready != nil {
		fmt.Fprintln(ready, "ok")
		ready.Close()
	} else {
		fmt.Fprintf(stderr, "pullcept server: pid %d, socket %s (pullcept kill-server ends it)\n", os.Getpid(), attach.SocketPath(d.Runtime))
	}
	srv.Serve(ctx)
	return nil
}

// serveForeground is `pullcept serve` with no server running: the engine
// runs here, with the attach socket open so a `pullcept` can attach, and
// this process's stdio is its first control client; it ends with stdin.
// A signal stops it as EOF does (the client of a running server, serve's
// other case, needs no handler: a signal ends it and the server sees the
// connection close). kill-server ends it as it ends a background server:
// the server's end stops the stdio client first, then closes the app —
// whose last step gives the home's lock back — and the process exits (it
// went on serving its stdio, without the lock, beside the next server).
func serveForeground(ctx context.Context, d dirs.Dirs, stdin io.Reader, stdout, stderr io.Writer) error {
	ctx, stop := OnStopSignal(ctx)
	defer stop()
	usr1 := onRelistenSignal()
	defer signal.Stop(usr1)
	a, err := startApp(ctx, d, 0)
	if err != nil {
		return err
	}
	cctx, stopControl := context.WithCancel(ctx)
	defer stopControl()
	controlDone := make(chan struct{})
	srv, err := newServer(a, d, false, func() {
		stopControl()
		<-controlDone
		a.Close()
	})
	if err != nil {
		a.Close()
		return err
	}
	go relistenOn(usr1, srv)
	sctx, stopServer := context.WithCancel(ctx)
	reason := make(chan string, 1)
	go func() { reason <- srv.Serve(sctx) }()
	err = (&control.Server{App: a}).Serve(cctx, stdin, stdout)
	close(controlDone)
	stopServer()
	why := <-reason
	if err == nil && ctx.Err() == nil && cctx.Err() != nil {
		fmt.Fprintln(stderr, "pullcept serve:", why) // kill-server ended it
	}
	return err
}

// onRelistenSignal takes SIGUSR1 from the start, before the home's lock:
// a client that finds the lock held and no socket sends it (DialServer),
// and its default action would end the process.
func onRelistenSignal() chan os.Signal {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGUSR1)
	return ch
}

// relistenOn makes the server's socket again at each SIGUSR1 (tmux's
// answer to a deleted socket file), until the channel is stopped.
func relistenOn(ch chan os.Signal, srv *server.Server) {
	for range ch {
		if err := srv.Relisten(); err != nil {
			fmt.Fprintln(os.Stderr, "pullcept server:", err)
		}
	}
}

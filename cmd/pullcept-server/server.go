package main

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
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"pullcept/app"
	"pullcept/attach"
	"pullcept/cli"
	"pullcept/control"
	"pullcept/dirs"
	"pullcept/server"
)

// startApp starts the run for this home. wait is how long to wait for the
// home's lock (a server that is ending still holds it).
func startApp(ctx context.Context, d dirs.Dirs, wait time.Duration) (*app.App, error) {
	exe, err := stableExe(d.Runtime)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	for {
		a, err := app.Start(ctx, app.Options{Dirs: d, PersonName: cli.PersonName(), ExePath: exe})
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

// stableExe is the binary the seats launch as sidecar and hooks for the
// server's whole life: a link (else a copy) of the front binary
// (cli.FrontBinary) in the runtime folder, with this binary beside it as
// pullcept-server (a seat's shell running `pullcept serve` or `accounts`
// finds it there), so a binary rebuilt or removed meanwhile does not break
// the seats.
func stableExe(runtime string) (string, error) {
	front, err := cli.FrontBinary()
	if err != nil {
		return "", fmt.Errorf("find the front binary for the sidecar: %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find this binary: %w", err)
	}
	dir := filepath.Join(runtime, "bin")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	removeDeadTemps(dir)
	if err := keepCopy(self, filepath.Join(dir, cli.ServerName)); err != nil {
		return "", err
	}
	dst := filepath.Join(dir, cli.FrontName)
	return dst, keepCopy(front, dst)
}

// keepCopy puts the binary src at dst, whole or not at all (issue 32: at
// every start 16.5 MB were copied, and a full disk left a partial file):
// nothing to do when dst is src (a link) or the copy made last time (same
// size and modification time, which a copy takes from src; a rebuilt
// binary has a new one); else a hard link, else a copy, each made under a
// temporary name renamed into place and removed on failure.
func keepCopy(src, dst string) error {
	src, err := filepath.EvalSymlinks(src)
	if err != nil {
		return err
	}
	si, err := os.Stat(src)
	if err != nil {
		return err
	}
	if di, err := os.Lstat(dst); err == nil && di.Mode().IsRegular() &&
		(os.SameFile(si, di) || di.Size() == si.Size() && di.ModTime().Equal(si.ModTime())) {
		return nil
	}
	tmp := dst + ".tmp" + strconv.Itoa(os.Getpid())
	_ = os.Remove(tmp)
	if err := os.Link(src, tmp); err != nil {
		if err := copyFile(src, tmp, si); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("cannot keep the server's binaries in %s for the seats (so that a rebuild does not break them): copying %s (%.1f MB) there failed: %w. "+
				"Free space there, or set PULLCEPT_HOME (or XDG_RUNTIME_DIR) to a folder on a disk with room, ideally the binaries' own disk, where a link costs nothing",
				filepath.Dir(dst), src, float64(si.Size())/(1<<20), err)
		}
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

func copyFile(src, dst string, si os.FileInfo) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o700)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chtimes(dst, si.ModTime(), si.ModTime())
}

// removeDeadTemps removes the temporary files of a start that was killed
// while it linked or copied (NAME.tmpPID, PID no longer running).
func removeDeadTemps(dir string) {
	names, _ := filepath.Glob(filepath.Join(dir, "*.tmp*"))
	for _, n := range names {
		pid, err := strconv.Atoi(n[strings.LastIndex(n, ".tmp")+len(".tmp"):])
		if err == nil && pid > 0 && syscall.Kill(pid, 0) == syscall.ESRCH {
			os.Remove(n)
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
		App: a, Socket: attach.SocketPath(d.Runtime), Build: cli.Version(), Close: closeApp,
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
	ctx, stop := cli.OnStopSignal(ctx)
	defer stop()
	usr1 := onRelistenSignal()
	defer signal.Stop(usr1)
	d, err := dirs.Resolve(os.Getenv)
	if err != nil {
		return err
	}
	var ready *os.File
	if fd, err := strconv.Atoi(os.Getenv(cli.EnvReadyFD)); err == nil && fd > 2 {
		// Close-on-exec: a child started before "ok" (a local MCP server)
		// must not hold the pipe, or the client waits for that child.
		syscall.CloseOnExec(fd)
		ready = os.NewFile(uintptr(fd), "ready")
		os.Unsetenv(cli.EnvReadyFD)
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
	ctx, stop := cli.OnStopSignal(ctx)
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
// a client that finds the lock held and no socket sends it (cli.DialServer),
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

package server

// A fault in one client ends that client only (issue 31 "Isolation"; tmux's
// server outlives any one client): a panic in a goroutine that serves one
// client — its screen (tui.Run returns it as a *tui.Fault), its reader, its
// control session — is recovered, its stack written to state/server.log,
// the client told why it ends and the other clients told on their status
// line; every seat, room and other client goes on.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/charmbracelet/x/ansi"

	"pullcept/attach"
	"pullcept/control"
	"pullcept/room/wire"
)

// clientFault is a panic recovered in a goroutine serving a client.
type clientFault struct {
	value any
	stack []byte
}

// serveClient serves a screen or control client to its end; a fault in
// it, here or in one of its goroutines, ends it with the fault's Exit.
func (s *Server) serveClient(ctx context.Context, c *client) (exit attach.Exit) {
	defer func() {
		if r := recover(); r != nil {
			stack := debug.Stack()
			if p, ok := r.(*control.Panic); ok { // raised again from its goroutine
				r, stack = p.Value, p.Stack
			}
			s.clientFailed(c, r, stack)
		}
		if f := c.failure(); f != nil {
			exit = s.faultExit(c, f)
		}
	}()
	if c.hello.Mode == attach.ModeTUI {
		return s.serveTUI(ctx, c)
	}
	return s.serveControl(ctx, c)
}

// recoverClient is deferred by each goroutine serving c: a panic there
// ends c (its context) and nothing else.
func (s *Server) recoverClient(c *client) {
	if r := recover(); r != nil {
		s.clientFailed(c, r, debug.Stack())
		c.cancel()
	}
}

// clientFailed records c's first fault and writes it to the server's log.
func (s *Server) clientFailed(c *client, r any, stack []byte) {
	c.mu.Lock()
	first := c.fault == nil
	if first {
		c.fault = &clientFault{value: r, stack: stack}
	}
	c.mu.Unlock()
	if !first {
		return
	}
	s.logFault(fmt.Sprintf("client %d (%s, pid %d, %s)", c.id, c.hello.Mode, c.hello.PID, c.hello.TTY), r, stack)
}

// logFault writes a fault of who and its stack to the server's log.
func (s *Server) logFault(who string, r any, stack []byte) {
	s.log.Error("client failed", "client", who, "panic", fmt.Sprint(r), "log", s.faultLog())
	if f, err := os.OpenFile(s.faultLog(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
		fmt.Fprintf(f, "%s pullcept server: %s failed and was ended; the server goes on: panic: %v\n\n%s\n",
			time.Now().Format(time.RFC3339), who, r, stack)
		f.Close()
	}
}

// recoverConn is deferred by the goroutine serving a connection: a fault
// outside a client's session (its greeting, a command, a listing) ends
// that connection only.
func (s *Server) recoverConn(conn **attach.Conn) {
	r := recover()
	if r == nil {
		return
	}
	s.logFault("a connection", r, debug.Stack())
	if *conn != nil {
		why := ansi.Truncate(wire.OneLine(fmt.Sprint(r)), 160, "…")
		_ = (*conn).WriteJSON(attach.FrameExit, attach.Exit{Code: 1, Message: fmt.Sprintf("pullcept: the server failed to serve this (%s); the sessions keep running; see %s", why, s.faultLog())})
	}
}

func (c *client) failure() *clientFault {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fault
}

// faultLog is where faults are written: state/server.log, the background
// server's stderr.
func (s *Server) faultLog() string { return filepath.Join(s.a.Dirs().State, "server.log") }

// faultExit is the Exit of a client ended by its fault; the other clients
// are told on their status line.
func (s *Server) faultExit(c *client, f *clientFault) attach.Exit {
	what, other := "the screen", "a screen"
	if c.hello.Mode != attach.ModeTUI {
		what, other = "this "+c.hello.Mode+" session", "a "+c.hello.Mode+" client"
	}
	why := ansi.Truncate(wire.OneLine(fmt.Sprint(f.value)), 160, "…")
	where := wire.OneLine(c.hello.TTY)
	if where == "" {
		where = fmt.Sprintf("pid %d", c.hello.PID)
	}
	s.a.Announce(fmt.Sprintf("%s (%s) failed and was closed: %s; the sessions keep running; see %s", other, where, why, s.faultLog()))
	return attach.Exit{Code: 1, Message: fmt.Sprintf("pullcept: %s failed (%s); the sessions keep running; see %s", what, why, s.faultLog())}
}

package server

// One attached terminal's screen: a tui.Run inside the server, fed by the
// client's frames (keys through a pipe the program reads like a terminal,
// sizes as window-size messages) and drawn into Output frames.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"pullcept/attach"
	"pullcept/tui"
)

func (s *Server) serveTUI(ctx context.Context, c *client) attach.Exit {
	// Not an io.Pipe: running a program on the client (exec) cancels the
	// screen's reader, and an io.Pipe's pending read would take the next key
	// and drop it. The key stream's readers cancel without reading (keys.go).
	keys := newKeyStream()
	var (
		pmu  sync.Mutex
		prog *tea.Program
		gone bool
	)
	execDone := make(chan attach.ExecDone, 1)
	s.z.touch(c)
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		defer keys.Close()
		defer s.recoverClient(c)
		for {
			typ, b, err := c.conn.Read()
			if err != nil {
				pmu.Lock()
				gone = true
				pmu.Unlock()
				c.cancel() // a closed terminal is a detach
				return
			}
			switch typ {
			case attach.FrameInput:
				s.touch(c)
				if _, err := keys.Write(b); err != nil {
					return
				}
			case attach.FrameResize:
				var sz attach.Size
				if json.Unmarshal(b, &sz) != nil || sz.Cols <= 0 || sz.Rows <= 0 {
					continue
				}
				c.mu.Lock()
				c.size = sz
				c.mu.Unlock()
				s.touch(c)
				pmu.Lock()
				p := prog
				pmu.Unlock()
				if p != nil {
					p.Send(tea.WindowSizeMsg{Width: sz.Cols, Height: sz.Rows})
				}
			case attach.FrameExecDone:
				var d attach.ExecDone
				if json.Unmarshal(b, &d) != nil {
					d = attach.ExecDone{Code: -1, Error: "bad exec answer"}
				}
				select {
				case execDone <- d:
				default:
				}
			}
		}
	}()

	changes, output, stopWatch := s.a.WatchSeatsAndOutput()
	defer stopWatch()
	env := c.hello.Env
	prefix := s.o.Prefix
	for _, kv := range env {
		if v, ok := cutPrefix(kv, "PULLCEPT_PREFIX="); ok && v != "" {
			prefix = v
		}
	}
	// The screen ends through Bubble Tea's own quit, never its kill path:
	// a killed program does not wait for its input reader, which would
	// still read the pipe closed below. The client's end (a closed
	// terminal, the server stopping) asks the program to quit.
	runCtx, cancelRun := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRun()
	started := make(chan struct{})
	runDone := make(chan struct{})
	defer close(runDone)
	go func() {
		defer s.recoverClient(c)
		select {
		case <-runDone:
			return
		case <-ctx.Done():
		}
		select {
		case <-started:
			pmu.Lock()
			p := prog
			pmu.Unlock()
			p.Quit()
		case <-runDone:
		}
	}()
	var (
		in  io.Reader = keys
		out io.Writer = frameWriter{c.conn, attach.FrameOutput}
	)
	if t := c.term; t != nil {
		in, out = t, t
		t.onKey = func() { s.touch(c) }
		t.onEnded = func() {
			pmu.Lock()
			gone = true
			pmu.Unlock()
			c.cancel() // a terminal that hung up is a detach
		}
		t.onFault = func(r any, stack []byte) {
			s.clientFailed(c, r, stack)
			c.cancel()
		}
	}
	o := tui.Options{
		App: s.a, Prefix: prefix, In: in, Out: out, Screen: fmt.Sprintf("terminal %d", c.id),
		Width: max(c.hello.Cols, 1), Height: max(c.hello.Rows, 1), Env: env, Server: true, Location: time.Local,
		Status: s.attachStatus(), ConfigErrors: s.a.ConfigErrors(), Topic: s.topicToShow(),
		OnShow: func(t string) {
			s.mu.Lock()
			s.lastTopic = t
			s.mu.Unlock()
			s.z.show(c, t)
		},
		Clients: func() int { return s.others(c) },
		Program: func(x attach.Exec) tea.ExecCommand { return &remoteExec{c: c, x: x, done: execDone, ctx: ctx} },
		Started: func(p *tea.Program) {
			pmu.Lock()
			prog = p
			pmu.Unlock()
			close(started)
		},
	}
	// Always: an account added while this screen is open (accounts add,
	// an edit of config.json) appears at once, through the seats' change.
	o.Seats = clientSeats{a: s.a, z: s.z, c: c, changed: changes, output: output, asleep: &sleepPanes{}}
	if s.o.screenHook != nil {
		s.o.screenHook(c, &o)
	}
	err := tui.Run(runCtx, o)
	pmu.Lock()
	wasGone := gone
	pmu.Unlock()
	var fault *tui.Fault
	switch {
	case errors.As(err, &fault):
		s.clientFailed(c, fault.Value, fault.Stack)
		return attach.Exit{Code: 1}
	case c.failure() != nil: // its reader failed (recoverClient, terminal.onFault)
		return attach.Exit{Code: 1}
	case wasGone:
		return attach.Exit{Detached: true}
	case s.stopping():
		return attach.Exit{Message: "[pullcept ended: " + s.endReason() + "]"}
	case errors.Is(err, tui.ErrDetached):
		n := total(s.a.Running())
		return attach.Exit{Detached: true, Message: fmt.Sprintf("[detached from pullcept: %d session(s) keep running; run pullcept to attach again]", n)}
	case err != nil:
		return attach.Exit{Code: 1, Message: "pullcept: " + err.Error()}
	}
	// The person quit: every session stops with the server.
	n := total(s.a.Running())
	s.stop("quit from a terminal")
	<-s.closed
	if n == 0 {
		return attach.Exit{}
	}
	return attach.Exit{Message: fmt.Sprintf("[pullcept quit: %d session(s) stopped]", n)}
}

func cutPrefix(s, p string) (string, bool) {
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):], true
	}
	return "", false
}

// touch marks c the most recently active client.
func (s *Server) touch(c *client) {
	c.mu.Lock()
	c.active = time.Now()
	c.mu.Unlock()
	s.z.touch(c)
}

// others counts the clients attached besides c (screens and control
// clients: quitting ends them all).
func (s *Server) others(c *client) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for o := range s.clients {
		if o != c {
			n++
		}
	}
	return n
}

// topicToShow is the topic a new screen opens: the one last shown by any
// screen, while it is listed or open.
func (s *Server) topicToShow() string {
	s.mu.Lock()
	t := s.lastTopic
	s.mu.Unlock()
	if t == "" {
		return ""
	}
	if _, err := s.a.TopicByID(t); err != nil && !s.a.IsOpen(t) {
		return ""
	}
	return t
}

// attachStatus is the first status line of a screen: the sessions that
// kept running are a reconnection, not a resume (the seeds' RESUMED_NOTICE;
// 003 トピック 二つの場面は、二つの別の仕組みである).
func (s *Server) attachStatus() string {
	running := s.a.Running()
	n := total(running)
	notice := s.a.StartNotice() // the config errors go apart (Options.ConfigErrors)
	if n == 0 {
		return notice
	}
	msg := fmt.Sprintf("attached: %d session(s) in %d topic(s) kept running — a reconnection, not a resume", n, len(running))
	if notice != "" {
		msg += "; " + notice
	}
	return msg
}

// remoteExec runs the person's program of a role on the client's terminal
// (tea.Exec): Bubble Tea has released the screen when Run is called, and
// takes it back after.
type remoteExec struct {
	c    *client
	x    attach.Exec
	done chan attach.ExecDone
	ctx  context.Context
}

func (r *remoteExec) SetStdin(io.Reader)  {}
func (r *remoteExec) SetStdout(io.Writer) {}
func (r *remoteExec) SetStderr(io.Writer) {}

func (r *remoteExec) Run() error {
	select { // an answer left from an earlier program is stale
	case <-r.done:
	default:
	}
	if err := r.c.conn.WriteJSON(attach.FrameExec, r.x); err != nil {
		return err
	}
	select {
	case d := <-r.done:
		if d.Error != "" {
			return errors.New(d.Error)
		}
		if d.Code != 0 {
			return fmt.Errorf("exit status %d", d.Code)
		}
		return nil
	case <-r.ctx.Done():
		return r.ctx.Err()
	}
}

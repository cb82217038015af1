// Package server is `pullcept server`: the one run of a home (issue
// "Sessions outlive the terminal"). It owns the app — rooms, seats, PTYs,
// emulators — and listens on a Unix socket in the home's runtime folder
// (attach). Each attached terminal gets its own screen (tui.Run) inside the
// server, fed by the client's bytes, size and terminal facts; `pullcept
// serve` attaches as a control client (control.Server); commands that touch
// the store run here. Closing a terminal is a detach: the sessions go on.
package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"pullcept/app"
	"pullcept/attach"
	"pullcept/control"
	"pullcept/room/wire"
	"pullcept/seat"
	"pullcept/tui"
	"pullcept/web"
)

// Options configure a server.
type Options struct {
	App *app.App
	// Socket is the attach socket's path (attach.SocketPath).
	Socket string
	// Build names this binary (pullcept version).
	Build string
	// Command runs `pullcept topics|accounts ARGS` inside the server.
	Command func(ctx context.Context, args []string, stdout, stderr io.Writer) error
	// Close ends the app (its seats' stop sequence) when the server ends.
	Close func()
	// ExitWhenIdle ends the server when no terminal is attached and no
	// session runs (the background server); IdleGrace is how long a new
	// server waits for its first client.
	ExitWhenIdle bool
	IdleGrace    time.Duration
	// Prefix is the prefix key when the client's environment names none.
	Prefix string

	// screenHook, when set (tests only), sees each screen's options
	// before its screen runs: fault injection.
	screenHook func(*client, *tui.Options)
}

// Server is a running server.
type Server struct {
	o       Options
	a       *app.App
	log     *slog.Logger
	l       *attach.Listener
	sockIno uint64 // the inode of the socket file l made (Relisten)
	z       *sizes
	started time.Time

	mu        sync.Mutex
	clients   map[*client]struct{}
	nextID    int
	lastTopic string
	reason    string // why the server ends, once it does
	stopCh    chan struct{}
	closed    chan struct{} // the app is closed: killers may be answered
	idle      chan struct{}
	wg        sync.WaitGroup
	web       *web.Server // the page's listener (pullcept web), when open
}

// client is one attached connection.
type client struct {
	id       int
	hello    attach.Hello
	attached time.Time
	conn     *attach.Conn
	term     *terminal // the client's terminal, when passed
	cancel   context.CancelFunc

	mu     sync.Mutex
	size   attach.Size
	active time.Time
	fault  *clientFault // the first panic in a goroutine serving the client
}

// Listen makes the server's socket. The caller holds the home (app.Start
// took its lock), so a socket file there is a dead server's.
func Listen(o Options) (*Server, error) {
	l, err := attach.Listen(o.Socket)
	if err != nil {
		return nil, fmt.Errorf("server socket %s: %w", o.Socket, err)
	}
	if o.IdleGrace <= 0 {
		o.IdleGrace = 30 * time.Second
	}
	s := &Server{o: o, a: o.App, log: o.App.Log(), l: l, z: newSizes(), started: time.Now(),
		clients: map[*client]struct{}{}, stopCh: make(chan struct{}), closed: make(chan struct{}), idle: make(chan struct{}, 1)}
	s.sockIno = socketIno(o.Socket)
	s.a.SetPersonEnv(s.latestEnv)
	return s, nil
}

// personEnv is the person's environment a client brought for seats
// (Hello.UpdateEnv over the server's): nil for a client that brought none,
// which changes nothing.
func personEnv(h attach.Hello) seat.EnvUpdate {
	if len(h.UpdateEnv) == 0 {
		return nil
	}
	vars := h.UpdateEnv
	return func(base []string) []string { return attach.ApplyPersonEnv(base, vars) }
}

// latestEnv is the person's environment of the most recently active
// client that brought one (tmux's update-environment takes the attaching
// client's; here every key and resize counts), for a seat no client
// started.
func (s *Server) latestEnv() seat.EnvUpdate {
	s.mu.Lock()
	defer s.mu.Unlock()
	var best *client
	var at time.Time
	for c := range s.clients {
		if len(c.hello.UpdateEnv) == 0 {
			continue
		}
		c.mu.Lock()
		act := c.active
		c.mu.Unlock()
		if best == nil || act.After(at) {
			best, at = c, act
		}
	}
	if best == nil {
		return nil
	}
	return personEnv(best.hello)
}

// Serve accepts clients until ctx ends, a client quits or kills the server,
// or (ExitWhenIdle) nothing is left to serve. Then every client is told
// why, the app is closed (Options.Close) and Serve returns the reason.
func (s *Server) Serve(outer context.Context) string {
	// The clients' contexts end only in the stop sequence below, after the
	// reason is set: a client never sees its end before the reason.
	ctx, cancel := context.WithCancel(context.WithoutCancel(outer))
	defer cancel()
	go func() {
		select {
		case <-outer.Done():
			s.stop("the server was stopped (signal)")
		case <-s.stopCh:
		}
		s.listener().Close()
	}()
	if s.o.ExitWhenIdle {
		s.wg.Add(1)
		go func() { defer s.wg.Done(); s.watchIdle(ctx) }()
	}
	if url := s.a.PushURL(); url != "" {
		s.wg.Add(1)
		go func() { defer s.wg.Done(); s.push(ctx, url) }()
	}
	s.log.Info("server listening", "socket", s.o.Socket, "pid", os.Getpid())
	for l := s.listener(); ; {
		conn, err := l.Accept()
		if err != nil {
			if nl := s.listener(); nl != l { // Relisten replaced it
				l = nl
				continue
			}
			break
		}
		s.wg.Add(1)
		go func() { defer s.wg.Done(); s.handle(ctx, conn) }()
	}
	<-s.stopCh
	s.mu.Lock()
	reason := s.reason
	for c := range s.clients {
		c.cancel()
	}
	s.mu.Unlock()
	// Logged before Close: closing the app closes the log this writes to.
	s.log.Info("server ending", "reason", reason)
	cancel()
	s.closeWeb()
	if s.o.Close != nil {
		s.o.Close()
	}
	close(s.closed)
	s.wg.Wait()
	return reason
}

// stop ends the server for reason (the first reason wins).
func (s *Server) stop(reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reason != "" {
		return
	}
	s.reason = reason
	close(s.stopCh)
}

func (s *Server) stopping() bool {
	select {
	case <-s.stopCh:
		return true
	default:
		return false
	}
}

// watchIdle ends a background server that has no client and no running
// session (after IdleGrace for a server no client reached yet).
func (s *Server) watchIdle(ctx context.Context) {
	changes, stopWatch := s.a.WatchSeats()
	defer stopWatch()
	grace := time.NewTimer(s.o.IdleGrace)
	defer grace.Stop()
	graced := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.stopCh:
			return
		case <-grace.C:
			graced = true
		case <-s.idle:
			graced = true
		case <-changes:
		}
		if !graced {
			continue
		}
		s.mu.Lock()
		n := len(s.clients)
		s.mu.Unlock()
		if n == 0 && len(s.a.Running()) == 0 && !s.webKeeps() {
			s.stop("no terminal attached and no session running")
			return
		}
	}
}

func (s *Server) handle(ctx context.Context, uc *os.File) {
	defer uc.Close()
	var conn *attach.Conn
	defer s.recoverConn(&conn)
	if err := attach.CheckPeer(uc); err != nil {
		s.log.Warn("attach refused", "err", err)
		return
	}
	conn = attach.NewConn(uc)
	_ = uc.SetReadDeadline(time.Now().Add(10 * time.Second))
	var h attach.Hello
	if err := conn.ReadJSON(attach.FrameHello, &h); err != nil {
		s.log.Warn("attach: bad hello", "err", err)
		_ = conn.WriteJSON(attach.FrameWelcome, attach.Welcome{Proto: attach.ProtocolVersion, PID: os.Getpid(), Error: err.Error()})
		return
	}
	_ = uc.SetReadDeadline(time.Time{})
	w := attach.Welcome{Proto: attach.ProtocolVersion, Build: s.o.Build, PID: os.Getpid()}
	if h.Proto != attach.ProtocolVersion {
		w.Error = attach.Mismatch(h.Proto, attach.ProtocolVersion, os.Getpid())
		s.log.Warn("attach refused: protocol", "client", h.Proto, "build", h.Build)
		_ = conn.WriteJSON(attach.FrameWelcome, w)
		return
	}
	if s.stopping() {
		w.Error = "the server is ending; run pullcept again to start a new one"
		_ = conn.WriteJSON(attach.FrameWelcome, w)
		return
	}
	w.Terminal = h.Terminal && h.Mode == attach.ModeTUI
	if err := conn.WriteJSON(attach.FrameWelcome, w); err != nil {
		return
	}
	var term *terminal
	if w.Terminal {
		_ = uc.SetReadDeadline(time.Now().Add(10 * time.Second))
		in, out, err := conn.ReceiveTerminal()
		_ = uc.SetReadDeadline(time.Time{})
		if err != nil {
			s.log.Warn("attach: the terminal did not pass", "err", err)
			_ = conn.WriteJSON(attach.FrameExit, attach.Exit{Code: 1, Message: "pullcept: the terminal did not pass to the server: " + err.Error()})
			return
		}
		term = &terminal{in: in, out: out}
		defer term.close()
	}
	switch h.Mode {
	case attach.ModeTUI, attach.ModeControl:
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		c := &client{hello: h, attached: time.Now(), conn: conn, term: term, cancel: cancel, size: attach.Size{Cols: h.Cols, Rows: h.Rows}, active: time.Now()}
		s.mu.Lock()
		s.nextID++
		c.id = s.nextID
		s.clients[c] = struct{}{}
		s.mu.Unlock()
		s.log.Info("client attached", "id", c.id, "mode", h.Mode, "pid", h.PID, "tty", h.TTY)
		exit := s.serveClient(cctx, c)
		s.mu.Lock()
		delete(s.clients, c)
		s.mu.Unlock()
		s.z.drop(c)
		s.a.SetShown(c, "", nil)
		s.log.Info("client left", "id", c.id, "detached", exit.Detached, "message", exit.Message)
		_ = conn.WriteJSON(attach.FrameExit, exit)
		select {
		case s.idle <- struct{}{}:
		default:
		}
	case attach.ModeCommand:
		// accounts add checks the PATH of the terminal that ran it.
		_ = conn.WriteJSON(attach.FrameExit, s.command(seat.WithEnv(ctx, personEnv(h)), conn, h.Args))
	case attach.ModeList:
		_ = conn.Write(attach.FrameOutput, []byte(s.listing()))
		_ = conn.WriteJSON(attach.FrameExit, attach.Exit{})
	case attach.ModeWeb:
		_ = conn.WriteJSON(attach.FrameExit, s.webCommand(conn, h.Args))
	case attach.ModeKill:
		n := total(s.a.Running())
		s.stop("the server was ended by pullcept kill-server")
		<-s.closed
		_ = conn.WriteJSON(attach.FrameExit, attach.Exit{Message: fmt.Sprintf("pullcept server (pid %d) ended; %d session(s) stopped", os.Getpid(), n)})
	default:
		_ = conn.WriteJSON(attach.FrameExit, attach.Exit{Code: 2, Message: fmt.Sprintf("unknown attach mode %q", h.Mode)})
	}
}

func total(m map[string]int) int {
	n := 0
	for _, c := range m {
		n += c
	}
	return n
}

// serveControl runs the control protocol (docs/control.md) for `pullcept
// serve` attached to this server.
func (s *Server) serveControl(ctx context.Context, c *client) attach.Exit {
	pr, pw := io.Pipe()
	go func() {
		defer s.recoverClient(c)
		for {
			typ, b, err := c.conn.Read()
			if err != nil {
				pw.CloseWithError(err)
				c.cancel()
				return
			}
			switch typ {
			case attach.FrameInput:
				if _, err := pw.Write(b); err != nil {
					return
				}
			case attach.FrameEOF:
				pw.Close()
			}
		}
	}()
	// A seat this client starts runs in its person's environment.
	ctx = seat.WithEnv(ctx, personEnv(c.hello))
	err := (&control.Server{App: s.a}).Serve(ctx, pr, frameWriter{c.conn, attach.FrameOutput})
	pr.Close()
	if err != nil && ctx.Err() == nil {
		return attach.Exit{Code: 1, Message: err.Error()}
	}
	if s.stopping() {
		return attach.Exit{Code: 0, Message: s.endReason()}
	}
	return attach.Exit{}
}

func (s *Server) endReason() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reason
}

// command runs one store command here, where the store is open.
func (s *Server) command(ctx context.Context, conn *attach.Conn, args []string) attach.Exit {
	if s.o.Command == nil {
		return attach.Exit{Code: 2, Message: "this server runs no commands"}
	}
	err := s.o.Command(ctx, args, frameWriter{conn, attach.FrameOutput}, frameWriter{conn, attach.FrameStderr})
	if err != nil {
		return attach.Exit{Code: 1, Message: "pullcept: " + err.Error()}
	}
	return attach.Exit{}
}

// frameWriter writes bytes as frames of one type.
type frameWriter struct {
	c   *attach.Conn
	typ byte
}

func (w frameWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		k := min(len(p), attach.MaxFrame)
		if err := w.c.Write(w.typ, p[:k]); err != nil {
			return n, err
		}
		n += k
		p = p[k:]
	}
	return n, nil
}

// listing is `pullcept ls`: the server, its clients, the topics with
// running seats.
func (s *Server) listing() string {
	var b strings.Builder
	now := time.Now()
	fmt.Fprintf(&b, "server  pid %d  up %s  %s  socket %s\n", os.Getpid(), age(now.Sub(s.started)), s.o.Build, s.o.Socket)
	s.mu.Lock()
	cs := make([]*client, 0, len(s.clients))
	for c := range s.clients {
		cs = append(cs, c)
	}
	s.mu.Unlock()
	sort.Slice(cs, func(i, j int) bool { return cs[i].id < cs[j].id })
	fmt.Fprintf(&b, "clients: %d\n", len(cs))
	for _, c := range cs {
		c.mu.Lock()
		sz, act := c.size, c.active
		c.mu.Unlock()
		where := c.hello.TTY
		if where == "" {
			where = "no tty"
		}
		line := fmt.Sprintf("  %d  %-7s  pid %d  %s  attached %s ago  active %s ago", c.id, c.hello.Mode, c.hello.PID, where, age(now.Sub(c.attached)), age(now.Sub(act)))
		if c.hello.Mode == attach.ModeTUI {
			line += fmt.Sprintf("  %dx%d", sz.Cols, sz.Rows)
		}
		b.WriteString(wire.OneLine(line) + "\n")
	}
	s.mu.Lock()
	if s.web != nil {
		fmt.Fprintf(&b, "web page: %s  browsers: %d\n", s.web.Address(), s.web.Open())
	}
	s.mu.Unlock()
	running := s.a.Running()
	ids := make([]string, 0, len(running))
	for id := range running {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	fmt.Fprintf(&b, "topics with running seats: %d\n", len(ids))
	for _, id := range ids {
		name := "(untitled)"
		if t, err := s.a.TopicByID(id); err == nil && t.Name != "" {
			name = wire.OneLine(t.Name)
		}
		var who []string
		for _, st := range s.a.Seats(id) {
			if st.State != "exited" {
				who = append(who, wire.OneLine(st.Name)+" ("+st.State+")")
			}
		}
		fmt.Fprintf(&b, "  %s  %s  %s\n", id, name, strings.Join(who, ", "))
	}
	if asleep, freed := s.a.Sleeping(); len(asleep) > 0 {
		n := 0
		for _, k := range asleep {
			n += k
		}
		fmt.Fprintf(&b, "sleeping seats: %d (their CLIs held %d MB)\n", n, freed>>20)
	}
	return b.String()
}

// age is a duration as people read it.
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}

// ErrNoServer reports that no server runs for a home.
var ErrNoServer = errors.New("no pullcept server runs for this home")

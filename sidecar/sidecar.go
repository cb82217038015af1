// Package sidecar is `pullcept sidecar`: the MCP stdio server a CLI launches
// to sit in a Pullcept room. It connects to the room socket, introduces the
// session with hello, hands the session the room's manners as the server
// instructions, and offers the room's three tools — say_to_room (the only
// way the session speaks), read_room_history and my_usage (reading only) —
// and the three session operations (sessionops.go). Nothing
// but MCP messages goes to stdout; diagnostics go to the log writer
// (stderr).
//
// Spec: 003 "部屋の作法", "床（同時発話の順序付け）", "部屋プロトコル（アプリ ⇔
// サイドカー）", "トピック", "席が自分の利用上限を読む"; 002 (#133).
package sidecar

import (
	"context"
	"io"
	"log"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// ServerName and ServerVersion are what initialize reports.
const (
	ServerName    = "pullcept-room"
	ServerVersion = "1.0.0"
)

// Options wires a Sidecar. Zero values mean the defaults.
type Options struct {
	// Env reads the launch's variables; nil means os.Getenv.
	Env func(string) string
	// Log receives diagnostics; nil means os.Stderr.
	Log io.Writer
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Location is the local time zone for times shown to the session; nil
	// means time.Local.
	Location *time.Location
	// ReconnectMin and ReconnectMax bound the reconnect backoff.
	ReconnectMin, ReconnectMax time.Duration
	// ConnectWait is how long a tool call waits for a connection that is
	// not up (yet) before saying it is disconnected.
	ConnectWait time.Duration
	// AnswerTimeout is how long a tool call waits for the room's answer.
	AnswerTimeout time.Duration
	// OnConnection, if set, is told each time the room connection comes up
	// (hello sent) or goes down. It must not block.
	OnConnection func(up bool)
}

// Sidecar is one session's seat: its configuration, room connection, MCP
// server and the draft kept from the last refused post.
type Sidecar struct {
	cfg  Config
	log  *slog.Logger
	now  func() time.Time
	loc  *time.Location
	room *roomClient // nil when required configuration is missing
	mcp  *server.MCPServer
	logw io.Writer // the log writer, for mcp-go's stdio transport

	draftMu sync.Mutex
	draft   *draft

	namesMu sync.Mutex
	names   names // what the room calls the seat now (names.go)

	instrUnits int // the instructions' length in UTF-16 units, for report

	reportOnce sync.Once

	runMu  sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
}

// draft is a post the floor refused, kept to be sent again (#268).
type draft struct {
	content string
	to      []string
}

// New reads the configuration and builds the MCP server. Nothing runs until
// Start.
func New(o Options) *Sidecar {
	if o.Env == nil {
		o.Env = os.Getenv
	}
	if o.Log == nil {
		o.Log = os.Stderr
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Location == nil {
		o.Location = time.Local
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.ReconnectMin, DefaultReconnectMin)
	def(&o.ReconnectMax, DefaultReconnectMax)
	def(&o.ConnectWait, DefaultConnectWait)
	def(&o.AnswerTimeout, DefaultAnswerTimeout)

	lg := slog.New(slog.NewTextHandler(o.Log, nil)).With("component", "pullcept sidecar")
	s := &Sidecar{cfg: ConfigFromEnv(o.Env), log: lg, logw: o.Log, now: o.Now, loc: o.Location}
	s.names = names{name: s.cfg.Name, full: s.cfg.FullName}
	if s.names.full == s.names.name {
		s.names.full = ""
	}
	if len(s.cfg.Missing) == 0 {
		s.room = newRoomClient(s.cfg, lg, o.ReconnectMin, o.ReconnectMax, o.ConnectWait, o.AnswerTimeout)
		s.room.onConn = o.OnConnection
		s.room.onIdentity = s.identify
		s.room.capability = strings.TrimSpace(o.Env(EnvOperationCapability))
	}
	name := s.cfg.Name
	if name == "" {
		name = "(unnamed: " + EnvAgentName + " is not set)"
	}
	instr := InstructionsFor(name, s.names.full, s.cfg.UnseenHistory)
	s.instrUnits = UTF16Len(instr)
	// mcp-go's initialize carries the instructions with the launch's names
	// (spec 003: initialize は標準 MCP SDK の処理で起動時の呼称・元の名前を示す);
	// the tools capability with list_changed (a rename changes the
	// descriptions); a panicking handler is an error answer, not the end.
	s.mcp = server.NewMCPServer(ServerName, ServerVersion,
		server.WithInstructions(instr),
		server.WithToolCapabilities(true),
		server.WithRecovery(),
	)
	s.addTools()
	return s
}

// Config is the configuration the sidecar read.
func (s *Sidecar) Config() Config { return s.cfg }

// MCPServer is the MCP server, for a transport to serve (stdio in
// production, in-process in tests).
func (s *Sidecar) MCPServer() *server.MCPServer { return s.mcp }

// Serve speaks MCP with one client on r and w (stdin and stdout) with
// mcp-go's stdio transport, until r ends (nil) or ctx ends (its error).
// That transport keeps one session per process: one Serve at a time.
func (s *Sidecar) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	stdio := server.NewStdioServer(s.mcp)
	stdio.SetErrorLogger(log.New(s.logw, "pullcept sidecar: mcp: ", log.LstdFlags))
	return stdio.Listen(ctx, r, w)
}

// Start connects to the room in the background and keeps reconnecting until
// ctx ends or Close is called. Without the required configuration it does
// nothing.
func (s *Sidecar) Start(ctx context.Context) {
	s.runMu.Lock()
	defer s.runMu.Unlock()
	if s.room == nil || s.cancel != nil {
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	s.cancel = cancel
	s.done = make(chan struct{})
	go func() {
		defer close(s.done)
		s.room.run(ctx)
	}()
}

// report logs, once, the configuration's warnings and what is missing.
func (s *Sidecar) report() { s.reportOnce.Do(s.reportNow) }

func (s *Sidecar) reportNow() {
	for _, w := range s.cfg.Warnings {
		s.log.Warn(w)
	}
	if len(s.cfg.Missing) > 0 {
		s.log.Error("missing launch configuration; every tool call will say so", "missing", s.cfg.Missing)
	}
	if s.instrUnits > MaxInstructionsUTF16 {
		s.log.Warn("instructions exceed the limit for this name; the CLI may cut their end", "utf16", s.instrUnits, "limit", MaxInstructionsUTF16)
	}
}

// Close stops the room connection and waits for it.
func (s *Sidecar) Close() error {
	s.runMu.Lock()
	cancel, done := s.cancel, s.done
	s.runMu.Unlock()
	if cancel == nil {
		return nil
	}
	cancel()
	<-done
	return nil
}

// Run is `pullcept sidecar`: MCP over stdin/stdout until stdin ends or ctx
// is cancelled (both return nil), the room connection alongside. env reads
// the launch's variables; logw receives diagnostics (stderr), never stdout.
// Missing variables do not fail Run: initialize is answered and every tool
// call names what is missing.
func Run(ctx context.Context, stdin io.Reader, stdout io.Writer, env func(string) string, logw io.Writer) error {
	s := New(Options{Env: env, Log: logw})
	s.Start(ctx)
	defer s.Close()
	// The diagnostics go out once the first answer, initialize's, is
	// written (or at the end, if none ever is): cold, one log line is about
	// 0.1 ms, which the answer the CLI waits for need not wait for
	// (docs/performance.md "Start-up").
	defer s.report()
	out := &afterFirstWrite{w: stdout, then: s.report}
	err := s.Serve(ctx, stdin, out)
	if ctx.Err() != nil {
		return nil // asked to stop
	}
	return err
}

// afterFirstWrite is w, running then once after its first Write returned
// (inside that Write: whatever is written later comes after then ran).
type afterFirstWrite struct {
	w    io.Writer
	once sync.Once
	then func()
}

func (a *afterFirstWrite) Write(p []byte) (int, error) {
	n, err := a.w.Write(p)
	a.once.Do(a.then)
	return n, err
}

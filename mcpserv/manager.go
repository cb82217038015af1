package mcpserv

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// State is a server's state in this run (spec: 起動中・実行中・終了・失敗・
// 停止, and 未起動 for one never started in this run).
type State string

// States.
const (
	StateNotStarted State = "not started"
	StateStarting   State = "starting" // waiting for initialize's answer
	StateRunning    State = "running"
	StateEnded      State = "ended"   // the process ended after it ran
	StateFailed     State = "failed"  // it never got to running
	StateStopped    State = "stopped" // stopped after it left the file
)

// Defaults.
const (
	// SignatureWait bounds the wait for get_event (spec SIGNATURE_WAIT).
	SignatureWait = 5 * time.Second
	// InitTimeout bounds the wait for initialize's answer.
	InitTimeout = 30 * time.Second
	// StopGrace is how long a stop waits after closing stdin before
	// SIGTERM, and after SIGTERM before SIGKILL, to the process group.
	StopGrace = 2 * time.Second
)

// Notice is one push, ready to post.
type Notice struct {
	// Server is the entry name; its account is AccountID(Server).
	Server  string
	EventID string
	// Text is the body to post: the summary, the mark-processed line, and
	// 署名: first when Signer is set.
	Text   string
	Signer string
}

// Options configure a Manager.
type Options struct {
	// Path is mcp-servers.json.
	Path string
	// Post delivers a notice and says in how many rooms it was posted (0:
	// no room had an AI session). Called for one server's notices one at a
	// time, in the order they arrived.
	Post func(Notice) int
	// BaseEnv is the servers' base environment (the entry's env is added);
	// nil means os.Environ().
	BaseEnv []string
	// SignatureWait, InitTimeout, StopGrace: 0 means the defaults.
	SignatureWait, InitTimeout, StopGrace time.Duration
	// Log is the app's log; the servers' lines go there too.
	Log *slog.Logger
	// Changed is told when a state, the file or a log changed (it must
	// not block).
	Changed func()
	// Version is the client's version in initialize.
	Version string
}

// Manager runs the servers of the file. Safe for concurrent use.
type Manager struct {
	o Options

	mu      sync.Mutex
	file    File
	servers map[string]*server
	closed  bool
	wg      sync.WaitGroup
}

type server struct {
	name   string
	state  State
	reason string
	ran    *Entry // what the current or last run started from
	log    ring
	run    *run
}

// run is one process of a server.
type run struct {
	s        *server
	entry    Entry
	cmd      *exec.Cmd
	client   *client.Client
	stdin    *os.File
	stdout   *os.File
	ctx      context.Context // ends when the process has ended
	cancel   context.CancelFunc
	ready    chan struct{}   // closed when initialize answered
	exited   chan struct{}   // closed when the process was waited for
	launched chan struct{}   // closed when the client was made
	readDone <-chan struct{} // closed when reading stdout met the end

	stopping atomic.Bool
	pid      atomic.Int64 // set once the process started

	qmu     sync.Mutex
	queue   []*pending
	qclosed bool // the process ended: the worker ends when queue is empty
	wake    chan struct{}
}

// pending is a notice waiting for its signature (or for those before it).
type pending struct {
	id, content string
	signer      string
	done        chan struct{}
}

// New makes a manager; Load reads the file, StartAll starts its servers.
func New(o Options) *Manager {
	if o.SignatureWait <= 0 {
		o.SignatureWait = SignatureWait
	}
	if o.InitTimeout <= 0 {
		o.InitTimeout = InitTimeout
	}
	if o.StopGrace <= 0 {
		o.StopGrace = StopGrace
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Post == nil {
		o.Post = func(Notice) int { return 0 }
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	return &Manager{o: o, file: File{Path: o.Path}, servers: map[string]*server{}}
}

// Path is the servers file.
func (m *Manager) Path() string { return m.o.Path }

func (m *Manager) changed() {
	if m.o.Changed != nil {
		m.o.Changed()
	}
}

// Load reads the file again and keeps it as the file's current contents
// (what a restart starts, what Status compares). It starts or stops
// nothing.
func (m *Manager) Load() File {
	f := Load(m.o.Path)
	m.mu.Lock()
	same := sameFile(m.file, f)
	m.file = f
	m.mu.Unlock()
	if !same {
		m.changed()
	}
	return f
}

// sameFile reports whether two reads of the file found the same.
func sameFile(a, b File) bool {
	if a.Exists != b.Exists || len(a.Entries) != len(b.Entries) || len(a.Errors) != len(b.Errors) {
		return false
	}
	for i := range a.Entries {
		if a.Entries[i].Name != b.Entries[i].Name || !a.Entries[i].Same(b.Entries[i]) {
			return false
		}
	}
	for i := range a.Errors {
		if a.Errors[i].Error() != b.Errors[i].Error() {
			return false
		}
	}
	return true
}

// File is the file as last loaded.
func (m *Manager) File() File {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.file
}

// StartAll starts every server of the file as last loaded that is not
// running.
func (m *Manager) StartAll() {
	for _, e := range m.File().Entries {
		if err := m.Start(e.Name); err != nil && !errors.Is(err, ErrRunning) {
			m.o.Log.Warn("mcp server did not start", "server", e.Name, "err", err)
		}
	}
}

// Errors.
var (
	ErrRunning = errors.New("the server is running")
	ErrClosed  = errors.New("the app is closing")
	ErrUnknown = errors.New("no such server")
)

// srv is the server record of name (made when missing). Under m.mu.
func (m *Manager) srv(name string) *server {
	s := m.servers[name]
	if s == nil {
		s = &server{name: name, state: StateNotStarted}
		m.servers[name] = s
	}
	return s
}

// appLine logs the app's own line about s, in its log and the app's.
func (m *Manager) appLine(s *server, format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	s.log.add(Line{At: time.Now(), App: true, Text: text})
	m.o.Log.Info("mcp server", "server", s.name, "says", text)
	m.changed()
}

// Start starts the file's entry name (as last loaded).
func (m *Manager) Start(name string) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	e, ok := m.file.Entry(name)
	if !ok {
		m.mu.Unlock()
		return fmt.Errorf("%w: %q is not in %s", ErrUnknown, name, m.o.Path)
	}
	s := m.srv(name)
	if s.run != nil {
		m.mu.Unlock()
		return fmt.Errorf("%w: %s", ErrRunning, name)
	}
	entry := e
	s.ran, s.state, s.reason = &entry, StateStarting, ""
	r := &run{s: s, entry: e, ready: make(chan struct{}), exited: make(chan struct{}), launched: make(chan struct{}), wake: make(chan struct{}, 1)}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	s.run = r
	m.wg.Add(1)
	m.mu.Unlock()
	m.appLine(s, "starting: %s", describeLaunch(e))
	if err := m.launch(r); err != nil {
		m.mu.Lock()
		s.run, s.state, s.reason = nil, StateFailed, err.Error()
		m.mu.Unlock()
		r.cancel()
		close(r.exited)
		m.wg.Done()
		m.appLine(s, "failed to start: %v", err)
		return err
	}
	return nil
}

// describeLaunch is the launch line without env values.
func describeLaunch(e Entry) string {
	var b strings.Builder
	b.WriteString(e.Command)
	for _, a := range e.Args {
		fmt.Fprintf(&b, " %q", a)
	}
	if keys := e.EnvKeys(); len(keys) > 0 {
		fmt.Fprintf(&b, " (env %s)", strings.Join(keys, ", "))
	}
	return b.String()
}

// launch starts r's process and its client. The process is started by a
// goroutine that keeps its OS thread locked until the process ends
// (Pdeathsig is tied to the starting thread).
func (m *Manager) launch(r *run) error {
	base := m.o.BaseEnv
	if base == nil {
		base = os.Environ()
	}
	env := append([]string(nil), base...)
	for _, k := range r.entry.EnvKeys() {
		env = append(env, k+"="+r.entry.Env[k])
	}
	cmd := exec.Command(r.entry.Command, r.entry.Args...)
	if cmd.Err != nil {
		return cmd.Err
	}
	cmd.Env = env
	cmd.SysProcAttr = sysProcAttr()
	closeInherited()
	inR, inW, err := os.Pipe()
	if err != nil {
		return err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	r.cmd, r.stdin, r.stdout = cmd, inW, outR

	started := make(chan error, 1)
	setup := make(chan struct{}) // the client is made: ended may use it
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		err := cmd.Start()
		inR.Close()
		outW.Close()
		errW.Close()
		if err == nil {
			r.pid.Store(int64(cmd.Process.Pid))
		}
		started <- err
		if err != nil {
			return
		}
		werr := cmd.Wait()
		<-setup
		m.ended(r, werr)
	}()
	if err := <-started; err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return err
	}
	go m.readStderr(r, errR)

	m.wg.Add(1)
	go func() { defer m.wg.Done(); m.worker(r) }()
	// mcp-go's client on the process's own pipes (its stdio transport
	// would start the process itself: with no process group or Pdeathsig).
	out := newStdoutLines(outR, func(why string) { m.appLine(r.s, "stdout: %s", why) })
	r.readDone = out.done
	c := client.NewClient(transport.NewIO(out, inW, nil))
	c.OnNotification(func(n mcp.JSONRPCNotification) { m.notified(r, n) })
	r.client = c
	err = c.Start(r.ctx)
	close(setup)
	close(r.launched)
	if err != nil {
		m.appLine(r.s, "the client did not start: %v", err)
		m.kill(r)
		return nil
	}
	go m.initialize(r)
	return nil
}

// initialize waits for initialize's answer: running, or failed (the
// process is ended).
func (m *Manager) initialize(r *run) {
	ctx, cancel := context.WithTimeout(r.ctx, m.o.InitTimeout)
	defer cancel()
	// The newest version of the initialize handshake, as Claude Code opens
	// (the app sits where a CLI would): an explicit one, so no
	// server/discover round trip first.
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "pullcept", Version: m.o.Version}
	res, err := r.client.Initialize(ctx, req)
	m.mu.Lock()
	s := r.s
	current := s.run == r && !r.stopping.Load()
	if err == nil {
		close(r.ready)
		if current {
			s.state = StateRunning
		}
	}
	m.mu.Unlock()
	if err != nil {
		if current {
			m.appLine(s, "initialize failed: %v", err)
			m.mu.Lock()
			s.reason = "initialize failed: " + err.Error()
			m.mu.Unlock()
			m.kill(r)
		}
		return
	}
	name := ""
	if res != nil {
		name = res.ServerInfo.Name + " " + res.ServerInfo.Version
	}
	channel := ""
	if res != nil && res.Capabilities.Experimental != nil {
		if _, ok := res.Capabilities.Experimental["claude/channel"]; ok {
			channel = ", claude/channel"
		}
	}
	m.appLine(s, "running: %s (protocol %s%s)", strings.TrimSpace(name), resVersion(res), channel)
}

func resVersion(res *mcp.InitializeResult) string {
	if res == nil {
		return "?"
	}
	return res.ProtocolVersion
}

// ended records the end of r's process.
func (m *Manager) ended(r *run, werr error) {
	if pid := r.cmd.Process.Pid; pid > 0 {
		// Whatever the server left in its group goes with it.
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
	if !r.stopping.Load() {
		// The read loop hands over what the server wrote before it ended
		// (a stop closed the client already: nothing more is read).
		t := time.NewTimer(m.o.StopGrace)
		select {
		case <-r.readDone:
		case <-t.C:
		}
		t.Stop()
	}
	r.cancel() // a signature still read goes out without
	_ = r.client.Close()
	_ = r.stdout.Close()
	r.qmu.Lock()
	r.qclosed = true
	r.qmu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
	how := "exit 0"
	if werr != nil {
		how = werr.Error()
	}
	var ee *exec.ExitError
	if errors.As(werr, &ee) && ee.ExitCode() >= 0 {
		how = fmt.Sprintf("exit %d", ee.ExitCode())
	}
	m.mu.Lock()
	s := r.s
	if s.run == r {
		s.run = nil
		select {
		case <-r.ready:
			s.state = StateEnded
		default:
			s.state = StateFailed
		}
		if r.stopping.Load() {
			s.state = StateStopped
		}
		if s.reason == "" || s.state != StateFailed {
			s.reason = how
		}
	}
	m.mu.Unlock()
	close(r.exited)
	m.appLine(s, "ended: %s", how)
	m.wg.Done()
}

// kill ends r's process: stdin closed (a server ends with its input),
// then SIGTERM, then SIGKILL to its group, StopGrace apart. It returns
// when the process has ended.
func (m *Manager) kill(r *run) {
	select {
	case <-r.launched:
	case <-r.exited:
		return // it never started
	}
	_ = r.client.Close() // closes stdin
	pid := r.cmd.Process.Pid
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t := time.NewTimer(m.o.StopGrace)
		select {
		case <-r.exited:
			t.Stop()
			return
		case <-t.C:
		}
		_ = syscall.Kill(-pid, sig)
	}
	<-r.exited
}

// Stop ends name's run, if any, and marks it stopped.
func (m *Manager) Stop(name string) error {
	m.mu.Lock()
	s := m.servers[name]
	var r *run
	if s != nil {
		r = s.run
	}
	m.mu.Unlock()
	if r == nil {
		return nil
	}
	r.stopping.Store(true)
	m.appLine(s, "stopping")
	m.kill(r)
	return nil
}

// Restart reads the file again and starts name's entry anew (its running
// process ended first). A server no longer in the file is only stopped
// (spec: ファイルから消えたサーバの行では同じボタンが「停止」になる); stopped
// reports that.
func (m *Manager) Restart(name string) (stopped bool, err error) {
	f := m.Load()
	if _, ok := f.Entry(name); !ok {
		return true, m.Stop(name)
	}
	m.mu.Lock()
	s := m.servers[name]
	var r *run
	if s != nil {
		r = s.run
	}
	m.mu.Unlock()
	if r != nil {
		r.stopping.Store(true)
		m.appLine(s, "restarting")
		m.kill(r)
	}
	return false, m.Start(name)
}

// Forget stops name and drops what this run held about it (state and
// log): its entry was deleted.
func (m *Manager) Forget(name string) {
	_ = m.Stop(name)
	m.mu.Lock()
	delete(m.servers, name)
	m.mu.Unlock()
	m.changed()
}

// Close stops every server and waits for their ends.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	var runs []*run
	for _, s := range m.servers {
		if s.run != nil {
			runs = append(runs, s.run)
		}
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, r := range runs {
		r.stopping.Store(true)
		wg.Go(func() { m.kill(r) })
	}
	wg.Wait()
	m.wg.Wait()
}

// readStderr keeps the server's stderr lines, with their receive times.
func (m *Manager) readStderr(r *run, f *os.File) {
	defer f.Close()
	br := bufio.NewReaderSize(f, 4096)
	var part []byte
	for {
		line, isPrefix, err := br.ReadLine()
		if len(line) > 0 || (err == nil && !isPrefix) {
			part = append(part, line...)
			if !isPrefix || len(part) >= 4096 {
				text := strings.ToValidUTF8(string(part), "\uFFFD")
				r.s.log.add(Line{At: time.Now(), Text: text})
				m.o.Log.Info("mcp server stderr", "server", r.s.name, "line", text)
				part = part[:0]
				m.changed()
			}
		}
		if err != nil {
			return
		}
	}
}

// notified takes one notification from the client's read loop; it must
// not block (the answers to get_event arrive on the same loop).
func (m *Manager) notified(r *run, n mcp.JSONRPCNotification) {
	if n.Method != ChannelMethod {
		return
	}
	content, _ := n.Params.AdditionalFields["content"].(string)
	meta, _ := n.Params.AdditionalFields["meta"].(map[string]any)
	id, _ := meta["message_id"].(string)
	if strings.TrimSpace(id) == "" {
		m.appLine(r.s, "a push without an event id (meta.message_id) was not posted: no one could name it to mark it processed")
		return
	}
	p := &pending{id: id, content: content, done: make(chan struct{})}
	if kind, ok := WantsSignature(content); ok {
		go m.sign(r, p, kind)
	} else {
		close(p.done)
	}
	r.qmu.Lock()
	late := r.qclosed
	if !late {
		r.queue = append(r.queue, p)
	}
	r.qmu.Unlock()
	if late {
		m.appLine(r.s, "event %s arrived after the server ended; not posted", id)
		return
	}
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// sign reads the event's body through get_event (read only; never
// mark_processed) within SignatureWait of the push's arrival.
func (m *Manager) sign(r *run, p *pending, kind string) {
	defer close(p.done)
	ctx, cancel := context.WithTimeout(r.ctx, m.o.SignatureWait)
	defer cancel()
	select {
	case <-r.ready:
	case <-ctx.Done():
		return
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "get_event"
	req.Params.Arguments = map[string]any{"event_id": p.id}
	res, err := r.client.CallTool(ctx, req)
	switch {
	case err != nil:
		m.appLine(r.s, "get_event %s: %v (posted unsigned)", p.id, err)
		return
	case res.IsError:
		m.appLine(r.s, "get_event %s answered an error: %s (posted unsigned)", p.id, oneLine(resultText(res)))
		return
	}
	p.signer = Signer(resultText(res), kind)
}

// resultText is the result's text blocks, joined.
func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := mcp.AsTextContent(c); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// worker posts r's notices in the order they arrived, each once its
// signature was read or given up; it ends when the process has ended and
// nothing waits.
func (m *Manager) worker(r *run) {
	for {
		r.qmu.Lock()
		var p *pending
		if len(r.queue) > 0 {
			p, r.queue = r.queue[0], r.queue[1:]
		}
		r.qmu.Unlock()
		if p == nil {
			r.qmu.Lock()
			closed := r.qclosed && len(r.queue) == 0
			r.qmu.Unlock()
			if closed {
				return
			}
			<-r.wake
			continue
		}
		<-p.done // bounded: SignatureWait, or the end of the process
		n := Notice{Server: r.s.name, EventID: p.id, Signer: p.signer, Text: Text(p.content, p.id, p.signer)}
		if rooms := m.o.Post(n); rooms == 0 {
			m.appLine(r.s, "event %s: no room has an AI session seated; posted nowhere (it stays unprocessed in the bridge)", p.id)
		}
	}
}

// Status is one server as the screen lists it.
type Status struct {
	Name   string
	State  State
	Reason string // how it ended or failed
	// InFile: the file (as last loaded) has the entry; Differs: it runs
	// from an entry the file no longer says.
	InFile, Differs bool
	// Entry is the file's entry, else the last run's.
	Entry Entry
	PID   int
}

// Status lists the file's servers in file order, then those this run
// knows that left the file.
func (m *Manager) Status() []Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Status
	seen := map[string]bool{}
	st := func(name string, fe *Entry) Status {
		s := m.servers[name]
		out := Status{Name: name, State: StateNotStarted, InFile: fe != nil}
		if fe != nil {
			out.Entry = *fe
		}
		if s == nil {
			return out
		}
		out.State, out.Reason = s.state, s.reason
		if s.ran != nil && fe == nil {
			out.Entry = *s.ran
		}
		if s.run != nil {
			out.PID = int(s.run.pid.Load())
			if fe != nil && !s.run.entry.Same(*fe) {
				out.Differs = true
			}
		}
		return out
	}
	for _, e := range m.file.Entries {
		seen[e.Name] = true
		out = append(out, st(e.Name, &e))
	}
	var rest []string
	for name := range m.servers {
		if !seen[name] {
			rest = append(rest, name)
		}
	}
	sort.Strings(rest)
	for _, name := range rest {
		out = append(out, st(name, nil))
	}
	return out
}

// Log is name's log, oldest first.
func (m *Manager) Log(name string) []Line {
	m.mu.Lock()
	s := m.servers[name]
	m.mu.Unlock()
	if s == nil {
		return nil
	}
	return s.log.snapshot()
}

// Names are the servers of the file and those this run knows.
func (m *Manager) Names() []string {
	var out []string
	for _, s := range m.Status() {
		out = append(out, s.Name)
	}
	return slices.Compact(out)
}

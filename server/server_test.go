package server

// The server with a real app (store, engine, room socket, seat manager) on
// temporary folders, reached over its real Unix socket by clients made of
// attach's own pieces (Dial, NewConn, Greet). A screen client feeds the
// Output frames into the patched terminal emulator and reads the screen
// from it, as a person's terminal would show it.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"

	"pullcept/app"
	"pullcept/attach"
	"pullcept/dirs"
	"pullcept/seat"
	"pullcept/tui"
)

// wait is how long any one awaited thing may take.
const wait = 10 * time.Second

// setup is what a test's server is made with.
type setup struct {
	accounts []seat.Account
	// argv replaces every seat's launch (the app tests' process seam: a
	// harmless command in a real PTY instead of the CLI).
	argv         []string
	command      func(ctx context.Context, args []string, stdout, stderr io.Writer) error
	exitWhenIdle bool
	idleGrace    time.Duration
	// startFault, when set, makes the next seat launch panic (once).
	startFault *atomic.Bool
	// screenHook sees each screen's options (fault injection).
	screenHook func(*client, *tui.Options)
}

// fixture is a running server and its app.
type fixture struct {
	t    testing.TB
	a    *app.App
	srv  *Server
	sock string

	closeCalled atomic.Bool // Options.Close began
	closeDone   atomic.Bool // Options.Close returned

	cancel context.CancelFunc
	done   chan struct{} // Serve returned
	reason string        // what Serve returned, once done is closed
}

func startServer(t testing.TB, s setup) *fixture {
	t.Helper()
	home := t.TempDir()
	d, err := dirs.Resolve(func(k string) string { return map[string]string{"PULLCEPT_HOME": home}[k] })
	if err != nil {
		t.Fatal(err)
	}
	accounts := s.accounts
	if accounts == nil {
		accounts = []seat.Account{}
	}
	o := app.Options{Dirs: d, PersonName: "Master", Accounts: accounts, ExePath: "/bin/false"}
	if s.argv != nil {
		o.StartPane = func(ctx context.Context, spec seat.PaneSpec) (*seat.Pane, error) {
			if s.startFault != nil && s.startFault.CompareAndSwap(true, false) {
				panic("test: a fault in a seat's launch")
			}
			spec.Argv = s.argv
			return seat.StartPane(ctx, spec)
		}
	}
	a, err := app.Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	following(t, a)
	sockDir, err := os.MkdirTemp("", "pa") // short: sun_path is 108 bytes
	if err != nil {
		a.Close()
		t.Fatal(err)
	}
	f := &fixture{t: t, a: a, sock: filepath.Join(sockDir, "server.sock"), done: make(chan struct{})}
	f.srv, err = Listen(Options{App: a, Socket: f.sock, Build: "test", Command: s.command,
		ExitWhenIdle: s.exitWhenIdle, IdleGrace: s.idleGrace, screenHook: s.screenHook,
		Close: func() { f.closeCalled.Store(true); a.Close(); f.closeDone.Store(true) }})
	if err != nil {
		a.Close()
		os.RemoveAll(sockDir)
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	go func() {
		f.reason = f.srv.Serve(ctx)
		close(f.done)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-f.done:
		case <-time.After(wait):
			t.Error("Serve did not return after its context ended")
		}
		a.Close() // no-op when Serve closed it
		os.RemoveAll(sockDir)
	})
	return f
}

// following waits until the app forwards the engine's events (a room
// opened for nothing, seen in a roster event; lazy topics reach no store).
func following(t testing.TB, a *app.App) {
	t.Helper()
	sub := a.Subscribe()
	defer sub.Close()
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		topic, err := a.NewTopic()
		if err != nil {
			t.Fatal(err)
		}
		retry := time.After(100 * time.Millisecond)
	round:
		for {
			select {
			case ev := <-sub.C:
				if ev.Kind == app.EventRoom && ev.Room.Kind == app.RoomRoster && ev.Room.Topic == topic {
					return
				}
			case <-retry:
				break round
			}
		}
	}
	t.Fatal("the app's event stream never carried a room event")
}

// served waits for Serve to return and gives its reason.
func (f *fixture) served() string {
	f.t.Helper()
	select {
	case <-f.done:
		return f.reason
	case <-time.After(wait):
		f.t.Fatal("the server did not end")
		return ""
	}
}

// running says Serve has not returned.
func (f *fixture) running() bool {
	select {
	case <-f.done:
		return false
	default:
		return true
	}
}

// dial connects and greets; the connection closes at the test's end.
func (f *fixture) dial(h attach.Hello) (*attach.Conn, *os.File) {
	f.t.Helper()
	uc, err := attach.Dial(f.sock)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { uc.Close() })
	_ = uc.SetDeadline(time.Now().Add(2 * wait)) // no test hangs on a silent server
	c := attach.NewConn(uc)
	if _, err := attach.Greet(c, h); err != nil {
		f.t.Fatalf("greet (%s): %v", h.Mode, err)
	}
	return c, uc
}

// untilExit reads a session's frames to its Exit: what came as Output and
// as Stderr.
func untilExit(t testing.TB, c *attach.Conn) (stdout, stderr string, exit attach.Exit) {
	t.Helper()
	var out, errOut bytes.Buffer
	for {
		typ, b, err := c.Read()
		if err != nil {
			t.Fatalf("before Exit: %v (output so far %q)", err, out.String())
		}
		switch typ {
		case attach.FrameOutput:
			out.Write(b)
		case attach.FrameStderr:
			errOut.Write(b)
		case attach.FrameExit:
			if err := json.Unmarshal(b, &exit); err != nil {
				t.Fatal(err)
			}
			return out.String(), errOut.String(), exit
		default:
			t.Fatalf("unexpected %q frame", typ)
		}
	}
}

// ls is `pullcept ls`.
func (f *fixture) ls() string {
	f.t.Helper()
	c, _ := f.dial(attach.Hello{Mode: attach.ModeList})
	out, _, exit := untilExit(f.t, c)
	if exit != (attach.Exit{}) {
		f.t.Fatalf("ls exit %+v", exit)
	}
	return out
}

// eventually polls cond (a state with no event of its own) until it holds.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ctlClient is a `pullcept serve` client: its output as JSON lines.
type ctlClient struct {
	t     testing.TB
	conn  *attach.Conn
	lines chan map[string]any
	exit  chan attach.Exit
	gone  chan struct{} // the reader ended
}

func (f *fixture) controlClient() *ctlClient {
	f.t.Helper()
	conn, _ := f.dial(attach.Hello{Mode: attach.ModeControl, PID: 4242})
	c := &ctlClient{t: f.t, conn: conn, lines: make(chan map[string]any, 1024), exit: make(chan attach.Exit, 1), gone: make(chan struct{})}
	go func() {
		defer close(c.gone)
		var pending []byte
		for {
			typ, b, err := conn.Read()
			if err != nil {
				return
			}
			switch typ {
			case attach.FrameOutput:
				pending = append(pending, b...)
				for {
					i := bytes.IndexByte(pending, '\n')
					if i < 0 {
						break
					}
					var m map[string]any
					if err := json.Unmarshal(pending[:i], &m); err != nil {
						m = map[string]any{"unparsed": string(pending[:i])}
					}
					pending = pending[i+1:]
					c.lines <- m
				}
			case attach.FrameExit:
				var e attach.Exit
				_ = json.Unmarshal(b, &e)
				c.exit <- e
				return
			}
		}
	}()
	return c
}

// next returns the next line for which want holds.
func (c *ctlClient) next(want func(map[string]any) bool) map[string]any {
	c.t.Helper()
	deadline := time.After(wait)
	for {
		select {
		case m := <-c.lines:
			if want(m) {
				return m
			}
		case <-c.gone:
			c.t.Fatal("the control session ended")
		case <-deadline:
			c.t.Fatal("no such control line")
		}
	}
}

func (c *ctlClient) send(cmd map[string]any) {
	c.t.Helper()
	b, err := json.Marshal(cmd)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := c.conn.Write(attach.FrameInput, append(b, '\n')); err != nil {
		c.t.Fatal(err)
	}
}

func (c *ctlClient) exited() attach.Exit {
	c.t.Helper()
	select {
	case e := <-c.exit:
		return e
	case <-time.After(wait):
		c.t.Fatal("no Exit for the control session")
		return attach.Exit{}
	}
}

func isEvent(name string) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["event"] == name }
}

// screen is a terminal client: the server's Output goes through a terminal
// emulator, whose screen the test reads.
type screen struct {
	t    testing.TB
	f    *fixture
	pid  int
	conn *attach.Conn
	uc   *os.File

	mu  sync.Mutex
	emu *vt.Emulator

	changed chan struct{} // buffered 1: the screen may have changed
	// tap, when set, sees every Output frame as it arrives (benchmarks).
	tap   atomic.Pointer[func([]byte)]
	execs chan attach.Exec
	exit  chan attach.Exit
	gone  chan struct{}
	// master is the terminal's other side when the client passed its
	// terminal (attachTerminal): keys are typed there.
	master *os.File
	// relayed counts Output frames (none when the terminal was passed).
	relayed atomic.Int64
}

func (f *fixture) attachScreen(cols, rows, pid int) *screen {
	f.t.Helper()
	return f.attachScreenWith(attach.Hello{}, cols, rows, pid)
}

// attachScreenWith is attachScreen with h's other fields (UpdateEnv).
func (f *fixture) attachScreenWith(h attach.Hello, cols, rows, pid int) *screen {
	f.t.Helper()
	h.Mode, h.Cols, h.Rows, h.Env, h.PID, h.TTY = attach.ModeTUI, cols, rows, []string{"TERM=xterm-256color"}, pid, "/dev/pts/test"+strconv.Itoa(pid)
	conn, uc := f.dial(h)
	_ = uc.SetDeadline(time.Time{}) // a screen waits for the person as long as it likes
	s := &screen{t: f.t, f: f, pid: pid, conn: conn, uc: uc, emu: vt.NewEmulator(cols, rows),
		changed: make(chan struct{}, 1), execs: make(chan attach.Exec, 4), exit: make(chan attach.Exit, 1), gone: make(chan struct{})}
	// The emulator's answers to the screen's queries are not sent back:
	// they would count as the person's keys (sizes.touch).
	go func() { _, _ = io.Copy(io.Discard, s.emu) }()
	f.t.Cleanup(func() {
		select {
		case <-s.gone:
		default:
			// Leave as the person does, not by closing the terminal:
			// that path has the race of TestScreenClosedTerminal.
			_ = conn.Write(attach.FrameInput, []byte("\x02d"))
			select {
			case <-s.gone:
			case <-time.After(wait):
			}
		}
		uc.Close()
		<-s.gone
		s.emu.Close()
	})
	go s.readFrames()
	return s
}

// readFrames reads the server's frames until Exit: Output goes through
// the emulator, Exec and Exit to their channels.
func (s *screen) readFrames() {
	defer close(s.gone)
	for {
		typ, b, err := s.conn.Read()
		if err != nil {
			return
		}
		switch typ {
		case attach.FrameOutput:
			s.relayed.Add(1)
			if tap := s.tap.Load(); tap != nil {
				(*tap)(b)
			}
			// The client's tty keeps output processing on (ONLCR):
			// the screen's "\n" reaches the terminal as "\r\n".
			b = bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n"))
			s.mu.Lock()
			_, _ = s.emu.Write(b)
			s.mu.Unlock()
			select {
			case s.changed <- struct{}{}:
			default:
			}
		case attach.FrameExec:
			var x attach.Exec
			if err := json.Unmarshal(b, &x); err != nil {
				s.t.Errorf("bad Exec frame %q: %v", b, err)
			}
			s.execs <- x
		case attach.FrameExit:
			var e attach.Exit
			_ = json.Unmarshal(b, &e)
			s.exit <- e
			return
		}
	}
}

func (s *screen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.emu.String()
}

// lines is the screen's rows, each trimmed of trailing blanks.
func (s *screen) lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	rows := make([]string, s.emu.Height())
	for y := range rows {
		var b strings.Builder
		for x := 0; x < s.emu.Width(); x++ {
			if c := s.emu.CellAt(x, y); c != nil && c.Content != "" {
				b.WriteString(c.Content)
			} else if c != nil && c.Width == 0 {
				continue // the second half of a wide character
			} else {
				b.WriteByte(' ')
			}
		}
		rows[y] = strings.TrimRight(b.String(), " ")
	}
	return rows
}

// waitFor waits until the screen satisfies cond.
func (s *screen) waitFor(what string, cond func(lines []string) bool) {
	s.t.Helper()
	deadline := time.After(wait)
	for {
		if cond(s.lines()) {
			return
		}
		select {
		case <-s.changed:
		case <-s.gone:
			if !cond(s.lines()) {
				s.t.Fatalf("the session ended before the screen showed %s; screen:\n%s", what, s.text())
			}
			return
		case <-deadline:
			s.t.Fatalf("the screen never showed %s; screen:\n%s", what, s.text())
		}
	}
}

func has(subs ...string) func([]string) bool {
	return func(lines []string) bool {
		all := strings.Join(lines, "\n")
		for _, s := range subs {
			if !strings.Contains(all, s) {
				return false
			}
		}
		return true
	}
}

// ready waits for the first whole screen.
func (s *screen) ready() {
	s.t.Helper()
	s.waitFor(`"Participants" and the input line's hint`, has("Participants", "say something to the room"))
}

func (s *screen) keys(k string) {
	s.t.Helper()
	if s.master != nil {
		if _, err := s.master.WriteString(k); err != nil {
			s.t.Fatal(err)
		}
		return
	}
	if err := s.conn.Write(attach.FrameInput, []byte(k)); err != nil {
		s.t.Fatal(err)
	}
}

// resize is the person's terminal changing size: the emulator's, and the
// frame the client sends for it.
func (s *screen) resize(cols, rows int) {
	s.t.Helper()
	s.mu.Lock()
	s.emu.Resize(cols, rows)
	s.mu.Unlock()
	if err := s.conn.WriteJSON(attach.FrameResize, attach.Size{Cols: cols, Rows: rows}); err != nil {
		s.t.Fatal(err)
	}
}

// detach is prefix d; it waits for the Exit, which must say detached.
func (s *screen) detach() {
	s.t.Helper()
	s.keys("\x02d")
	select {
	case e := <-s.exit:
		if !e.Detached {
			s.t.Errorf("prefix d ended the session with %+v", e)
		}
	case <-time.After(wait):
		s.t.Fatalf("no Exit after prefix d; screen:\n%s", s.text())
	}
	<-s.gone
}

func (s *screen) nextExec() attach.Exec {
	s.t.Helper()
	select {
	case x := <-s.execs:
		return x
	case <-s.gone:
		s.t.Fatal("the session ended before an Exec")
	case <-time.After(wait):
		s.t.Fatalf("no Exec frame; screen:\n%s", s.text())
	}
	return attach.Exec{}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// inputLine is the screen's input line (the row starting with "›").
func inputLine(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "›") {
			return lines[i]
		}
	}
	return ""
}

// client finds the server's record of the attached client with pid.
func (f *fixture) client(pid int) *client {
	f.srv.mu.Lock()
	defer f.srv.mu.Unlock()
	for c := range f.srv.clients {
		if c.hello.PID == pid {
			return c
		}
	}
	return nil
}

// ----------------------------------------------------------------------

func TestList(t *testing.T) {
	t.Parallel()
	f := startServer(t, setup{})
	out := f.ls()
	for _, want := range []string{fmt.Sprintf("pid %d", os.Getpid()), "clients: 0\n", "topics with running seats: 0\n", "test", f.sock} {
		if !strings.Contains(out, want) {
			t.Errorf("listing does not say %q:\n%s", want, out)
		}
	}
	ctl := f.controlClient()
	ctl.next(isEvent("ready"))
	out = f.ls()
	if !strings.Contains(out, "clients: 1\n") || !strings.Contains(out, "control") || !strings.Contains(out, "pid 4242") || !strings.Contains(out, "no tty") {
		t.Errorf("with a control client attached, the listing:\n%s", out)
	}
}

func TestCommand(t *testing.T) {
	t.Parallel()
	got := make(chan []string, 2)
	f := startServer(t, setup{command: func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		got <- args
		if args[0] == "fail" {
			fmt.Fprintln(stderr, "about to fail")
			return errors.New("no such topic")
		}
		fmt.Fprintf(stdout, "listed %s\n", strings.Join(args, " "))
		fmt.Fprintln(stderr, "a warning")
		return nil
	}})

	c, _ := f.dial(attach.Hello{Mode: attach.ModeCommand, Args: []string{"topics", "list", "--json"}})
	out, errOut, exit := untilExit(t, c)
	if args := <-got; !slices.Equal(args, []string{"topics", "list", "--json"}) {
		t.Errorf("the command got %q", args)
	}
	if out != "listed topics list --json\n" || errOut != "a warning\n" || exit != (attach.Exit{}) {
		t.Errorf("stdout %q, stderr %q, exit %+v", out, errOut, exit)
	}

	c, _ = f.dial(attach.Hello{Mode: attach.ModeCommand, Args: []string{"fail"}})
	out, errOut, exit = untilExit(t, c)
	<-got
	if out != "" || errOut != "about to fail\n" || exit.Code != 1 || !strings.Contains(exit.Message, "no such topic") {
		t.Errorf("a failing command: stdout %q, stderr %q, exit %+v; want code 1 with its error", out, errOut, exit)
	}
	if !f.running() {
		t.Fatal("a failed command ended the server")
	}
}

func TestCommandNone(t *testing.T) {
	t.Parallel()
	f := startServer(t, setup{})
	c, _ := f.dial(attach.Hello{Mode: attach.ModeCommand, Args: []string{"topics"}})
	if _, _, exit := untilExit(t, c); exit.Code != 2 || exit.Message == "" {
		t.Errorf("a server without commands: exit %+v", exit)
	}
	c, _ = f.dial(attach.Hello{Mode: "dance"})
	if _, _, exit := untilExit(t, c); exit.Code != 2 || !strings.Contains(exit.Message, `"dance"`) {
		t.Errorf("an unknown mode: exit %+v", exit)
	}
}

func TestControl(t *testing.T) {
	t.Parallel()
	f := startServer(t, setup{})
	ctl := f.controlClient()
	var first map[string]any
	select {
	case first = <-ctl.lines:
	case <-time.After(wait):
		t.Fatal("no first line")
	}
	topic, _ := first["topic"].(string)
	if first["event"] != "ready" || first["url"] != f.a.URL() || first["token"] != f.a.Token() || topic == "" {
		t.Fatalf("first line %v, want the ready event with this app's url, token and a topic", first)
	}
	ctl.send(map[string]any{"cmd": "post", "topic": topic, "content": "hello from a script", "id": "p1"})
	// The event and the command's answer, in either order.
	var post, res map[string]any
	for post == nil || res == nil {
		m := ctl.next(func(m map[string]any) bool { return m["event"] == "post" || m["event"] == "post_result" })
		if m["event"] == "post" {
			post = m
		} else {
			res = m
		}
	}
	if p, _ := post["post"].(map[string]any); p["content"] != "hello from a script" || post["topic"] != topic || post["role"] != "admin" || post["own"] != true {
		t.Errorf("post event %v", post)
	}
	if res["delivered"] != true || res["id"] != "p1" {
		t.Errorf("post result %v", res)
	}
	if page, err := f.a.Page(topic, 0, ""); err != nil || len(page.Posts) != 1 || page.Posts[0].Content != "hello from a script" {
		t.Errorf("the topic's log: %+v, %v", page, err)
	}
	if err := ctl.conn.Write(attach.FrameEOF, nil); err != nil {
		t.Fatal(err)
	}
	if exit := ctl.exited(); exit != (attach.Exit{}) {
		t.Errorf("exit after EOF %+v, want code 0 and nothing to say", exit)
	}
	if out := f.ls(); !strings.Contains(out, "clients: 0\n") || !f.running() {
		t.Errorf("after the control session: running %v, listing\n%s", f.running(), out)
	}
}

func TestKillServer(t *testing.T) {
	t.Parallel()
	f := startServer(t, setup{})
	ctl := f.controlClient()
	ctl.next(isEvent("ready"))
	kill, _ := f.dial(attach.Hello{Mode: attach.ModeKill})
	_, _, exit := untilExit(t, kill)
	if !f.closeDone.Load() {
		t.Error("the kill client got its Exit before Options.Close had ended the app")
	}
	if exit.Code != 0 || !strings.Contains(exit.Message, fmt.Sprintf("pid %d", os.Getpid())) || !strings.Contains(exit.Message, "0 session(s) stopped") {
		t.Errorf("kill exit %+v", exit)
	}
	const reason = "the server was ended by pullcept kill-server"
	if got := f.served(); got != reason {
		t.Errorf("Serve returned %q, want %q", got, reason)
	}
	if e := ctl.exited(); !strings.Contains(e.Message, reason) {
		t.Errorf("the control client's Exit %+v does not say why", e)
	}
	if !f.closeCalled.Load() {
		t.Error("Options.Close was not called")
	}
	if _, err := attach.Dial(f.sock); !attach.NoServer(err) {
		t.Errorf("dialling after the end: %v, want no server", err)
	}
}

// The server's end and its reason reach the home's log (before the app,
// which closes that log, is closed).
func TestServerEndIsLogged(t *testing.T) {
	f := startServer(t, setup{})
	f.cancel()
	select {
	case <-f.done:
	case <-time.After(wait):
		t.Fatal("Serve did not return")
	}
	data, err := os.ReadFile(filepath.Join(f.a.Dirs().State, "pullcept.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "server ending") || !strings.Contains(string(data), "reason=") {
		t.Fatalf("the log does not say the server ended, and why:\n%s", data)
	}
}

// An attached screen is told why the server ended.
//
// Not parallel: the screen ends through the kill path of the race in
// TestScreenClosedTerminal, which `go test -race` would report here.
func TestKillServerEndsScreens(t *testing.T) {
	f := startServer(t, setup{})
	scr := f.attachScreen(100, 30, 7001)
	scr.ready()
	kill, _ := f.dial(attach.Hello{Mode: attach.ModeKill})
	untilExit(t, kill)
	select {
	case e := <-scr.exit:
		if e.Detached || e.Message != "[pullcept ended: the server was ended by pullcept kill-server]" {
			t.Errorf("the screen's Exit %+v", e)
		}
	case <-time.After(wait):
		t.Error("the screen got no Exit")
	}
	f.served()
}

// kill-server with a seat running: the kill's Exit comes once the seat's
// process has ended, and counts it.
func TestKillServerStopsSeats(t *testing.T) {
	t.Parallel()
	f := startServer(t, setup{accounts: []seat.Account{{ID: "bot", Name: "Bot", Kind: seat.KindCLI, Command: "my-cli"}}, argv: []string{"cat"}})
	topic, err := f.a.NewTopic()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.a.StartSeat(context.Background(), topic, "bot"); err != nil {
		t.Fatal(err)
	}
	pane, err := f.a.Pane(topic, "bot")
	if err != nil {
		t.Fatal(err)
	}
	if out := f.ls(); !strings.Contains(out, "topics with running seats: 1\n") || !strings.Contains(out, topic) || !strings.Contains(out, "Bot (running)") {
		t.Errorf("listing with a seat:\n%s", out)
	}
	kill, _ := f.dial(attach.Hello{Mode: attach.ModeKill})
	_, _, exit := untilExit(t, kill)
	select {
	case <-pane.Done():
	default:
		t.Error("the kill client got its Exit while the seat's process still ran")
	}
	if !strings.Contains(exit.Message, "1 session(s) stopped") {
		t.Errorf("kill exit %+v", exit)
	}
	f.served()
}

// The server's context ending (the signal handler's) ends it with its
// reason and closes the app; the clients' side is TestServeContextEndsToldWhy.
func TestServeContextEnds(t *testing.T) {
	t.Parallel()
	f := startServer(t, setup{})
	ctl := f.controlClient()
	ctl.next(isEvent("ready"))
	f.cancel()
	if got := f.served(); got != "the server was stopped (signal)" {
		t.Errorf("Serve returned %q", got)
	}
	ctl.exited()
	if !f.closeDone.Load() {
		t.Error("the app was not closed")
	}
}

// When Serve's context ends, every client is told the reason: the
// clients' contexts end only after the reason is set (they once ended with
// Serve's context, racing the goroutine that records it, so a control
// client could get Exit{} and a screen take the "person quit" branch).
// The reason's goroutine is held up on s.mu here, as a listing can hold it.
func TestServeContextEndsToldWhy(t *testing.T) {
	t.Parallel()
	f := startServer(t, setup{})
	ctl := f.controlClient()
	ctl.next(isEvent("ready"))
	f.srv.mu.Lock()
	f.cancel()
	time.Sleep(200 * time.Millisecond) // the control session ends meanwhile; nothing to await from outside
	f.srv.mu.Unlock()
	if got := f.served(); got != "the server was stopped (signal)" {
		t.Errorf("Serve returned %q", got)
	}
	if e := ctl.exited(); !strings.Contains(e.Message, "signal") {
		t.Errorf("the control client got Exit %+v, which does not say the server was stopped", e)
	}
}

func TestOtherProtocol(t *testing.T) {
	t.Parallel()
	f := startServer(t, setup{})
	uc, err := attach.Dial(f.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer uc.Close()
	_ = uc.SetDeadline(time.Now().Add(wait))
	c := attach.NewConn(uc)
	// Written by hand: Greet always says this build's version.
	if err := c.WriteJSON(attach.FrameHello, attach.Hello{Proto: 999, Mode: attach.ModeTUI, Build: "future"}); err != nil {
		t.Fatal(err)
	}
	var w attach.Welcome
	if err := c.ReadJSON(attach.FrameWelcome, &w); err != nil {
		t.Fatal(err)
	}
	if w.Proto != attach.ProtocolVersion || w.PID != os.Getpid() || w.Error != attach.Mismatch(999, attach.ProtocolVersion, os.Getpid()) {
		t.Fatalf("welcome %+v", w)
	}
	for _, want := range []string{"protocol 999", "speaks " + strconv.Itoa(attach.ProtocolVersion)} {
		if !strings.Contains(w.Error, want) {
			t.Errorf("the refusal %q does not say %q", w.Error, want)
		}
	}
	if _, _, err := c.Read(); !errors.Is(err, io.EOF) {
		t.Errorf("after the refusal: %v, want the connection closed", err)
	}
	if out := f.ls(); !strings.Contains(out, "clients: 0") || !f.running() {
		t.Errorf("after the refusal: running %v, listing\n%s", f.running(), out)
	}

	// Not a Hello at all: refused with the reason, in a Welcome.
	uc2, err := attach.Dial(f.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer uc2.Close()
	_ = uc2.SetDeadline(time.Now().Add(wait))
	c2 := attach.NewConn(uc2)
	if err := c2.Write(attach.FrameInput, []byte("GET / HTTP/1.1\r\n")); err != nil {
		t.Fatal(err)
	}
	var w2 attach.Welcome
	if err := c2.ReadJSON(attach.FrameWelcome, &w2); err != nil || w2.Error == "" || w2.Proto != attach.ProtocolVersion {
		t.Fatalf("a first frame that is not a Hello: welcome %+v, %v", w2, err)
	}
	if !f.running() {
		t.Fatal("a bad hello ended the server")
	}
}

// A seat running keeps a background server with no client; its end ends
// the server.
func TestExitWhenIdleWaitsForSeats(t *testing.T) {
	t.Parallel()
	f := startServer(t, setup{accounts: []seat.Account{{ID: "bot", Name: "Bot", Kind: seat.KindCLI, Command: "my-cli"}}, argv: []string{"cat"},
		exitWhenIdle: true, idleGrace: 500 * time.Millisecond})
	topic, err := f.a.NewTopic()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.a.StartSeat(context.Background(), topic, "bot"); err != nil {
		t.Fatal(err)
	}
	if !f.running() {
		t.Fatalf("the server ended before the grace: %q", f.reason)
	}
	// Past the grace: nothing to await for "did not end".
	time.Sleep(800 * time.Millisecond)
	if !f.running() {
		t.Fatalf("the server ended with a seat running: %q", f.reason)
	}
	if err := f.a.StopSeat(topic, "bot", "test"); err != nil {
		t.Fatal(err)
	}
	if got := f.served(); got != "no terminal attached and no session running" {
		t.Fatalf("Serve returned %q", got)
	}
}

func TestExitWhenIdle(t *testing.T) {
	t.Parallel()
	f := startServer(t, setup{exitWhenIdle: true, idleGrace: 50 * time.Millisecond})
	if got := f.served(); got != "no terminal attached and no session running" {
		t.Fatalf("Serve returned %q", got)
	}
	if !f.closeDone.Load() {
		t.Error("the app was not closed")
	}
}

// A client attached when the grace ends keeps the server; it ends when the
// last client leaves.
func TestExitWhenIdleAfterLastClient(t *testing.T) {
	t.Parallel()
	f := startServer(t, setup{exitWhenIdle: true, idleGrace: 300 * time.Millisecond})
	ctl := f.controlClient()
	ctl.next(isEvent("ready"))
	time.Sleep(500 * time.Millisecond) // past the grace: nothing to await for "did not end"
	if !f.running() {
		t.Fatalf("the server ended with a client attached: %q", f.reason)
	}
	if err := ctl.conn.Write(attach.FrameEOF, nil); err != nil {
		t.Fatal(err)
	}
	ctl.exited()
	if got := f.served(); got != "no terminal attached and no session running" {
		t.Fatalf("Serve returned %q", got)
	}
}

func TestScreen(t *testing.T) {
	t.Parallel()
	f := startServer(t, setup{})
	sub := f.a.Subscribe()
	defer sub.Close()
	s := f.attachScreen(100, 30, 5001)
	s.ready()

	s.keys("hello\r")
	deadline := time.After(wait)
	for got := false; !got; {
		select {
		case ev := <-sub.C:
			got = ev.Kind == app.EventRoom && ev.Room.Kind == app.RoomPost && ev.Room.Post.Content == "hello"
		case <-deadline:
			t.Fatalf("the post never came; screen:\n%s", s.text())
		}
	}
	s.waitFor("the post in the room and the input line empty again", func(lines []string) bool {
		return has("Master", "│  hello")(lines) && strings.Contains(inputLine(lines), "say something")
	})
	topics, err := f.a.Topics()
	if err != nil || len(topics) != 1 {
		t.Fatalf("topics %+v, %v", topics, err)
	}
	if page, err := f.a.Page(topics[0].ID, 0, ""); err != nil || len(page.Posts) != 1 || page.Posts[0].Content != "hello" || page.Posts[0].Speaker != "Master" {
		t.Fatalf("the topic's posts: %+v, %v", page, err)
	}

	// The terminal shrinks: the screen is drawn again at the new size.
	s.resize(80, 24)
	s.waitFor("the screen at 80x24", func(lines []string) bool {
		return len(lines) == 24 && strings.HasPrefix(lines[23], "› ") && strings.Contains(lines[23], "say something") &&
			strings.HasSuffix(lines[22], "? help") && len([]rune(lines[22])) == 80
	})
	if c := f.client(5001); c == nil {
		t.Fatal("the client is not listed")
	} else {
		c.mu.Lock()
		sz := c.size
		c.mu.Unlock()
		if sz != (attach.Size{Cols: 80, Rows: 24}) {
			t.Errorf("the server has the client at %+v", sz)
		}
	}
	if out := f.ls(); !strings.Contains(out, "clients: 1\n") || !strings.Contains(out, "tui") || !strings.Contains(out, "80x24") || !strings.Contains(out, "pid 5001") {
		t.Errorf("listing with a screen attached:\n%s", out)
	}

	// prefix d: a detach. The server and the run go on.
	s.detach()
	eventually(t, "ls shows no client", func() bool { return strings.Contains(f.ls(), "clients: 0\n") })
	if !f.running() {
		t.Fatalf("a detach ended the server: %q", f.reason)
	}
	// Attaching again shows the same topic and its post.
	s2 := f.attachScreen(100, 30, 5002)
	s2.waitFor("the earlier post", has("Participants", "hello"))
}

// Closing the terminal (the client's connection) is a detach too: the
// server keeps running, ls shows no client, and attaching again shows the
// topic.
//
// Not parallel, so that `go test -race` would pin a race to it: a closed
// terminal once cancelled the screen's context, and Bubble Tea's kill path
// closed its input reader without waiting for the read loop while
// serveTUI closed the pipe under it (os.(*File).Fd against Close). The
// screen now ends through Bubble Tea's quit.
func TestScreenClosedTerminal(t *testing.T) {
	f := startServer(t, setup{})
	s := f.attachScreen(100, 30, 5401)
	s.ready()
	s.keys("hello\r")
	s.waitFor("the post", has("│  hello"))
	s.uc.Close()
	eventually(t, "ls shows no client", func() bool { return strings.Contains(f.ls(), "clients: 0\n") })
	if !f.running() {
		t.Fatalf("closing a terminal ended the server: %q", f.reason)
	}
	s2 := f.attachScreen(100, 30, 5402)
	s2.waitFor("the earlier post", has("Participants", "│  hello"))
	s2.uc.Close()
	eventually(t, "ls shows no client", func() bool { return strings.Contains(f.ls(), "clients: 0\n") })
	for i := range 3 { // again: the race needs its moment
		s := f.attachScreen(100, 30, 5403+i)
		s.ready()
		s.uc.Close()
		eventually(t, "ls shows no client", func() bool { return strings.Contains(f.ls(), "clients: 0\n") })
	}
}

// The terminal closes while a program runs on it (an Exec): a detach,
// nothing hangs; the edit's file goes with the screen.
//
// Not parallel: the path of TestScreenClosedTerminal's race.
func TestScreenClosedDuringExec(t *testing.T) {
	f := startServer(t, setup{})
	s := f.attachScreen(100, 30, 5501)
	s.ready()
	s.keys("a draft")
	s.waitFor("the draft", func(l []string) bool { return strings.Contains(inputLine(l), "a draft") })
	s.keys("\x07")
	x := s.nextExec()
	s.uc.Close()
	eventually(t, "ls shows no client", func() bool { return strings.Contains(f.ls(), "clients: 0\n") })
	if !f.running() {
		t.Fatalf("closing a terminal during an Exec ended the server: %q", f.reason)
	}
	// The screen has ended (ls counts it no more): its edit's file, which
	// holds the person's draft, should be gone with it.
	draft := x.Paths[len(x.Paths)-1]
	if fileExists(draft) {
		t.Errorf("the editor's file %s (the draft) is left behind when the terminal closes during the Exec", draft)
		os.Remove(draft)
	}
}

func TestScreenQuit(t *testing.T) {
	t.Parallel()
	f := startServer(t, setup{})
	s := f.attachScreen(100, 30, 5101)
	s.ready()
	s.keys("\x02q") // prefix q: no session runs, so it quits at once
	var e attach.Exit
	select {
	case e = <-s.exit:
	case <-time.After(wait):
		t.Fatalf("no Exit after prefix q; screen:\n%s", s.text())
	}
	if e.Code != 0 || e.Detached {
		t.Errorf("exit %+v", e)
	}
	if got := f.served(); got != "quit from a terminal" {
		t.Errorf("Serve returned %q", got)
	}
}

func TestScreenDetachKey(t *testing.T) {
	t.Parallel()
	f := startServer(t, setup{})
	s := f.attachScreen(100, 30, 5201)
	s.ready()
	s.keys("\x02d")
	var e attach.Exit
	select {
	case e = <-s.exit:
	case <-time.After(wait):
		t.Fatalf("no Exit after prefix d; screen:\n%s", s.text())
	}
	if !e.Detached || e.Code != 0 || !strings.Contains(e.Message, "detached") {
		t.Errorf("exit %+v", e)
	}
	if !f.running() || !strings.Contains(f.ls(), "clients: 0\n") {
		t.Error("the server did not go on after a detach")
	}
}

// ctrl+g: the editor runs on the client's terminal (Exec); the client's
// answer decides what the input line becomes.
func TestScreenExec(t *testing.T) {
	t.Parallel()
	f := startServer(t, setup{})
	s := f.attachScreen(100, 30, 5301)
	s.ready()
	s.keys("draft")
	s.waitFor("the draft in the input line", func(l []string) bool { return strings.Contains(inputLine(l), "draft") })

	s.keys("\x07") // ctrl+g
	x := s.nextExec()
	// The role and the file, never a command line (the client resolves
	// the role: issue "Hardening 2", finding 1).
	if x.Role != attach.RoleEditor || len(x.Paths) != 1 || !filepath.IsAbs(x.Paths[0]) {
		t.Fatalf("exec %+v, want the editor role and the file", x)
	}
	file := x.Paths[0]
	if b, err := os.ReadFile(file); err != nil || string(b) != "draft" {
		t.Fatalf("the file to edit holds %q, %v; want the input", b, err)
	}
	// The "editor": the client writes the text itself.
	if err := os.WriteFile(file, []byte("written in the editor\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.conn.WriteJSON(attach.FrameExecDone, attach.ExecDone{Code: 0}); err != nil {
		t.Fatal(err)
	}
	s.waitFor("the edited text in the input line", func(l []string) bool {
		return strings.Contains(inputLine(l), "written in the editor") && !strings.Contains(inputLine(l), "draft")
	})
	s.waitFor("the status line's word", has("edited: Enter sends"))
	eventually(t, "the edited file is removed", func() bool { _, err := os.Stat(file); return errors.Is(err, os.ErrNotExist) })

	// An editor that fails leaves the input as it was.
	s.keys("\x07")
	x = s.nextExec()
	file = x.Paths[0]
	if err := os.WriteFile(file, []byte("must not be taken"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.conn.WriteJSON(attach.FrameExecDone, attach.ExecDone{Code: 1}); err != nil {
		t.Fatal(err)
	}
	s.waitFor("the editor's failure in the status line", has("the editor failed"))
	if l := inputLine(s.lines()); !strings.Contains(l, "written in the editor") || strings.Contains(l, "must not be taken") {
		t.Errorf("after a failed editor the input line is %q", l)
	}
	eventually(t, "the file of the failed edit is removed", func() bool { _, err := os.Stat(file); return errors.Is(err, os.ErrNotExist) })
	// The screen still takes keys after the program.
	s.keys("!")
	s.waitFor("a key after the program", func(l []string) bool { return strings.Contains(inputLine(l), "written in the editor!") })
}

// Pane sizes follow the client that most recently typed or resized
// (tmux's window-size latest); each client's wish is kept.
func TestPaneSizeFollowsActiveClient(t *testing.T) {
	t.Parallel()
	f := startServer(t, setup{accounts: []seat.Account{{ID: "bot", Name: "Bot", Kind: seat.KindCLI, Command: "my-cli"}}, argv: []string{"cat"}})
	const pidA, pidB = 6001, 6002
	a := f.attachScreen(120, 40, pidA)
	a.ready()
	var topic string
	eventually(t, "the screen names its topic", func() bool {
		f.srv.mu.Lock()
		defer f.srv.mu.Unlock()
		topic = f.srv.lastTopic
		return topic != ""
	})
	if _, err := f.a.StartSeat(context.Background(), topic, "bot"); err != nil {
		t.Fatal(err)
	}
	pane, err := f.a.Pane(topic, "bot")
	if err != nil {
		t.Fatal(err)
	}
	a.waitFor("the pane", has("Bot · cli"))
	wish := func(pid int) (sz [2]int, ok bool) {
		c := f.client(pid)
		f.srv.z.mu.Lock()
		defer f.srv.z.mu.Unlock()
		sz, ok = f.srv.z.want[pane][c]
		return sz, ok
	}
	var wantA, wantB [2]int
	eventually(t, "A's screen asks for a pane size", func() bool { var ok bool; wantA, ok = wish(pidA); return ok })
	size := func() [2]int { c, r := pane.Size(); return [2]int{c, r} }
	eventually(t, "the pane has A's size", func() bool { return size() == wantA })

	b := f.attachScreen(80, 24, pidB)
	b.ready()
	b.waitFor("the pane", has("Bot · cli"))
	eventually(t, "B's screen asks for a pane size", func() bool { var ok bool; wantB, ok = wish(pidB); return ok })
	if wantA == wantB {
		t.Fatalf("both screens want %v: the test needs different layouts", wantA)
	}
	if got, _ := wish(pidA); got != wantA {
		t.Errorf("A's wish changed to %v when B attached", got)
	}
	// B attached last: its size.
	eventually(t, "the pane has B's size", func() bool { return size() == wantB })

	a.keys("a")
	eventually(t, "the pane is back at A's size after A's key", func() bool { return size() == wantA })
	b.keys("b")
	eventually(t, "the pane has B's size after B's key", func() bool { return size() == wantB })
	a.resize(120, 40) // a resize counts too, even to the same size
	eventually(t, "the pane is back at A's size after A's resize", func() bool { return size() == wantA })

	// B's screen said the sessions kept running, and a post from B shows
	// on A: both are the same person.
	b.waitFor("the reconnection notice", has("attached: 1 session(s)"))
	b.keys("\x15from B\r") // ctrl+u clears the input first
	eventually(t, "the pane has B's size after B's keys", func() bool { return size() == wantB })
	a.waitFor("B's post on A's screen", has("from B"))

	// A turns to a new topic: it no longer sizes the pane, however recent.
	a.keys("\x02c")
	a.waitFor("A on a new topic", func(l []string) bool { return !has("Bot · cli")(l) })
	eventually(t, "the pane has B's size once A shows another topic", func() bool { return size() == wantB })
	a.keys("x")
	a.waitFor("A's key in the input line", func(l []string) bool { return strings.Contains(inputLine(l), "x") })
	if got := size(); got != wantB {
		t.Fatalf("a key from A, on another topic, sized the pane: %v, want B's %v", got, wantB)
	}
	// Back on the seat's topic, A is the most recent client there.
	a.keys("\x02p")
	a.waitFor("A back on the seat's topic", has("Bot · cli"))
	eventually(t, "the pane has A's size once A shows its topic again", func() bool { return size() == wantA })

	// B leaves while it is active: A, the other client, takes over.
	b.keys("b")
	eventually(t, "the pane has B's size after B's key", func() bool { return size() == wantB })
	b.detach()
	eventually(t, "A's size once B has gone", func() bool { return size() == wantA })
	if out := f.ls(); !strings.Contains(out, "topics with running seats: 1\n") || !strings.Contains(out, "Bot (running)") || !strings.Contains(out, "clients: 1\n") {
		t.Errorf("listing:\n%s", out)
	}
}

// app.Start subscribes its follower before it returns: an event published
// by the first operation (a post, a roster, a seat's start) reaches
// app.Subscribe. With one P the follower cannot have run when Start
// returns, so a late subscription lost the first post every time. Not
// parallel: it sets GOMAXPROCS.
func TestAppEventsFromTheStart(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	home := t.TempDir()
	d, err := dirs.Resolve(func(k string) string { return map[string]string{"PULLCEPT_HOME": home}[k] })
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.Start(context.Background(), app.Options{Dirs: d, PersonName: "Master", Accounts: []seat.Account{}, ExePath: "/bin/false"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	sub := a.Subscribe()
	defer sub.Close()
	topic, err := a.NewTopic()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Post(topic, "the first post", ""); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(time.Second)
	for {
		select {
		case ev := <-sub.C:
			if ev.Kind == app.EventRoom && ev.Room.Kind == app.RoomPost {
				return
			}
		case <-deadline:
			t.Fatal("the first post after app.Start never reached the event stream (the follower subscribed to the engine too late)")
		}
	}
}

// A seat restarted (or closed) while a screen stays attached: the sizes
// keep no wish, topic or size for its old pane — a pane holds its
// emulator and scrollback, and a server with a long-lived screen must not
// keep every pane it ever sized.
func TestSizesForgetOldPanes(t *testing.T) {
	t.Parallel()
	f := startServer(t, setup{accounts: []seat.Account{{ID: "bot", Name: "Bot", Kind: seat.KindCLI, Command: "my-cli"}}, argv: []string{"cat"}})
	a := f.attachScreen(120, 40, 6101)
	a.ready()
	var topic string
	eventually(t, "the screen names its topic", func() bool {
		f.srv.mu.Lock()
		defer f.srv.mu.Unlock()
		topic = f.srv.lastTopic
		return topic != ""
	})
	if _, err := f.a.StartSeat(context.Background(), topic, "bot"); err != nil {
		t.Fatal(err)
	}
	old, err := f.a.Pane(topic, "bot")
	if err != nil {
		t.Fatal(err)
	}
	known := func(p *seat.Pane) bool {
		f.srv.z.mu.Lock()
		defer f.srv.z.mu.Unlock()
		_, w := f.srv.z.want[p]
		_, tp := f.srv.z.topic[p]
		_, ap := f.srv.z.applied[p]
		return w || tp || ap
	}
	eventually(t, "the screen sizes the pane", func() bool { return known(old) })
	if _, err := f.a.RestartSeat(context.Background(), topic, "bot"); err != nil {
		t.Fatal(err)
	}
	cur, err := f.a.Pane(topic, "bot")
	if err != nil || cur == old {
		t.Fatalf("after the restart: pane %p (old %p), %v", cur, old, err)
	}
	eventually(t, "the screen sizes the new pane", func() bool { return known(cur) })
	a.keys("x") // one more round of the screen after the new pane is drawn
	a.waitFor("the key", func(l []string) bool { return strings.Contains(inputLine(l), "x") })
	if known(old) {
		t.Errorf("the restarted seat's old pane is still held by the server's sizes")
	}
	if err := f.a.StopSeat(topic, "bot", "closed"); err != nil {
		t.Fatal(err)
	}
	a.waitFor("no pane", func(l []string) bool { return !has("Bot · cli")(l) })
	a.keys("y")
	a.waitFor("the key", func(l []string) bool { return strings.Contains(inputLine(l), "xy") })
	if known(cur) {
		t.Errorf("the closed seat's pane is still held by the server's sizes")
	}
}

// sizes on its own, with real panes: a pane takes the wish of the most
// recently active client among those showing its topic.
func TestSizes(t *testing.T) {
	t.Parallel()
	pane := func() *seat.Pane {
		p, err := seat.StartPane(context.Background(), seat.PaneSpec{Argv: []string{"cat"}, Cols: 80, Rows: 24})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Stop("test over"); <-p.Done() })
		return p
	}
	p, q := pane(), pane()
	size := func(p *seat.Pane) [2]int { c, r := p.Size(); return [2]int{c, r} }
	check := func(step string, p *seat.Pane, want [2]int) {
		t.Helper()
		if got := size(p); got != want {
			t.Fatalf("%s: pane %v, want %v", step, got, want)
		}
	}
	z := newSizes()
	c1, c2, c3, c4 := &client{id: 1}, &client{id: 2}, &client{id: 3}, &client{id: 4}
	z.note("T1", []*seat.Pane{p})
	z.note("T2", []*seat.Pane{q})
	z.show(c1, "T1")
	z.show(c2, "T1")
	z.show(c3, "T2")

	// The only wish applies.
	if err := z.resize(c1, p, 50, 10); err != nil {
		t.Fatal(err)
	}
	check("c1's wish", p, [2]int{50, 10})
	// A later client's first wish is the latest.
	if err := z.resize(c2, p, 60, 20); err != nil {
		t.Fatal(err)
	}
	check("c2's first wish", p, [2]int{60, 20})
	// c1 becomes active: its wish applies; c2's later wish is kept only.
	z.touch(c1)
	check("c1's touch", p, [2]int{50, 10})
	if err := z.resize(c2, p, 61, 21); err != nil {
		t.Fatal(err)
	}
	check("an inactive client's new wish", p, [2]int{50, 10})
	z.touch(c2)
	check("c2's touch", p, [2]int{61, 21})
	// The active client's new wish applies at once.
	if err := z.resize(c2, p, 62, 22); err != nil {
		t.Fatal(err)
	}
	check("the active client's new wish", p, [2]int{62, 22})

	// A client showing another topic does not size the pane, even when it
	// is the most recent.
	z.touch(c3)
	if err := z.resize(c3, p, 33, 11); err != nil {
		t.Fatal(err)
	}
	check("a wish from a client showing T2", p, [2]int{62, 22})
	if err := z.resize(c3, q, 33, 11); err != nil {
		t.Fatal(err)
	}
	check("T2's pane, c3 the only one showing T2", q, [2]int{33, 11})
	// c3 turns to T1: it is the most recent there.
	z.show(c3, "T1")
	check("c3 showing T1", p, [2]int{33, 11})
	check("T2's pane, shown by nobody now, keeps its size", q, [2]int{33, 11})
	z.show(c3, "T2")
	check("c3 back on T2: the most recent of T1's", p, [2]int{62, 22})

	// Dropping a client hands its panes to the most recent other showing
	// their topic.
	z.touch(c1)
	check("c1's touch", p, [2]int{50, 10})
	z.drop(c1)
	check("c1 gone", p, [2]int{62, 22})
	z.mu.Lock()
	_, kept := z.want[p][c1]
	z.mu.Unlock()
	if kept {
		t.Error("a dropped client's wish is kept")
	}
	z.drop(c2)
	check("c2 gone: nobody on T1 wishes; the pane keeps its size", p, [2]int{62, 22})
	z.drop(c3)
	z.mu.Lock()
	n := len(z.want)
	z.mu.Unlock()
	if n != 0 {
		t.Errorf("every client gone, %d panes still have wishes", n)
	}
	// A new client starts over.
	z.note("T1", []*seat.Pane{p})
	z.show(c4, "T1")
	if err := z.resize(c4, p, 40, 12); err != nil {
		t.Fatal(err)
	}
	check("a new client's wish", p, [2]int{40, 12})
	// A bad size is the pane's error.
	if err := z.resize(c4, p, 0, 12); err == nil {
		t.Error("a 0-column wish gave no error")
	}
}

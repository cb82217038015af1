package server

import (
	"context"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"pullcept/app"
	"pullcept/attach"
	"pullcept/seat"
	"pullcept/tui"
)

// faultyPost is a screen's engine whose Post panics on "boom".
type faultyPost struct{ tui.Backend }

func (b faultyPost) Post(topic, content, lastSeen string) (app.Outcome, error) {
	if content == "boom" {
		panic("test: a fault in the screen's post")
	}
	return b.Backend.Post(topic, content, lastSeen)
}

var botAccount = []seat.Account{{ID: "bot", Name: "Bot", Kind: seat.KindCLI, Command: "my-cli"}}

// exitOf waits for the screen's Exit.
func (s *screen) exitOf() attach.Exit {
	s.t.Helper()
	select {
	case e := <-s.exit:
		return e
	case <-time.After(wait):
		s.t.Fatalf("no Exit; screen:\n%s", s.text())
		return attach.Exit{}
	}
}

// faultTold checks what the failed client was told and what the server's
// log keeps of the fault.
func faultTold(t *testing.T, f *fixture, exit attach.Exit, panicked string) {
	t.Helper()
	if exit.Code != 1 || exit.Detached || !strings.Contains(exit.Message, "pullcept: the screen failed ("+panicked) ||
		!strings.Contains(exit.Message, "the sessions keep running") || !strings.Contains(exit.Message, f.srv.faultLog()) {
		t.Errorf("the failed screen was told %+v", exit)
	}
	log, _ := os.ReadFile(f.srv.faultLog())
	if !strings.Contains(string(log), "panic: "+panicked) || !strings.Contains(string(log), "goroutine ") {
		t.Errorf("server.log has no stack of the fault:\n%s", log)
	}
	if !f.running() {
		t.Fatalf("a screen's fault ended the server: %q", f.reason)
	}
}

// A panic in one screen's key handling (Enter: the post's command) ends
// that screen only: it is told why and where the stack is, the other
// screen is told on its status line and still draws and takes keys, the
// seat's CLI still runs, and the server goes on. Before, Bubble Tea's
// catcher printed the panic, Run returned no error, and the server took
// it for a quit: every seat was stopped.
func TestScreenFaultEndsThatScreenOnly(t *testing.T) {
	t.Parallel()
	f := startServer(t, setup{accounts: botAccount, argv: []string{"cat"}, screenHook: func(c *client, o *tui.Options) {
		if c.hello.PID == 7001 {
			o.App = faultyPost{o.App}
		}
	}})
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
	s1 := f.attachScreen(100, 30, 7001)
	s1.ready()
	s2 := f.attachScreen(100, 30, 7002)
	s2.ready()

	s1.keys("boom\r")
	faultTold(t, f, s1.exitOf(), "test: a fault in the screen's post")
	s2.waitFor("the other screen's fault on the status line", has("a screen (/dev/pts/test7001) failed and was closed"))
	s2.keys("still here\r")
	s2.waitFor("a post from the screen left", has("│  still here"))
	if _, err := pane.Write([]byte("ping\n")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the seat's cat echoes", func() bool { return strings.Count(pane.Render(), "ping") >= 2 })
	select {
	case <-pane.Done():
		t.Fatal("the seat's process ended with the screen")
	default:
	}
	if out := f.ls(); !strings.Contains(out, "clients: 1\n") || !strings.Contains(out, "Bot (running)") {
		t.Errorf("listing after the fault:\n%s", out)
	}
}

// A panic inside an engine call made from a screen (a seat's launch,
// under the seat's lifecycle lock, in a command Bubble Tea runs in its own
// goroutine) ends that screen only and leaves no lock held and no seat
// half made: the same call from the other screen then starts the seat.
func TestScreenFaultInEngineCallLeavesNoLock(t *testing.T) {
	t.Parallel()
	fault := &atomic.Bool{}
	f := startServer(t, setup{accounts: botAccount, argv: []string{"cat"}, startFault: fault})
	topic, err := f.a.NewTopic()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.a.EnsureOpen(topic); err != nil {
		t.Fatal(err)
	}
	f.srv.mu.Lock()
	f.srv.lastTopic = topic // both screens show it
	f.srv.mu.Unlock()
	s1 := f.attachScreen(100, 30, 7101)
	s1.ready()
	s2 := f.attachScreen(100, 30, 7102)
	s2.ready()

	fault.Store(true)
	s1.keys("\x02a")
	s1.keys("js")
	faultTold(t, f, s1.exitOf(), "test: a fault in a seat's launch")
	s2.waitFor("the other screen's fault on the status line", has("failed and was closed"))
	for _, st := range f.a.Seats(topic) {
		if st.State != seat.StateExited {
			t.Errorf("the failed launch left the seat %+v", st)
		}
	}

	s2.keys("\x02a")
	s2.keys("js")
	eventually(t, "the seat started from the other screen", func() bool {
		for _, st := range f.a.Seats(topic) {
			if st.Account == "bot" && st.State == seat.StateRunning {
				return true
			}
		}
		return false
	})
	s2.waitFor("the seat running on the screen left", has("running"))
}

// A fault in a command run for one connection (pullcept topics, accounts)
// ends that connection with a message; the server and its screens go on.
func TestCommandFaultEndsThatConnection(t *testing.T) {
	t.Parallel()
	f := startServer(t, setup{command: func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		panic("test: a fault in a command")
	}})
	s := f.attachScreen(100, 30, 7201)
	s.ready()
	c, _ := f.dial(attach.Hello{Mode: attach.ModeCommand, Args: []string{"topics", "list"}})
	_, _, exit := untilExit(t, c)
	if exit.Code != 1 || !strings.Contains(exit.Message, "test: a fault in a command") || !strings.Contains(exit.Message, f.srv.faultLog()) {
		t.Errorf("the command's connection was told %+v", exit)
	}
	if log, _ := os.ReadFile(f.srv.faultLog()); !strings.Contains(string(log), "panic: test: a fault in a command") {
		t.Errorf("server.log:\n%s", log)
	}
	if !f.running() || !strings.Contains(f.ls(), "clients: 1\n") {
		t.Fatal("a command's fault ended the server or the screen")
	}
	s.keys("still here\r")
	s.waitFor("a post after the fault", has("│  still here"))
}

// A panic in the reader of a passed terminal (the terminal reader's own
// goroutine, which recovers nothing) ends that screen only.
func TestScreenFaultInTheTerminalReader(t *testing.T) {
	t.Parallel()
	f := startServer(t, setup{screenHook: func(c *client, o *tui.Options) {
		if c.hello.PID == 7301 && c.term != nil {
			c.term.onKey = func() { panic("test: a fault in the terminal's reader") }
		}
	}})
	s1, _ := f.attachTerminal(100, 30, 7301)
	s1.ready()
	s2 := f.attachScreen(100, 30, 7302)
	s2.ready()
	s1.keys("x")
	faultTold(t, f, s1.exitOf(), "test: a fault in the terminal's reader")
	s2.waitFor("the other screen's fault on the status line", has("failed and was closed"))
	s2.keys("still here\r")
	s2.waitFor("a post from the screen left", has("│  still here"))
}

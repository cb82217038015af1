package tui

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// faulty is a model that panics where told: in Update on a key, or in a
// command run plain, in a batch or in a sequence.
type faulty struct{ where string }

func (f *faulty) Init() tea.Cmd { return nil }

func (f *faulty) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(tea.KeyPressMsg); !ok {
		return f, nil
	}
	boom := func() tea.Msg { panic("boom in " + f.where) }
	idle := func() tea.Msg { return nil }
	switch f.where {
	case "update":
		panic("boom in update")
	case "cmd":
		return f, boom
	case "batch":
		return f, tea.Batch(idle, boom)
	case "sequence":
		return f, tea.Sequence(idle, tea.Batch(idle, boom))
	}
	return f, nil
}

func (f *faulty) View() tea.View { return tea.NewView("ok") }

// A panic in the model or in any command it returns (Bubble Tea runs
// them in goroutines of their own) ends that program with a *Fault and
// leaves the process running: without the guard, the test binary dies.
func TestGuardKeepsFaultsInTheScreen(t *testing.T) {
	for _, where := range []string{"update", "cmd", "batch", "sequence"} {
		t.Run(where, func(t *testing.T) {
			g := &guard{m: &faulty{where: where}}
			var out bytes.Buffer
			p := tea.NewProgram(g, tea.WithContext(context.Background()), tea.WithInput(strings.NewReader("x")), tea.WithOutput(&out),
				tea.WithWindowSize(20, 5), tea.WithoutCatchPanics(), tea.WithoutSignalHandler())
			g.quit = p.Quit
			done := make(chan error, 1)
			go func() { done <- runProgram(p, g) }()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Run: %v\n%s", err, g.Fault().Stack)
				}
			case <-time.After(10 * time.Second):
				p.Kill()
				t.Fatal("the program did not end after the fault")
			}
			f := g.Fault()
			if f == nil || !strings.Contains(f.Error(), "boom in "+where) || !bytes.Contains(f.Stack, []byte("faulty")) {
				t.Fatalf("fault %+v", f)
			}
			if bytes.Contains(out.Bytes(), []byte("Caught panic")) {
				t.Errorf("Bubble Tea printed the panic on the terminal:\n%s", out.Bytes())
			}
			var fe *Fault
			if !errors.As(error(f), &fe) {
				t.Error("a Fault is not an error Run can return")
			}
		})
	}
}

// The prefix ~ log of notices is drawn with the time zone the screen was
// given, time.Local when none (the server gives none): a nil zone once
// panicked there.
func TestNoticesWithoutLocation(t *testing.T) {
	hs := newHarness(t, nil, 100, 30)
	m, err := newModel(Options{App: hs.m.app}, func(f func()) { f() })
	if err != nil {
		t.Fatal(err)
	}
	m.expireAfter = func(time.Duration, tea.Msg) tea.Cmd { return nil }
	m.noticed("a notice")
	if got := strings.Join(m.noticeLines(60), "\n"); !strings.Contains(got, "a notice") {
		t.Fatalf("notice log %q", got)
	}
}

// panicOnceWriter is a terminal whose write fails once armed.
type panicOnceWriter struct {
	armed atomic.Bool
	n     atomic.Int64
}

func (w *panicOnceWriter) Write(b []byte) (int, error) {
	if w.armed.CompareAndSwap(true, false) {
		panic("test: the terminal's write failed")
	}
	w.n.Add(int64(len(b)))
	return len(b), nil
}

// A panic where Bubble Tea renders and writes (its frame loop, a goroutine
// of its own with no recovery upstream) is the screen's fault too: Run
// returns it and the process goes on (third_party/bubbletea 0006).
func TestScreenFaultInTheRenderer(t *testing.T) {
	hs := newHarness(t, nil, 80, 24)
	w := &panicOnceWriter{}
	in, inW := io.Pipe()
	defer inW.Close()
	progs := make(chan *tea.Program, 1)
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), Options{App: hs.m.app, In: in, Out: w, Width: 80, Height: 24, Server: true,
			Env: []string{"TERM=xterm-256color"}, Started: func(p *tea.Program) { progs <- p }})
	}()
	p := <-progs
	deadline := time.Now().Add(10 * time.Second)
	for w.n.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	w.armed.Store(true)
	p.Send(tea.WindowSizeMsg{Width: 100, Height: 30}) // a new frame
	select {
	case err := <-done:
		var f *Fault
		if !errors.As(err, &f) || f.Value != "test: the terminal's write failed" || !bytes.Contains(f.Stack, []byte("frameLoop")) {
			t.Fatalf("Run returned %v", err)
		}
	case <-time.After(10 * time.Second):
		p.Kill()
		t.Fatal("Run did not end after a fault in the renderer")
	}
}

package tea

// PATCH(pullcept): tests of WithOnDemandFrames (see README.md).

import (
	"bytes"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countingRenderer counts the renderer's flushes (frame loop wake-ups).
type countingRenderer struct {
	*cursedRenderer
	flushes atomic.Int64
}

func (c *countingRenderer) flush(closing bool) (bool, error) {
	c.flushes.Add(1)
	return c.cursedRenderer.flush(closing)
}

// stampWriter records when each write happened and what it held.
type stampWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes []stampedWrite
}

type stampedWrite struct {
	at time.Time
	s  string
}

func (w *stampWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, stampedWrite{time.Now(), string(p)})
	return w.buf.Write(p)
}

// firstWith is when text was first written after from (zero if not yet),
// and the time of the last write before from.
func (w *stampWriter) firstWith(text string, from time.Time) (time.Time, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, wr := range w.writes {
		if wr.at.Before(from) {
			continue
		}
		n++
		if strings.Contains(wr.s, text) {
			return wr.at, n
		}
	}
	return time.Time{}, n
}

func (w *stampWriter) last() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.writes) == 0 {
		return time.Time{}
	}
	return w.writes[len(w.writes)-1].at
}

func (w *stampWriter) countSince(from time.Time) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, wr := range w.writes {
		if !wr.at.Before(from) {
			n++
		}
	}
	return n
}

type setTextMsg string

type textModel struct{ text string }

func (m *textModel) Init() Cmd { return nil }

func (m *textModel) Update(msg Msg) (Model, Cmd) {
	if s, ok := msg.(setTextMsg); ok {
		m.text = string(s)
	}
	return m, nil
}

func (m *textModel) View() View {
	return View{AltScreen: true, Content: m.text}
}

// startProgram runs a textModel program at fps and waits until its output
// has been quiet for quiet.
func startProgram(t *testing.T, fps int, onDemand bool, quiet time.Duration) (*Program, *stampWriter, *countingRenderer) {
	t.Helper()
	out := &stampWriter{}
	opts := []ProgramOption{
		WithWindowSize(40, 5),
		WithEnvironment([]string{"TERM=xterm-256color"}),
		WithInput(&bytes.Buffer{}),
		WithOutput(out),
		WithFPS(fps),
		WithoutSignals(),
	}
	if onDemand {
		opts = append(opts, WithOnDemandFrames())
	}
	p := NewProgram(&textModel{text: "start"}, opts...)
	r := &countingRenderer{cursedRenderer: newCursedRenderer(out, []string{"TERM=xterm-256color"}, 40, 5)}
	p.renderer = r
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := p.Run(); err != nil {
			t.Error(err)
		}
	}()
	t.Cleanup(func() {
		p.Quit()
		<-done
	})
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if l := out.last(); !l.IsZero() && time.Since(l) > quiet {
			return p, out, r
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the program's output never went quiet")
	return nil, nil, nil
}

// An idle program's frame loop is not woken: no flush while nothing
// changes. Upstream's ticker flushes fps times a second.
func TestOnDemandIdleNoFlush(t *testing.T) {
	t.Parallel()
	_, _, r := startProgram(t, 60, true, 100*time.Millisecond)
	before := r.flushes.Load()
	time.Sleep(300 * time.Millisecond)
	if n := r.flushes.Load() - before; n != 0 {
		t.Fatalf("%d flushes in 300 ms of idle, want 0", n)
	}

	_, _, tr := startProgram(t, 60, false, 100*time.Millisecond)
	before = tr.flushes.Load()
	time.Sleep(300 * time.Millisecond)
	if n := tr.flushes.Load() - before; n < 5 {
		t.Fatalf("ticker mode: %d flushes in 300 ms, want about 18 (test is off)", n)
	}
}

// A change after a quiet spell is drawn at once, not at the next tick. At 4
// fps a tick-driven frame would come 0–250 ms later; the change is sent
// half an interval after the last written frame, where the ticker's phase
// puts it ~125 ms away.
func TestOnDemandLeadingEdge(t *testing.T) {
	t.Parallel()
	p, out, _ := startProgram(t, 4, true, 375*time.Millisecond)
	for i, text := range []string{"alpha", "bravo", "charlie"} {
		if i > 0 {
			time.Sleep(375 * time.Millisecond)
		}
		sent := time.Now()
		p.Send(setTextMsg(text))
		var at time.Time
		for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
			if at, _ = out.firstWith(text, sent); !at.IsZero() {
				break
			}
		}
		if at.IsZero() {
			t.Fatalf("%q never drawn", text)
		}
		if d := at.Sub(sent); d > 60*time.Millisecond {
			t.Fatalf("%q drawn %v after the change, want at once", text, d)
		}
	}
}

// A message that changes nothing on screen does not hold back the change
// right after it (as when a key goes to a pane and its echo follows).
func TestOnDemandUnchangedFrameDoesNotDelay(t *testing.T) {
	t.Parallel()
	p, out, _ := startProgram(t, 4, true, 300*time.Millisecond)
	p.Send(setTextMsg("start")) // same view: nothing written
	time.Sleep(10 * time.Millisecond)
	sent := time.Now()
	p.Send(setTextMsg("echo"))
	var at time.Time
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		if at, _ = out.firstWith("echo", sent); !at.IsZero() {
			break
		}
	}
	if at.IsZero() {
		t.Fatal("echo never drawn")
	}
	if d := at.Sub(sent); d > 60*time.Millisecond {
		t.Fatalf("echo drawn %v after the change, want at once", d)
	}
}

// A burst of changes is still coalesced to at most one frame per interval,
// and the last state is drawn.
func TestOnDemandBurstCoalesced(t *testing.T) {
	t.Parallel()
	p, out, _ := startProgram(t, 10, true, 150*time.Millisecond)
	start := time.Now()
	for i := range 100 {
		p.Send(setTextMsg("burst" + strings.Repeat("x", i%7) + string(rune('a'+i%26))))
		time.Sleep(3 * time.Millisecond)
	}
	p.Send(setTextMsg("final"))
	elapsed := time.Since(start)
	var at time.Time
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if at, _ = out.firstWith("final", start); !at.IsZero() {
			break
		}
	}
	if at.IsZero() {
		t.Fatal("the last state was never drawn")
	}
	time.Sleep(150 * time.Millisecond)
	// Writes: one per frame at 100 ms apart over the burst, plus the
	// frame budget's two leading frames and the trailing one (the budget
	// bounds any span of W to 2 + W/interval frames).
	if n, max := out.countSince(start), int(elapsed/(100*time.Millisecond))+3; n > max {
		t.Fatalf("%d writes in a %v burst at 10 fps, want at most %d", n, elapsed, max)
	}
}

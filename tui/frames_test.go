package tui

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"pullcept/room"
	"pullcept/topicstore"
)

// stampOut records when each write to the terminal happened.
type stampOut struct {
	mu     sync.Mutex
	writes []stampedWrite
}

type stampedWrite struct {
	at time.Time
	s  string
}

func (w *stampOut) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, stampedWrite{time.Now(), string(p)})
	return len(p), nil
}

// first is when text first appeared in a write at or after from.
func (w *stampOut) first(text string, from time.Time) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, wr := range w.writes {
		if !wr.at.Before(from) && strings.Contains(wr.s, text) {
			return wr.at
		}
	}
	return time.Time{}
}

func (w *stampOut) last() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.writes) == 0 {
		return time.Time{}
	}
	return w.writes[len(w.writes)-1].at
}

func (w *stampOut) since(from time.Time) int {
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

// waitQuiet waits until nothing was written for d.
func (w *stampOut) waitQuiet(t *testing.T, d time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if l := w.last(); !l.IsZero() && time.Since(l) >= d {
			return
		}
	}
	t.Fatal("the screen never went quiet")
}

// waitFor waits for text to be written at or after from and returns when.
func (w *stampOut) waitFor(t *testing.T, text string, from time.Time) time.Time {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if at := w.first(text, from); !at.IsZero() {
			return at
		}
	}
	t.Fatalf("%q never drawn", text)
	return time.Time{}
}

// echoPane is a terminal whose application echoes what is typed into its
// first line, signalling the seats' change channel like a real pane.
type echoPane struct {
	fakePane
	changed chan struct{}
}

func (p *echoPane) Write(b []byte) (int, error) {
	p.mu.Lock()
	if len(p.lines) == 0 {
		p.lines = []string{""}
	}
	p.lines[0] += string(b)
	if n := len(p.lines[0]); n > 20 {
		p.lines[0] = p.lines[0][n-20:]
	}
	p.mu.Unlock()
	select {
	case p.changed <- struct{}{}:
	default:
	}
	return len(b), nil
}

// anySeats shows its seats in every topic.
type anySeats struct{ *fakeSeats }

func (a anySeats) Seats(string) []SeatInfo { return a.fakeSeats.Seats("") }

// runScreen runs the whole screen (Run) at fps with one echoing seat and
// returns a function typing into it and the terminal's output.
func runScreen(t *testing.T, fps int) (func(string), *stampOut, *room.Engine) {
	t.Helper()
	st, err := topicstore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	eng := room.New(room.Config{Log: st, PersonName: "you"})
	fs := newFakeSeats(Account{ID: "cat", Name: "cat", Kind: "cli"})
	pane := &echoPane{changed: fs.changed}
	fs.seats[""] = []SeatInfo{{Account: "cat", Name: "cat", Kind: "cli", State: StateRunning, Pane: pane}}
	in, inW := io.Pipe()
	out := &stampOut{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	tb := &testBackend{eng: eng, store: st}
	go func() {
		done <- Run(ctx, Options{App: tb, Seats: anySeats{fs}, In: in, Out: out, Width: 120, Height: 30, FPS: fps})
	}()
	t.Cleanup(func() {
		cancel()
		_ = inW.Close()
		if err := <-done; err != nil {
			t.Error(err)
		}
		tb.close() // before the store's folder goes
	})
	typeKeys := func(s string) {
		if _, err := inW.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	return typeKeys, out, eng
}

// A key is drawn at once, not at the next tick of a frame clock, both in
// the input line and as the echo of a focused pane's application. At 2 fps
// a frame clock would hold each for 0–500 ms; every key here comes well
// over a frame interval after the last frame.
func TestKeyDrawnAtOnce(t *testing.T) {
	t.Parallel()
	typeKeys, out, _ := runScreen(t, 2)
	out.waitQuiet(t, 600*time.Millisecond)
	check := func(where, key, want string) {
		t.Helper()
		out.waitQuiet(t, 600*time.Millisecond)
		t0 := time.Now()
		typeKeys(key)
		if d := out.waitFor(t, want, t0).Sub(t0); d > 150*time.Millisecond {
			t.Errorf("%s: %q drawn %v after the key, want at once", where, want, d)
		}
	}
	check("input line", "q", "q")
	check("input line", "z", "z")
	typeKeys("\x02o\x02o") // focus the pane
	out.waitQuiet(t, 600*time.Millisecond)
	check("pane echo", "x", "x")
	check("pane echo", "y", "y")
	check("pane echo", "w", "w")
}

// Redraws are coalesced: a burst of pane output is drawn at most once per
// frame interval, and its end is drawn.
func TestPaneBurstCoalesced(t *testing.T) {
	t.Parallel()
	typeKeys, out, _ := runScreen(t, 10)
	typeKeys("\x02o\x02o")
	out.waitQuiet(t, 200*time.Millisecond)
	start := time.Now()
	for i := range 60 {
		typeKeys(string(rune('a' + i%26)))
		time.Sleep(5 * time.Millisecond)
	}
	typeKeys("END")
	elapsed := time.Since(start)
	out.waitFor(t, "END", start)
	out.waitQuiet(t, 200*time.Millisecond)
	if n, limit := out.since(start), int(elapsed/(100*time.Millisecond))+3; n > limit {
		t.Fatalf("%d frames written in a %v burst at 10 fps, want at most %d", n, elapsed, limit)
	}
}

// cursorPane's application has moved its cursor (and written) without the
// seats signalling the change yet.
type cursorPane struct {
	fakePane
	x int
}

func (p *cursorPane) Cursor() (int, int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.x, 0, true
}

// The pane's cursor is read with its text: a frame drawn before the pane's
// change is signalled shows neither the new text nor the moved cursor, so
// an echo is one frame, not a cursor-only frame that makes the text wait
// for the next frame interval.
func TestPaneCursorReadWithText(t *testing.T) {
	seats := newFakeSeats(Account{ID: "cl", Name: "Claude", Kind: "claude_code"})
	hs := newHarness(t, seats, 120, 30)
	pane := &cursorPane{fakePane: fakePane{lines: []string{"$ "}}, x: 2}
	seats.seats[hs.m.topic] = []SeatInfo{{Account: "cl", Name: "Claude", Kind: "claude_code", State: StateRunning, Pane: pane}}
	hs.send(seatsChangedMsg{})
	hs.prefix('o', "o") // room
	hs.prefix('o', "o") // pane
	in := hs.m.lay.Panes[0].Inner()
	before := hs.m.View()
	if before.Cursor == nil || before.Cursor.X != in.X+2 {
		t.Fatalf("cursor %+v, want x %d", before.Cursor, in.X+2)
	}
	hs.typeText("a")
	pane.mu.Lock() // the echo reached the emulator; not yet signalled
	pane.lines[0], pane.x = "$ a", 3
	pane.mu.Unlock()
	hs.send(nothingMsg{}) // any message: a frame
	if v := hs.m.View(); v.Cursor == nil || v.Cursor.X != in.X+2 || v.Content != before.Content {
		t.Errorf("before the change signal the frame moved: cursor %+v, want x %d, same text", v.Cursor, in.X+2)
	}
	hs.send(seatsChangedMsg{})
	if v := hs.m.View(); v.Cursor == nil || v.Cursor.X != in.X+3 || v.Content == before.Content {
		t.Errorf("after the change signal: cursor %+v, want x %d and the new text", v.Cursor, in.X+3)
	}
}

type nothingMsg struct{}

// The screen asks the terminal to report modified keys (kitty keyboard
// protocol, disambiguation; xterm modifyOtherKeys 2), so Shift+Enter is
// told from Enter where the terminal can; Shift+Enter in either report,
// Alt+Enter and Ctrl+J (legacy LF and the kitty report) each put a new line
// in the input.
func TestNewlineKeys(t *testing.T) {
	t.Parallel()
	typeKeys, out, eng := runScreen(t, 60)
	sub := eng.Subscribe()
	defer sub.Close()
	out.waitQuiet(t, 100*time.Millisecond)
	all := func() string {
		out.mu.Lock()
		defer out.mu.Unlock()
		var b strings.Builder
		for _, w := range out.writes {
			b.WriteString(w.s)
		}
		return b.String()
	}()
	for _, seq := range []string{"\x1b[>1u", "\x1b[>4;2m"} {
		if !strings.Contains(all, seq) {
			t.Errorf("the screen never asked for %q (key reports)", seq)
		}
	}
	typeKeys("a\x1b[13;2u" + "b\x1b[27;2;13~" + "c\x1b\r" + "d\n" + "e\x1b[106;5u" + "f\r")
	want := "a\nb\nc\nd\ne\nf"
	deadline := time.After(5 * time.Second)
	for {
		select {
		case ev := <-sub.C:
			if ev.Kind == room.EventPost && ev.Own {
				if ev.Post.Content != want {
					t.Fatalf("posted %q, want %q", ev.Post.Content, want)
				}
				return
			}
		case <-deadline:
			t.Fatal("nothing posted")
		}
	}
}

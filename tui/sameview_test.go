package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"pullcept/room"
	"pullcept/topicstore"
)

// A key typed into a pane changes nothing on screen until its echo comes
// as the seats' change: View gives the last frame again rather than draw
// one while the echo is on its way; the echo's change draws it.
func TestPaneKeyKeepsTheFrame(t *testing.T) {
	seats := newFakeSeats()
	hs := newHarness(t, seats, 100, 30)
	ps := withPanes(hs, seats, "Lin")
	hs.prefix('o', "o")
	hs.prefix('o', "o")
	if hs.m.focus != focusPane {
		t.Fatalf("focus %v, want the pane", hs.m.focus)
	}
	before := hs.screen()
	n := hs.m.frames
	hs.send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	if got := ps[0].typed(); got != "q" {
		t.Fatalf("typed %q, want q", got)
	}
	if got := hs.screen(); got != before || hs.m.frames != n {
		t.Fatalf("a key into the pane drew a frame (%d → %d)", n, hs.m.frames)
	}
	ps[0].mu.Lock()
	ps[0].lines = []string{"screen of Lin q"}
	ps[0].mu.Unlock()
	hs.send(seatsChangedMsg{})
	if got := hs.screen(); !strings.Contains(got, "screen of Lin q") || hs.m.frames == n {
		t.Fatalf("the echo was not drawn (frames %d → %d):\n%s", n, hs.m.frames, got)
	}
}

// A key that changes the screen on its way to the pane (it hides the pane
// numbers) draws the frame.
func TestPaneKeyThatChangesTheScreenDraws(t *testing.T) {
	seats := newFakeSeats()
	hs := newHarness(t, seats, 100, 30)
	withPanes(hs, seats, "Lin")
	hs.prefix('o', "o")
	hs.prefix('o', "o")
	hs.prefix('#', "#")
	if !hs.m.numbers {
		t.Fatal("prefix # did not show the numbers")
	}
	shown := hs.screen()
	hs.send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	if hs.m.numbers || hs.screen() == shown {
		t.Fatalf("the numbers stayed on screen after a key:\n%s", hs.screen())
	}
}

// A pane's output redraws only the panes; a seat whose state changed in the
// same change redraws the rest too.
func TestPaneOutputKeepsTheOtherRectangles(t *testing.T) {
	seats := newFakeSeats()
	hs := newHarness(t, seats, 100, 30)
	ps := withPanes(hs, seats, "Lin")
	hs.screen()
	others := hs.m.drawn.others
	ps[0].mu.Lock()
	ps[0].lines = []string{"new output"}
	ps[0].mu.Unlock()
	hs.send(seatsChangedMsg{})
	if got := hs.screen(); !strings.Contains(got, "new output") || hs.m.drawn.others != others {
		t.Fatalf("pane output: other rectangles drawn again %v, screen:\n%s", hs.m.drawn.others != others, got)
	}
	seats.seats[hs.m.topic][0].State = StateExited
	seats.seats[hs.m.topic][0].Exit = "exit status 3"
	hs.send(seatsChangedMsg{})
	if got := hs.screen(); hs.m.drawn.others == others || !strings.Contains(got, "exit status 3") {
		t.Fatalf("a seat that ended was not drawn:\n%s", got)
	}
}

// A pane's output alone (paneOutputMsg) redraws the pane without reading
// the seats again; the other rectangles are kept.
func TestPaneOutputDrawsWithoutReadingTheSeats(t *testing.T) {
	seats := newFakeSeats()
	hs := newHarness(t, seats, 100, 30)
	ps := withPanes(hs, seats, "Lin")
	hs.screen()
	others := hs.m.drawn.others
	// A seat changed without its signal: an output message must not show it.
	seats.seats[hs.m.topic][0].State = StateExited
	seats.seats[hs.m.topic][0].Exit = "exit status 9"
	ps[0].mu.Lock()
	ps[0].lines = []string{"output alone"}
	ps[0].mu.Unlock()
	hs.send(paneOutputMsg{})
	got := hs.screen()
	if !strings.Contains(got, "output alone") || strings.Contains(got, "exit status 9") || hs.m.drawn.others != others {
		t.Fatalf("pane output: the seats were read again or the pane not drawn:\n%s", got)
	}
	hs.send(seatsChangedMsg{})
	if got := hs.screen(); !strings.Contains(got, "exit status 9") {
		t.Fatalf("the seats' change was not drawn:\n%s", got)
	}
}

// forwardChanges sends a pane's output alone as paneOutputMsg and a state
// change (with or without output) as seatsChangedMsg.
func TestForwardChangesTellsOutputFromStates(t *testing.T) {
	c, out := make(chan struct{}, 1), make(chan struct{}, 1)
	msgs := make(chan tea.Msg, 4)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go forwardChanges(ctx, c, out, time.Millisecond, func(m tea.Msg) { msgs <- m })
	next := func() tea.Msg {
		select {
		case m := <-msgs:
			return m
		case <-time.After(5 * time.Second):
			t.Fatal("no message")
			return nil
		}
	}
	out <- struct{}{}
	if m := next(); m != (paneOutputMsg{}) {
		t.Fatalf("output alone: %T", m)
	}
	c <- struct{}{}
	if m := next(); m != (seatsChangedMsg{}) {
		t.Fatalf("a state change: %T", m)
	}
}

// A pane's output right after a lone state change is sent at once (the
// budget of two), and the next waits until an interval after the first:
// with one message per interval the echo would wait ~200 ms here.
func TestForwardChangesBudgetOfTwo(t *testing.T) {
	const frame = 200 * time.Millisecond
	c, out := make(chan struct{}, 1), make(chan struct{}, 1)
	msgs := make(chan time.Time, 4)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go forwardChanges(ctx, c, out, frame, func(tea.Msg) { msgs <- time.Now() })
	next := func() time.Time {
		select {
		case at := <-msgs:
			return at
		case <-time.After(5 * time.Second):
			t.Fatal("no message")
			return time.Time{}
		}
	}
	c <- struct{}{}
	first := next()
	sent := time.Now()
	out <- struct{}{}
	if d := next().Sub(sent); d > frame/2 {
		t.Fatalf("the output after a lone change came %v later, want at once", d)
	}
	out <- struct{}{}
	if d := next().Sub(first); d < frame-10*time.Millisecond {
		t.Fatalf("the third message came %v after the first, want at least the interval (%v)", d, frame)
	}
}

// A screen whose size is known before the program starts draws the whole
// screen in its first frame, before any message.
func TestFirstFrameIsTheWholeScreen(t *testing.T) {
	st, err := topicstore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	eng := room.New(room.Config{Log: st, PersonName: "you"})
	m, err := newModel(Options{App: &testBackend{eng: eng, store: st}}, func(f func()) { f() })
	if err != nil {
		t.Fatal(err)
	}
	m.presize(100, 30)
	got := ansi.Strip(m.View().Content)
	for _, want := range []string{"Topics", "Participants", "say something to the room"} {
		if !strings.Contains(got, want) {
			t.Fatalf("the first frame lacks %q:\n%s", want, got)
		}
	}
}

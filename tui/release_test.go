package tui

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// u in the participants says what the release did or why not (issue 31,
// point 4): the seat's own note; an error; and, behind unsent keys, a
// confirmation that names the keys before anything is cleared: n keeps
// them, y clears them and types the held posts.
func TestReleaseSaysWhatItDoes(t *testing.T) {
	seats := newFakeSeats(Account{ID: "lin", Name: "Lin", FullName: "Lin", Kind: "claude_code"})
	hs := newHarness(t, seats, 100, 30)
	hs.prefix('a', "a")
	hs.key('j', 0) // the person's row, then Lin's
	press := func() {
		hs.key('u', 0)
		hs.pump()
	}

	seats.releaseErr = errors.New("Lin is not running: it holds nothing")
	press()
	if scr := hs.screen(); !strings.Contains(scr, "releasing Lin: Lin is not running: it holds nothing") {
		t.Fatalf("a stopped seat:\n%s", scr)
	}

	seats.releaseErr = nil
	seats.release = ReleaseResult{Note: "Lin is waiting for your permission: answer in its pane (posts are not typed into an open prompt)", Held: 1}
	press()
	if scr := hs.screen(); !strings.Contains(scr, "answer in its pane") || strings.Contains(scr, ": done") {
		t.Fatalf("an open prompt:\n%s", scr)
	}

	seats.release = ReleaseResult{Note: "Lin holds 2 held posts behind unsent keys in its prompt: 'abc'", Held: 2, Unsent: "abc", Shown: "'abc'"}
	press()
	scr := hs.screen()
	if !strings.Contains(scr, "Clear 'abc' in Lin's prompt and type 2 held posts?") || !strings.Contains(scr, "Clear unsent keys") || strings.Contains(scr, "Delete topic") {
		t.Fatalf("no confirmation:\n%s", scr)
	}
	hs.key('n', 0)
	hs.pump()
	if scr := hs.screen(); strings.Contains(scr, "Clear 'abc'") || !strings.Contains(scr, "kept the keys in Lin's prompt") {
		t.Fatalf("after n:\n%s", scr)
	}
	if slices.ContainsFunc(seats.calls, func(c string) bool { return strings.HasPrefix(c, "clear ") }) {
		t.Fatalf("cleared without the person's yes: %q", seats.calls)
	}
	press()
	hs.key('y', 0)
	hs.pump()
	if !slices.Contains(seats.calls, "clear lin abc") {
		t.Fatalf("calls %q", seats.calls)
	}
	if scr := hs.screen(); !strings.Contains(scr, "cleared abc") {
		t.Fatalf("after y:\n%s", scr)
	}
}

// A seat whose full queue did not take posts says so under its row in the
// participants (issue 32, finding 3), and its pane title gives the hold.
func TestParticipantsShowAFullQueue(t *testing.T) {
	seats := newFakeSeats(Account{ID: "lin", Name: "Lin", FullName: "Lin", Kind: "cli"})
	hs := newHarness(t, seats, 120, 30)
	seats.mu.Lock()
	seats.seats[hs.m.topic] = []SeatInfo{{Account: "lin", Name: "Lin", Kind: "cli", State: StateRunning, Pane: &fakePane{},
		Held: 256, Hold: "its program is not reading its input; queue full: 44 posts not typed (they stay in the room)", Skipped: 44}}
	seats.mu.Unlock()
	hs.send(seatsChangedMsg{})
	scr := hs.screen()
	for _, want := range []string{"256 held", "full: 44 not typed"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("no %q on the screen:\n%s", want, scr)
		}
	}
}

// A seat whose last turn ended on an API error (Claude's StopFailure, not a
// usage limit) says so in its participants row and its pane title.
func TestParticipantsShowAnAPIError(t *testing.T) {
	scr := linSeatScreen(t, SeatInfo{Activity: "ready", Failure: "overloaded"})
	// The participants column cuts the row's note.
	if n := strings.Count(scr, "API error: overlo"); n < 2 || !strings.Contains(scr, "ready · API error: overloaded") {
		t.Fatalf("want the error in the participants row and the pane title, saw it %d times:\n%s", n, scr)
	}
}

// A seat waiting in one of Claude 2.1.332's other dialogs (Notification
// agent_needs_input) says so in its pane title.
func TestPaneTitleShowsADialogWait(t *testing.T) {
	if scr := linSeatScreen(t, SeatInfo{Activity: "waiting", Wait: "dialog"}); !strings.Contains(scr, "running · waiting for your choice in a dialog") {
		t.Fatalf("no dialog wait in the title:\n%s", scr)
	}
}

// linSeatScreen is a 220x30 screen with one running Claude seat, Lin,
// whose activity is info's.
func linSeatScreen(t *testing.T, info SeatInfo) string {
	t.Helper()
	seats := newFakeSeats(Account{ID: "lin", Name: "Lin", FullName: "Lin", Kind: "claude_code"})
	hs := newHarness(t, seats, 220, 30)
	info.Account, info.Name, info.Kind, info.State, info.Pane = "lin", "Lin", "claude_code", StateRunning, &fakePane{}
	seats.mu.Lock()
	seats.seats[hs.m.topic] = []SeatInfo{info}
	seats.mu.Unlock()
	hs.send(seatsChangedMsg{})
	return hs.screen()
}

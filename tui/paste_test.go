package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

// bracketPane is a pane whose application may have asked for bracketed
// paste.
type bracketPane struct {
	fakePane
	on bool
}

func (p *bracketPane) BracketedPaste() bool { return p.on }

func TestPasteBracketedWhenThePaneAsks(t *testing.T) {
	seats := newFakeSeats(Account{ID: "cl", Name: "Claude", Kind: "claude_code"})
	hs := newHarness(t, seats, 120, 30)
	pane := &bracketPane{on: true}
	seats.seats[hs.m.topic] = []SeatInfo{{Account: "cl", Name: "Claude", Kind: "claude_code", State: StateRunning, Pane: pane}}
	hs.send(seatsChangedMsg{})
	hs.prefix('o', "o") // room
	hs.prefix('o', "o") // pane
	if hs.m.focus != focusPane {
		t.Fatalf("focus = %v", hs.m.focus)
	}
	hs.send(tea.PasteMsg{Content: "one\ntwo"})
	// An end marker inside the text (also one that removing another
	// would form) must not end the paste early.
	hs.send(tea.PasteMsg{Content: "a\x1b[201~b\x1b[201\x1b[201~~c"})
	pane.on = false
	hs.send(tea.PasteMsg{Content: "plain\n"})
	want := "\x1b[200~one\ntwo\x1b[201~" + "\x1b[200~abc\x1b[201~" + "plain\n"
	if got := pane.typed(); got != want {
		t.Errorf("typed %q, want %q", got, want)
	}
}

func TestPastePlainPaneAsIs(t *testing.T) {
	p := &fakePane{}
	if got := string(pasteBytes(p, "x\x1b[201~y")); got != "x\x1b[201~y" {
		t.Errorf("pasteBytes = %q, want the text as is", got)
	}
}

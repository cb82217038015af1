package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// withPanes gives the harness's topic n running seats with panes, named
// names[i] (or P1, P2, …).
func withPanes(hs *harness, seats *fakeSeats, names ...string) []*fakePane {
	var ps []*fakePane
	var ss []SeatInfo
	for i, n := range names {
		p := &fakePane{lines: []string{"screen of " + n}}
		ps = append(ps, p)
		ss = append(ss, SeatInfo{Account: fmt.Sprintf("a%d", i), Name: n, Kind: "claude_code", State: StateRunning, Pane: p})
	}
	seats.seats[hs.m.topic] = ss
	hs.send(seatsChangedMsg{})
	return ps
}

func space(hs *harness) {
	hs.key('b', tea.ModCtrl)
	hs.send(tea.KeyPressMsg{Code: tea.KeySpace, Text: " "})
}

func TestPrefixSpaceCyclesLayouts(t *testing.T) {
	seats := newFakeSeats()
	hs := newHarness(t, seats, 120, 40)
	withPanes(hs, seats, "Lin", "Lay")
	if got := hs.m.lay.Panes; got[0].X != got[1].X {
		t.Fatalf("tiled, two panes in a narrow area: not stacked %+v", got)
	}
	for _, want := range []string{"even-horizontal", "even-vertical", "main-vertical", "tiled", "even-horizontal"} {
		space(hs)
		if hs.m.status != "layout: "+want || !strings.Contains(hs.screen(), "layout: "+want) {
			t.Fatalf("status %q, want the layout %s named\n%s", hs.m.status, want, hs.screen())
		}
		if layoutNames[hs.m.paneLayout] != want {
			t.Fatalf("layout %d, want %s", hs.m.paneLayout, want)
		}
	}
	if p := hs.m.lay.Panes; p[0].Y != p[1].Y || p[0].X == p[1].X {
		t.Errorf("even-horizontal: panes %+v not side by side", p)
	}
	space(hs) // even-vertical
	if p := hs.m.lay.Panes; p[0].X != p[1].X || p[0].Y == p[1].Y {
		t.Errorf("even-vertical: panes %+v not stacked", p)
	}
}

// 8 seats at 100x30: six show, the strip names the other two, prefix o
// and prefix # with the number reach them; a hidden pane focused comes on
// screen in the last place and gets the keys.
func TestHiddenPanesAreNamedAndReachable(t *testing.T) {
	seats := newFakeSeats()
	hs := newHarness(t, seats, 100, 30)
	names := []string{"Ada", "Bo", "Cy", "Di", "Ed", "Fay", "Gus", "Hal"}
	ps := withPanes(hs, seats, names...)
	if got := hs.m.lay.Hidden; len(got) != 2 || got[0] != 6 || got[1] != 7 {
		t.Fatalf("hidden %v, want panes 7 and 8", got)
	}
	scr := hs.screen()
	if !strings.Contains(scr, "+2: 7 Gus · 8 Hal") {
		t.Fatalf("strip does not name the hidden panes:\n%s", scr)
	}
	for i, n := range names[:6] {
		if !strings.Contains(scr, fmt.Sprintf("%d %s · claude_code", i+1, n)) {
			t.Errorf("title of pane %d lacks its number:\n%s", i+1, scr)
		}
	}

	// prefix o: input → room → panes 1…7.
	for range 2 + 6 {
		hs.prefix('o', "o")
	}
	if hs.m.focus != focusPane || hs.m.paneIdx != 6 {
		t.Fatalf("focus %v pane %d, want pane 7", hs.m.focus, hs.m.paneIdx)
	}
	r := hs.m.lay.Panes[6]
	if r.Empty() || !hs.m.lay.Panes[5].Empty() {
		t.Fatalf("pane 7 %+v not on screen in pane 6's place (%+v)", r, hs.m.lay.Panes[5])
	}
	scr = hs.screen()
	if !strings.Contains(scr, "7 Gus · claude_code") || !strings.Contains(scr, "screen of Gus") || !strings.Contains(scr, "+2: 6 Fay · 8 Hal") {
		t.Fatalf("pane 7 not drawn, or the strip wrong:\n%s", scr)
	}
	if in := r.Inner(); ps[6].cols != in.W || ps[6].rows != in.H {
		t.Errorf("pane 7 sized %dx%d, shown %dx%d", ps[6].cols, ps[6].rows, in.W, in.H)
	}
	hs.typeText("x")
	if ps[6].typed() != "x" {
		t.Errorf("pane 7 got %q", ps[6].typed())
	}
	hs.prefix('o', "o")
	if hs.m.paneIdx != 7 || hs.m.lay.Panes[7].Empty() || !hs.m.lay.Panes[6].Empty() {
		t.Fatalf("pane 8 not reached: focus %d, panes %+v", hs.m.paneIdx, hs.m.lay.Panes)
	}
	// Back to pane 1: the last place keeps pane 8 (it moves only when a
	// hidden pane is focused).
	hs.prefix('#', "#")
	hs.send(tea.KeyPressMsg{Code: '1', Text: "1"})
	if hs.m.focus != focusPane || hs.m.paneIdx != 0 || hs.m.lay.Panes[7].Empty() {
		t.Errorf("prefix # 1: focus %v pane %d, pane 8 %+v", hs.m.focus, hs.m.paneIdx, hs.m.lay.Panes[7])
	}
	// By its number.
	hs.prefix('#', "#")
	hs.send(tea.KeyPressMsg{Code: '6', Text: "6"})
	if hs.m.paneIdx != 5 || hs.m.lay.Panes[5].Empty() || !strings.Contains(hs.screen(), "+2: 7 Gus · 8 Hal") {
		t.Errorf("prefix # 6: pane %d, rect %+v\n%s", hs.m.paneIdx, hs.m.lay.Panes[5], hs.screen())
	}
	for i, p := range ps {
		if i != 6 && p.typed() != "" {
			t.Errorf("pane %d got %q", i+1, p.typed())
		}
	}
	// A click on a name on the strip focuses that pane.
	s := hs.m.lay.Strip
	x := s.X + len("+2: 7 Gus · ") + 1
	hs.send(tea.MouseClickMsg{X: x, Y: s.Y, Button: tea.MouseLeft})
	if hs.m.paneIdx != 7 || hs.m.lay.Panes[7].Empty() {
		t.Errorf("click on the strip at %d: pane %d", x, hs.m.paneIdx)
	}
}

// 3 seats at 60x20: one shows; prefix # shows the numbers, a digit
// focuses that pane and is typed nowhere; another key hides the numbers
// and does what it does.
func TestPaneNumbers(t *testing.T) {
	seats := newFakeSeats()
	hs := newHarness(t, seats, 60, 20)
	ps := withPanes(hs, seats, "Lin", "Lay", "Eta")
	if got := len(hs.m.lay.Hidden); got != 2 || !strings.Contains(hs.screen(), "+2: 2 Lay · 3 Eta") {
		t.Fatalf("hidden %d\n%s", got, hs.screen())
	}
	hs.prefix('#', "#")
	if !hs.m.numbers {
		t.Fatal("prefix # did not show the numbers")
	}
	if r := hs.m.lay.Panes[0]; !strings.HasSuffix(strings.Split(hs.screen(), "\n")[r.Y+r.H/2], "│                  1") {
		t.Errorf("number 1 not drawn in the middle of pane 1:\n%s", hs.screen())
	}
	hs.send(tea.KeyPressMsg{Code: '3', Text: "3"})
	if hs.m.numbers || hs.m.focus != focusPane || hs.m.paneIdx != 2 || hs.m.lay.Panes[2].Empty() {
		t.Fatalf("after 3: numbers %v focus %v pane %d rect %+v", hs.m.numbers, hs.m.focus, hs.m.paneIdx, hs.m.lay.Panes[2])
	}
	if !strings.Contains(hs.screen(), "3 Eta · claude_code") || !strings.Contains(hs.screen(), "+2: 1 Lin · 2 Lay") {
		t.Errorf("pane 3 not on screen:\n%s", hs.screen())
	}
	for _, p := range ps {
		if p.typed() != "" {
			t.Errorf("the digit was typed: %q", p.typed())
		}
	}
	// A number with no pane says so.
	hs.prefix('#', "#")
	hs.send(tea.KeyPressMsg{Code: '7', Text: "7"})
	if hs.m.paneIdx != 2 || !strings.Contains(hs.m.status, "no pane 7") {
		t.Errorf("7: pane %d status %q", hs.m.paneIdx, hs.m.status)
	}
	// Another key hides them and goes on: typed into the focused pane.
	hs.prefix('#', "#")
	hs.typeText("q")
	if hs.m.numbers || ps[2].typed() != "q" {
		t.Errorf("numbers %v, pane 3 got %q", hs.m.numbers, ps[2].typed())
	}
	// Esc only hides them.
	hs.prefix('#', "#")
	hs.key(tea.KeyEscape, 0)
	if hs.m.numbers || ps[2].typed() != "q" {
		t.Errorf("esc: numbers %v, pane 3 got %q", hs.m.numbers, ps[2].typed())
	}
	// They go by themselves; an older timeout leaves newer numbers alone.
	var scheduled []tea.Msg
	hs.m.expireAfter = func(d time.Duration, msg tea.Msg) tea.Cmd {
		if _, ok := msg.(numbersOffMsg); ok && d == paneNumbersTime {
			scheduled = append(scheduled, msg)
		}
		return nil
	}
	hs.prefix('#', "#")
	seq := hs.m.numbersSeq
	if len(scheduled) != 1 || scheduled[0] != (numbersOffMsg{seq: seq}) {
		t.Errorf("scheduled %v", scheduled)
	}
	hs.send(numbersOffMsg{seq: seq - 1})
	if !hs.m.numbers {
		t.Error("an older timeout hid the numbers")
	}
	hs.send(numbersOffMsg{seq: seq})
	if hs.m.numbers {
		t.Error("the numbers stayed after their time")
	}
}

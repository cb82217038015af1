package tui

import (
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"pullcept/app"
	"pullcept/room/wire"
)

// TestRoomShowsDeliveryMarks: a post typed into seats gets one dim line
// under it naming each seat's mark, by calling name; a newer mark replaces
// the older; at a narrow width the line is cut with ….
func TestRoomShowsDeliveryMarks(t *testing.T) {
	hs := newHarness(t, newFakeSeats(
		Account{ID: "lin", Name: "Lin", Kind: "claude_code"},
		Account{ID: "lay", Name: "Lay", Kind: "codex"},
	), 100, 30)
	hs.typeText("hello both")
	hs.key(tea.KeyEnter, 0)
	hs.pump()
	id := hs.m.cur().posts[0].MessageID
	mark := func(acc string, mk app.Mark, why string) {
		hs.send(appEventMsg{app.Event{Kind: app.EventDelivery, Delivery: app.Delivery{Topic: hs.m.topic, Account: acc, MessageID: id, Mark: mk, Why: why}}})
	}
	if strings.Contains(hs.screen(), "→") {
		t.Fatalf("a mark before any was told:\n%s", hs.screen())
	}
	mark("lin", app.MarkTyped, "")
	mark("lay", app.MarkHeld, "waiting for your permission")
	if scr := hs.screen(); !strings.Contains(scr, "→ Lay held: waiting for your permission · Lin typed") {
		t.Fatalf("the marks line:\n%s", scr)
	}
	mark("lin", app.MarkReceived, "")
	mark("lay", app.MarkNotReceived, "not seen")
	scr := hs.screen()
	if !strings.Contains(scr, "→ Lay ✗ not received · Lin ✓") {
		t.Fatalf("the marks line after received:\n%s", scr)
	}
	// Dim, as the room's other annotations.
	if v := hs.m.View().Content; !strings.Contains(v, "\x1b[2m  → Lay") {
		t.Fatalf("the marks line is not dim: %q", v)
	}
	// A mark for another topic's post changes nothing here.
	hs.send(appEventMsg{app.Event{Kind: app.EventDelivery, Delivery: app.Delivery{Topic: "other", Account: "lin", MessageID: id, Mark: app.MarkHeld, Why: "x"}}})
	if hs.screen() != scr {
		t.Fatal("another topic's mark changed this room")
	}
	mark("lay", app.MarkHeld, "you answered a prompt; waiting for Lay to go on (Esc in the pane releases)")
	hs.send(tea.WindowSizeMsg{Width: 60, Height: 20})
	cut := false
	for _, l := range strings.Split(hs.screen(), "\n") {
		if strings.Contains(l, "→ Lay") {
			if !strings.HasSuffix(l, "…") {
				t.Fatalf("a cut marks line without …: %q", l)
			}
			cut = true
		}
	}
	if !cut {
		t.Fatalf("no marks line at 60 columns:\n%s", hs.screen())
	}
}

// A mark on a recent post redraws only from the last group on; the lines
// must be what a full redraw draws.
func TestRoomMarksIncrementalEqualsFull(t *testing.T) {
	c := roomCtx{person: "Master", kinds: map[string]string{}, names: map[string]string{"lin": "Lin"}, loc: time.UTC,
		now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	inc := newRoomState("t")
	for i := range 5 {
		inc.addLive(wire.Post{MessageID: string(rune('a' + i)), Speaker: "Master", Content: "post", TS: "2026-12-01T11:00:00Z"}, wire.RoleAdmin, true)
		inc.lines(30, c)
	}
	for _, id := range []string{"e", "a"} { // the newest, then an old one
		inc.setMark(app.Delivery{Topic: "t", Account: "lin", MessageID: id, Mark: app.MarkReceived})
		got := inc.lines(30, c)
		full := newRoomState("t")
		full.posts, full.own, full.marks = inc.posts, inc.own, inc.marks
		if want := full.lines(30, c); !reflect.DeepEqual(got, want) {
			t.Fatalf("after the mark of %s the incremental draw differs:\n got %q\nwant %q", id, got, want)
		}
	}
}

package tui

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// sendText types text (lines joined with Alt+Enter) and sends it.
func (hs *harness) sendText(text string) {
	hs.t.Helper()
	for i, l := range strings.Split(text, "\n") {
		if i > 0 {
			hs.key(tea.KeyEnter, tea.ModAlt)
		}
		hs.typeText(l)
	}
	hs.key(tea.KeyEnter, 0)
	hs.pump()
}

func TestInputHistory(t *testing.T) {
	hs := newHarness(t, nil, 100, 30)
	in := func() string { return hs.m.input.String() }
	// Nothing sent yet: ↑ in the empty line scrolls the room, as before.
	hs.key(tea.KeyUp, 0)
	if in() != "" {
		t.Fatalf("input %q with no history", in())
	}
	hs.sendText("one")
	hs.sendText("two\nthree")
	hs.sendText("four")
	hs.sendText("four") // not twice in a row
	if want := []string{"one", "two\nthree", "four"}; !slices.Equal(hs.m.hist, want) {
		t.Fatalf("history %q, want %q", hs.m.hist, want)
	}
	steps := []struct {
		key  rune
		want string
		line int // the cursor's line in the input
	}{
		{tea.KeyUp, "four", 0},
		{tea.KeyUp, "two\nthree", 1}, // the cursor at its end
		{tea.KeyUp, "two\nthree", 0}, // up a line inside the entry first
		{tea.KeyUp, "one", 0},
		{tea.KeyUp, "one", 0}, // the oldest stays
		{tea.KeyDown, "two\nthree", 1},
		{tea.KeyDown, "four", 0},
		{tea.KeyDown, "", 0}, // past the newest: empty again
		{tea.KeyUp, "four", 0},
	}
	for i, s := range steps {
		hs.key(s.key, 0)
		_, _, cy := hs.m.input.layout(80)
		if in() != s.want || cy != s.line {
			t.Fatalf("step %d: input %q line %d, want %q line %d", i, in(), cy, s.want, s.line)
		}
	}
	// Editing a recalled entry: ↑/↓ are the editor's and the room's again,
	// and the history keeps the entry as sent.
	hs.typeText("x")
	hs.key(tea.KeyUp, 0)
	if in() != "fourx" {
		t.Fatalf("↑ on an edited entry: input %q", in())
	}
	hs.key(tea.KeyDown, 0)
	if in() != "fourx" || !slices.Equal(hs.m.hist, []string{"one", "two\nthree", "four"}) {
		t.Fatalf("after editing: input %q history %q", in(), hs.m.hist)
	}
	// A post to another topic counts too: the history is the screen's.
	hs.key(tea.KeyBackspace, 0)
	hs.key(tea.KeyBackspace, 0)
	hs.key(tea.KeyBackspace, 0)
	hs.key(tea.KeyBackspace, 0)
	hs.key(tea.KeyBackspace, 0)
	hs.prefix('c', "c")
	hs.sendText("elsewhere")
	hs.prefix('p', "p") // back to the first topic
	hs.key(tea.KeyUp, 0)
	if in() != "elsewhere" {
		t.Errorf("↑ after a post to another topic: %q", in())
	}
	// Capped.
	for i := range 250 {
		hs.m.remember(fmt.Sprint("post ", i))
	}
	if len(hs.m.hist) != histCap || hs.m.hist[histCap-1] != "post 249" || hs.m.hist[0] != "post 150" {
		t.Errorf("history holds %d, first %q last %q", len(hs.m.hist), hs.m.hist[0], hs.m.hist[len(hs.m.hist)-1])
	}
}

// scrollPane is a terminal whose screen is the last rows of its lines and
// whose scrollback is the lines before, as a real one scrolls.
type scrollPane struct {
	fakePane
	all []string
}

func (p *scrollPane) RenderScrolled(off int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, p.rows)
	first := len(p.all) - p.rows - off
	for i := range out {
		if j := first + i; j >= 0 && j < len(p.all) {
			out[i] = "\x1b[1m" + p.all[j] + "\x1b[m"
		}
		out[i] = fit(out[i], p.cols)
	}
	return strings.Join(out, "\n")
}
func (p *scrollPane) Render() string     { return p.RenderScrolled(0) }
func (p *scrollPane) ScrollbackLen() int { return max(len(p.all)-p.rows, 0) }
func (p *scrollPane) Cursor() (int, int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return 0, p.rows - 1, true
}

func paneHarness(t *testing.T) (*harness, *scrollPane) {
	t.Helper()
	seats := newFakeSeats(Account{ID: "cl", Name: "Claude", Kind: "claude_code"})
	hs := newHarness(t, seats, 120, 30)
	p := &scrollPane{}
	for i := range 60 {
		p.all = append(p.all, fmt.Sprintf("line %02d   ", i))
	}
	seats.seats[hs.m.topic] = []SeatInfo{{Account: "cl", Name: "Claude", Kind: "claude_code", State: StateRunning, Pane: p}}
	hs.send(seatsChangedMsg{})
	hs.prefix('o', "o") // room
	hs.prefix('o', "o") // pane
	if hs.m.focus != focusPane {
		t.Fatalf("focus = %v", hs.m.focus)
	}
	return hs, p
}

func osc52(s string) string {
	return "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(s)) + "\a"
}

func TestScrollModeCopiesTheSelectedLines(t *testing.T) {
	hs, p := paneHarness(t)
	h := p.rows
	hs.prefix('[', "[")
	hs.typeText("v") // at the cursor's line: the screen's last
	hs.key(tea.KeyUp, 0)
	hs.typeText("k")
	if hs.m.scrollOff != 0 {
		t.Errorf("the view scrolled (%d) with the selection in it", hs.m.scrollOff)
	}
	scr := hs.screen()
	if !strings.Contains(scr, "line 57") || !strings.Contains(hs.m.View().Content, "\x1b[7mline 57") {
		t.Errorf("selection not drawn in reverse:\n%s", scr)
	}
	hs.typeText("y")
	want := "line 57\nline 58\nline 59"
	if len(hs.clips) != 1 || hs.clips[0] != want {
		t.Fatalf("clipboard %q, want %q", hs.clips, want)
	}
	if got := tea.SetClipboard(want)(); fmt.Sprint(got) != want {
		t.Fatalf("tea.SetClipboard's message %q", got)
	}
	if !strings.Contains(hs.m.status, "copied 3 lines") || hs.m.sel != nil || !hs.m.scrollMode {
		t.Errorf("status %q sel %v scroll mode %v", hs.m.status, hs.m.sel, hs.m.scrollMode)
	}
	// A selection longer than the view, into the scrollback: the view
	// follows its moving end; space starts, enter copies.
	hs.key(tea.KeySpace, 0)
	for range h + 5 {
		hs.key(tea.KeyUp, 0)
	}
	if hs.m.scrollOff != 6 {
		t.Errorf("scroll offset %d, want 6", hs.m.scrollOff)
	}
	hs.key(tea.KeyEnter, 0)
	var lines []string
	for i := 59 - h - 5; i <= 59; i++ {
		lines = append(lines, fmt.Sprintf("line %02d", i))
	}
	if got := hs.clips[len(hs.clips)-1]; got != strings.Join(lines, "\n") {
		t.Errorf("long selection copied %q, want %q", got, strings.Join(lines, "\n"))
	}
	if !strings.Contains(hs.m.status, fmt.Sprintf("copied %d lines", h+6)) {
		t.Errorf("status %q", hs.m.status)
	}
	// Scrolled, v starts at the bottom line shown (53); v again starts
	// over at the moving end.
	hs.typeText("v")
	hs.typeText("k")
	hs.typeText("v")
	hs.typeText("k")
	hs.typeText("y")
	if got := hs.clips[len(hs.clips)-1]; got != "line 51\nline 52" {
		t.Errorf("restarted selection copied %q", got)
	}
	// Esc cancels a selection, then leaves; leaving clears it.
	hs.typeText("v")
	hs.key(tea.KeyEscape, 0)
	if hs.m.sel != nil || !hs.m.scrollMode {
		t.Errorf("esc: sel %v scroll mode %v", hs.m.sel, hs.m.scrollMode)
	}
	hs.typeText("v")
	hs.typeText("q")
	if hs.m.sel != nil || hs.m.scrollMode {
		t.Errorf("q: sel %v scroll mode %v", hs.m.sel, hs.m.scrollMode)
	}
	if strings.Contains(hs.m.View().Content, "\x1b[7mline") {
		t.Error("the selection is still drawn after leaving scroll mode")
	}
	// Leaving by moving the focus clears it too.
	hs.prefix('[', "[")
	hs.typeText("v")
	hs.prefix('i', "i")
	if hs.m.sel != nil {
		t.Error("the selection outlived the focus")
	}
	if strings.ContainsAny(p.typed(), "vkyq") {
		t.Errorf("scroll mode keys reached the pane: %q", p.typed())
	}
}

func TestRoomCopy(t *testing.T) {
	hs := newHarness(t, nil, 100, 30)
	hs.sendText("first post")
	hs.sendText("second post\nwith two lines")
	hs.prefix('r', "r")
	hs.typeText("v")
	hs.typeText("k")
	hs.typeText("k")
	if !strings.Contains(hs.m.View().Content, "\x1b[7m") {
		t.Error("the room's selection is not drawn in reverse")
	}
	hs.typeText("y")
	// The drawn lines, plain: the header with time and name, the body.
	want := "12:00 ▶ you\n  second post\n  with two lines"
	if len(hs.clips) != 1 || hs.clips[0] != want {
		t.Fatalf("room copy %q, want %q", hs.clips, want)
	}
	if hs.m.status != "copied 3 lines" || hs.m.focus != focusRoom {
		t.Errorf("status %q focus %v", hs.m.status, hs.m.focus)
	}
	// Without a selection ↑ scrolls as before; esc cancels one, then goes
	// back to the input line.
	hs.typeText("v")
	hs.key(tea.KeyEscape, 0)
	if hs.m.sel != nil || hs.m.focus != focusRoom {
		t.Errorf("esc: sel %v focus %v", hs.m.sel, hs.m.focus)
	}
	hs.key(tea.KeyEscape, 0)
	if hs.m.focus != focusInput {
		t.Errorf("second esc: focus %v", hs.m.focus)
	}
	hs.prefix('r', "r")
	hs.typeText("v")
	hs.prefix('i', "i")
	if hs.m.sel != nil {
		t.Error("the room's selection outlived the focus")
	}
}

func TestMouseDragCopies(t *testing.T) {
	hs, _ := paneHarness(t)
	in := hs.m.lay.Panes[0].Inner()
	hs.send(tea.MouseClickMsg{X: in.X + 2, Y: in.Y + 1, Button: tea.MouseLeft})
	hs.send(tea.MouseMotionMsg{X: in.X + 4, Y: in.Y + 3, Button: tea.MouseLeft})
	if !hs.m.scrollMode || hs.m.sel == nil {
		t.Fatalf("drag: scroll mode %v sel %v", hs.m.scrollMode, hs.m.sel)
	}
	hs.send(tea.MouseReleaseMsg{X: in.X + 4, Y: in.Y + 3, Button: tea.MouseLeft})
	first := 60 - in.H
	want := fmt.Sprintf("line %02d\nline %02d\nline %02d", first+1, first+2, first+3)
	if len(hs.clips) != 1 || hs.clips[0] != want {
		t.Fatalf("pane drag copied %q, want %q", hs.clips, want)
	}
	if hs.m.scrollMode || hs.m.sel != nil {
		t.Errorf("after the release: scroll mode %v sel %v", hs.m.scrollMode, hs.m.sel)
	}
	// A click without a drag copies nothing.
	hs.send(tea.MouseClickMsg{X: in.X + 2, Y: in.Y + 1, Button: tea.MouseLeft})
	hs.send(tea.MouseReleaseMsg{X: in.X + 2, Y: in.Y + 1, Button: tea.MouseLeft})
	if len(hs.clips) != 1 {
		t.Errorf("a click copied: %q", hs.clips)
	}

	// The room: dragging upwards from the last line over the post.
	hs.prefix('i', "i")
	hs.sendText("dragged post")
	r := hs.m.lay.Room.Inner()
	vis, _ := hs.m.cur().view(r.W, r.H, hs.m.roomCtx())
	last := r.Y + len(vis) - 1
	hs.send(tea.MouseClickMsg{X: r.X + 3, Y: last, Button: tea.MouseLeft})
	hs.send(tea.MouseMotionMsg{X: r.X + 3, Y: last - 1, Button: tea.MouseLeft})
	hs.send(tea.MouseReleaseMsg{X: r.X + 3, Y: last - 1, Button: tea.MouseLeft})
	if want := "12:00 ▶ you\n  dragged post"; len(hs.clips) != 2 || hs.clips[1] != want {
		t.Fatalf("room drag copied %q, want %q", hs.clips, want)
	}
}

// The OSC 52 sequence reaches the terminal through the program's output.
func TestCopyReachesTheTerminal(t *testing.T) {
	t.Parallel()
	typeKeys, out, _ := runScreen(t, 60)
	out.waitQuiet(t, 100*time.Millisecond)
	typeKeys("hello clipboard\r")
	out.waitFor(t, "hello clipboard", time.Time{})
	t0 := time.Now()
	typeKeys("\x02r")
	time.Sleep(20 * time.Millisecond)
	typeKeys("vy")
	out.waitFor(t, osc52("  hello clipboard"), t0)
}

// A room selection moved up past the loaded posts keeps its lines when
// older posts load above it.
func TestRoomSelectionAcrossOlderPages(t *testing.T) {
	hs := reopenedWithPages(t)
	hs.prefix('r', "r")
	hs.typeText("v")
	for range 200 {
		hs.key(tea.KeyPgUp, 0)
	}
	if rs := hs.m.cur(); len(rs.posts) != 120 || rs.hasMore {
		t.Fatalf("%d posts loaded, hasMore %v", len(rs.posts), rs.hasMore)
	}
	hs.typeText("y")
	got := strings.Split(hs.clips[len(hs.clips)-1], "\n")
	if len(got) != 240 || got[1] != "  post 000" || got[239] != "  post 119" {
		t.Errorf("copied %d lines: first %q, last %q", len(got), got[:2], got[len(got)-1])
	}
}

// reopenedWithPages is a screen on a topic of 120 posts opened again, so
// only its last page is loaded and older ones load as the view climbs.
func reopenedWithPages(t *testing.T) *harness {
	t.Helper()
	hs := newHarness(t, nil, 80, 24)
	id := hs.m.topic
	for i := range 120 {
		hs.m.input.Set(fmt.Sprintf("post %03d", i))
		hs.key(tea.KeyEnter, 0)
		hs.pump()
	}
	hs.prefix('c', "c")
	hs.run(hs.m.loadTopics())
	delete(hs.m.rooms, id)
	hs.run(hs.m.openTopic(id))
	return hs
}

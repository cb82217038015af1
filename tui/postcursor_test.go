package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// cursorOn is what the post cursor is on: "fold N" on a fold's header, else
// the post's content.
func cursorOn(t *testing.T, hs *harness) string {
	t.Helper()
	s, ok := hs.m.selectedPost()
	if !ok {
		t.Fatal("no post selected")
	}
	if s.fold != "" {
		return fmt.Sprintf("fold %d", len(s.posts))
	}
	return s.posts[0].Content
}

// foldRoom is a room with a post, three folded MCP notices and a post.
func foldRoom(t *testing.T) *harness {
	t.Helper()
	seats := newFakeSeats(Account{ID: "gh", Name: "GitHub", Kind: "mcp"})
	hs := newHarness(t, seats, 100, 30)
	hs.sendText("first\nsecond line")
	hue := 200
	for _, s := range []string{"push 1", "push 2", "push 3"} {
		if _, err := hs.eng.Notify(hs.m.topic, "gh", "GitHub", &hue, s); err != nil {
			t.Fatal(err)
		}
	}
	hs.pump()
	hs.sendText("last")
	return hs
}

func TestPostCursorMovesByPostAcrossFolds(t *testing.T) {
	hs := foldRoom(t)
	hs.prefix('r', "r")
	steps := []struct {
		keys, want string
	}{
		{"", "last"}, // the newest when the room gets focus
		{"k", "fold 3"},
		{"k", "first\nsecond line"},
		{"k", "first\nsecond line"}, // the oldest stays
		{"j", "fold 3"},
		{"\r", "fold 3"}, // enter opens the fold; the cursor stays on its header
		{"j", "push 1"},
		{"j", "push 2"},
		{"jj", "last"},
		{"j", "last"},
		{"kkkk", "fold 3"},
		{"\r", "fold 3"}, // closed again: one item
		{"j", "last"},
		{"k", "fold 3"},
		{"e", "fold 3"}, // all open
		{"j", "push 1"},
		{"e", "fold 3"}, // all closed: the hidden post's fold
	}
	for i, s := range steps {
		for _, r := range s.keys {
			if r == '\r' {
				hs.key(tea.KeyEnter, 0)
			} else {
				hs.typeText(string(r))
			}
		}
		if got := cursorOn(t, hs); got != s.want {
			t.Fatalf("step %d (%q): cursor on %q, want %q", i, s.keys, got, s.want)
		}
	}
	// The selected item's header line is drawn in reverse while the room
	// has focus.
	if c := hs.m.View().Content; !strings.Contains(c, "\x1b[7m12:00 ▸ GitHub 3 posts") {
		t.Errorf("the fold's header is not marked:\n%s", hs.screen())
	}
	hs.prefix('i', "i")
	if strings.Contains(hs.m.View().Content, "\x1b[7m12:00 ▸ GitHub") {
		t.Error("the cursor is drawn with the room unfocused")
	}
}

func TestEnterTogglesTheSelectedFold(t *testing.T) {
	hs := foldRoom(t)
	hs.prefix('r', "r")
	hs.typeText("k")
	hs.key(tea.KeyEnter, 0)
	if scr := hs.screen(); !strings.Contains(scr, "▾ GitHub 3 posts") || !strings.Contains(scr, "push 2") {
		t.Fatalf("enter did not open the fold:\n%s", scr)
	}
	hs.key(tea.KeyEnter, 0)
	if scr := hs.screen(); !strings.Contains(scr, "▸ GitHub 3 posts") || strings.Contains(scr, "push 2") {
		t.Fatalf("enter did not close the fold:\n%s", scr)
	}
	// On a post enter does not copy (y does) and opens nothing.
	hs.typeText("j")
	hs.key(tea.KeyEnter, 0)
	if len(hs.clips) != 0 {
		t.Errorf("enter on a post copied %q", hs.clips)
	}
}

func TestCopyTheSelectedPost(t *testing.T) {
	hs := foldRoom(t)
	hs.prefix('r', "r")
	hs.typeText("y")
	hs.typeText("kky")
	hs.typeText("jy") // a fold: its posts
	want := []string{
		"12:00 ▶ you\nlast",
		"12:00 ▶ you\nfirst\nsecond line",
		"12:00 GitHub\npush 1\n12:00 GitHub\npush 2\n12:00 GitHub\npush 3",
	}
	if fmt.Sprint(hs.clips) != fmt.Sprint(want) {
		t.Fatalf("copied %q, want %q", hs.clips, want)
	}
	if hs.m.status != "copied 3 posts" || hs.m.sel != nil {
		t.Errorf("status %q sel %v", hs.m.status, hs.m.sel)
	}
	// v starts the line selection at the selected post's last line.
	hs.typeText("kk")
	hs.typeText("v")
	hs.typeText("k")
	hs.typeText("y")
	if got := hs.clips[len(hs.clips)-1]; got != "  first\n  second line" {
		t.Errorf("v from the selected post copied %q", got)
	}
	if cursorOn(t, hs) != "first\nsecond line" {
		t.Errorf("the line selection moved the post cursor: %q", cursorOn(t, hs))
	}
}

func TestClickSelectsAPost(t *testing.T) {
	hs := foldRoom(t)
	r := hs.m.lay.Room.Inner()
	lines := strings.Split(hs.screen(), "\n")
	click := func(text string) {
		t.Helper()
		for y := r.Y; y < r.Y+r.H && y < len(lines); y++ {
			if strings.Contains(lines[y], text) {
				hs.send(tea.MouseClickMsg{X: r.X + 3, Y: y, Button: tea.MouseLeft})
				hs.send(tea.MouseReleaseMsg{X: r.X + 3, Y: y, Button: tea.MouseLeft})
				return
			}
		}
		t.Fatalf("%q not on screen:\n%s", text, hs.screen())
	}
	click("second line") // a body line, the room not focused yet
	if hs.m.focus != focusRoom || cursorOn(t, hs) != "first\nsecond line" {
		t.Fatalf("focus %v, cursor on %q", hs.m.focus, cursorOn(t, hs))
	}
	click("GitHub 3 posts") // a fold's header: selected and opened
	if cursorOn(t, hs) != "fold 3" || !strings.Contains(hs.screen(), "push 2") {
		t.Fatalf("cursor on %q:\n%s", cursorOn(t, hs), hs.screen())
	}
	lines = strings.Split(hs.screen(), "\n")
	click("push 2")
	if cursorOn(t, hs) != "push 2" {
		t.Errorf("cursor on %q", cursorOn(t, hs))
	}
	if len(hs.clips) != 0 {
		t.Errorf("a click copied %q", hs.clips)
	}
}

// The cursor keeps its post when older posts load above it and when new
// ones come in below; on the newest it follows them.
func TestPostCursorKeepsItsPost(t *testing.T) {
	hs := reopenedWithPages(t)
	id := hs.m.topic
	rs := hs.m.cur()
	if len(rs.posts) == 120 {
		t.Fatal("the whole log loaded at once")
	}
	oldest, first := rs.posts[0].Content, len(rs.posts)
	hs.prefix('r', "r")
	hs.typeText("g") // the oldest loaded: the view's top loads older ones
	if len(rs.posts) <= first {
		t.Fatalf("no older page loaded: %d posts", len(rs.posts))
	}
	if got := cursorOn(t, hs); got != oldest {
		t.Fatalf("after older posts loaded the cursor is on %q, want %q", got, oldest)
	}
	if !strings.Contains(hs.m.View().Content, "\x1b[7m12:00 ▶ you") {
		t.Error("the cursor's post is not shown")
	}
	// New posts do not move it, nor the view.
	hs.typeText("G")
	hs.typeText("kk")
	at := cursorOn(t, hs)
	body := func() string { // the frame but its first line, the title
		l := strings.SplitN(hs.screen(), "\n", 2)
		return l[len(l)-1]
	}
	before := body()
	for i := range 3 {
		if _, err := hs.eng.PostAsPerson(id, fmt.Sprintf("new %d", i), rs.watermark); err != nil {
			t.Fatal(err)
		}
		hs.pump()
	}
	if got := cursorOn(t, hs); got != at {
		t.Errorf("a new post moved the cursor to %q from %q", got, at)
	}
	if body() != before {
		t.Errorf("the view moved:\n%s\nwas\n%s", body(), before)
	}
	// On the newest, it follows.
	hs.typeText("G")
	if _, err := hs.eng.PostAsPerson(id, "newest", rs.watermark); err != nil {
		t.Fatal(err)
	}
	hs.pump()
	if got := cursorOn(t, hs); got != "newest" {
		t.Errorf("the cursor on the newest stayed on %q", got)
	}
	if !strings.Contains(hs.screen(), "newest") {
		t.Errorf("the newest post is not shown:\n%s", hs.screen())
	}
}

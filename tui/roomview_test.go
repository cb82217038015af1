package tui

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"pullcept/room/wire"
)

// Posts added one at a time redraw only from the last group on; what is
// drawn must be exactly what a full redraw draws, folds included (a run
// of webhook posts extended by the next one changes its header's count).
func TestRoomLinesIncrementalEqualsFull(t *testing.T) {
	c := roomCtx{person: "Master", kinds: map[string]string{"gh": "mcp"}, names: map[string]string{}, loc: time.UTC,
		now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	inc := newRoomState("t")
	inc.expandAll = true
	for i := range 60 {
		p := wire.Post{MessageID: fmt.Sprint("m", i), Speaker: "Lin", Content: fmt.Sprintf("post %d with some words to wrap at a narrow width", i),
			TS: "2026-12-01T11:00:00Z"}
		if i%7 >= 4 { // runs of three notifications fold together
			p.Speaker, p.Account = "github", "gh"
		}
		inc.addLive(p, wire.RoleUnknown, false)
		got := inc.lines(24, c)
		full := newRoomState("t")
		full.expandAll = true
		full.posts = inc.posts
		full.mcp = inc.mcp
		want := full.lines(24, c)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("after post %d the incremental draw differs:\n got %q\nwant %q", i, got, want)
		}
	}
	// A new day redraws (today's posts show HH:MM, older ones MM/DD HH:MM).
	c.now = c.now.Add(24 * time.Hour)
	if l := inc.lines(24, c)[0].text; !strings.Contains(l, "12/01 11:00") {
		t.Fatalf("a post of yesterday shows %q", l)
	}
}

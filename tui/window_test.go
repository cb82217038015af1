package tui

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"pullcept/app"
	"pullcept/room"
	"pullcept/room/wire"
	"pullcept/topicstore"
)

// postBody is a post of about 2 KB, numbered.
func postBody(i int) string {
	return fmt.Sprintf("post %05d ", i) + strings.Repeat("lorem ipsum ", 170)
}

// postMany posts n posts of about 2 KB into the open topic, numbered from
// from, as the person at another screen, and delivers them to the model,
// which draws a frame now and then.
func (hs *harness) postMany(from, n int) {
	hs.t.Helper()
	last := ""
	if rs := hs.m.cur(); rs != nil {
		last = rs.watermark
	}
	for i := from; i < from+n; i++ {
		out, err := hs.eng.PostAsPerson(hs.m.topic, postBody(i), last)
		if err != nil || !out.Delivered {
			hs.t.Fatalf("post %d: %v %+v", i, err, out)
		}
		last = out.Post.MessageID
		if i%256 == 0 {
			hs.pump()
			hs.m.View() // drawn, as a screen draws its frames
		}
	}
	hs.pump()
	hs.m.View()
}

// sameAsRedrawn fails when the room's cached lines (cut, paged back and
// appended to) differ from the room drawn anew.
func sameAsRedrawn(t *testing.T, hs *harness) {
	t.Helper()
	rs, in, c := hs.m.cur(), hs.m.lay.Room.Inner(), hs.m.roomCtx()
	got := slices.Clone(rs.lines(in.W, c))
	rs.invalidate()
	if want := rs.lines(in.W, c); !slices.Equal(got, want) {
		t.Fatalf("the cached lines (%d) are not the room drawn anew (%d)", len(got), len(want))
	}
}

// heapNow is the live heap after a collection.
func heapNow() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestRoomKeepsAWindowOfPosts (issue 32 finding 5): 5,000 live posts of
// 2 KB into the open topic leave the screen holding its window (the newest
// roomKeep posts, cut a quarter over), not every post: on main it held all
// 5,000 and ~30 MB more. Scrolling to the top still reaches the first post,
// paged back from the log, with its delivery mark; the cursor and copy work
// on it; posts coming in while the person reads there keep the view still,
// and after the person goes back to the newest the window is cut again.
func TestRoomKeepsAWindowOfPosts(t *testing.T) {
	hs := newHarness(t, nil, 200, 60)
	hs.postMany(0, 1)
	first := hs.m.cur().posts[0].MessageID
	hs.send(appEventMsg{app.Event{Kind: app.EventDelivery, Delivery: app.Delivery{Topic: hs.m.topic, Account: "lin", MessageID: first, Mark: app.MarkReceived}}})
	heap0 := heapNow()
	hs.postMany(1, 4999)
	rs := hs.m.cur()
	grew := int64(heapNow()) - int64(heap0)
	t.Logf("5,000 posts of 2 KB: the screen holds %d posts, %d bytes of content; the heap grew %.1f MB", len(rs.posts), rs.bytes, float64(grew)/(1<<20))
	if len(rs.posts) > roomKeep+roomKeep/4 || len(rs.posts) < roomKeep || rs.bytes > roomKeepBytes+roomKeepBytes/4 {
		t.Fatalf("the screen holds %d posts (%d bytes): want its window, %d to %d", len(rs.posts), rs.bytes, roomKeep, roomKeep+roomKeep/4)
	}
	if len(rs.seen) != len(rs.posts) || len(rs.others)+len(rs.own) > len(rs.posts) {
		t.Errorf("what the screen knows of posts it let go grows: seen %d, own %d, others %d for %d posts", len(rs.seen), len(rs.own), len(rs.others), len(rs.posts))
	}
	// The window's posts with their drawn lines are ~8 MB; every post
	// (main) was ~30 MB more.
	if grew > 16<<20 {
		t.Errorf("the heap grew %.1f MB over 5,000 posts of 2 KB", float64(grew)/(1<<20))
	}
	sameAsRedrawn(t, hs)
	if want := postBody(4999); rs.posts[len(rs.posts)-1].Content != want || !strings.Contains(hs.screen(), "post 04999") {
		t.Fatalf("the newest post is not drawn:\n%s", hs.screen())
	}

	// To the top: pages come back from the log until the first post.
	hs.prefix('r', "r")
	for range 200 {
		if !rs.hasMore {
			break
		}
		hs.key(tea.KeyHome, 0)
	}
	hs.key(tea.KeyHome, 0)
	if rs.hasMore || len(rs.posts) != 5000 || rs.posts[0].MessageID != first {
		t.Fatalf("scrolling up: %d posts, hasMore %v", len(rs.posts), rs.hasMore)
	}
	for i, p := range rs.posts {
		if p.Content != postBody(i) {
			t.Fatalf("post %d after paging back reads %.20q", i, p.Content)
		}
	}
	sameAsRedrawn(t, hs)
	scr := hs.screen()
	if !strings.Contains(scr, "post 00000") || !strings.Contains(scr, "→ lin ✓") {
		t.Fatalf("the top of the room does not show the first post and its mark:\n%s", scr)
	}
	if s, ok := hs.m.selectedPost(); !ok || s.posts[0].MessageID != first {
		t.Fatalf("the cursor is not on the first post: %+v", s)
	}
	hs.typeText("y")
	if len(hs.clips) != 1 || !strings.Contains(hs.clips[0], wire.Visible(postBody(0))) {
		t.Fatalf("copied %.80q", hs.clips)
	}
	hs.typeText("j") // the cursor to the second post, off the newest
	if s, ok := hs.m.selectedPost(); !ok || s.posts[0].Content != postBody(1) {
		t.Fatalf("j from the first post: %+v", s)
	}

	// Posts coming in while the person reads the top: the view stays
	// still, nothing read is let go.
	top := hs.screen()
	hs.postMany(5000, 600)
	if got := hs.screen(); roomPart(got) != roomPart(top) {
		t.Fatalf("the view moved while reading:\n%s\nwas\n%s", got, top)
	}
	if rs.posts[0].MessageID != first {
		t.Fatalf("the post read was let go: %d posts from %.20q", len(rs.posts), rs.posts[0].Content)
	}

	// Back to the newest: the next posts cut the window again.
	hs.key(tea.KeyEnd, 0)
	hs.postMany(5600, 10)
	if len(rs.posts) > roomKeep+roomKeep/4 || !rs.hasMore {
		t.Fatalf("after going back to the newest: %d posts, hasMore %v", len(rs.posts), rs.hasMore)
	}
	if !strings.Contains(hs.screen(), "post 05609") {
		t.Fatalf("the newest post is not drawn:\n%s", hs.screen())
	}
	sameAsRedrawn(t, hs)
}

// TestRoomWindowKeepsAFoldWhole: a run of MCP notices longer than the
// window folds into one header that still counts every notice after the
// window let the oldest go, stays open when opened, and reads whole again
// when paged back.
func TestRoomWindowKeepsAFoldWhole(t *testing.T) {
	seats := newFakeSeats(Account{ID: "gh", Name: "GitHub", Kind: "mcp"})
	hs := newHarness(t, seats, 100, 30)
	hs.sendText("before")
	hue := 200
	notify := func(from, n int) {
		for i := from; i < from+n; i++ {
			if _, err := hs.eng.Notify(hs.m.topic, "gh", "GitHub", &hue, fmt.Sprintf("push %d %s", i, strings.Repeat("x", 2000))); err != nil {
				t.Fatal(err)
			}
			if i%256 == 0 {
				hs.pump()
				hs.m.View()
			}
		}
		hs.pump()
	}
	notify(0, 10)
	hs.prefix('r', "r")
	hs.key(tea.KeyEnter, 0) // opens the fold the cursor is on
	rs := hs.m.cur()
	if !rs.expanded[rs.posts[1].MessageID] {
		t.Fatalf("the fold is not open:\n%s", hs.screen())
	}
	hs.key(tea.KeyEnd, 0)
	notify(10, 1590)
	if len(rs.posts) > roomKeep+roomKeep/4 {
		t.Fatalf("the screen holds %d posts", len(rs.posts))
	}
	sameAsRedrawn(t, hs)
	if all, _ := hs.m.roomLines(); !strings.Contains(plainLine(all[0].text), "▾ GitHub 1600 posts") {
		t.Fatalf("the fold's header after the window cut it: %q", plainLine(all[0].text))
	}
	for range 200 {
		if !rs.hasMore {
			break
		}
		hs.key(tea.KeyHome, 0)
	}
	hs.key(tea.KeyHome, 0)
	if len(rs.posts) != 1601 || rs.foldBefore != 0 || rs.posts[0].Content != "before" {
		t.Fatalf("paged back: %d posts, %d let go in the fold, first %.20q", len(rs.posts), rs.foldBefore, rs.posts[0].Content)
	}
	sameAsRedrawn(t, hs)
	if scr := hs.screen(); !strings.Contains(scr, "▾ GitHub 1600 posts") || !strings.Contains(scr, "    push 0") {
		t.Fatalf("the fold paged back:\n%s", scr)
	}
	hs.key(tea.KeyDown, 0) // the cursor on the fold's header
	hs.typeText("y")
	if len(hs.clips) != 1 || strings.Count(hs.clips[0], "push ") != 1600 {
		t.Fatalf("copying the fold copied %d posts", strings.Count(fmt.Sprint(hs.clips), "push "))
	}
}

// roomPart is the frame's room pane lines (its title, which counts the
// lines scrolled, aside).
func roomPart(scr string) string {
	var out []string
	for _, l := range strings.Split(scr, "\n") {
		if (strings.Contains(l, "post ") || strings.Contains(l, "lorem")) && !strings.Contains(l, "scrolled") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// BenchmarkRoomHeap is the heap the screen's room holds after 20,000 live
// posts of 2 KB into the open topic, drawn a frame every 256 posts at
// 160x40 (issue 32 finding 5; docs/performance.md "The room's window"):
//
//	go test -run x -bench RoomHeap -benchtime 1x ./tui/
func BenchmarkRoomHeap(b *testing.B) {
	for range b.N {
		st, err := topicstore.Open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		eng := room.New(room.Config{Log: st, PersonName: "you"})
		sub := eng.Subscribe()
		m, err := newModel(Options{App: &testBackend{eng: eng, store: st}}, func(f func()) { f() })
		if err != nil {
			b.Fatal(err)
		}
		var run func(tea.Cmd)
		run = func(cmd tea.Cmd) {
			if cmd == nil {
				return
			}
			switch msg := cmd().(type) {
			case nil:
			case tea.BatchMsg:
				for _, c := range msg {
					run(c)
				}
			default:
				_, next := m.Update(msg)
				run(next)
			}
		}
		run(m.Init())
		m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
		heap0 := heapNow()
		last := ""
		for i := range 20000 {
			out, err := eng.PostAsPerson(m.topic, postBody(i), last)
			if err != nil {
				b.Fatal(err)
			}
			last = out.Post.MessageID
			if i%256 == 255 || i == 19999 {
			drain:
				for {
					select {
					case ev := <-sub.C:
						_, cmd := m.Update(roomEventMsg{*ev})
						run(cmd)
					default:
						break drain
					}
				}
				_ = m.View()
			}
		}
		grew := int64(heapNow()) - int64(heap0)
		b.ReportMetric(float64(grew)/(1<<20), "heap-MB")
		b.ReportMetric(float64(len(m.cur().posts)), "posts-held")
		sub.Close()
	}
}

// TestRoomWindowBoundsBytes: large posts are bounded by their content too:
// 30 posts of 200 KB leave at most roomKeepBytes (and a quarter) held.
func TestRoomWindowBoundsBytes(t *testing.T) {
	hs := newHarness(t, nil, 100, 30)
	last := ""
	for i := range 30 {
		out, err := hs.eng.PostAsPerson(hs.m.topic, fmt.Sprintf("big %d ", i)+strings.Repeat("y", 200<<10), last)
		if err != nil || !out.Delivered {
			t.Fatalf("post %d: %v", i, err)
		}
		last = out.Post.MessageID
		hs.pump()
	}
	rs := hs.m.cur()
	if rs.bytes > roomKeepBytes+roomKeepBytes/4 || len(rs.posts) >= 30 || !rs.hasMore {
		t.Fatalf("30 posts of 200 KB: %d held, %d bytes, hasMore %v", len(rs.posts), rs.bytes, rs.hasMore)
	}
	if !strings.HasPrefix(rs.posts[len(rs.posts)-1].Content, "big 29 ") {
		t.Fatal("the newest post went")
	}
	sameAsRedrawn(t, hs)
}

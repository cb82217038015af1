package tui

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"pullcept/app"
	"pullcept/room"
	"pullcept/room/wire"
	"pullcept/topicstore"
)

func TestSendPostDrawsItAndListsTheTopic(t *testing.T) {
	hs := newHarness(t, nil, 100, 30)
	if hs.m.listed(hs.m.topic) {
		t.Fatal("a new topic is listed before anything is said")
	}
	hs.typeText("hello 日本語")
	hs.key(tea.KeyEnter, 0)
	hs.pump()
	scr := hs.screen()
	if !strings.Contains(scr, "hello 日本語") || !strings.Contains(scr, "▶ you") {
		t.Fatalf("own post not drawn:\n%s", scr)
	}
	if !hs.m.listed(hs.m.topic) {
		t.Error("the topic is not in the list after its first post")
	}
	if got := len(hs.m.cur().posts); got != 1 {
		t.Errorf("%d posts drawn, want 1 (event and result deduplicated)", got)
	}
	if hs.m.input.String() != "" {
		t.Errorf("input = %q after sending", hs.m.input.String())
	}
}

func TestMultiLineInput(t *testing.T) {
	hs := newHarness(t, nil, 80, 24)
	hs.typeText("one")
	hs.key(tea.KeyEnter, tea.ModAlt)
	hs.typeText("two")
	hs.key(tea.KeyEnter, tea.ModShift)
	hs.typeText("three")
	if got := hs.m.input.String(); got != "one\ntwo\nthree" {
		t.Fatalf("input = %q", got)
	}
	if hs.m.lay.Input.H != 3 {
		t.Errorf("input rows = %d, want 3", hs.m.lay.Input.H)
	}
	v := hs.m.View()
	if v.Cursor == nil || v.Cursor.Y != 23 || v.Cursor.X != 2+5 {
		t.Errorf("cursor = %+v, want at the end of the last input row", v.Cursor)
	}
}

// seat puts a socket participant in the shown topic's room.
func seat(t *testing.T, hs *harness, name, account string) room.ConnID {
	t.Helper()
	id := hs.eng.NewConn()
	if err := hs.eng.Hello(id, wire.Hello{Type: "hello", Name: name, Room: hs.m.topic, AccountID: account}); err != nil {
		t.Fatal(err)
	}
	hs.pump()
	return id
}

func TestCandidates(t *testing.T) {
	hs := newHarness(t, nil, 100, 30)
	seat(t, hs, "Claude Lay", "")
	seat(t, hs, "claude lin", "")
	seat(t, hs, "Codex", "")
	seat(t, hs, "Codex", "") // one row per name
	seat(t, hs, "codex", "") // the room matches ignoring case: the same name

	cases := []struct {
		text string
		want []string
	}{
		{"@", []string{"Claude Lay", "claude lin", "Codex"}},
		{"@cl", []string{"Claude Lay", "claude lin"}},
		{"@CO", []string{"Codex"}},
		{"hi ＠c", []string{"Claude Lay", "claude lin", "Codex"}},
		{"a@c", nil},  // inside a word
		{"@c x", nil}, // a space ended it
		{"@c\n", nil}, // a line break ended it
		{"@you", nil}, // never the person
		{"@zz", nil},  // nothing matches
	}
	for _, c := range cases {
		hs.m.input.Set(c.text)
		got := hs.m.input.candidates(hs.m.roster())
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: candidates %q, want %q", c.text, got, c.want)
		}
	}

	// A name several participants hold says it addresses them all.
	hs.m.input.Set("")
	hs.typeText("@c")
	scr := hs.screen()
	if !strings.Contains(scr, "@Codex  (all 3 of that name)") || strings.Contains(scr, "@Claude Lay  (all") {
		t.Errorf("the popup does not mark the shared name (and only it):\n%s", scr)
	}

	// Move, pick with Enter: the name goes in, nothing is sent.
	hs.m.input.Set("")
	hs.typeText("hi @cl")
	hs.key(tea.KeyDown, 0)
	hs.key(tea.KeyEnter, 0)
	if got := hs.m.input.String(); got != "hi @claude lin " {
		t.Errorf("after pick: %q", got)
	}
	// Tab picks too; Esc closes and that @ stays closed.
	hs.typeText("@co")
	hs.key(tea.KeyEscape, 0)
	if c := hs.m.input.candidates(hs.m.roster()); c != nil {
		t.Errorf("candidates after Esc: %q", c)
	}
	hs.typeText("d")
	if c := hs.m.input.candidates(hs.m.roster()); c != nil {
		t.Errorf("the dismissed @ opened again: %q", c)
	}
	hs.typeText(" @C")
	hs.key(tea.KeyTab, 0)
	if got := hs.m.input.String(); !strings.HasSuffix(got, "@cod @Claude Lay ") {
		t.Errorf("after Tab: %q", got)
	}
	hs.m.input.Set("@")
	scr = hs.screen()
	if !strings.Contains(scr, "@Claude Lay") || !strings.Contains(scr, "@Codex") {
		t.Errorf("candidate list not drawn:\n%s", scr)
	}
}

func TestRejectionDrawsMissedPostsAndReturnsTheText(t *testing.T) {
	hs := newHarness(t, nil, 100, 30)
	other := seat(t, hs, "Lin", "")
	hs.typeText("first")
	hs.key(tea.KeyEnter, 0)
	hs.pump()

	// Two posts land in the room that the screen has not drawn (their
	// events are held back), then the person sends.
	last := hs.m.cur().watermark
	for _, s := range []string{"you missed this", "and this"} {
		out, err := hs.eng.PostFromConn(other, wire.PostFrame{Type: "post", Content: s, LastSeen: last})
		if err != nil || !out.Delivered {
			t.Fatal(out, err)
		}
		last = out.Post.MessageID
	}
	text := "@Lin reply  with  spacing\nand a second line"
	hs.m.input.Set(text)
	hs.key(tea.KeyEnter, 0)

	rs := hs.m.cur()
	if got := hs.m.input.String(); got != text {
		t.Errorf("input after rejection = %q, want the text exactly as written", got)
	}
	if len(rs.posts) != 3 {
		t.Fatalf("%d posts drawn, want 3", len(rs.posts))
	}
	if rs.watermark != rs.posts[2].MessageID {
		t.Errorf("watermark %q is not the newest returned post %q", rs.watermark, rs.posts[2].MessageID)
	}
	if !strings.Contains(hs.m.status, "not sent") {
		t.Errorf("status = %q", hs.m.status)
	}
	hs.pump() // the held-back events: no duplicates
	if len(rs.posts) != 3 {
		t.Errorf("%d posts after the live events, want 3 (dedupe by message_id)", len(rs.posts))
	}
	golden(t, "rejection", hs.screen())

	// Sending again now goes through.
	hs.key(tea.KeyEnter, 0)
	hs.pump()
	if len(rs.posts) != 4 || hs.m.input.String() != "" {
		t.Errorf("resend: %d posts, input %q", len(rs.posts), hs.m.input.String())
	}
	if got := rs.posts[3].To; !slices.Equal(got, []string{"Lin"}) {
		t.Errorf("to = %q", got)
	}
}

func TestRejectionAllDuplicatesStillMovesTheWatermark(t *testing.T) {
	rs := newRoomState("t")
	a := wire.Post{MessageID: "a", Content: "x"}
	b := wire.Post{MessageID: "b", Content: "y"}
	rs.addLive(a, "", false)
	rs.addLive(b, "", false)
	rs.watermark = "stale"
	if n := rs.addMissed([]wire.Post{a, b}); n != 0 {
		t.Errorf("drew %d duplicates", n)
	}
	if rs.watermark != "b" {
		t.Errorf("watermark = %q, want b", rs.watermark)
	}
}

func TestFoldingMCPPosts(t *testing.T) {
	seats := newFakeSeats(Account{ID: "gh", Name: "GitHub", Kind: "mcp"}, Account{ID: "cl", Name: "Claude", Kind: "claude_code"})
	hs := newHarness(t, seats, 100, 30)
	topic := hs.m.topic
	hue := 200
	for _, s := range []string{"push 1", "push 2", "push 3"} {
		if _, err := hs.eng.Notify(topic, "gh", "GitHub", &hue, s); err != nil {
			t.Fatal(err)
		}
	}
	hs.pump()
	hs.typeText("between")
	hs.key(tea.KeyEnter, 0)
	if _, err := hs.eng.Notify(topic, "gh", "GitHub", &hue, "push 4"); err != nil {
		t.Fatal(err)
	}
	if _, err := hs.eng.AppNotice(topic, "an app notice"); err != nil {
		t.Fatal(err)
	}
	hs.pump()
	scr := hs.screen()
	for _, want := range []string{"▸ GitHub 3 posts", "▸ GitHub 1 post", "ⓘ " + room.AppName} {
		if !strings.Contains(scr, want) {
			t.Errorf("missing %q:\n%s", want, scr)
		}
	}
	if strings.Contains(scr, "│  push 1") {
		t.Errorf("folded content shown:\n%s", scr)
	}
	golden(t, "folded", scr)

	// Click the first fold open.
	lines := strings.Split(scr, "\n")
	for y, l := range lines {
		if strings.Contains(l, "GitHub 3 posts") {
			hs.send(tea.MouseClickMsg{X: hs.m.lay.Room.X + 2, Y: y, Button: tea.MouseLeft})
			break
		}
	}
	scr = hs.screen()
	if !strings.Contains(scr, "▾ GitHub 3 posts") || !strings.Contains(scr, "push 2") {
		t.Errorf("fold did not open:\n%s", scr)
	}

	// Read back from the log, the same posts fold the same way.
	id := hs.m.topic
	hs.prefix('c', "c")
	hs.run(hs.m.loadTopics())
	delete(hs.m.rooms, id)
	hs.run(hs.m.openTopic(id))
	if scr2 := hs.screen(); !strings.Contains(scr2, "▸ GitHub 3 posts") {
		t.Errorf("read-back posts do not fold:\n%s", scr2)
	}
}

func TestHostileContentNeverReachesTheTerminal(t *testing.T) {
	hs := newHarness(t, nil, 100, 30)
	other := seat(t, hs, "Eve\x1b[2J", "")
	if _, err := hs.eng.PostFromConn(other, wire.PostFrame{Type: "post", Content: "x\x1b]0;pwned\x07\x1b[31m\x9b1m"}); err != nil {
		t.Fatal(err)
	}
	hs.pump()
	v := hs.m.View().Content
	for _, bad := range []string{"\x1b]0", "\x07", "\x1b[2J"} {
		if strings.Contains(v, bad) {
			t.Errorf("frame contains %q", bad)
		}
	}
	if !utf8.ValidString(v) || strings.ContainsFunc(v, func(r rune) bool { return r >= 0x80 && r <= 0x9f }) {
		t.Error("frame holds invalid UTF-8 or a C1 control")
	}
	if !strings.Contains(hs.screen(), "␛]0;pwned␇") {
		t.Errorf("controls not shown as symbols:\n%s", hs.screen())
	}
}

func TestTopicsNewSwitchRenameDelete(t *testing.T) {
	seats := newFakeSeats(Account{ID: "cl", Name: "Claude", Kind: "claude_code"})
	hs := newHarness(t, seats, 100, 30)
	first := hs.m.topic
	hs.typeText("in the first")
	hs.key(tea.KeyEnter, 0)
	hs.pump()

	hs.prefix('c', "c")
	second := hs.m.topic
	if second == first || hs.m.listed(second) {
		t.Fatalf("prefix c: topic %q listed=%v", second, hs.m.listed(second))
	}
	// A seat started in the new topic materialises nothing in the store
	// here (the fake does not), but the seat shows as a pane.
	hs.prefix('a', "a")
	hs.key(tea.KeyDown, 0)
	hs.key('s', 0)
	if len(hs.m.panes()) != 1 {
		t.Fatalf("panes after start: %d (calls %q)", len(hs.m.panes()), seats.calls)
	}
	hs.typeText("z") // the participants panel has focus: not typed anywhere
	hs.prefix('p', "p")
	if hs.m.topic != first {
		t.Fatalf("prefix p did not switch back to the listed topic")
	}
	if len(hs.m.panes()) != 0 {
		t.Error("the first topic shows the second topic's pane")
	}
	if !strings.Contains(hs.screen(), "in the first") {
		t.Error("switching back lost the room")
	}
	if len(seats.calls) != 1 {
		t.Errorf("switching topics called the seats: %q", seats.calls)
	}

	// Rename inline.
	hs.prefix(',', ",")
	for range 20 {
		hs.key(tea.KeyBackspace, 0)
	}
	hs.typeText("renamed 題")
	hs.key(tea.KeyEnter, 0)
	if tp, err := hs.store.Get(first); err != nil || tp.Name != "renamed 題" {
		t.Fatalf("rename: %+v %v", tp, err)
	}
	if !strings.Contains(hs.screen(), "renamed 題") {
		t.Errorf("new name not shown:\n%s", hs.screen())
	}

	// Give the first topic a running seat: the dialog mentions it.
	seats.seats[first] = []SeatInfo{{Account: "cl", Name: "Claude", Kind: "claude_code", State: StateRunning, Pane: &fakePane{}}}
	hs.send(seatsChangedMsg{})
	hs.prefix('&', "&")
	if hs.m.dlg == nil || !strings.Contains(strings.Join(hs.m.dlg.lines, "\n"), "stops 1 running session(s): Claude") {
		t.Fatalf("dialog = %+v", hs.m.dlg)
	}
	golden(t, "delete_dialog", hs.screen())
	hs.key('n', 0)
	if _, err := hs.store.Get(first); err != nil {
		t.Fatal("cancel deleted the topic")
	}
	hs.prefix('&', "&")
	hs.key('y', 0)
	if !slices.Contains(seats.calls, "stoptopic "+first) {
		t.Errorf("StopTopic not called: %q", seats.calls)
	}
	if _, err := hs.store.Get(first); !errors.Is(err, topicstore.ErrUnknownTopic) {
		t.Errorf("store still has the topic: %v", err)
	}
	if _, ok := hs.eng.Room(first); ok {
		t.Error("engine still has the room")
	}
	if hs.m.topic == first || hs.m.topic == second || hs.m.listed(hs.m.topic) {
		t.Error("deleting the topic on screen did not move to a new topic")
	}
}

func TestDeleteDialogWithoutSessions(t *testing.T) {
	hs := newHarness(t, nil, 80, 24)
	hs.typeText("x")
	hs.key(tea.KeyEnter, 0)
	hs.pump()
	hs.prefix('&', "&")
	if hs.m.dlg == nil || strings.Contains(strings.Join(hs.m.dlg.lines, " "), "session") {
		t.Fatalf("dialog = %+v", hs.m.dlg)
	}
}

func TestPaneGetsEveryKeyButThePrefix(t *testing.T) {
	seats := newFakeSeats(Account{ID: "cl", Name: "Claude", Kind: "claude_code"})
	hs := newHarness(t, seats, 120, 30)
	pane := &fakePane{lines: []string{"$ vim", "日本語 line"}, sb: 40}
	seats.seats[hs.m.topic] = []SeatInfo{{Account: "cl", Name: "Claude", Kind: "claude_code", State: StateRunning, Pane: pane}}
	hs.send(seatsChangedMsg{})
	hs.prefix('o', "o") // room
	hs.prefix('o', "o") // pane
	if hs.m.focus != focusPane {
		t.Fatalf("focus = %v", hs.m.focus)
	}
	in := hs.m.lay.Panes[0].Inner()
	if pane.cols != in.W || pane.rows != in.H {
		t.Errorf("pane size %dx%d, rect %dx%d", pane.cols, pane.rows, in.W, in.H)
	}
	hs.typeText("ab")
	hs.key(tea.KeyUp, 0)
	hs.key('c', tea.ModCtrl)
	hs.key(tea.KeyF5, 0)
	hs.key('x', tea.ModAlt)
	hs.key(tea.KeyEnter, 0)
	hs.send(tea.PasteMsg{Content: "pasted\ntext"})
	hs.key('b', tea.ModCtrl) // prefix: not typed
	hs.key('b', tea.ModCtrl) // prefix prefix: the prefix key itself
	want := "ab\x1b[A\x03\x1b[15~\x1bx\rpasted\ntext\x02"
	if got := pane.typed(); got != want {
		t.Errorf("typed %q, want %q", got, want)
	}
	v := hs.m.View()
	if v.Cursor == nil || v.Cursor.X != in.X+3 || v.Cursor.Y != in.Y+1 || v.Cursor.Hidden {
		t.Errorf("cursor %+v, want the application's at %d,%d", v.Cursor, in.X+3, in.Y+1)
	}
	// An application that hides its cursor still has it placed there,
	// hidden (an input method composes at the cursor: issue 12 point 6).
	pane.hideCursor = true
	hs.send(seatsChangedMsg{})
	if v := hs.m.View(); v.Cursor == nil || v.Cursor.X != in.X+3 || v.Cursor.Y != in.Y+1 || !v.Cursor.Hidden {
		t.Errorf("hidden cursor %+v, want placed at %d,%d and hidden", v.Cursor, in.X+3, in.Y+1)
	}
	pane.hideCursor = false
	hs.send(seatsChangedMsg{})
	if !strings.Contains(hs.screen(), "日本語 line") {
		t.Errorf("pane not drawn:\n%s", hs.screen())
	}
	// Scroll mode: prefix [, PgUp, q.
	hs.prefix('[', "[")
	hs.key(tea.KeyPgUp, 0)
	if !hs.m.scrollMode || hs.m.scrollOff == 0 {
		t.Errorf("scroll mode %v offset %d", hs.m.scrollMode, hs.m.scrollOff)
	}
	hs.key('q', 0)
	if hs.m.scrollMode {
		t.Error("q did not leave scroll mode")
	}
	if strings.Contains(pane.typed(), "q") {
		t.Error("scroll mode keys reached the pane")
	}
	// Zoom the pane.
	hs.prefix('z', "z")
	if got := hs.m.lay.Panes[0]; got != hs.m.lay.Body {
		t.Errorf("zoomed pane %+v, body %+v", got, hs.m.lay.Body)
	}
}

func TestOlderPagesLoadWhenScrollingUp(t *testing.T) {
	hs := newHarness(t, nil, 80, 24)
	id := hs.m.topic
	for i := range 120 {
		hs.m.input.Set("post " + strings.Repeat("x", i%7) + string(rune('A'+i%26)))
		hs.key(tea.KeyEnter, 0)
		hs.pump()
	}
	hs.prefix('c', "c")
	hs.run(hs.m.loadTopics())
	delete(hs.m.rooms, id)
	hs.run(hs.m.openTopic(id))
	rs := hs.m.cur()
	if !rs.hasMore || len(rs.posts) < pageSize || rs.watermark != rs.posts[len(rs.posts)-1].MessageID {
		t.Fatalf("first page: %d posts, hasMore %v", len(rs.posts), rs.hasMore)
	}
	hs.prefix('r', "r")
	for range 200 {
		hs.key(tea.KeyPgUp, 0)
	}
	if len(rs.posts) != 120 || rs.hasMore {
		t.Errorf("after scrolling up: %d posts, hasMore %v", len(rs.posts), rs.hasMore)
	}
}

func TestStatusReportsSkippedLinesAndLogErrors(t *testing.T) {
	hs := newHarness(t, nil, 100, 30)
	hs.send(pageMsg{topic: hs.m.topic, page: app.Page{Skipped: 2}})
	if !strings.Contains(hs.m.status, "2 unreadable lines") {
		t.Errorf("status = %q", hs.m.status)
	}
	hs.send(roomEventMsg{room.Event{Kind: room.EventLogError, Topic: hs.m.topic, Err: "disk full"}})
	if !strings.Contains(hs.screen(), "log write failed (the post was delivered): disk full") {
		t.Errorf("log error not on the status line:\n%s", hs.screen())
	}
}

func TestNoSeatsSaysHowToAddAnAccount(t *testing.T) {
	hs := newHarness(t, nil, 80, 24)
	if !strings.Contains(hs.screen(), "add an account to config.json") {
		t.Errorf("no hint:\n%s", hs.screen())
	}
	hs.prefix('s', "s")
	if !strings.Contains(hs.m.status, "config.json") {
		t.Errorf("status = %q", hs.m.status)
	}
}

func TestHelpListsEveryBinding(t *testing.T) {
	hs := newHarness(t, nil, 100, 30)
	hs.prefix('?', "?")
	if !hs.m.help {
		t.Fatal("help not open")
	}
	text := strings.Join(helpLines("ctrl+b"), "\n")
	for _, b := range bindings {
		if !strings.Contains(text, b.help) {
			t.Errorf("help lacks %q", b.help)
		}
	}
	hs.key(tea.KeyEscape, 0)
	if hs.m.help {
		t.Error("Esc did not close the help")
	}
}

func TestQuit(t *testing.T) {
	hs := newHarness(t, nil, 80, 24)
	hs.prefix('q', "q")
	if hs.m.status != "quit" {
		t.Error("prefix q did not quit")
	}
}

func TestEverySizeDraws(t *testing.T) {
	seats := newFakeSeats(Account{ID: "cl", Name: "Claude", Kind: "claude_code"})
	hs := newHarness(t, seats, 80, 24)
	seats.seats[hs.m.topic] = []SeatInfo{
		{Account: "a", Name: "A", State: StateRunning, Pane: &fakePane{}},
		{Account: "b", Name: "B", State: StateRunning, Pane: &fakePane{}},
	}
	hs.send(seatsChangedMsg{})
	hs.typeText("日本語の文章")
	for w := 1; w <= 200; w += 7 {
		for h := 1; h <= 60; h += 5 {
			hs.send(tea.WindowSizeMsg{Width: w, Height: h})
			lines := strings.Split(hs.m.View().Content, "\n")
			if len(lines) != h {
				t.Fatalf("%dx%d: %d rows", w, h, len(lines))
			}
		}
	}
}

// A seat start lists a topic before anything is said in it (untitled); its
// first post names it, and the list and the room's title follow.
func TestFirstPostNamesATopicListedBySeatStart(t *testing.T) {
	for _, who := range []string{"person", "other"} {
		t.Run(who, func(t *testing.T) {
			hs := newHarness(t, nil, 100, 30)
			topic := hs.m.topic
			if err := hs.store.SetSession(topic, "cl", "s1"); err != nil { // as a seat start does
				t.Fatal(err)
			}
			hs.run(hs.m.loadTopics())
			if !hs.m.listed(topic) || hs.m.topicName(topic) != "(untitled)" {
				t.Fatalf("listed=%v name=%q before the first post", hs.m.listed(topic), hs.m.topicName(topic))
			}
			if who == "person" {
				hs.typeText("first words")
				hs.key(tea.KeyEnter, 0)
			} else if _, err := hs.eng.Notify(topic, "hook", "Hook", nil, "first words"); err != nil {
				t.Fatal(err)
			}
			hs.pump()
			if got := hs.m.topicName(topic); got != "first words" {
				t.Errorf("topic name after the first post = %q\n%s", got, hs.screen())
			}
			if !strings.Contains(hs.screen(), "Room · first words") {
				t.Errorf("room title not updated:\n%s", hs.screen())
			}
		})
	}
}

func TestCandidatesLeaveTheStatusLine(t *testing.T) {
	for _, h := range []int{30, 6} { // room for all; fewer rows than names
		hs := newHarness(t, nil, 100, h)
		seat(t, hs, "Claude Lay", "")
		seat(t, hs, "Codex", "")
		hs.m.status = "STATUS-HERE"
		hs.m.input.Set("@")
		rows := strings.Split(hs.screen(), "\n")
		st := hs.m.lay.Status.Y
		if !strings.Contains(rows[st], "STATUS-HERE") {
			t.Errorf("h=%d: the popup covers the status line: %q", h, rows[st])
		}
		n := 0
		for _, r := range rows[:st] {
			if strings.Contains(r, " @Claude Lay") || strings.Contains(r, " @Codex") {
				n++
			}
		}
		if want := min(2, st); n != want {
			t.Errorf("h=%d: %d candidate rows above the status line, want %d:\n%s", h, n, want, strings.Join(rows, "\n"))
		}
	}
}

func TestHelpStaysAboveTheStatusLineAlignedAndWhole(t *testing.T) {
	hs := newHarness(t, nil, 100, 30)
	hs.prefix('?', "?")
	st := hs.m.lay.Status.Y
	collapse := func(s string) string { return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "- ", "-") } // a wrap may break after a hyphen
	var seen []string
	prev := ""
	for range 50 {
		rows := strings.Split(hs.screen(), "\n")
		if !strings.Contains(rows[st], "ctrl+b ? help") || strings.Contains(rows[st], "Esc closes") {
			t.Fatalf("the help covers the status line: %q", rows[st])
		}
		page := strings.Join(rows[:st], "\n")
		if page == prev {
			break
		}
		prev = page
		for _, r := range rows[1:st] {
			r = strings.TrimSuffix(strings.TrimRight(r, " │"), "│")
			seen = append(seen, r)
		}
		hs.key(tea.KeyPgDown, 0)
	}
	all := collapse(strings.Join(seen, " "))
	for _, b := range bindings {
		if !strings.Contains(all, collapse(b.help)) {
			t.Errorf("the help never shows %q whole", b.help)
		}
	}
	if !strings.Contains(all, "the release copies them (OSC 52).") {
		t.Error("the mouse line is cut")
	}
	// One column for the descriptions, measured in cells.
	col, n := -1, 0
	lines := helpLines("ctrl+b", 98)
	for _, r := range helpRows("ctrl+b") {
		if r.key == "" {
			continue
		}
		first := strings.Fields(r.desc)[0]
		for _, l := range lines {
			rest, ok := strings.CutPrefix(l, "  "+r.key+" ")
			if !ok || !strings.HasPrefix(strings.TrimLeft(rest, " "), first) {
				continue
			}
			d := ansi.StringWidth(l) - ansi.StringWidth(strings.TrimLeft(rest, " "))
			if col < 0 {
				col = d
			}
			if d != col {
				t.Errorf("%q: description at cell %d, want %d", l, d, col)
			}
			n++
		}
	}
	if n < len(bindings)/2 {
		t.Errorf("only %d of %d bindings checked for alignment", n, len(bindings))
	}
}

func TestFocusAndZoomShowInTheHeaders(t *testing.T) {
	seats := newFakeSeats()
	hs := newHarness(t, seats, 160, 40)
	withPanes(hs, seats, "Lin", "Lay")
	marked := func() []string {
		var out []string
		for _, l := range strings.Split(hs.screen(), "\n") {
			for _, part := range strings.Split(l, "│") {
				if strings.HasPrefix(part, "▶ ") && !strings.Contains(part, ":") { // a header, not a post
					out = append(out, strings.TrimSpace(part))
				}
			}
		}
		return out
	}
	hs.prefix('r', "r")
	if got := marked(); len(got) != 1 || !strings.HasPrefix(got[0], "▶ Room") {
		t.Errorf("focused room: marked headers %q, want the room's only", got)
	}
	if h := hs.m.View().Content; !strings.Contains(h, "\x1b[1;7;34;107m▶ Room") {
		t.Error("the focused header is not drawn in the accent colour")
	}
	hs.prefix('z', "z")
	if got := marked(); len(got) != 1 || !strings.Contains(got[0], "zoomed (ctrl+b z)") {
		t.Errorf("zoomed room: headers %q, want it to say zoomed (ctrl+b z)", got)
	}
	hs.prefix('z', "z")
	hs.prefix('o', "o") // to a pane
	if hs.m.focus != focusPane {
		t.Fatalf("focus %v, want a pane", hs.m.focus)
	}
	hs.prefix('z', "z")
	if got := marked(); len(got) != 1 || !strings.Contains(got[0], "Lin") || !strings.Contains(got[0], "zoomed (ctrl+b z)") {
		t.Errorf("zoomed pane: headers %q", got)
	}
}

// n in the participants edits the selected account's nickname on the status
// line: prefilled with what the room calls it now, Enter saves (its own name
// saves no nickname), Esc leaves it.
func TestParticipantNickname(t *testing.T) {
	seats := newFakeSeats(Account{ID: "lin", Name: "Claude Lin", FullName: "Claude Lin", Kind: "claude_code"})
	hs := newHarness(t, seats, 100, 30)
	be := hs.m.app.(*testBackend)
	hs.prefix('a', "a")
	hs.key(tea.KeyDown, 0) // the person's row, then Lin's
	hs.send(tea.KeyPressMsg{Code: 'n', Text: "n"})
	if scr := hs.screen(); !strings.Contains(scr, "nickname of lin") || !strings.Contains(scr, "Claude Lin") {
		t.Fatalf("no nickname editor on the status line:\n%s", scr)
	}
	hs.key('u', tea.ModCtrl)
	hs.typeText("Lin")
	hs.key(tea.KeyEnter, 0)
	if !slices.Equal(be.nicknames, []string{"lin=Lin"}) {
		t.Fatalf("SetNickname calls %q", be.nicknames)
	}
	if scr := hs.screen(); !strings.Contains(scr, "the room now calls lin Lin") || !strings.Contains(scr, "● Lin") {
		t.Errorf("after saving:\n%s", scr)
	}
	// Typing its own name back clears the nickname; Esc changes nothing.
	hs.send(tea.KeyPressMsg{Code: 'n', Text: "n"})
	hs.key('u', tea.ModCtrl)
	hs.typeText("Claude Lin")
	hs.key(tea.KeyEnter, 0)
	hs.send(tea.KeyPressMsg{Code: 'n', Text: "n"})
	hs.typeText("zzz")
	hs.key(tea.KeyEscape, 0)
	if !slices.Equal(be.nicknames, []string{"lin=Lin", "lin="}) {
		t.Errorf("SetNickname calls %q, want the clear and nothing for Esc", be.nicknames)
	}
	if scr := hs.screen(); strings.Contains(scr, "nickname of") {
		t.Errorf("the editor stayed after Esc:\n%s", scr)
	}
}

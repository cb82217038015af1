package tui

import (
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"pullcept/app"
	"pullcept/room/wire"
)

// rawOf runs cmd and returns what it writes to the outer terminal raw.
func rawOf(cmd tea.Cmd) string {
	if cmd == nil {
		return ""
	}
	var out strings.Builder
	var walk func(tea.Msg)
	walk = func(msg tea.Msg) {
		switch msg := msg.(type) {
		case tea.RawMsg:
			out.WriteString(msg.Msg.(string))
		case tea.BatchMsg:
			for _, c := range msg {
				if c != nil {
					walk(c())
				}
			}
		}
	}
	walk(cmd())
	return out.String()
}

// A post addressed to the person in a topic not on screen marks that
// topic's row and rings the bell; one in the topic on screen does not.
func TestMentionOfThePersonMarksAndRings(t *testing.T) {
	hs := newHarness(t, nil, 100, 30)
	shown := hs.m.topic
	other, _ := hs.m.app.NewTopic()
	lin := hs.eng.NewConn()
	if err := hs.eng.Hello(lin, wire.Hello{Type: "hello", Name: "Lin", Room: other}); err != nil {
		t.Fatal(err)
	}
	if _, err := hs.eng.PostFromConn(lin, wire.PostFrame{MessageID: "m1", Content: "@you look at this"}); err != nil {
		t.Fatal(err)
	}
	var ev app.RoomEvent
	for ev.Kind != app.RoomPost {
		ev = *<-hs.sub.C
	}
	_, cmd := hs.m.Update(roomEventMsg{ev})
	if got := rawOf(cmd); got != "\a" {
		t.Fatalf("the outer terminal got %q, want a bell", got)
	}
	if !hs.m.topicNeedsYou(other) || hs.m.topicNeedsYou(shown) {
		t.Fatalf("marks: other %v, shown %v", hs.m.topicNeedsYou(other), hs.m.topicNeedsYou(shown))
	}
	hs.run(hs.m.openTopic(other))
	if hs.m.topicNeedsYou(other) {
		t.Fatal("the mark stayed after the topic came on screen")
	}
	// On screen at the newest post: no ring.
	if _, err := hs.eng.PostFromConn(lin, wire.PostFrame{MessageID: "m2", Content: "@you again", LastSeen: "m1"}); err != nil {
		t.Fatal(err)
	}
	for ev = (app.RoomEvent{}); ev.Kind != app.RoomPost; {
		ev = *<-hs.sub.C
	}
	if _, cmd := hs.m.Update(roomEventMsg{ev}); rawOf(cmd) != "" {
		t.Fatal("rang for a post the person is looking at")
	}
}

// A seat's needs-you signal from the app: marked, rung as configured
// (desktop text made safe), cleared at its end.
func TestNeedFromTheApp(t *testing.T) {
	hs := newHarness(t, nil, 100, 30)
	hs.m.notify.Permission = "both"
	n := app.Need{Topic: hs.m.topic, Account: "lin", Name: "Lin\x1b]0;x\a", Why: app.NeedPermission, On: true}
	_, cmd := hs.m.Update(appEventMsg{app.Event{Kind: app.EventNeedsYou, Need: n}})
	got := rawOf(cmd)
	if !strings.HasPrefix(got, "\a\x1b]9;") || !strings.Contains(got, "\x1b]777;notify;Pullcept;") || strings.Count(got, "\x1b") != 2 || strings.Count(got, "\a") != 3 {
		t.Fatalf("raw %q: want BEL, OSC 9 and OSC 777 with no sequence from the name", got)
	}
	if !hs.m.topicNeedsYou(hs.m.topic) {
		t.Fatal("no mark")
	}
	n.On = false
	hs.m.Update(appEventMsg{app.Event{Kind: app.EventNeedsYou, Need: n}})
	if hs.m.topicNeedsYou(hs.m.topic) {
		t.Fatal("the mark outlived the wait")
	}
	// Claude 2.1.332's other dialogs (Notification agent_needs_input).
	_, cmd = hs.m.Update(appEventMsg{app.Event{Kind: app.EventNeedsYou, Need: app.Need{Topic: hs.m.topic, Account: "lin", Name: "Lin", Why: app.NeedDialog, On: true}}})
	if got := rawOf(cmd); !strings.Contains(got, "Lin is waiting for your choice in a dialog") {
		t.Fatalf("raw %q for a dialog", got)
	}
	hs.m.Update(appEventMsg{app.Event{Kind: app.EventNeedsYou, Need: app.Need{Topic: hs.m.topic, Account: "lin", Why: app.NeedDialog}}})
	hs.m.notify.Unanswered = "off"
	hs.m.Update(appEventMsg{app.Event{Kind: app.EventNeedsYou, Need: app.Need{Topic: hs.m.topic, Account: "lin", Why: app.NeedUnanswered, On: true}}})
	if hs.m.topicNeedsYou(hs.m.topic) {
		t.Fatal(`marked with notify "off"`)
	}
}

// Reopening a topic brings its recorded sessions back (reopen_seats auto);
// "off" only says they are there; "ask" asks first; a topic already open in
// this run is not reopened.
func TestReopenBringsSessionsBack(t *testing.T) {
	for _, mode := range []string{"auto", "off", "ask"} {
		t.Run(mode, func(t *testing.T) {
			seats := newFakeSeats(Account{ID: "lin", Name: "Lin", Kind: "claude_code"}, Account{ID: "lay", Name: "Lay", Kind: "codex"})
			hs := newHarness(t, seats, 120, 30)
			b := hs.m.app.(*testBackend)
			b.reopen = mode
			old := "01a23000-0000-7000-8000-000000000001"
			if err := hs.store.SetSession(old, "lin", "sess-1"); err != nil {
				t.Fatal(err)
			}
			hs.run(hs.m.loadTopics())
			hs.run(hs.m.openTopic(old))
			started := func() bool {
				seats.mu.Lock()
				defer seats.mu.Unlock()
				return slices.Contains(seats.calls, "start lin")
			}
			switch mode {
			case "auto":
				if !started() || slices.Contains(seats.calls, "start lay") {
					t.Fatalf("calls %q: want Lin (recorded) started, not Lay", seats.calls)
				}
			case "off":
				if started() || !strings.Contains(hs.m.status, "1 session(s) recorded here (Lin)") {
					t.Fatalf("calls %q status %q", seats.calls, hs.m.status)
				}
			case "ask":
				if started() || hs.m.dlg == nil || !hs.m.dlg.reopen {
					t.Fatalf("calls %q: want a question first", seats.calls)
				}
				hs.send(tea.KeyPressMsg{Code: 'y', Text: "y"})
				if !started() {
					t.Fatalf("calls %q after yes", seats.calls)
				}
			}
			// Back and forth: an open topic is not reopened.
			n := len(seats.calls)
			hs.run(hs.m.openTopic(old))
			if len(seats.calls) != n {
				t.Fatalf("opening it again called %q", seats.calls[n:])
			}
		})
	}
}

// Notices expire from the status line and stay whole in the notice log
// (prefix ~).
func TestNoticesExpireAndAreLogged(t *testing.T) {
	hs := newHarness(t, nil, 60, 20)
	var scheduled []tea.Msg
	hs.m.expireAfter = func(d time.Duration, msg tea.Msg) tea.Cmd {
		if d != NoticeTTL {
			t.Errorf("expiry after %v", d)
		}
		scheduled = append(scheduled, msg)
		return nil
	}
	long := "Lin ended: exit 1 — " + strings.Repeat("a reason that does not fit on one status line ", 4)
	hs.send(noteMsg{note: long})
	if hs.m.status != long || len(scheduled) != 1 {
		t.Fatalf("status %q, %d expiries scheduled", hs.m.status, len(scheduled))
	}
	hs.send(scheduled[0])
	if hs.m.status != "" {
		t.Fatalf("status %q after its time", hs.m.status)
	}
	hs.prefix('~', "~")
	if !hs.m.help || !hs.m.helpNotices {
		t.Fatal("prefix ~ did not open the notice log")
	}
	joined := strings.Join(hs.m.noticeLines(40), " ")
	if !strings.Contains(strings.Join(strings.Fields(joined), " "), strings.Join(strings.Fields(long), " ")) {
		t.Fatalf("the log lost the notice's text: %q", joined)
	}
	// An expiry of an older notice leaves a newer one alone.
	hs.send(noteMsg{note: "newer"})
	hs.send(expireMsg{text: long})
	if hs.m.status != "newer" {
		t.Fatalf("status %q", hs.m.status)
	}
}

// Quitting with sessions running asks first; with none it quits at once.
func TestQuitAsksWhileSessionsRun(t *testing.T) {
	seats := newFakeSeats(Account{ID: "lin", Name: "Lin", Kind: "claude_code"})
	hs := newHarness(t, seats, 100, 30)
	if cmd := hs.m.askQuit(); cmd == nil || hs.m.dlg != nil {
		t.Fatal("with no session running, quit did not quit at once")
	}
	seats.Start(hs.m.topic, "lin")
	hs.m.refreshSeats()
	if cmd := hs.m.askQuit(); cmd != nil || hs.m.dlg == nil || !hs.m.dlg.quit {
		t.Fatal("with a session running, quit did not ask")
	}
	if !strings.Contains(strings.Join(hs.m.dlg.lines, " "), "stops 1 running session(s)") {
		t.Fatalf("dialog %q", hs.m.dlg.lines)
	}
	hs.send(tea.KeyPressMsg{Code: 'n', Text: "n"})
	if hs.m.dlg != nil || hs.m.status == "quit" {
		t.Fatal("n did not cancel")
	}
}

// A post to a seat that is starting and not yet in the room waits in the
// input line and goes when the seat joins; a second Enter sends it at once.
func TestPostWaitsForAStartingSeat(t *testing.T) {
	seats := newFakeSeats(Account{ID: "lin", Name: "Lin", Kind: "claude_code"})
	hs := newHarness(t, seats, 120, 30)
	seats.Start(hs.m.topic, "lin")
	hs.m.refreshSeats()
	posts := func() int {
		p, _ := hs.m.app.Page(hs.m.topic, 10, "")
		return len(p.Posts)
	}
	hs.typeText("@Lin hello there")
	hs.key(tea.KeyEnter, 0)
	if posts() != 0 || hs.m.input.String() != "@Lin hello there" || !strings.Contains(hs.m.status, "Lin is starting") {
		t.Fatalf("posts %d, input %q, status %q: want the post held in the input", posts(), hs.m.input.String(), hs.m.status)
	}
	seat(t, hs, "Lin", "lin") // Lin's sidecar joins; the roster event sends it
	hs.pump()
	if posts() != 1 || hs.m.input.String() != "" {
		t.Fatalf("after Lin joined: posts %d, input %q", posts(), hs.m.input.String())
	}

	// Another starting seat, and a second Enter: sent at once.
	seats.accounts = append(seats.accounts, Account{ID: "lay", Name: "Lay", Kind: "codex"})
	seats.Start(hs.m.topic, "lay")
	hs.m.refreshSeats()
	hs.typeText("@Lay now")
	hs.key(tea.KeyEnter, 0)
	if posts() != 1 {
		t.Fatal("sent at the first Enter")
	}
	hs.key(tea.KeyEnter, 0)
	hs.pump()
	if posts() != 2 {
		t.Fatalf("the second Enter did not send: %d posts", posts())
	}
}

package tui

// Issue 31, points 3, 8 and 9 in the model: the seat keys act on what the
// person looks at, a post to an account not in the room waits for the
// person's one key, and ctrl+c in the input line.

import (
	"errors"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"pullcept/room/wire"
)

// twoSeats is a harness with Ann and Bob (Bob called "Bobby", his
// nickname) running in the topic on screen, each with a pane.
func twoSeats(t *testing.T) *harness {
	t.Helper()
	seats := newFakeSeats(Account{ID: "acc-ann", Name: "Ann", FullName: "Ann", Kind: "cli"},
		Account{ID: "acc-bob", Name: "Bobby", FullName: "Bob", Nickname: "Bobby", Kind: "cli"})
	hs := newHarness(t, seats, 160, 40)
	seats.Start(hs.m.topic, "acc-ann")
	seats.Start(hs.m.topic, "acc-bob")
	seats.calls = nil
	hs.m.refreshSeats()
	return hs
}

// selectPart selects account's row in the participants panel.
func selectPart(t *testing.T, hs *harness, account string) {
	t.Helper()
	for i, r := range hs.m.partRows() {
		if r.account == account {
			hs.m.psel = i
			return
		}
	}
	t.Fatalf("no participant row for %s", account)
}

func (hs *harness) calls() []string {
	hs.seats.mu.Lock()
	defer hs.seats.mu.Unlock()
	return slices.Clone(hs.seats.calls)
}

// prefix x with pane 2 focused asks about pane 2's seat (by its calling
// name), not the participant selected; n does nothing, y stops that seat.
func TestStopActsOnTheFocusedPane(t *testing.T) {
	hs := twoSeats(t)
	selectPart(t, hs, "acc-ann") // selected, but not what the person looks at
	hs.m.setFocus(focusPane, 1)
	hs.prefix('x', "x")
	if hs.m.dlg == nil || !strings.Contains(strings.Join(hs.m.dlg.lines, "\n"), "Stop Bobby (pane 2)?") {
		t.Fatalf("prefix x on pane 2: dialog %+v, status %q, calls %q; want it to ask about Bobby (pane 2)", hs.m.dlg, hs.m.status, hs.calls())
	}
	if scr := hs.screen(); !strings.Contains(scr, "Stop Bobby (pane 2)?") || !strings.Contains(scr, "Stop a seat") || strings.Contains(scr, "Delete topic") {
		t.Errorf("the question is not on the screen:\n%s", hs.screen())
	}
	if len(hs.calls()) != 0 {
		t.Fatalf("stopped before the answer: %q", hs.calls())
	}
	hs.send(tea.KeyPressMsg{Code: 'n', Text: "n"})
	if hs.m.dlg != nil || len(hs.calls()) != 0 {
		t.Fatalf("after n: dialog %v, calls %q", hs.m.dlg, hs.calls())
	}
	hs.prefix('x', "x")
	hs.send(tea.KeyPressMsg{Code: 'y', Text: "y"})
	if got := hs.calls(); !slices.Equal(got, []string{"stop acc-bob"}) {
		t.Fatalf("after y: calls %q, want only Bobby's seat stopped", got)
	}
	if strings.Contains(hs.m.status, "acc-bob") || !strings.Contains(hs.m.status, "Bobby") {
		t.Errorf("status %q: want the calling name, not the account id", hs.m.status)
	}
}

// prefix s, x and R with the focus on the input line, the room or the
// topic list act on nothing and say what to focus.
func TestSeatKeysElsewhereSayWhatToFocus(t *testing.T) {
	hs := twoSeats(t)
	selectPart(t, hs, "acc-ann")
	for _, f := range []focusKind{focusInput, focusRoom, focusTopics} {
		for _, k := range []rune{'x', 's', 'R'} {
			hs.m.setFocus(f, 0)
			hs.m.status = ""
			hs.prefix(k, string(k))
			if hs.m.dlg != nil || len(hs.calls()) != 0 || !strings.Contains(hs.m.status, "focus a terminal pane (ctrl+b o) or the participants (ctrl+b a) first") {
				t.Fatalf("focus %d, prefix %c: dialog %v, calls %q, status %q", f, k, hs.m.dlg, hs.calls(), hs.m.status)
			}
		}
	}
}

// With the participants focused the keys (prefixed or the panel's own) act
// on the selection; an ended seat's pane closes without asking.
func TestSeatKeysOnTheParticipants(t *testing.T) {
	hs := twoSeats(t)
	hs.m.setFocus(focusParts, 0)
	selectPart(t, hs, "acc-ann")
	hs.prefix('x', "x")
	if hs.m.dlg == nil || hs.m.dlg.lines[0] != "Stop Ann (pane 1)?" {
		t.Fatalf("prefix x on the participants: dialog %+v", hs.m.dlg)
	}
	hs.send(tea.KeyPressMsg{Code: 'y', Text: "y"})
	hs.send(tea.KeyPressMsg{Code: 'x', Text: "x"}) // the panel's own key asks too
	if hs.m.dlg == nil || hs.m.dlg.lines[0] != "Stop Ann (pane 1)?" {
		t.Fatalf("x on the participants: dialog %+v", hs.m.dlg)
	}
	hs.send(tea.KeyPressMsg{Code: tea.KeyEscape})
	if got := hs.calls(); !slices.Equal(got, []string{"stop acc-ann"}) {
		t.Fatalf("calls %q, want Ann stopped once (y), not on esc", got)
	}

	// Ann ended by itself: x closes its pane at once.
	hs.seats.mu.Lock()
	hs.seats.seats[hs.m.topic][0].State = StateExited
	hs.seats.mu.Unlock()
	hs.m.refreshSeats()
	hs.m.setFocus(focusPane, 0)
	hs.prefix('x', "x")
	if hs.m.dlg != nil || !slices.Equal(hs.calls(), []string{"stop acc-ann", "stop acc-ann"}) {
		t.Fatalf("x on an ended pane: dialog %v, calls %q; want it closed without asking", hs.m.dlg, hs.calls())
	}
	// s on it starts it again; s on a running one says so.
	hs.prefix('s', "s")
	hs.m.setFocus(focusPane, 1)
	hs.prefix('s', "s")
	if got := hs.calls(); !slices.Equal(got[2:], []string{"start acc-ann"}) || !strings.Contains(hs.m.status, "Bobby already runs") {
		t.Fatalf("calls %q, status %q", got, hs.m.status)
	}
}

// R restarts at once, but asks while the seat is in a turn.
func TestRestartAsksWhileATurnRuns(t *testing.T) {
	hs := twoSeats(t)
	hs.m.setFocus(focusPane, 0)
	hs.prefix('R', "R")
	if hs.m.dlg != nil || !slices.Equal(hs.calls(), []string{"restart acc-ann"}) {
		t.Fatalf("R on an idle seat: dialog %v, calls %q; want a restart at once", hs.m.dlg, hs.calls())
	}
	for _, act := range []string{"working", "waiting"} {
		hs.seats.mu.Lock()
		hs.seats.seats[hs.m.topic][1].Activity = act
		hs.seats.mu.Unlock()
		hs.m.refreshSeats()
		hs.m.setFocus(focusPane, 1)
		n := len(hs.calls())
		hs.prefix('R', "R")
		if hs.m.dlg == nil || hs.m.dlg.lines[0] != "Restart Bobby (pane 2)?" || len(hs.calls()) != n {
			t.Fatalf("R on a %s seat: dialog %+v, calls %q; want a question", act, hs.m.dlg, hs.calls())
		}
		hs.send(tea.KeyPressMsg{Code: 'y', Text: "y"})
		if got := hs.calls(); got[len(got)-1] != "restart acc-bob" || len(got) != n+1 {
			t.Fatalf("after y: calls %q", got)
		}
	}
}

// failingSeats refuses to stop, as the seat manager says it: with the
// account id and the topic.
type failingSeats struct{ *fakeSeats }

func (f failingSeats) Stop(topic, account string) error {
	return errors.New(account + " in topic " + topic + ": no running seat")
}

// The notices of the seat keys name the seat by its calling name.
func TestSeatNoticesUseTheCallingName(t *testing.T) {
	hs := twoSeats(t)
	hs.m.seats = failingSeats{hs.seats}
	hs.m.setFocus(focusParts, 0)
	selectPart(t, hs, "acc-bob")
	hs.prefix('x', "x")
	hs.send(tea.KeyPressMsg{Code: 'y', Text: "y"})
	if hs.m.status != "stopping Bobby: no running seat" {
		t.Fatalf("status %q, want %q", hs.m.status, "stopping Bobby: no running seat")
	}
}

// A post that @-names an account with no seat in the topic stays in the
// input line and says so; ctrl+s starts the seat, and the post goes (to
// it) when it joins, never before.
func TestPostToAnAccountNotInTheRoom(t *testing.T) {
	seats := newFakeSeats(Account{ID: "lin", Name: "Lin", Kind: "claude_code"})
	hs := newHarness(t, seats, 160, 30)
	posts := func() []wire.Post {
		p, _ := hs.m.app.Page(hs.m.topic, 10, "")
		return p.Posts
	}
	hs.typeText("@lin hello there") // the room's matching: any case
	hs.key(tea.KeyEnter, 0)
	if len(posts()) != 0 || hs.m.input.String() != "@lin hello there" ||
		!strings.HasPrefix(hs.m.status, "Lin is not in the room — ctrl+s starts Lin and sends when it joins") {
		t.Fatalf("posts %d, input %q, status %q: want the post kept and the offer", len(posts()), hs.m.input.String(), hs.m.status)
	}
	if len(seats.calls) != 0 {
		t.Fatalf("started without the key: %q", seats.calls)
	}
	hs.key('s', tea.ModCtrl)
	if !slices.Equal(seats.calls, []string{"start lin"}) || len(posts()) != 0 || hs.m.input.String() != "@lin hello there" {
		t.Fatalf("after ctrl+s: calls %q, posts %d, input %q", seats.calls, len(posts()), hs.m.input.String())
	}
	hs.pump()
	if len(posts()) != 0 {
		t.Fatal("the post went before Lin joined")
	}
	seat(t, hs, "Lin", "lin") // Lin's sidecar joins: the roster event sends it
	ps := posts()
	if len(ps) != 1 || !slices.Equal(ps[0].To, []string{"Lin"}) || hs.m.input.String() != "" {
		t.Fatalf("after Lin joined: posts %+v, input %q", ps, hs.m.input.String())
	}
}

// Enter again after the offer sends the post at once, to the room as it
// is (Lin not started).
func TestPostToAnAccountNotInTheRoomEnterAgain(t *testing.T) {
	seats := newFakeSeats(Account{ID: "lin", Name: "Lin", Kind: "claude_code"})
	hs := newHarness(t, seats, 160, 30)
	hs.typeText("@Lin are you there")
	hs.key(tea.KeyEnter, 0)
	hs.key(tea.KeyEnter, 0)
	hs.pump()
	p, _ := hs.m.app.Page(hs.m.topic, 10, "")
	if len(p.Posts) != 1 || len(seats.calls) != 0 || hs.m.input.String() != "" {
		t.Fatalf("posts %d, calls %q, input %q", len(p.Posts), seats.calls, hs.m.input.String())
	}
}

// A deferred send refused by the floor (a post came in that the screen had
// not drawn) is any refused post: the text back in the input line, the
// status line saying why; Enter then sends it.
func TestDeferredSendRefusedByTheFloor(t *testing.T) {
	seats := newFakeSeats(Account{ID: "lin", Name: "Lin", Kind: "claude_code"})
	hs := newHarness(t, seats, 160, 30)
	bob := seat(t, hs, "Bob", "")
	hs.typeText("@Lin hello")
	hs.key(tea.KeyEnter, 0)
	hs.key('s', tea.ModCtrl)
	// Lin joins and Bob posts before the screen sees either.
	if err := hs.eng.Hello(hs.eng.NewConn(), wire.Hello{Type: "hello", Name: "Lin", Room: hs.m.topic, AccountID: "lin"}); err != nil {
		t.Fatal(err)
	}
	if out, err := hs.eng.PostFromConn(bob, wire.PostFrame{Type: "post", Content: "meanwhile", LastSeen: hs.m.cur().watermark}); err != nil || !out.Delivered {
		t.Fatal(out, err)
	}
	hs.pump()
	if hs.m.input.String() != "@Lin hello" || !strings.Contains(hs.m.status, "not sent: 1 new posts came in") {
		t.Fatalf("input %q, status %q: want the refused post back in the input", hs.m.input.String(), hs.m.status)
	}
	hs.key(tea.KeyEnter, 0)
	hs.pump()
	p, _ := hs.m.app.Page(hs.m.topic, 10, "")
	if len(p.Posts) != 2 || p.Posts[1].Content != "hello" || hs.m.input.String() != "" {
		t.Fatalf("posts %+v, input %q", p.Posts, hs.m.input.String())
	}
}

// ctrl+c clears the input line and says nothing; on an empty line it says
// how to detach or quit.
func TestCtrlCInTheInputLine(t *testing.T) {
	hs := newHarness(t, nil, 120, 30)
	hs.m.status = ""
	hs.typeText("half a thought")
	hs.key('c', tea.ModCtrl)
	if hs.m.input.String() != "" || hs.m.status != "" {
		t.Fatalf("first ctrl+c: input %q, status %q; want it cleared, nothing said", hs.m.input.String(), hs.m.status)
	}
	hs.key('c', tea.ModCtrl)
	if !strings.Contains(hs.m.status, "ctrl+b d detaches") || !strings.Contains(hs.m.status, "ctrl+b q quits") || hs.m.status == "quit" {
		t.Fatalf("ctrl+c on an empty line: status %q", hs.m.status)
	}
}

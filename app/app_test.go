package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"pullcept/dirs"
	"pullcept/room/wire"
	"pullcept/seat"
)

// fakeStarter is the seat manager's process seam: it records each launch's
// spec and runs a harmless command in a real PTY instead of the CLI.
type fakeStarter struct {
	mu    sync.Mutex
	specs []seat.PaneSpec
	argv  []string
}

func (f *fakeStarter) start(ctx context.Context, spec seat.PaneSpec) (*seat.Pane, error) {
	f.mu.Lock()
	f.specs = append(f.specs, spec)
	f.mu.Unlock()
	spec.Argv = f.argv
	return seat.StartPane(ctx, spec)
}

func newApp(t *testing.T, accounts []seat.Account, st *fakeStarter) *App {
	t.Helper()
	home := t.TempDir()
	d, err := dirs.Resolve(func(k string) string { return map[string]string{"PULLCEPT_HOME": home}[k] })
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Dirs: d, PersonName: "Master", Accounts: accounts, ExePath: "/bin/false"}
	if st != nil {
		o.StartPane = st.start
	}
	a, err := Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

func next(t *testing.T, s *Subscription) Event {
	t.Helper()
	select {
	case ev, ok := <-s.C:
		if !ok {
			t.Fatal("the subscription ended")
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event")
		return Event{}
	}
}

// TestEventsSurviveLag: a subscriber that reads nothing through a burst of
// more than QueueLimit events is told to resynchronise and then keeps
// receiving: the post after the burst reaches it.
func TestEventsSurviveLag(t *testing.T) {
	t.Parallel()
	a := newApp(t, []seat.Account{}, nil)
	topic, err := a.NewTopic()
	if err != nil {
		t.Fatal(err)
	}
	slow := a.Subscribe()
	defer slow.Close()
	// A marker that goes through the whole pipeline: once it arrives on a
	// second subscription, the burst has been published to the slow one.
	mark := a.Subscribe()
	defer mark.Close()
	n := QueueLimit + 500
	for i := range n {
		a.bus.publish(Event{Kind: EventNotice, Notice: fmt.Sprint("burst ", i)})
	}
	if _, err := a.Post(topic, "after the burst", ""); err != nil {
		t.Fatal(err)
	}
	resync, got := false, false
	for !got {
		ev := next(t, slow)
		switch {
		case ev.Kind == EventResync:
			resync = true
		case ev.Kind == EventRoom && ev.Room.Kind == RoomPost && ev.Room.Post.Content == "after the burst":
			got = true
		}
	}
	if !resync {
		t.Fatal("the slow subscriber lost events without being told")
	}
	// The other subscriber (also behind) got there too.
	for {
		ev := next(t, mark)
		if ev.Kind == EventRoom && ev.Room.Kind == RoomPost {
			break
		}
	}
}

// TestDeleteStopsSeatsFirst: deleting a topic stops its seats, then its
// files and index entry go, then its room; the seat's exit is a requested
// one.
func TestDeleteStopsSeatsFirst(t *testing.T) {
	t.Parallel()
	st := &fakeStarter{argv: []string{"/bin/sh", "-c", "echo up; sleep 60"}}
	a := newApp(t, []seat.Account{{ID: "bot", Name: "Bot", Kind: seat.KindCLI, Command: "my-cli"}}, st)
	sub := a.Subscribe()
	defer sub.Close()
	topic, _ := a.NewTopic()
	if _, err := a.Post(topic, "hello", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := a.StartSeat(context.Background(), topic, "bot"); err != nil {
		t.Fatal(err)
	}
	if len(st.specs) != 1 || st.specs[0].Argv[0] != "my-cli" {
		t.Fatalf("the launch: %+v", st.specs)
	}
	if err := a.Delete(context.Background(), topic); err != nil {
		t.Fatal(err)
	}
	if len(a.Seats(topic)) != 0 || a.IsOpen(topic) {
		t.Fatalf("after delete: seats %v, open %v", a.Seats(topic), a.IsOpen(topic))
	}
	if _, err := a.TopicByID(topic); err == nil {
		t.Fatal("the topic is still in the store")
	}
	for {
		ev := next(t, sub)
		if ev.Kind == EventSeat && ev.Seat.State == seat.StateExited {
			if !ev.Seat.Requested {
				t.Fatalf("the seat's end was not a requested one: %+v", ev.Seat)
			}
			break
		}
	}
}

// TestSeatEndsByItself: a process that exits by itself is reported with
// its status, not as a requested stop, and its notice says so.
func TestSeatEndsByItself(t *testing.T) {
	t.Parallel()
	st := &fakeStarter{argv: []string{"/bin/sh", "-c", "echo last words; exit 3"}}
	a := newApp(t, []seat.Account{{ID: "bot", Name: "Bot", Kind: seat.KindCLI, Command: "my-cli"}}, st)
	sub := a.Subscribe()
	defer sub.Close()
	topic, _ := a.NewTopic()
	if _, err := a.StartSeat(context.Background(), topic, "bot"); err != nil {
		t.Fatal(err)
	}
	var exited SeatEvent
	notice := ""
	for exited.State == "" || notice == "" {
		ev := next(t, sub)
		if ev.Kind == EventSeat && ev.Seat.State == seat.StateExited {
			exited = ev.Seat
		}
		if ev.Kind == EventNotice && ev.Notice == "Bot ended: exit 3" {
			notice = ev.Notice
		}
	}
	if exited.Requested || exited.Code == nil || *exited.Code != 3 {
		t.Fatalf("exit event %+v", exited)
	}
	// Its pane stays, with its last screen and why it ended.
	seats := a.Seats(topic)
	if len(seats) != 1 || seats[0].State != seat.StateExited || seats[0].Exit != "exit 3" || seats[0].Pane == nil ||
		!strings.Contains(seats[0].Pane.Render(), "last words") {
		t.Fatalf("after the exit: %+v", seats)
	}
	// It can be started again in place, and closed.
	if _, err := a.StartSeat(context.Background(), topic, "bot"); err != nil {
		t.Fatalf("start again: %v", err)
	}
	for {
		if ev := next(t, sub); ev.Kind == EventSeat && ev.Seat.State == seat.StateExited {
			break
		}
	}
	if err := a.StopSeat(topic, "bot", "closed"); err != nil || len(a.Seats(topic)) != 0 {
		t.Fatalf("close: %v, seats %+v", err, a.Seats(topic))
	}
}

// TestNeedsYou: a seat's permission wait is a need until it ends; a post
// addressed to a seat, typed in, then a Stop with no post from it since is
// an unanswered turn, cleared when it does post.
func TestNeedsYou(t *testing.T) {
	t.Parallel()
	st := &fakeStarter{argv: []string{"/bin/sh", "-c", "stty raw -echo; cat >/dev/null"}}
	a := newApp(t, []seat.Account{{ID: "bot", Name: "Bot", Kind: seat.KindCLI, Command: "my-cli"}}, st)
	sub := a.Subscribe()
	defer sub.Close()
	topic, _ := a.NewTopic()
	if _, err := a.StartSeat(context.Background(), topic, "bot"); err != nil {
		t.Fatal(err)
	}
	bot := joinAsSidecar(t, a, sub, topic, "bot", "Bot")
	need := func(want func(Need) bool) Need {
		t.Helper()
		for {
			if ev := next(t, sub); ev.Kind == EventNeedsYou && want(ev.Need) {
				return ev.Need
			}
		}
	}
	hook := func(event string) {
		t.Helper()
		if err := a.seats.Activity(context.Background(), topic, "bot", event, []byte(`{"tool_name":"Bash","tool_use_id":"t1"}`)); err != nil {
			t.Fatal(err)
		}
	}
	hook("PreToolUse")
	hook("PermissionRequest")
	if n := need(func(n Need) bool { return n.On }); n.Why != NeedPermission || n.Account != "bot" || a.Needs(topic)["bot"].Why != NeedPermission {
		t.Fatalf("need %+v", n)
	}
	hook("PostToolUse")
	need(func(n Need) bool { return !n.On && n.Why == NeedPermission })
	if len(a.Needs(topic)) != 0 {
		t.Fatalf("needs after the wait: %v", a.Needs(topic))
	}

	o, err := a.Post(topic, "@Bot please review", "")
	if err != nil || !o.Delivered {
		t.Fatalf("%+v %v", o, err)
	}
	// Typed in (with its \r), it awaits an answer.
	waitAwaiting(t, a, topic, "bot")
	hook("UserPromptSubmit")
	hook("Stop")
	n := need(func(n Need) bool { return n.On })
	if n.Why != NeedUnanswered || n.Post != o.Post.MessageID {
		t.Fatalf("need %+v, want unanswered %s", n, o.Post.MessageID)
	}
	if err := bot.WriteJSON(wire.PostFrame{Type: wire.TypePost, MessageID: "b1", Content: "done", LastSeen: o.Post.MessageID}); err != nil {
		t.Fatal(err)
	}
	need(func(n Need) bool { return !n.On && n.Why == NeedUnanswered })
}

// seatedPane starts account's seat in topic, seats a sidecar for it in the
// room and returns its pane.
func seatedPane(t *testing.T, a *App, sub *Subscription, topic, account, name string) *seat.Pane {
	t.Helper()
	if _, err := a.StartSeat(context.Background(), topic, account); err != nil {
		t.Fatal(err)
	}
	joinAsSidecar(t, a, sub, topic, account, name)
	pane, err := a.Pane(topic, account)
	if err != nil {
		t.Fatal(err)
	}
	return pane
}

// joinAsSidecar seats account in topic's room as its sidecar would (the
// CLI starts it), so posts are typed into its terminal; it returns once the
// roster shows it beside the person.
func joinAsSidecar(t *testing.T, a *App, sub *Subscription, topic, account, name string) *websocket.Conn {
	t.Helper()
	c, _, err := websocket.DefaultDialer.Dial(a.URL(), http.Header{"Authorization": {"Bearer " + a.Token()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.WriteJSON(wire.Hello{Type: wire.TypeHello, Protocol: wire.ProtocolVersion, Name: name, Room: topic, AccountID: account}); err != nil {
		t.Fatal(err)
	}
	for {
		if ev := next(t, sub); ev.Kind == EventRoom && ev.Room.Kind == RoomRoster && len(ev.Room.Participants) == 2 {
			return c
		}
	}
}

// waitAwaiting waits until the post typed into the seat awaits an answer.
func waitAwaiting(t *testing.T, a *App, topic, account string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		a.needs.mu.Lock()
		_, ok := a.needs.awaiting[seatKey{topic, account}]
		a.needs.mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the typed post never awaited an answer")
		}
		time.Sleep(5 * time.Millisecond) // the typist's callback sets it: no event says so
	}
}

// TestOneRunPerHome: a second run on a home is refused with the holder's
// pid while the first runs; once it has closed, a new one starts.
func TestOneRunPerHome(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	d, _ := dirs.Resolve(func(k string) string { return map[string]string{"PULLCEPT_HOME": home}[k] })
	o := Options{Dirs: d, Accounts: []seat.Account{}, ExePath: "/bin/false"}
	first, err := Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Start(context.Background(), o)
	if !errors.Is(err, dirs.ErrHomeBusy) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("second run: %v", err)
	}
	first.Close()
	again, err := Start(context.Background(), o)
	if err != nil {
		t.Fatalf("after the first closed: %v", err)
	}
	again.Close()
}

// An empty rename is refused with a sentence, not the store's error.
func TestRenameEmpty(t *testing.T) {
	t.Parallel()
	a := newApp(t, []seat.Account{}, nil)
	topic, _ := a.NewTopic()
	if _, err := a.Post(topic, "hello", ""); err != nil {
		t.Fatal(err)
	}
	err := a.Rename(topic, "  ")
	if err == nil || strings.Contains(err.Error(), "topicstore") || !strings.Contains(err.Error(), "cannot be empty") {
		t.Fatalf("empty rename: %v", err)
	}
}

package room

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"pullcept/room/wire"
	"pullcept/topicstore"
)

// memLog is an in-memory Log that records appends in order and can fail.
type memLog struct {
	mu    sync.Mutex
	posts map[string][]topicstore.Post
	fail  error
	named map[string]string
}

func newMemLog() *memLog {
	return &memLog{posts: map[string][]topicstore.Post{}, named: map[string]string{}}
}

func (l *memLog) Append(topic string, p topicstore.Post) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fail != nil {
		return false, l.fail
	}
	first := len(l.posts[topic]) == 0
	l.posts[topic] = append(l.posts[topic], p)
	return first, nil
}

func (l *memLog) NoteFirstPost(topic, content string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.named[topic]; !ok {
		l.named[topic] = content
	}
	return nil
}

func (l *memLog) Page(topic string, limit int, before string) (topicstore.Page, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	all := l.posts[topic]
	end := len(all)
	if before != "" {
		end = -1
		for i, p := range all {
			if p.MessageID == before {
				end = i
			}
		}
		if end < 0 {
			return topicstore.Page{}, topicstore.ErrUnknownMessage
		}
	}
	start := max(0, end-limit)
	return topicstore.Page{Posts: append([]topicstore.Post(nil), all[start:end]...), HasMore: start > 0}, nil
}

func (l *memLog) ids(topic string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, p := range l.posts[topic] {
		out = append(out, p.MessageID)
	}
	return out
}

// typist records deliveries.
type typist struct {
	mu sync.Mutex
	d  []Delivery
}

func (t *typist) Type(d Delivery) { t.mu.Lock(); t.d = append(t.d, d); t.mu.Unlock() }
func (t *typist) all() []Delivery {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Delivery(nil), t.d...)
}

const topicA = "topic-a"

type fixture struct {
	e   *Engine
	log *memLog
	typ *typist
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	l, ty := newMemLog(), &typist{}
	kinds := map[string]string{"acc-claude": "claude_code", "acc-codex": "codex", "acc-admin": "admin", "acc-mcp": "mcp"}
	e := New(Config{Log: l, Typer: ty, PersonName: "Master", AccountKind: func(a string) (string, bool) {
		k, ok := kinds[a]
		return k, ok
	}})
	if _, err := e.Open(topicA); err != nil {
		t.Fatal(err)
	}
	return &fixture{e: e, log: l, typ: ty}
}

func (f *fixture) join(t *testing.T, name, account string) ConnID {
	t.Helper()
	id := f.e.NewConn()
	if err := f.e.Hello(id, wire.Hello{Type: wire.TypeHello, Protocol: wire.ProtocolVersion, Name: name, Room: topicA, AccountID: account}); err != nil {
		t.Fatal(err)
	}
	return id
}

func (f *fixture) say(t *testing.T, id ConnID, content, lastSeen string) Outcome {
	t.Helper()
	o, err := f.e.PostFromConn(id, wire.PostFrame{Type: wire.TypePost, Content: content, LastSeen: lastSeen})
	if err != nil {
		t.Fatalf("post %q: %v", content, err)
	}
	return o
}

func TestFloorRejectsUnseenPostsInOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	lin, lay := f.join(t, "Lin", "acc-claude"), f.join(t, "Lay", "acc-codex")
	q, _ := f.e.PostAsPerson(topicA, "question?", "")
	a1 := f.say(t, lin, "answer one", q.Post.MessageID)
	if !a1.Delivered {
		t.Fatalf("first answer refused: %+v", a1)
	}
	a1b := f.say(t, lin, "and more", a1.Post.MessageID)
	if !a1b.Delivered {
		t.Fatal("own newer post must not count as missed")
	}
	a2 := f.say(t, lay, "answer two", q.Post.MessageID)
	if a2.Delivered {
		t.Fatal("second answer with the same last_seen was delivered")
	}
	got := []string{a2.Missed[0].Content, a2.Missed[1].Content}
	if !reflect.DeepEqual(got, []string{"answer one", "and more"}) || a2.Missed[0].Speaker != "Lin" {
		t.Fatalf("missed = %+v", a2.Missed)
	}
	// Resend having seen the newest.
	if o := f.say(t, lay, "answer two", a1b.Post.MessageID); !o.Delivered {
		t.Fatalf("resend refused: %+v", o)
	}
	if ids := f.log.ids(topicA); len(ids) != 4 {
		t.Fatalf("log has %d posts, want 4 (refused post must not be logged)", len(ids))
	}
}

func TestFloorUnknownLastSeenIsNothingSeen(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	lin, lay := f.join(t, "Lin", ""), f.join(t, "Lay", "")
	f.say(t, lin, "one", "")
	o := f.say(t, lay, "two", "no-such-id")
	if o.Delivered || len(o.Missed) != 1 {
		t.Fatalf("unknown last_seen must count as nothing seen: %+v", o)
	}
}

func TestFloorIgnoresPostsBeforeTheSeat(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	lin := f.join(t, "Lin", "")
	f.say(t, lin, "before Lay came", "")
	lay := f.join(t, "Lay", "")
	if o := f.say(t, lay, "hi", ""); !o.Delivered {
		t.Fatalf("posts before the seat was taken must not be asked: %+v", o)
	}
	// A second hello keeps the seat's position.
	f.say(t, lin, "after", f.log.ids(topicA)[1])
	f.e.Hello(lay, wire.Hello{Name: "Lay2", Room: topicA})
	if o := f.say(t, lay, "x", ""); o.Delivered {
		t.Fatal("renaming must not move the seat past unseen posts")
	}
}

func TestFloorWindowEvicts(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	lin, lay := f.join(t, "Lin", ""), f.join(t, "Lay", "")
	first := f.say(t, lin, "p0", "")
	last := first
	for i := 1; i < FloorWindow+10; i++ {
		last = f.say(t, lin, fmt.Sprintf("p%d", i), last.Post.MessageID)
	}
	o := f.say(t, lay, "late", first.Post.MessageID)
	if o.Delivered || len(o.Missed) != FloorWindow {
		t.Fatalf("evicted last_seen must return the whole window: delivered=%v missed=%d", o.Delivered, len(o.Missed))
	}
	if o := f.say(t, lay, "late", last.Post.MessageID); !o.Delivered {
		t.Fatal("newest last_seen refused")
	}
}

func TestPersonIsJudgedAndAdmin(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	lin := f.join(t, "Lin", "acc-claude")
	f.say(t, lin, "hello", "")
	o, err := f.e.PostAsPerson(topicA, "hi", "")
	if err != nil || o.Delivered {
		t.Fatalf("person's post must be judged like any other: %+v %v", o, err)
	}
	o, _ = f.e.PostAsPerson(topicA, "@Lin hi", o.Missed[0].MessageID)
	if !o.Delivered || o.Post.Speaker != "Master" || !reflect.DeepEqual(o.Post.To, []string{"Lin"}) {
		t.Fatalf("post = %+v", o)
	}
	d := f.typ.all()
	if d[len(d)-1].Role != wire.RoleAdmin || !reflect.DeepEqual(d[len(d)-1].Accounts, []string{"acc-claude"}) {
		t.Fatalf("delivery = %+v", d[len(d)-1])
	}
}

func TestRolesAndTyping(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	claude := f.join(t, "Lin", "acc-claude")
	f.join(t, "Lay", "acc-codex")
	f.join(t, "Lay-again", "acc-codex") // same account: one terminal, typed once
	f.join(t, "outsider", "")           // no terminal of this app
	fake := f.join(t, "Master?", "acc-admin")
	mcpName := f.join(t, "hook", "acc-mcp")
	unknown := f.join(t, "who", "acc-nope")

	o := f.say(t, claude, "from claude", "")
	d := f.typ.all()[0]
	if d.Role != "claude_code" || !reflect.DeepEqual(d.Accounts, []string{"acc-codex", "acc-admin", "acc-mcp", "acc-nope"}) {
		t.Fatalf("delivery = %+v", d)
	}
	if o.Post.Speaker != "Lin" || o.Post.Account != "acc-claude" {
		t.Fatalf("speaker not stamped from hello: %+v", o.Post)
	}
	last := o.Post.MessageID
	for _, c := range []ConnID{fake, mcpName, unknown} {
		o := f.say(t, c, "x", last)
		if !o.Delivered {
			t.Fatalf("refused: %+v", o)
		}
		last = o.Post.MessageID
	}
	for _, d := range f.typ.all()[1:] {
		if d.Role != wire.RoleUnknown {
			t.Fatalf("a socket post got role %q: admin/mcp/unknown accounts must read unknown", d.Role)
		}
	}
}

func TestOwnTerminalSkippedEvenWithSameName(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.join(t, "Twin", "acc-claude")
	f.join(t, "Twin", "acc-codex")
	f.say(t, a, "hello", "")
	if got := f.typ.all()[0].Accounts; !reflect.DeepEqual(got, []string{"acc-codex"}) {
		t.Fatalf("accounts = %v: skip is by connection, not name", got)
	}
	if r := f.e.Roster(topicA); len(r) != 3 {
		t.Fatalf("two participants with one name must be two seats: %+v", r)
	}
}

func TestOnlyMentionsRejectedAndEmpty(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.join(t, "Lin", "")
	if _, err := f.e.PostAsPerson(topicA, "@Lin", ""); !errors.Is(err, ErrOnlyMentions) || err.Error() != ErrOnlyMentionsText {
		t.Fatalf("err = %v", err)
	}
	if _, err := f.e.PostAsPerson(topicA, "  \n ", ""); !errors.Is(err, ErrEmpty) {
		t.Fatalf("err = %v", err)
	}
	if n := len(f.log.ids(topicA)); n != 0 {
		t.Fatalf("%d posts logged", n)
	}
}

func TestExplicitToFirstThenMentions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	lin := f.join(t, "Lin", "")
	f.join(t, "Lay", "")
	o, err := f.e.PostFromConn(lin, wire.PostFrame{Content: "@lay @Master look", To: []string{" Master ", "", "Master"}})
	if err != nil || !reflect.DeepEqual(o.Post.To, []string{"Master", "Lay"}) || o.Post.Content != "look" {
		t.Fatalf("post = %+v %v", o.Post, err)
	}
}

func TestNotifyUntouchedAndNotJudged(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.join(t, "Lin", "acc-claude")
	hue := 200
	o, err := f.e.Notify(topicA, "acc-hook", "github", &hue, "@Lin PR opened")
	if err != nil || !o.Delivered || o.Post.Content != "@Lin PR opened" || o.Post.To != nil {
		t.Fatalf("notification = %+v %v", o, err)
	}
	if d := f.typ.all()[0]; d.Role != wire.RoleMCP || !reflect.DeepEqual(d.Accounts, []string{"acc-claude"}) {
		t.Fatalf("delivery = %+v", d)
	}
	o, _ = f.e.AppNotice(topicA, "paused")
	if !o.Post.FromApp || o.Post.Speaker != AppName || f.typ.all()[1].Role != wire.RoleApp {
		t.Fatalf("app notice = %+v", o.Post)
	}
}

func TestAppendFailureStillDelivers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sub := f.e.Subscribe()
	defer sub.Close()
	f.log.fail = errors.New("disk full")
	o, err := f.e.PostAsPerson(topicA, "keep me", "")
	if err != nil || !o.Delivered {
		t.Fatalf("append failure lost the post: %+v %v", o, err)
	}
	var kinds []EventKind
	for len(kinds) < 2 {
		ev := nextEvent(t, sub)
		kinds = append(kinds, ev.Kind)
		if ev.Kind == EventLogError && ev.Err != "disk full" {
			t.Fatalf("log error reason = %q", ev.Err)
		}
	}
	if !reflect.DeepEqual(kinds, []EventKind{EventLogError, EventPost}) {
		t.Fatalf("events = %v", kinds)
	}
	if len(f.typ.all()) != 1 {
		t.Fatal("post was not handed to the typist")
	}
}

func TestNoRoomErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	nameless, ghost := f.e.NewConn(), f.e.NewConn()
	if err := f.e.Hello(nameless, wire.Hello{Name: "x"}); !errors.Is(err, ErrNoRoom) {
		t.Fatalf("hello without room: %v", err)
	}
	if err := f.e.Hello(ghost, wire.Hello{Name: "x", Room: "other"}); !errors.Is(err, ErrNoRoom) {
		t.Fatalf("hello to a room that does not exist: %v", err)
	}
	// A later hello naming an existing room does not move a connection
	// whose first hello named a missing one.
	f.e.Hello(ghost, wire.Hello{Name: "x", Room: topicA})
	for _, c := range []ConnID{nameless, ghost, f.e.NewConn()} {
		if _, err := f.e.PostFromConn(c, wire.PostFrame{Content: "hi"}); !errors.Is(err, ErrNoRoom) {
			t.Fatalf("post: %v", err)
		}
		if _, _, err := f.e.History(c, 10, ""); !errors.Is(err, ErrNoRoom) {
			t.Fatalf("history: %v", err)
		}
		if _, _, err := f.e.UsageFor(c); !errors.Is(err, ErrNoRoom) {
			t.Fatalf("usage: %v", err)
		}
	}
	lin := f.join(t, "Lin", "")
	f.e.Drop(topicA)
	if _, err := f.e.PostFromConn(lin, wire.PostFrame{Content: "hi"}); !errors.Is(err, ErrNoRoom) {
		t.Fatalf("post to a dropped room: %v", err)
	}
}

func TestSecondHelloDoesNotMove(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.e.Open("topic-b")
	lin := f.join(t, "Lin", "")
	f.e.Hello(lin, wire.Hello{Name: "Lin", Room: "topic-b"})
	f.say(t, lin, "stays in a", "")
	if len(f.log.ids(topicA)) != 1 || len(f.log.ids("topic-b")) != 0 {
		t.Fatal("a second hello moved the connection")
	}
}

// Only the person speaks under the person's name: the log keeps no role,
// so a reloaded post under it reads as the person's.
func TestNoConnectionTakesThePersonsName(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, name := range []string{"Master", " master ", "MASTER"} {
		id := f.e.NewConn()
		err := f.e.Hello(id, wire.Hello{Type: wire.TypeHello, Name: name, Room: topicA, AccountID: "acc-admin"})
		if !errors.Is(err, ErrPersonsName) || !strings.Contains(err.Error(), "person's name") {
			t.Errorf("hello as %q: %v, want ErrPersonsName", name, err)
		}
		if _, err := f.e.PostFromConn(id, wire.PostFrame{Content: "impostor"}); err == nil {
			t.Errorf("a connection refused as %q posted", name)
		}
	}
	lin := f.join(t, "Lin", "")
	if err := f.e.Hello(lin, wire.Hello{Type: wire.TypeHello, Name: "master", Room: topicA}); !errors.Is(err, ErrPersonsName) {
		t.Fatalf("rename to the person's name: %v", err)
	}
	var names []string
	for _, p := range f.e.Roster(topicA) {
		names = append(names, p.Name)
	}
	if !slices.Equal(names, []string{"Master", "Lin"}) {
		t.Errorf("roster %q, want the person and Lin (the rename changed nothing)", names)
	}
	if len(f.log.ids(topicA)) != 0 {
		t.Errorf("refused hellos logged posts: %v", f.log.ids(topicA))
	}
}

func TestDuplicateAndBadMessageIDs(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	lin := f.join(t, "Lin", "")
	if _, err := f.e.PostFromConn(lin, wire.PostFrame{MessageID: "m1", Content: "a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.e.PostFromConn(lin, wire.PostFrame{MessageID: "m1", Content: "b", LastSeen: "m1"}); !errors.Is(err, ErrDuplicateID) {
		t.Fatalf("dup: %v", err)
	}
	if _, err := f.e.PostFromConn(lin, wire.PostFrame{MessageID: "a b\x1b", Content: "b"}); !errors.Is(err, ErrBadID) {
		t.Fatalf("bad id: %v", err)
	}
	big := make([]byte, MaxContentBytes+1)
	if _, err := f.e.PostFromConn(lin, wire.PostFrame{Content: string(big)}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("big: %v", err)
	}
}

func TestUsageBookPerSeat(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 10, 10, 9, 0, 0, 0, time.UTC)
	l := newMemLog()
	e := New(Config{Log: l, Now: func() time.Time { return now }})
	e.Open(topicA)
	withAcc, without := e.NewConn(), e.NewConn()
	e.Hello(withAcc, wire.Hello{Name: "Lin", Room: topicA, AccountID: "acc"})
	e.Hello(without, wire.Hello{Name: "x", Room: topicA})
	if _, ok, err := e.UsageFor(withAcc); ok || err != nil {
		t.Fatalf("nothing received yet: ok=%v err=%v", ok, err)
	}
	if _, _, err := e.UsageFor(without); err == nil {
		t.Fatal("a connection without account must get an error")
	}
	e.RecordUsage(topicA, "acc", wire.UsageReport{FiveHour: &wire.Window{UsedPercentage: 85}})
	e.RecordUsage("other", "acc", wire.UsageReport{FiveHour: &wire.Window{UsedPercentage: 1}})
	u, ok, _ := e.UsageFor(withAcc)
	if !ok || u.FiveHour.UsedPercentage != 85 || u.SevenDay != nil || u.Context != nil || !u.ReceivedAt.Equal(now) || !u.FiveHourAt.Equal(now) {
		t.Fatalf("usage = %+v", u)
	}
	// A later report with the context only: the window keeps its time.
	first := now
	now = now.Add(10 * time.Minute)
	ctx := 42.0
	e.RecordUsage(topicA, "acc", wire.UsageReport{Context: &ctx, Model: "Opus", Effort: "high"})
	u, _, _ = e.UsageFor(withAcc)
	if !u.FiveHourAt.Equal(first) || *u.Context != 42 || !u.ContextAt.Equal(now) || u.Model != "Opus" || u.Effort != "high" || !u.ReceivedAt.Equal(now) {
		t.Fatalf("after a context report: %+v", u)
	}
	r := u.Result()
	if r.FiveHour.ReceivedAt != "2026-10-10T09:00:00Z" || r.Context.ReceivedAt != "2026-10-10T09:10:00Z" || r.SevenDay != nil || r.Model != "Opus" {
		t.Fatalf("result: %+v", r)
	}
	// A new launch drops the context, model and effort; the windows stay.
	e.NewLaunch(topicA, "acc")
	u, _, _ = e.UsageFor(withAcc)
	if u.Context != nil || u.Model != "" || u.Effort != "" || u.FiveHour == nil || u.FiveHour.UsedPercentage != 85 {
		t.Fatalf("after a new launch: %+v", u)
	}
	// An empty report records nothing (no received time moves).
	now = now.Add(time.Minute)
	e.RecordUsage(topicA, "acc", wire.UsageReport{})
	if u2, _, _ := e.UsageFor(withAcc); !u2.ReceivedAt.Equal(u.ReceivedAt) {
		t.Fatalf("an empty report moved the received time: %v", u2.ReceivedAt)
	}
	e.Drop(topicA)
	if _, ok := e.Usage().Get(topicA, "acc"); ok {
		t.Fatal("figures must go with the topic")
	}
}

func TestHistoryIsTheConnectionsTopic(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.e.Open("topic-b")
	lin := f.join(t, "Lin", "")
	f.e.PostAsPerson("topic-b", "elsewhere", "")
	f.say(t, lin, "here", "")
	posts, more, err := f.e.History(lin, 0, "")
	if err != nil || more || len(posts) != 1 || posts[0].Content != "here" {
		t.Fatalf("history = %+v %v %v", posts, more, err)
	}
}

// nextEvent waits for the next event, failing the test if none comes.
func nextEvent(t *testing.T, sub *Subscription) Event {
	t.Helper()
	select {
	case ev := <-sub.C:
		return *ev
	case <-time.After(5 * time.Second):
		t.Fatal("no event within 5s")
		return Event{}
	}
}

// Addressing uses calling names only (spec 003 ニックネームと元の名前): a
// seat of a configured account is called by its nickname, its name is no
// alias, one calling name addresses all its holders, and an explicit to
// keeps the strings as sent (an absent name addresses nobody). The post
// carries the speaker's name as full_name; a later rename changes no post.
func TestAddressingByCallingName(t *testing.T) {
	t.Parallel()
	l, ty := newMemLog(), &typist{}
	names := map[string][2]string{"acc-lin": {"Lin", "Claude Lin"}, "acc-lin2": {"lin", "Claude Other"}, "acc-lay": {"Lay", "Lay"}}
	var mu sync.Mutex
	e := New(Config{Log: l, Typer: ty, PersonName: "Master", AccountNames: func(a string) (string, string, bool) {
		mu.Lock()
		defer mu.Unlock()
		n, ok := names[a]
		return n[0], n[1], ok
	}})
	if _, err := e.Open(topicA); err != nil {
		t.Fatal(err)
	}
	join := func(hello, account string) ConnID {
		id := e.NewConn()
		if err := e.Hello(id, wire.Hello{Type: wire.TypeHello, Name: hello, Room: topicA, AccountID: account}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	join("Claude", "acc-lin")     // the hello's name gives way to the saved one
	join("whatever", "acc-lin2")  // another account with the same calling name (ignoring case)
	lay := join("Lay", "acc-lay") // nickname-less: its name is its calling name
	ext := join("Eta", "")        // an external client keeps its own name

	post := func(from ConnID, content string, to ...string) wire.Post {
		t.Helper()
		last := ""
		if ids := l.ids(topicA); len(ids) > 0 {
			last = ids[len(ids)-1]
		}
		o, err := e.PostFromConn(from, wire.PostFrame{Content: content, To: to, LastSeen: last})
		if err != nil || !o.Delivered {
			t.Fatalf("post %q: %+v %v", content, o, err)
		}
		return o.Post
	}
	cases := []struct {
		name    string
		from    ConnID
		content string
		to      []string
		wantTo  []string
		body    string
	}{
		{"nickname addresses", ext, "@Lin hi", nil, []string{"Lin"}, "hi"},
		{"the original name is no alias", ext, "@Claude Lin hi", nil, nil, "@Claude Lin hi"},
		{"one calling name, every holder: one entry", ext, "@lin @LIN hi", nil, []string{"Lin"}, "hi"},
		{"explicit to kept as sent, absent names too", ext, "see", []string{"Nobody", "Lay"}, []string{"Nobody", "Lay"}, "see"},
		{"an unknown @ stays in the body", lay, "@Nobody there?", nil, nil, "@Nobody there?"},
	}
	for _, c := range cases {
		p := post(c.from, c.content, c.to...)
		if !slices.Equal(p.To, c.wantTo) || p.Content != c.body {
			t.Errorf("%s: to %q body %q, want %q %q", c.name, p.To, p.Content, c.wantTo, c.body)
		}
	}

	// full_name: the speaker's name when it differs, not for the others.
	var linConn ConnID
	for _, id := range e.rooms[topicA].order {
		if s := e.rooms[topicA].seats[id]; s.account == "acc-lin" {
			linConn = id
		}
	}
	p := post(linConn, "from Lin")
	if p.Speaker != "Lin" || p.FullName != "Claude Lin" {
		t.Errorf("Lin's post: speaker %q full_name %q", p.Speaker, p.FullName)
	}
	if p := post(lay, "from Lay"); p.FullName != "" {
		t.Errorf("Lay's post carries full_name %q, its name is its calling name", p.FullName)
	}
	if p := post(ext, "from Eta"); p.FullName != "" || p.Speaker != "Eta" {
		t.Errorf("an external client's post: %+v", p)
	}

	// A rename changes no post already said: the log keeps speaker and to.
	mu.Lock()
	names["acc-lin"] = [2]string{"Luna", "Claude Lin"}
	mu.Unlock()
	if _, err := e.Rename("acc-lin"); err != nil {
		t.Fatal(err)
	}
	l.mu.Lock()
	logged := append([]topicstore.Post(nil), l.posts[topicA]...)
	l.mu.Unlock()
	if logged[0].To[0] != "Lin" || logged[len(logged)-3].Speaker != "Lin" || logged[len(logged)-3].FullName != "Claude Lin" {
		t.Errorf("the rename rewrote old posts: %+v / %+v", logged[0], logged[len(logged)-3])
	}
	if p := post(linConn, "renamed"); p.Speaker != "Luna" || p.FullName != "Claude Lin" {
		t.Errorf("after the rename: %+v", p)
	}
	if p := post(ext, "@Lin still?"); len(p.To) != 1 || p.To[0] != "lin" {
		t.Errorf("after Lin became Luna, @Lin addresses the other holder only: to %q", p.To)
	}
}

// A sender's message_id is refused while any of the topic's last
// FloorWindow posts holds it (docs/decisions.md "message_id"), whoever said
// it and across a restart: nothing is logged, delivered or published.
// Before, a new run's room forgot every id its log held.
func TestMessageIDReuseRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	lin := f.join(t, "Lin", "acc-claude")
	if _, err := f.e.PostFromConn(lin, wire.PostFrame{MessageID: "m1", Content: "a"}); err != nil {
		t.Fatal(err)
	}
	cx := f.join(t, "Cody", "acc-codex")
	if _, err := f.e.PostFromConn(cx, wire.PostFrame{MessageID: "m1", Content: "b", LastSeen: "m1"}); !errors.Is(err, ErrDuplicateID) {
		t.Fatalf("another connection's reuse: %v", err)
	}

	// The next run, on the same log.
	ty := &typist{}
	e := New(Config{Log: f.log, Typer: ty, PersonName: "Master"})
	if _, err := e.Open(topicA); err != nil {
		t.Fatal(err)
	}
	sub := e.Subscribe()
	defer sub.Close()
	id := e.NewConn()
	if err := e.Hello(id, wire.Hello{Type: wire.TypeHello, Protocol: wire.ProtocolVersion, Name: "Lin", Room: topicA, AccountID: "acc-claude"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.PostFromConn(id, wire.PostFrame{MessageID: "m1", Content: "c"}); !errors.Is(err, ErrDuplicateID) {
		t.Fatalf("a reuse after a restart: %v, want %v", err, ErrDuplicateID)
	}
	if got := f.log.ids(topicA); len(got) != 1 {
		t.Fatalf("the refused posts were logged: %v", got)
	}
	// m1 and FloorWindow-1 newer posts: still the window.
	for i := 0; i < FloorWindow-1; i++ {
		if _, err := e.PostFromConn(id, wire.PostFrame{Content: fmt.Sprint("p", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.PostFromConn(id, wire.PostFrame{MessageID: "m1", Content: "d"}); !errors.Is(err, ErrDuplicateID) {
		t.Fatalf("a reuse within the window: %v", err)
	}
	if _, err := e.PostFromConn(id, wire.PostFrame{Content: "the window moves past m1"}); err != nil {
		t.Fatal(err)
	}
	if o, err := e.PostFromConn(id, wire.PostFrame{MessageID: "m1", Content: "e"}); err != nil || !o.Delivered {
		t.Fatalf("m1 out of the window: %v %v, want delivered", o, err)
	}
}

// A sleeping seat's placeholder (SeatAsleep) keeps it in the roster,
// marked asleep, so `@Name` resolves to it and deliveries name its
// account; Leave ends it (docs/decisions.md "Sleeping seats").
func TestSeatAsleepPlaceholder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sub := f.e.Subscribe()
	defer sub.Close()
	id, err := f.e.SeatAsleep(topicA, "acc-claude", "Lin")
	if err != nil {
		t.Fatal(err)
	}
	var roster []Participant
	for roster == nil {
		if ev := <-sub.C; ev.Kind == EventRoster {
			roster = ev.Participants
		}
	}
	if len(roster) != 2 || roster[1].Name != "Lin" || !roster[1].Asleep || roster[1].Account != "acc-claude" {
		t.Fatalf("roster: %+v", roster)
	}
	o, err := f.e.PostAsPerson(topicA, "@Lin wake up", "")
	if err != nil || len(o.Post.To) != 1 || o.Post.To[0] != "Lin" {
		t.Fatalf("post: %+v %v", o, err)
	}
	if d := f.typ.all(); len(d) != 1 || len(d[0].Accounts) != 1 || d[0].Accounts[0] != "acc-claude" {
		t.Fatalf("deliveries: %+v", d)
	}
	f.e.Leave(id)
	if r := f.e.Roster(topicA); len(r) != 1 {
		t.Fatalf("roster after Leave: %+v", r)
	}
	if _, err := f.e.SeatAsleep("no-such-topic", "acc-claude", "Lin"); err == nil {
		t.Fatal("a placeholder in a room this run does not have")
	}
}

package sidecar_test

// The sidecar against the real room: room.Engine on a real topicstore in a
// temp dir, served by socket.Listen, driven through mcp-go's MCP client
// over a pipe to the sidecar's own MCP server (pipeClient). Waiting is on the room's events (a roster or a post) or on the
// sidecar's connection callback, never on sleeps.

import (
	"context"
	"fmt"
	"io"
	"net"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"pullcept/room"
	"pullcept/room/socket"
	"pullcept/room/wire"
	"pullcept/sidecar"
	"pullcept/topicstore"
)

const token = "test-token"

// recorder is the room's terminal typist: it records what would be typed
// into whose terminal.
type recorder struct {
	mu sync.Mutex
	d  []room.Delivery
}

func (r *recorder) Type(d room.Delivery) {
	r.mu.Lock()
	r.d = append(r.d, d)
	r.mu.Unlock()
}

func (r *recorder) deliveries() []room.Delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]room.Delivery(nil), r.d...)
}

type harness struct {
	t     *testing.T
	e     *room.Engine
	srv   *socket.Server
	store *topicstore.Store
	sub   *room.Subscription
	typed *recorder
	now   time.Time
}

// newRoom runs an engine with topics open and the room socket listening.
func newRoom(t *testing.T, topics ...string) *harness {
	t.Helper()
	return newRoomWith(t, nil, topics...)
}

// newRoomWith is newRoom with the engine's saved account names.
func newRoomWith(t *testing.T, names func(string) (string, string, bool), topics ...string) *harness {
	t.Helper()
	store, err := topicstore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, store: store, typed: &recorder{}, now: time.Date(2026, 10, 10, 9, 48, 0, 0, time.UTC)}
	h.e = room.New(room.Config{
		Log:          store,
		Typer:        h.typed,
		AccountKind:  func(string) (string, bool) { return "claude_code", true },
		AccountNames: names,
	})
	h.sub = h.e.Subscribe()
	t.Cleanup(h.sub.Close)
	for _, topic := range topics {
		if _, err := h.e.Open(topic); err != nil {
			t.Fatal(err)
		}
	}
	h.srv, err = socket.Listen(h.e, token, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.srv.Close() })
	return h
}

// until waits, event by event, for cond to hold.
func (h *harness) until(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.After(15 * time.Second)
	for !cond() {
		select {
		case _, ok := <-h.sub.C:
			if !ok {
				h.t.Fatalf("room subscription closed while waiting for %s", what)
			}
		case <-deadline:
			h.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (h *harness) seated(topic, name string) bool {
	for _, p := range h.e.Roster(topic) {
		if p.Name == name {
			return true
		}
	}
	return false
}

func (h *harness) participant(topic, name string) room.Participant {
	for _, p := range h.e.Roster(topic) {
		if p.Name == name {
			return p
		}
	}
	h.t.Fatalf("%s is not seated in %s", name, topic)
	return room.Participant{}
}

// logged is the topic's log, oldest first.
func (h *harness) logged(topic string) []topicstore.Post {
	h.t.Helper()
	page, err := h.store.Page(topic, 1000, "")
	if err != nil {
		h.t.Fatal(err)
	}
	return page.Posts
}

func (h *harness) env(name, topic string, extra ...string) map[string]string {
	m := map[string]string{
		sidecar.EnvRoomURL: h.srv.URL(), sidecar.EnvRoomToken: token,
		sidecar.EnvAgentName: name, sidecar.EnvRoomID: topic,
	}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i]] = extra[i+1]
	}
	return m
}

type seat struct {
	s    *sidecar.Sidecar
	c    *client.Client
	init *mcp.InitializeResult
	conn chan bool // the sidecar's connection going up (true) or down
}

// sidecar starts a sidecar with env and an MCP client on it (pipeClient).
func (h *harness) sidecar(env map[string]string, o sidecar.Options) *seat {
	h.t.Helper()
	st := &seat{conn: make(chan bool, 64)}
	o.Env = func(k string) string { return env[k] }
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Now == nil {
		o.Now = func() time.Time { return h.now.Add(12*time.Minute + 30*time.Second) }
	}
	o.OnConnection = func(up bool) { st.conn <- up }
	st.s = sidecar.New(o)
	ctx, cancel := context.WithCancel(context.Background())
	st.s.Start(ctx)
	h.t.Cleanup(func() { cancel(); st.s.Close() })
	st.c, st.init = pipeClient(h.t, ctx, st.s)
	return st
}

// pipeClient returns mcp-go's in-process client on s's MCP server,
// initialized with the newest protocol version the client knows (2026-07-28:
// it asks server/discover, which mcp-go's server answers). The test's end
// closes the client. (Over stdio, mcp-go keeps one session per process; the
// binary's tests go that way.)
func pipeClient(t *testing.T, ctx context.Context, s *sidecar.Sidecar) (*client.Client, *mcp.InitializeResult) {
	t.Helper()
	c, err := client.NewInProcessClient(s.MCPServer())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "sidecar-room-test", Version: "0"}
	init, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	return c, init
}

// join starts a sidecar named name in topic and waits until it is seated.
func (h *harness) join(name, topic string, extra ...string) *seat {
	h.t.Helper()
	st := h.sidecar(h.env(name, topic, extra...), sidecar.Options{ReconnectMin: 5 * time.Millisecond, ReconnectMax: 50 * time.Millisecond})
	h.until(name+" seated in "+topic, func() bool { return h.seated(topic, name) })
	return st
}

func (st *seat) call(t *testing.T, tool string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := st.c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var b strings.Builder
	for _, ct := range res.Content {
		if tc, ok := ct.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// waitConn waits for the sidecar's connection to go up or down.
func (st *seat) waitConn(t *testing.T, up bool) {
	t.Helper()
	deadline := time.After(15 * time.Second)
	for {
		select {
		case got := <-st.conn:
			if got == up {
				return
			}
		case <-deadline:
			t.Fatalf("timed out waiting for the connection to be up=%v", up)
		}
	}
}

// say posts and expects delivery; it returns the message id.
func (st *seat) say(t *testing.T, args map[string]any) string {
	t.Helper()
	text, isErr := st.call(t, sidecar.ToolSay, args)
	if isErr || !strings.HasPrefix(text, sidecar.DeliveredPrefix) {
		t.Fatalf("say_to_room %v: not delivered: %q", args, text)
	}
	id, _ := sidecar.DeliveredID(text)
	return id
}

func TestSayIsDeliveredWithTheRoomsStampAndAFreshID(t *testing.T) {
	t.Parallel()
	h := newRoom(t, "topic-a")
	lin := h.join("Lin", "topic-a", sidecar.EnvAgentHue, "145", sidecar.EnvAccountID, "acc-lin")
	lay := h.join("Lay", "topic-a")

	// hello carried hue and account only when given.
	if p := h.participant("topic-a", "Lin"); p.Hue == nil || *p.Hue != 145 || p.Account != "acc-lin" {
		t.Fatalf("Lin's seat = %+v", p)
	}
	if p := h.participant("topic-a", "Lay"); p.Hue != nil || p.Account != "" {
		t.Fatalf("Lay declared nothing but its seat = %+v", p)
	}

	id1 := lin.say(t, map[string]any{"content": "hello room"})
	id2 := lin.say(t, map[string]any{"content": "again", "last_seen": id1})
	for _, id := range []string{id1, id2} {
		if _, err := uuid.Parse(id); err != nil {
			t.Fatalf("message id %q is not a UUID", id)
		}
	}
	if id1 == id2 {
		t.Fatal("two posts share a message id")
	}
	posts := h.logged("topic-a")
	if len(posts) != 2 || posts[0].MessageID != id1 || posts[0].Speaker != "Lin" || posts[0].Account != "acc-lin" || posts[0].Content != "hello room" {
		t.Fatalf("log = %+v", posts)
	}
	// Typed into the other seated account's terminal, not the speaker's.
	var typed []string
	for _, d := range h.typed.deliveries() {
		if d.Post.MessageID == id1 {
			typed = d.Accounts
		}
	}
	if len(typed) != 0 { // Lay has no account: nothing to type into
		t.Fatalf("typed into %v", typed)
	}
	_ = lay
}

func TestToAcceptsOneNameOrAList(t *testing.T) {
	t.Parallel()
	h := newRoom(t, "topic-to")
	lin := h.join("Lin", "topic-to")
	for _, tc := range []struct {
		to   any
		want []string
	}{
		{" Lay ", []string{"Lay"}},
		{[]any{"Lay", " Lay", "", "Master", "Master "}, []string{"Lay", "Master"}},
		{`["Lay","Master"]`, []string{"Lay", "Master"}},
		{nil, nil},
	} {
		args := map[string]any{"content": fmt.Sprintf("to %v", tc.to)}
		if tc.to != nil {
			args["to"] = tc.to
		}
		id := lin.say(t, args)
		posts := h.logged("topic-to")
		last := posts[len(posts)-1]
		if last.MessageID != id || !reflect.DeepEqual(last.To, tc.want) {
			t.Fatalf("to %#v: logged %+v, want to %v", tc.to, last, tc.want)
		}
	}
}

func TestFloorRefusalKeepsADraftThatCanBeResent(t *testing.T) {
	t.Parallel()
	h := newRoom(t, "topic-floor")
	lin := h.join("Lin", "topic-floor")

	mine := lin.say(t, map[string]any{"content": "first"})
	// The person speaks while Lin composes.
	o, err := h.e.PostAsPerson("topic-floor", "I'll take the review", mine)
	if err != nil || !o.Delivered {
		t.Fatalf("person post: %v %+v", err, o)
	}
	person := o.Post

	text, isErr := lin.call(t, sidecar.ToolSay, map[string]any{"content": "I'll do the review", "to": "you", "last_seen": mine})
	if !isErr {
		t.Fatalf("a refused post must be an error result: %q", text)
	}
	for _, must := range []string{"Not delivered", "nothing was posted", person.MessageID, "speaker: you", "I'll take the review", "draft", "at: "} {
		if !strings.Contains(text, must) {
			t.Errorf("refusal lacks %q:\n%s", must, text)
		}
	}
	for _, p := range h.logged("topic-floor") {
		if p.Content == "I'll do the review" {
			t.Fatal("the refused post reached the log")
		}
	}

	// Content omitted: the draft goes, with its to.
	id := lin.say(t, map[string]any{"last_seen": person.MessageID})
	posts := h.logged("topic-floor")
	last := posts[len(posts)-1]
	if last.MessageID != id || last.Content != "I'll do the review" || !reflect.DeepEqual(last.To, []string{"you"}) {
		t.Fatalf("resent draft logged as %+v", last)
	}
	// A delivery clears the draft.
	text, isErr = lin.call(t, sidecar.ToolSay, map[string]any{"last_seen": id})
	if !isErr || !strings.Contains(text, "no draft") {
		t.Fatalf("after delivery there is no draft, got %v %q", isErr, text)
	}

	// A new refusal replaces the draft; a new to overrides the draft's.
	o1, _ := h.e.PostAsPerson("topic-floor", "one", id)
	if _, isErr := lin.call(t, sidecar.ToolSay, map[string]any{"content": "draft A", "to": "Lay", "last_seen": id}); !isErr {
		t.Fatal("draft A should be refused")
	}
	o2, _ := h.e.PostAsPerson("topic-floor", "two", o1.Post.MessageID)
	text, isErr = lin.call(t, sidecar.ToolSay, map[string]any{"content": "draft B", "to": "Lay", "last_seen": o1.Post.MessageID})
	if !isErr || !strings.Contains(text, o2.Post.MessageID) || strings.Contains(text, o1.Post.MessageID) {
		t.Fatalf("second refusal should list only what was missed since last_seen:\n%s", text)
	}
	id = lin.say(t, map[string]any{"last_seen": o2.Post.MessageID, "to": []any{"Master"}})
	posts = h.logged("topic-floor")
	last = posts[len(posts)-1]
	if last.MessageID != id || last.Content != "draft B" || !reflect.DeepEqual(last.To, []string{"Master"}) {
		t.Fatalf("the newer draft with the new to should go, logged %+v", last)
	}

	// Never anything to send: a clear error, nothing sent.
	before := len(h.logged("topic-floor"))
	text, isErr = lin.call(t, sidecar.ToolSay, map[string]any{"content": "   "})
	if !isErr || !strings.Contains(text, "no draft") || len(h.logged("topic-floor")) != before {
		t.Fatalf("empty content without a draft: %v %q", isErr, text)
	}
}

func TestOnlyMentionsReturnsTheRoomsReason(t *testing.T) {
	t.Parallel()
	h := newRoom(t, "topic-at")
	lin := h.join("Lin", "topic-at")
	h.join("Lay", "topic-at")
	text, isErr := lin.call(t, sidecar.ToolSay, map[string]any{"content": "@Lay"})
	if !isErr || !strings.Contains(text, room.ErrOnlyMentionsText) {
		t.Fatalf("got %v %q", isErr, text)
	}
	if n := len(h.logged("topic-at")); n != 0 {
		t.Fatalf("%d posts logged", n)
	}
	// Not a floor refusal: no draft was kept.
	if text, _ := lin.call(t, sidecar.ToolSay, map[string]any{}); !strings.Contains(text, "no draft") {
		t.Fatalf("a room error must not keep a draft: %q", text)
	}
	// A mention with a body moves into to.
	lin.say(t, map[string]any{"content": "@Lay look at this"})
	posts := h.logged("topic-at")
	if posts[0].Content != "look at this" || !reflect.DeepEqual(posts[0].To, []string{"Lay"}) {
		t.Fatalf("logged %+v", posts[0])
	}
}

func TestHistoryPagesTheCallersTopicOnly(t *testing.T) {
	t.Parallel()
	h := newRoom(t, "topic-h1", "topic-h2")
	var ids []string
	last := ""
	for i := 1; i <= 5; i++ {
		o, err := h.e.PostAsPerson("topic-h1", fmt.Sprintf("p%d", i), last)
		if err != nil || !o.Delivered {
			t.Fatal(err, o)
		}
		last = o.Post.MessageID
		ids = append(ids, last)
	}
	for _, c := range []string{"q1", "q2"} {
		if _, err := h.e.PostAsPerson("topic-h2", c, ""); err != nil {
			t.Fatal(err)
		}
	}
	one := h.join("Lin", "topic-h1")
	two := h.join("Lay", "topic-h2")

	text, isErr := one.call(t, sidecar.ToolHistory, map[string]any{"limit": 2})
	if isErr {
		t.Fatal(text)
	}
	assertPage(t, text, []string{"p4", "p5"}, true, ids[3])
	if !strings.Contains(text, "Not addressed to you") {
		t.Errorf("history must say it was not addressed to the caller:\n%s", text)
	}
	text, _ = one.call(t, sidecar.ToolHistory, map[string]any{"limit": 2, "before": ids[3]})
	assertPage(t, text, []string{"p2", "p3"}, true, ids[1])
	text, _ = one.call(t, sidecar.ToolHistory, map[string]any{"limit": 2, "before": ids[1]})
	assertPage(t, text, []string{"p1"}, false, "")

	text, _ = two.call(t, sidecar.ToolHistory, nil)
	assertPage(t, text, []string{"q1", "q2"}, false, "")
	if strings.Contains(text, "p1") {
		t.Fatalf("another topic's posts leaked into history:\n%s", text)
	}

	if text, isErr := one.call(t, sidecar.ToolHistory, map[string]any{"before": "no-such-id"}); !isErr || !strings.Contains(text, "unknown message") {
		t.Fatalf("unknown before: %v %q", isErr, text)
	}
	if text, isErr := one.call(t, sidecar.ToolHistory, map[string]any{"limit": 0}); !isErr || !strings.Contains(text, "between 1 and 200") {
		t.Fatalf("limit 0: %v %q", isErr, text)
	}
}

// assertPage checks a history answer holds exactly the bodies in order, and
// its has_more line.
func assertPage(t *testing.T, text string, bodies []string, more bool, oldest string) {
	t.Helper()
	var got []string
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "  ") {
			got = append(got, strings.TrimPrefix(line, "  "))
		}
	}
	if !reflect.DeepEqual(got, bodies) {
		t.Fatalf("page bodies %v, want %v:\n%s", got, bodies, text)
	}
	if more {
		if !strings.Contains(text, fmt.Sprintf("has_more: true (older posts exist; page back with before %q)", oldest)) {
			t.Fatalf("page should say has_more with before %s:\n%s", oldest, text)
		}
	} else if !strings.Contains(text, "has_more: false") {
		t.Fatalf("page should say has_more: false:\n%s", text)
	}
}

func TestHistoryDefaultsTo50AndCapsAt200(t *testing.T) {
	t.Parallel()
	h := newRoom(t, "topic-long")
	last := ""
	for i := 0; i < 205; i++ {
		o, err := h.e.PostAsPerson("topic-long", fmt.Sprintf("n%d", i), last)
		if err != nil {
			t.Fatal(err)
		}
		last = o.Post.MessageID
	}
	lin := h.join("Lin", "topic-long")
	text, _ := lin.call(t, sidecar.ToolHistory, nil)
	if !strings.HasPrefix(text, "50 posts") || !strings.Contains(text, "  n204\n") || strings.Contains(text, "  n154\n") {
		t.Fatalf("default page:\n%.300s", text)
	}
	text, _ = lin.call(t, sidecar.ToolHistory, map[string]any{"limit": 500})
	if !strings.HasPrefix(text, "200 posts") || !strings.Contains(text, "capped at 200") || !strings.Contains(text, "has_more: true") {
		t.Fatalf("capped page:\n%.300s", text)
	}
}

func TestPostsNeverCrossTopics(t *testing.T) {
	t.Parallel()
	h := newRoom(t, "topic-x", "topic-y")
	a := h.join("A", "topic-x", sidecar.EnvAccountID, "acc-a")
	b := h.join("B", "topic-x", sidecar.EnvAccountID, "acc-b")
	c := h.join("C", "topic-y", sidecar.EnvAccountID, "acc-c")

	ida := a.say(t, map[string]any{"content": "from A"})
	idb := b.say(t, map[string]any{"content": "from B", "last_seen": ida})
	idc := c.say(t, map[string]any{"content": "from C"})

	contents := func(topic string) []string {
		var out []string
		for _, p := range h.logged(topic) {
			out = append(out, p.Speaker+":"+p.Content)
		}
		return out
	}
	if got := contents("topic-x"); !reflect.DeepEqual(got, []string{"A:from A", "B:from B"}) {
		t.Fatalf("topic-x log %v", got)
	}
	if got := contents("topic-y"); !reflect.DeepEqual(got, []string{"C:from C"}) {
		t.Fatalf("topic-y log %v", got)
	}
	// Typed into terminals of the same topic only, never the speaker's.
	want := map[string][]string{ida: {"acc-b"}, idb: {"acc-a"}, idc: nil}
	for _, d := range h.typed.deliveries() {
		if w, ok := want[d.Post.MessageID]; ok && !reflect.DeepEqual(d.Accounts, w) {
			t.Errorf("%s (%s) typed into %v, want %v", d.Post.Content, d.Topic, d.Accounts, w)
		}
	}
	// C's post did not make A's next post stale: a different floor.
	a.say(t, map[string]any{"content": "A again", "last_seen": idb})
}

func TestUsageIsTheSeatsOwn(t *testing.T) {
	t.Parallel()
	h := newRoom(t, "topic-u")
	lin := h.join("Lin", "topic-u", sidecar.EnvAccountID, "acc-lin")
	anon := h.join("Anon", "topic-u")

	text, isErr := lin.call(t, sidecar.ToolUsage, nil)
	if isErr || text != sidecar.NoUsageYet+"\n\n— you: Lin" {
		t.Fatalf("before any figures: %v %q", isErr, text)
	}
	h.e.Usage().Record("topic-u", "acc-lin",
		wire.UsageReport{FiveHour: &wire.Window{UsedPercentage: 85, ResetsAt: "2026-10-10T10:05:00Z"}}, h.now)
	h.e.Usage().Record("topic-u", "acc-other", wire.UsageReport{FiveHour: &wire.Window{UsedPercentage: 1}, SevenDay: &wire.Window{UsedPercentage: 2}}, h.now)
	text, isErr = lin.call(t, sidecar.ToolUsage, nil)
	loc := time.Local
	want := fmt.Sprintf("5h: 85%% used, resets %s\n7d: not reported\nreceived %s (12 min ago)\n\n— you: Lin",
		wire.LocalMinute(time.Date(2026, 10, 10, 10, 5, 0, 0, time.UTC), loc), wire.LocalMinute(h.now, loc))
	if isErr || text != want {
		t.Fatalf("usage:\n got %q\nwant %q", text, want)
	}
	text, isErr = anon.call(t, sidecar.ToolUsage, nil)
	if !isErr || !strings.Contains(text, "no account") {
		t.Fatalf("a connection without an account: %v %q", isErr, text)
	}
}

func TestUnknownRoomGetsTheRoomsReason(t *testing.T) {
	t.Parallel()
	h := newRoom(t, "topic-open")
	st := h.sidecar(h.env("Lin", "topic-never-opened"), sidecar.Options{})
	st.waitConn(t, true)
	for _, tool := range []string{sidecar.ToolSay, sidecar.ToolHistory, sidecar.ToolUsage} {
		text, isErr := st.call(t, tool, map[string]any{"content": "hi"})
		if !isErr || !strings.Contains(text, "no room") {
			t.Errorf("%s: %v %q", tool, isErr, text)
		}
	}
}

func TestWrongTokenSaysNotConnected(t *testing.T) {
	t.Parallel()
	h := newRoom(t, "topic-tok")
	env := h.env("Lin", "topic-tok")
	env[sidecar.EnvRoomToken] = "wrong"
	st := h.sidecar(env, sidecar.Options{ConnectWait: 100 * time.Millisecond, ReconnectMin: time.Hour, ReconnectMax: time.Hour})
	text, isErr := st.call(t, sidecar.ToolSay, map[string]any{"content": "hi"})
	if !isErr || !strings.Contains(text, "not connected") || !strings.Contains(text, "refused the token") {
		t.Fatalf("got %v %q", isErr, text)
	}
}

func TestMissingConfigStillAnswersInitializeAndEveryToolNamesIt(t *testing.T) {
	t.Parallel()
	h := newRoom(t, "topic-m")
	env := h.env("Lin", "topic-m")
	delete(env, sidecar.EnvRoomToken)
	delete(env, sidecar.EnvRoomID)
	st := h.sidecar(env, sidecar.Options{})
	if !strings.Contains(st.init.Instructions, "You are Lin") {
		t.Fatalf("initialize did not carry the instructions: %q", st.init.Instructions)
	}
	for _, tool := range []string{sidecar.ToolSay, sidecar.ToolHistory, sidecar.ToolUsage} {
		text, isErr := st.call(t, tool, map[string]any{"content": "hi"})
		if !isErr || !strings.Contains(text, sidecar.EnvRoomToken) || !strings.Contains(text, sidecar.EnvRoomID) || strings.Contains(text, sidecar.EnvRoomURL) {
			t.Errorf("%s: %v %q", tool, isErr, text)
		}
	}
	if h.seated("topic-m", "Lin") {
		t.Fatal("a sidecar missing its room must not take a seat")
	}
}

func TestInstructionsOverMCP(t *testing.T) {
	t.Parallel()
	h := newRoom(t, "topic-i")
	plain := h.sidecar(h.env("Lin", "topic-i"), sidecar.Options{})
	if plain.init.Instructions != sidecar.Instructions("Lin", false) {
		t.Fatalf("instructions = %q", plain.init.Instructions)
	}
	unseen := h.sidecar(h.env("Lay", "topic-i", sidecar.EnvUnseenHistory, "1"), sidecar.Options{})
	if unseen.init.Instructions != sidecar.Instructions("Lay", true) {
		t.Fatalf("unseen instructions = %q", unseen.init.Instructions)
	}
	if plain.init.ServerInfo.Name != sidecar.ServerName {
		t.Fatalf("server name %q", plain.init.ServerInfo.Name)
	}
}

func TestToolsAndSchemas(t *testing.T) {
	t.Parallel()
	h := newRoom(t, "topic-t")
	st := h.sidecar(h.env("Lin", "topic-t"), sidecar.Options{})
	res, err := st.c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]mcp.Tool{}
	for _, tool := range res.Tools {
		got[tool.Name] = tool
	}
	if len(got) != 6 { // the room's three and the session operations' (sessionops_test.go)
		t.Fatalf("tools: %v", keysOf(got))
	}
	props := func(name string) map[string]any {
		tool, ok := got[name]
		if !ok {
			t.Fatalf("no tool %s", name)
		}
		return tool.InputSchema.Properties
	}
	if p := props(sidecar.ToolSay); len(p) != 3 || p["content"] == nil || p["to"] == nil || p["last_seen"] == nil {
		t.Fatalf("say_to_room properties %v", p)
	}
	if r := got[sidecar.ToolSay].InputSchema.Required; len(r) != 0 {
		t.Fatalf("say_to_room requires %v: content may be omitted to resend a draft", r)
	}
	if p := props(sidecar.ToolHistory); len(p) != 2 || p["limit"] == nil || p["before"] == nil {
		t.Fatalf("read_room_history properties %v", p)
	}
	if p := props(sidecar.ToolUsage); len(p) != 0 {
		t.Fatalf("my_usage properties %v", p)
	}
	to := props(sidecar.ToolSay)["to"].(map[string]any)
	if _, ok := to["anyOf"]; !ok {
		t.Fatalf("to accepts one name or a list: %v", to)
	}
	// The rules the spec moves into descriptions.
	desc := func(name, prop string) string {
		if prop == "" {
			return got[name].Description
		}
		return props(name)[prop].(map[string]any)["description"].(string)
	}
	for _, c := range []struct{ tool, prop, text string }{
		{sidecar.ToolSay, "", "the only way to reach the room and the other sessions in it"}, // spec 「返信ツールは say_to_room 1 本」
		{sidecar.ToolSay, "", "never another tool"},
		{sidecar.ToolSay, "", "message_id: <id>"},
		{sidecar.ToolSay, "", "never come back"},
		{sidecar.ToolSay, "", "not to send is legitimate"},
		{sidecar.ToolSay, "content", "draft"},
		{sidecar.ToolSay, "to", "list of names"},
		{sidecar.ToolSay, "to", "@Name"},
		{sidecar.ToolSay, "last_seen", "every call"},
		{sidecar.ToolSay, "last_seen", "not inattention"},
		{sidecar.ToolHistory, "", "oldest first"},
		{sidecar.ToolHistory, "", "Not addressed to you"},
		{sidecar.ToolHistory, "before", "page back"},
		{sidecar.ToolUsage, "", "5-hour and weekly"},
		{sidecar.ToolUsage, "", "handover"},
		{sidecar.ToolUsage, "", "Only your seat"},
	} {
		if d := desc(c.tool, c.prop); !strings.Contains(d, c.text) {
			t.Errorf("%s %s description lacks %q: %s", c.tool, c.prop, c.text, d)
		}
	}
}

func keysOf(m map[string]mcp.Tool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// proxy sits between a sidecar and the room socket so a test can cut the
// connection and refuse new ones.
type proxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	down   bool
	conns  []net.Conn
	wg     sync.WaitGroup
}

func newProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(func() { ln.Close(); p.cut(); p.wg.Wait() })
	return p
}

func (p *proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.down {
			p.mu.Unlock()
			c.Close()
			continue
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		p.wg.Add(2)
		go func() { defer p.wg.Done(); io.Copy(up, c); up.Close() }()
		go func() { defer p.wg.Done(); io.Copy(c, up); c.Close() }()
	}
}

// cut closes every open connection.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *proxy) setDown(down bool) {
	p.mu.Lock()
	p.down = down
	p.mu.Unlock()
}

func (p *proxy) url() string { return "ws://" + p.ln.Addr().String() + socket.Path }

func TestReconnectsAndSaysSoWhileDown(t *testing.T) {
	t.Parallel()
	h := newRoom(t, "topic-r")
	px := newProxy(t, h.srv.Addr())
	env := h.env("Lin", "topic-r", sidecar.EnvAgentHue, "30", sidecar.EnvAccountID, "acc-lin")
	env[sidecar.EnvRoomURL] = px.url()
	st := h.sidecar(env, sidecar.Options{ReconnectMin: 5 * time.Millisecond, ReconnectMax: 20 * time.Millisecond, ConnectWait: 50 * time.Millisecond})
	st.waitConn(t, true)
	h.until("Lin seated", func() bool { return h.seated("topic-r", "Lin") })
	first := st.say(t, map[string]any{"content": "before the drop"})

	px.setDown(true)
	px.cut()
	st.waitConn(t, false)
	h.until("Lin's seat released", func() bool { return !h.seated("topic-r", "Lin") })
	for _, tool := range []string{sidecar.ToolSay, sidecar.ToolHistory, sidecar.ToolUsage} {
		text, isErr := st.call(t, tool, map[string]any{"content": "while down"})
		if !isErr || !strings.Contains(text, "not connected to the room") {
			t.Fatalf("%s while down: %v %q", tool, isErr, text)
		}
	}

	px.setDown(false)
	st.waitConn(t, true)
	// The hello was sent again: the room seats Lin with the same declaration.
	h.until("Lin seated again", func() bool { return h.seated("topic-r", "Lin") })
	if p := h.participant("topic-r", "Lin"); p.Hue == nil || *p.Hue != 30 || p.Account != "acc-lin" {
		t.Fatalf("re-seated as %+v", p)
	}
	id := st.say(t, map[string]any{"content": "after the drop", "last_seen": first})
	posts := h.logged("topic-r")
	if len(posts) != 2 || posts[1].MessageID != id || posts[1].Content != "after the drop" {
		t.Fatalf("log %+v", posts)
	}
	for _, p := range posts {
		if p.Content == "while down" {
			t.Fatal("a post made while down reached the room")
		}
	}
}

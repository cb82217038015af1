package sidecar

// The room client against a scripted room: what goes on the wire (token,
// hello's keys) and how answers are matched, which the real room cannot be
// made to get wrong on purpose. The real room is in room_test.go.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"pullcept/room/wire"
)

// fakeRoom is a WebSocket server whose answers the test scripts.
type fakeRoom struct {
	srv    *httptest.Server
	auth   chan string         // Authorization header of each connection
	hellos chan map[string]any // raw hello frames
	// answer gets each frame after hello and the connection to answer on.
	answer func(c *websocket.Conn, frame map[string]any)
}

func newFakeRoom(t *testing.T, answer func(c *websocket.Conn, frame map[string]any)) *fakeRoom {
	t.Helper()
	f := &fakeRoom{auth: make(chan string, 8), hellos: make(chan map[string]any, 8), answer: answer}
	up := websocket.Upgrader{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.auth <- r.Header.Get("Authorization")
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		for {
			_, data, err := c.ReadMessage()
			if err != nil {
				return
			}
			var m map[string]any
			if json.Unmarshal(data, &m) != nil {
				continue
			}
			if m["type"] == wire.TypeHello {
				f.hellos <- m
				continue
			}
			if f.answer != nil {
				f.answer(c, m)
			}
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeRoom) url() string { return "ws" + strings.TrimPrefix(f.srv.URL, "http") + "/room" }

func baseEnv(url string) map[string]string {
	return map[string]string{EnvRoomURL: url, EnvRoomToken: "tok-123", EnvAgentName: "Lin", EnvRoomID: "topic-1"}
}

// startSidecar runs a sidecar with env and returns an initialized mcp-go
// client talking to it over a pipe.
func startSidecar(t *testing.T, env map[string]string, o Options) (*Sidecar, *client.Client) {
	t.Helper()
	o.Env = envOf(env)
	if o.Log == nil {
		o.Log = io.Discard
	}
	s := New(o)
	ctx, cancel := context.WithCancel(context.Background())
	s.Start(ctx)
	t.Cleanup(func() { cancel(); s.Close() })
	return s, pipeClient(t, s)
}

func call(t *testing.T, c *client.Client, tool string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
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

func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestHelloCarriesTokenAndOnlyDeclaredFields(t *testing.T) {
	t.Parallel()
	f := newFakeRoom(t, nil)
	startSidecar(t, baseEnv(f.url()), Options{})
	if got := recv(t, f.auth, "connection"); got != "Bearer tok-123" {
		t.Fatalf("Authorization = %q", got)
	}
	h := recv(t, f.hellos, "hello")
	if want := []string{"name", "protocol", "room", "type"}; !reflect.DeepEqual(keys(h), want) {
		t.Fatalf("hello keys %v, want %v (hue and account_id only when given)", keys(h), want)
	}
	if h["protocol"] != float64(wire.ProtocolVersion) || h["name"] != "Lin" || h["room"] != "topic-1" {
		t.Fatalf("hello = %v", h)
	}

	env := baseEnv(f.url())
	env[EnvAgentHue] = "145"
	env[EnvAccountID] = "acc-9"
	startSidecar(t, env, Options{})
	recv(t, f.auth, "second connection")
	h = recv(t, f.hellos, "second hello")
	if h["hue"] != float64(145) || h["account_id"] != "acc-9" {
		t.Fatalf("hello with hue and account = %v", h)
	}
}

// Answers are matched by id, never by arrival order: a decoy answer for
// another id arrives first and must not settle the call.
func TestAnswersAreCorrelatedByID(t *testing.T) {
	t.Parallel()
	f := newFakeRoom(t, func(c *websocket.Conn, m map[string]any) {
		switch m["type"] {
		case wire.TypePost:
			c.WriteJSON(wire.PostResult{Type: wire.TypePostResult, MessageID: "someone-else", Delivered: false, Missed: []wire.Post{{MessageID: "x", Speaker: "decoy", Content: "decoy"}}})
			c.WriteJSON(wire.PostResult{Type: wire.TypePostResult, MessageID: m["message_id"].(string), Delivered: true})
		case wire.TypeHistory:
			c.WriteJSON(wire.HistoryResult{Type: wire.TypeHistoryResult, RequestID: "not-this", Posts: []wire.Post{{MessageID: "d", Speaker: "decoy", Content: "decoy"}}})
			c.WriteJSON(wire.HistoryResult{Type: wire.TypeHistoryResult, RequestID: m["request_id"].(string), Posts: []wire.Post{{MessageID: "h1", Speaker: "you", Content: "the real page", TS: "2026-10-01T00:00:00Z"}}})
		case wire.TypeUsage:
			c.WriteJSON(wire.UsageResult{Type: wire.TypeUsageResult, RequestID: "not-this", Error: "decoy"})
			c.WriteJSON(wire.UsageResult{Type: wire.TypeUsageResult, RequestID: m["request_id"].(string)})
		}
	})
	_, c := startSidecar(t, baseEnv(f.url()), Options{})
	text, isErr := call(t, c, ToolSay, map[string]any{"content": "hi"})
	if isErr || !strings.HasPrefix(text, DeliveredPrefix) {
		t.Fatalf("say settled on the wrong answer: %v %q", isErr, text)
	}
	text, isErr = call(t, c, ToolHistory, nil)
	if isErr || !strings.Contains(text, "the real page") || strings.Contains(text, "decoy") {
		t.Fatalf("history settled on the wrong answer: %q", text)
	}
	text, isErr = call(t, c, ToolUsage, nil)
	if isErr || text != NoUsageYet+"\n\n— you: Lin" {
		t.Fatalf("usage settled on the wrong answer: %v %q", isErr, text)
	}
}

// A post whose connection drops before the answer is reported as
// unconfirmed, not as delivered nor as refused, and keeps no draft.
func TestDropWhileWaitingIsUnconfirmed(t *testing.T) {
	t.Parallel()
	f := newFakeRoom(t, func(c *websocket.Conn, m map[string]any) {
		if m["type"] == wire.TypePost {
			c.Close() // the room goes away mid-post
		}
	})
	_, c := startSidecar(t, baseEnv(f.url()), Options{})
	text, isErr := call(t, c, ToolSay, map[string]any{"content": "hi"})
	if !isErr || !strings.Contains(text, "Not confirmed") || !strings.Contains(text, "dropped") {
		t.Fatalf("got %v %q", isErr, text)
	}
	text, isErr = call(t, c, ToolSay, map[string]any{})
	if !isErr || !strings.Contains(text, "no draft") {
		t.Fatalf("an unconfirmed post must not become a draft: %q", text)
	}
}

func TestNoAnswerIsUnconfirmed(t *testing.T) {
	t.Parallel()
	f := newFakeRoom(t, func(*websocket.Conn, map[string]any) {}) // never answers
	_, c := startSidecar(t, baseEnv(f.url()), Options{AnswerTimeout: 50 * time.Millisecond})
	text, isErr := call(t, c, ToolSay, map[string]any{"content": "hi"})
	if !isErr || !strings.Contains(text, "Not confirmed") || !strings.Contains(text, "did not answer") {
		t.Fatalf("got %v %q", isErr, text)
	}
}

// A room that cannot be reached: the call says so instead of hanging.
func TestUnreachableRoomSaysNotConnected(t *testing.T) {
	t.Parallel()
	f := newFakeRoom(t, nil)
	url := f.url()
	f.srv.Close() // nothing listens there any more
	_, c := startSidecar(t, baseEnv(url), Options{ConnectWait: 50 * time.Millisecond})
	for _, tool := range []string{ToolSay, ToolHistory, ToolUsage} {
		text, isErr := call(t, c, tool, map[string]any{"content": "hi"})
		if !isErr || !strings.Contains(text, "not connected to the room") {
			t.Fatalf("%s: %v %q", tool, isErr, text)
		}
	}
}

// FuzzDispatch: whatever the room sends, the client neither panics nor
// settles a request that did not ask for that answer.
func FuzzDispatch(f *testing.F) {
	for _, s := range []string{
		`{"type":"post_result","message_id":"m1","delivered":true}`,
		`{"type":"history_result","request_id":"r1","posts":[{"message_id":"a","speaker":"x","content":"y","ts":"z"}],"has_more":true}`,
		`{"type":"usage_result","request_id":"r1","five_hour":{"used_percentage":3}}`,
		`{"type":"error","error":"bad","message_id":"m1"}`,
		`{"type":"error","error":"no room"}`,
		`{"type":"post","message_id":"m1"}`,
		`{"type":"mystery"}`, `[]`, `{`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := newRoomClient(Config{URL: "ws://x"}, slog.New(slog.DiscardHandler), time.Millisecond, time.Millisecond, time.Millisecond, time.Millisecond)
		mine := make(chan answer, 1)
		c.pending[postKey("mine")] = mine
		c.dispatch(data)
		select {
		case a := <-mine:
			if a.v == nil && a.err == nil {
				t.Fatal("settled with nothing")
			}
			if !strings.Contains(string(data), "mine") {
				t.Fatalf("settled a request by another id: %q", data)
			}
		default:
		}
	})
}

// frameLog records the type (and a post's content) of each frame a fake
// room reads after hello.
type frameLog struct {
	mu     sync.Mutex
	frames []string
}

func (l *frameLog) add(m map[string]any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f, _ := m["type"].(string)
	if c, ok := m["content"].(string); ok {
		f += ":" + c
	}
	l.frames = append(l.frames, f)
}

func (l *frameLog) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.frames)
}

// say_to_room is one round trip (issue 33 point 4): the post's answer
// carries the seat's usage, the block is built from it, and no usage
// request follows — delivered or refused by the floor, whose answer stays
// an error keeping the draft.
func TestSayIsOneRoundTrip(t *testing.T) {
	t.Parallel()
	var log frameLog
	usage := map[string]any{"five_hour": map[string]any{"used_percentage": 85, "resets_at": "2026-10-10T10:05:00Z", "received_at": "2026-10-10T09:00:00Z"}, "received_at": "2026-10-10T09:00:00Z"}
	f := newFakeRoom(t, func(c *websocket.Conn, m map[string]any) {
		log.add(m)
		switch m["type"] {
		case wire.TypePost:
			r := map[string]any{"type": wire.TypePostResult, "message_id": m["message_id"], "delivered": true, "usage": usage}
			if m["content"] == "late" && m["last_seen"] == nil {
				r["delivered"] = false
				r["missed"] = []wire.Post{{MessageID: "m0", Speaker: "Bob", Content: "already said", TS: "2026-10-10T09:30:00Z"}}
			}
			c.WriteJSON(r)
		case wire.TypeUsage: // answered as well: only the count may differ
			r := map[string]any{"type": wire.TypeUsageResult, "request_id": m["request_id"]}
			for k, v := range usage {
				r[k] = v
			}
			c.WriteJSON(r)
		}
	})
	_, c := startSidecar(t, baseEnv(f.url()), Options{})
	five := "\n  5h: 85% used, resets " + wire.LocalMinute(time.Date(2026, 10, 10, 10, 5, 0, 0, time.UTC), time.Local)

	text, isErr := call(t, c, ToolSay, map[string]any{"content": "hi"})
	if isErr || !strings.HasPrefix(text, DeliveredPrefix) || !strings.Contains(text, "\nyour usage, as last reported (not live):"+five) {
		t.Fatalf("delivered: %v %q", isErr, text)
	}
	if got := log.get(); !slices.Equal(got, []string{"post:hi"}) {
		t.Fatalf("frames for one say_to_room: %q, want the post alone", got)
	}

	text, isErr = call(t, c, ToolSay, map[string]any{"content": "late"})
	if !isErr || !strings.HasPrefix(text, "Not delivered: nothing was posted") || !strings.Contains(text, "already said") ||
		!strings.Contains(text, "Your text is kept as a draft") || !strings.Contains(text, "your usage, as last reported (not live):"+five) {
		t.Fatalf("refused: %v %q", isErr, text)
	}
	text, isErr = call(t, c, ToolSay, map[string]any{"last_seen": "m0"}) // the draft, as kept
	if isErr || !strings.HasPrefix(text, DeliveredPrefix) {
		t.Fatalf("the draft: %v %q", isErr, text)
	}
	if got := log.get(); !slices.Equal(got, []string{"post:hi", "post:late", "post:late"}) {
		t.Fatalf("frames for three say_to_room calls: %q, want three posts and nothing else", got)
	}
}

// The room could not read the usage in time: only the block says so; the
// post stays delivered and not an error.
func TestSayUsageUnreadIsOnlyInTheBlock(t *testing.T) {
	t.Parallel()
	f := newFakeRoom(t, func(c *websocket.Conn, m map[string]any) {
		if m["type"] == wire.TypePost {
			c.WriteJSON(wire.PostResult{Type: wire.TypePostResult, MessageID: m["message_id"].(string), Delivered: true, Usage: &wire.UsageResult{Error: "the room could not read it within 1.5s"}})
		}
	})
	_, c := startSidecar(t, baseEnv(f.url()), Options{})
	text, isErr := call(t, c, ToolSay, map[string]any{"content": "hi"})
	if isErr || !strings.HasPrefix(text, DeliveredPrefix) || !strings.HasSuffix(text, "\nyour usage: unknown (the room could not read it within 1.5s)") {
		t.Fatalf("say: %v %q", isErr, text)
	}
}

// A call that sends no post (here: no content and no draft) still ends
// with the block, asking for the usage itself; a room that never answers
// that request costs it at most wire.UsageWait more.
func TestSayWithoutAPostAsksForUsageBounded(t *testing.T) {
	old := wire.UsageWait
	wire.UsageWait = 200 * time.Millisecond
	t.Cleanup(func() { wire.UsageWait = old })
	f := newFakeRoom(t, func(*websocket.Conn, map[string]any) {}) // usage: no answer
	_, c := startSidecar(t, baseEnv(f.url()), Options{})
	start := time.Now()
	text, isErr := call(t, c, ToolSay, map[string]any{})
	took := time.Since(start)
	if !isErr || !strings.Contains(text, "no draft") || !strings.Contains(text, "your usage: unknown (could not read it:") {
		t.Fatalf("say: %v %q", isErr, text)
	}
	if took < wire.UsageWait {
		t.Fatalf("answered in %v: the usage request was not waited for", took)
	}
}

// Sidecar and room of different protocols (a stale registration): the
// room refuses the hello with its reason (room/socket), and say_to_room's
// answer says it, after one frame; the block says the usage is unknown.
func TestSayAgainstARoomOfAnotherProtocol(t *testing.T) {
	t.Parallel()
	var log frameLog
	old := wire.ProtocolVersion - 1
	url, _ := roomServer(t, 0, func(c *websocket.Conn) {
		var h map[string]any
		if c.ReadJSON(&h) != nil {
			return
		}
		// What the room of the previous protocol answers.
		c.WriteJSON(wire.ErrorFrame{Type: wire.TypeError, Error: fmt.Sprintf("protocol %v is not spoken here: this room speaks %d (restart the CLI so it launches this pullcept's sidecar)", h["protocol"], old)})
		for {
			var m map[string]any
			if c.ReadJSON(&m) != nil {
				return
			}
			log.add(m)
			if m["type"] == wire.TypePost {
				c.WriteJSON(map[string]any{"type": wire.TypePostResult, "message_id": m["message_id"], "delivered": false, "error": "no room: send hello with a room first"})
			}
		}
	})
	_, c := startSidecar(t, baseEnv(url), Options{})
	text, isErr := call(t, c, ToolSay, map[string]any{"content": "hi"})
	want := fmt.Sprintf("protocol %d is not spoken here: this room speaks %d", wire.ProtocolVersion, old)
	if !isErr || !strings.HasPrefix(text, "Not delivered: no room") || !strings.Contains(text, want) || !strings.Contains(text, "\nyour usage: unknown (") {
		t.Fatalf("say: %v %q, want the room's reason %q", isErr, text, want)
	}
	if got := log.get(); !slices.Equal(got, []string{"post:hi"}) {
		t.Fatalf("frames: %q, want the post alone", got)
	}
}

// roomServer serves each WebSocket with handle, after recording the
// request's header; a non-zero refuse status answers without upgrading.
func roomServer(t *testing.T, refuse int, handle func(c *websocket.Conn)) (url string, headers <-chan http.Header) {
	t.Helper()
	hs := make(chan http.Header, 8)
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case hs <- r.Header:
		default: // a client reconnecting in a loop must not block the server's Close
		}
		if refuse != 0 {
			http.Error(w, "no", refuse)
			return
		}
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		handle(c)
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http") + "/room", hs
}

func testClient(url string) *roomClient {
	return newRoomClient(Config{URL: url, Token: "tok-1", Name: "Lin", FullName: "Lin", Room: "topic-1"}, slog.New(slog.DiscardHandler), time.Millisecond, time.Second, time.Second, time.Second)
}

// runClient runs c until the test ends.
func runClient(t *testing.T, c *roomClient) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); c.run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

// A refused handshake says which refusal: the token (401) or anything
// else, with the room's address.
func TestRefusalTexts(t *testing.T) {
	t.Parallel()
	for code, want := range map[int]string{
		http.StatusUnauthorized: "the room refused the token (401 Unauthorized)",
		http.StatusForbidden:    ": 403 Forbidden",
	} {
		url, _ := roomServer(t, code, nil)
		_, err := testClient(url).dial(context.Background())
		if code == http.StatusForbidden {
			want = url + want
		}
		if err == nil || err.Error() != want {
			t.Fatalf("refused with %d: %v, want %q", code, err, want)
		}
	}
}

// The handshake carries the token and the capability; hello is the first
// frame.
func TestHandshakeThenHello(t *testing.T) {
	t.Parallel()
	first := make(chan string, 1)
	url, headers := roomServer(t, 0, func(c *websocket.Conn) {
		_, data, _ := c.ReadMessage()
		first <- string(data)
		c.ReadMessage()
	})
	c := testClient(url)
	c.capability = "cap-9"
	conn, err := c.dial(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	h := <-headers
	if h.Get("Authorization") != "Bearer tok-1" || h.Get(CapabilityHeader) != "cap-9" {
		t.Fatalf("handshake header %v", h)
	}
	if got := <-first; got != `{"type":"hello","protocol":`+strconv.Itoa(wire.ProtocolVersion)+`,"name":"Lin","room":"topic-1"}` {
		t.Fatalf("first frame %s", got)
	}
}

// The client pings the room every ping interval.
func TestPingsTheRoom(t *testing.T) {
	t.Parallel()
	pings := make(chan struct{}, 16)
	url, _ := roomServer(t, 0, func(c *websocket.Conn) {
		c.SetPingHandler(func(string) error {
			select {
			case pings <- struct{}{}:
			default:
			}
			return nil
		})
		for {
			if _, _, err := c.ReadMessage(); err != nil {
				return
			}
		}
	})
	c := testClient(url)
	c.ping = 10 * time.Millisecond
	runClient(t, c)
	for i := range 3 {
		recv(t, pings, fmt.Sprintf("ping %d", i+1))
	}
}

// A frame from the room far over the WebSocket library's default read
// limit (a long history page) is read.
func TestLargeFrameFromTheRoom(t *testing.T) {
	t.Parallel()
	name := strings.Repeat("n", 3<<20)
	url, _ := roomServer(t, 0, func(c *websocket.Conn) {
		c.ReadMessage() // hello
		c.WriteJSON(wire.Identity{Type: wire.TypeIdentity, Name: name})
		c.ReadMessage()
	})
	c := testClient(url)
	ids := make(chan wire.Identity, 1)
	c.onIdentity = func(id wire.Identity) { ids <- id }
	runClient(t, c)
	if got := recv(t, ids, "the identity frame"); got.Name != name {
		t.Fatalf("identity of %d bytes, want %d", len(got.Name), len(name))
	}
}

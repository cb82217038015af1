package socket

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"pullcept/room"
	"pullcept/room/wire"
	"pullcept/topicstore"
)

type env struct {
	e     *room.Engine
	store *topicstore.Store
	srv   *Server
	dir   string
	topic string
}

func newEnv(t testing.TB) *env {
	t.Helper()
	return newEnvWith(t, defaultLimits, nil)
}

// newEnvWith is newEnv with the socket's limits and log given.
func newEnvWith(t testing.TB, lim limits, log *slog.Logger) *env {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "logs", "main")
	store, err := topicstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := room.New(room.Config{Log: store, PersonName: "Master"})
	topic := topicstore.NewID()
	if _, err := e.Open(topic); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(e, "tok-"+t.Name(), log, ln, lim)
	t.Cleanup(func() { srv.Close() })
	return &env{e: e, store: store, srv: srv, dir: dir, topic: topic}
}

func (v *env) dial(t testing.TB, token string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	h := http.Header{}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	c, resp, err := websocket.DefaultDialer.Dial(v.srv.URL(), h)
	if c != nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, resp, err
}

// hello dials with the right token and says hello (the answer unread).
func (v *env) hello(t testing.TB, name, topic string) *websocket.Conn {
	t.Helper()
	c, _, err := v.dial(t, v.srv.Token())
	if err != nil {
		t.Fatal(err)
	}
	send(t, c, wire.Hello{Type: wire.TypeHello, Protocol: wire.ProtocolVersion, Name: name, Room: topic})
	return c
}

// join is hello seated.
func (v *env) join(t testing.TB, name, topic string) *websocket.Conn {
	t.Helper()
	c := v.hello(t, name, topic)
	// A seated hello is answered by the identity it was seated under.
	if typ, f := recv(t, c); typ != wire.TypeIdentity || f.(*wire.Identity).Name != name {
		t.Fatalf("after hello as %q: %s %+v, want its identity", name, typ, f)
	}
	c.SetReadDeadline(time.Time{}) // recv's bound is for that one frame
	return c
}

// joinSeat is join on a connection that shows a launch's capability
// (a seat's sidecar; the server needs operations that know it).
func (v *env) joinSeat(t testing.TB, name, capability string) *websocket.Conn {
	t.Helper()
	h := http.Header{"Authorization": {"Bearer " + v.srv.Token()}, CapabilityHeader: {capability}}
	c, _, err := websocket.DefaultDialer.Dial(v.srv.URL(), h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	send(t, c, wire.Hello{Type: wire.TypeHello, Protocol: wire.ProtocolVersion, Name: name, Room: v.topic})
	if typ, f := recv(t, c); typ != wire.TypeIdentity || f.(*wire.Identity).Name != name {
		t.Fatalf("after hello as %q: %s %+v, want its identity", name, typ, f)
	}
	c.SetReadDeadline(time.Time{})
	return c
}

func send(t testing.TB, c *websocket.Conn, v any) {
	t.Helper()
	if err := c.WriteJSON(v); err != nil {
		t.Fatal(err)
	}
}

func recv(t testing.TB, c *websocket.Conn) (string, any) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, data, err := c.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	typ, v, err := wire.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return typ, v
}

func TestTokenRequiredBeforeAnyFrame(t *testing.T) {
	t.Parallel()
	v := newEnv(t)
	for _, tok := range []string{"", "wrong", v.srv.Token() + "x"} {
		_, resp, err := v.dial(t, tok)
		if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("token %q: err=%v resp=%v", tok, err, resp)
		}
	}
	v.srv.SetHooks(&fakeHooks{secrets: map[string]string{v.topic + "/acc": "s1"}})
	req, _ := http.NewRequest("POST", "http://"+v.srv.Addr()+"/hooks/status/"+v.topic+"/acc", strings.NewReader("{}"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("hook without its secret: %v %v", resp, err)
	}
}

// fakeHooks accepts a hook call with the secret of its seat ("topic/acc")
// and records the activity events; a body that is not JSON is an error.
type fakeHooks struct {
	mu      sync.Mutex
	secrets map[string]string
	events  []string
}

func (f *fakeHooks) CheckHook(topic, account, secret string) error {
	want, ok := f.secrets[topic+"/"+account]
	switch {
	case !ok:
		return errors.New("no such seat")
	case secret != want:
		return errors.New("not this seat's secret")
	}
	return nil
}

func (f *fakeHooks) Activity(_ context.Context, topic, account, event string, body []byte) error {
	if !json.Valid(body) {
		return errors.New("not JSON")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events = append(f.events, topic+"/"+account+"/"+event)
	return nil
}

func TestPostRoundTripAndFloor(t *testing.T) {
	t.Parallel()
	v := newEnv(t)
	sub := v.e.Subscribe()
	defer sub.Close()
	lin, lay := v.join(t, "Lin", v.topic), v.join(t, "Lay", v.topic)
	waitRoster(t, sub, 3)
	send(t, lin, wire.PostFrame{Type: wire.TypePost, MessageID: "m1", Content: "@Lay one", TS: "ignored"})
	_, r := recv(t, lin)
	if pr := r.(*wire.PostResult); !pr.Delivered || pr.MessageID != "m1" {
		t.Fatalf("%+v", pr)
	}
	send(t, lay, wire.PostFrame{Type: wire.TypePost, MessageID: "m2", Content: "two"})
	_, r = recv(t, lay)
	pr := r.(*wire.PostResult)
	if pr.Delivered || len(pr.Missed) != 1 || pr.Missed[0].Speaker != "Lin" || pr.Missed[0].To[0] != "Lay" || pr.Missed[0].Content != "one" {
		t.Fatalf("floor: %+v", pr)
	}
	send(t, lay, wire.PostFrame{Type: wire.TypePost, MessageID: "m3", Content: "@Lin", LastSeen: "m1"})
	_, r = recv(t, lay)
	if pr := r.(*wire.PostResult); pr.Error != room.ErrOnlyMentionsText {
		t.Fatalf("only mentions: %+v", pr)
	}
	posts, _, _ := v.store.ReadAll(v.topic)
	if len(posts) != 1 || posts[0].Speaker != "Lin" {
		t.Fatalf("log = %+v", posts)
	}
}

func waitRoster(t *testing.T, sub *room.Subscription, n int) {
	t.Helper()
	for {
		select {
		case ev := <-sub.C:
			if ev.Kind == room.EventRoster && len(ev.Participants) == n {
				return
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("roster never reached %d", n)
		}
	}
}

func TestBadFramesKeepTheConnection(t *testing.T) {
	t.Parallel()
	v := newEnv(t)
	c := v.join(t, "Lin", v.topic)
	big := wire.PostFrame{Type: wire.TypePost, Content: strings.Repeat("x", wire.MaxFrameBytes)}
	for _, frame := range []any{"{not json", big, map[string]any{"type": "post_result"}} {
		if s, ok := frame.(string); ok {
			c.WriteMessage(websocket.TextMessage, []byte(s))
		} else {
			send(t, c, frame)
		}
		typ, e := recv(t, c)
		if typ != wire.TypeError || e.(*wire.ErrorFrame).Error == "" {
			t.Fatalf("want an error frame, got %s %+v", typ, e)
		}
	}
	c.WriteMessage(websocket.BinaryMessage, []byte{1, 2})
	if typ, _ := recv(t, c); typ != wire.TypeError {
		t.Fatal("binary frame not refused")
	}
	send(t, c, map[string]any{"type": "from_the_future"}) // ignored, no answer
	send(t, c, wire.PostFrame{Type: wire.TypePost, MessageID: "ok", Content: "still here"})
	_, r := recv(t, c)
	if pr := r.(*wire.PostResult); !pr.Delivered || pr.MessageID != "ok" {
		t.Fatalf("connection not kept: %+v", pr)
	}
}

func TestNoRoomGetsErrorsNotJudgements(t *testing.T) {
	t.Parallel()
	v := newEnv(t)
	for _, room := range []string{"", "no-such-topic"} {
		c := v.hello(t, "x", room)
		if typ, _ := recv(t, c); typ != wire.TypeError {
			t.Fatalf("hello to %q: want error frame", room)
		}
		send(t, c, wire.PostFrame{Type: wire.TypePost, MessageID: "p", Content: "hi"})
		_, r := recv(t, c)
		if pr := r.(*wire.PostResult); pr.Delivered || pr.Error == "" || pr.Usage == nil || pr.Usage.Error == "" {
			t.Fatalf("post: %+v", pr)
		}
		send(t, c, wire.HistoryFrame{Type: wire.TypeHistory, RequestID: "h"})
		_, r = recv(t, c)
		if hr := r.(*wire.HistoryResult); hr.Error == "" || hr.RequestID != "h" {
			t.Fatalf("history: %+v", hr)
		}
		send(t, c, wire.UsageFrame{Type: wire.TypeUsage, RequestID: "u"})
		_, r = recv(t, c)
		if ur := r.(*wire.UsageResult); ur.Error == "" || ur.RequestID != "u" {
			t.Fatalf("usage: %+v", ur)
		}
	}
}

func TestHelloWithAnotherProtocolIsRefused(t *testing.T) {
	t.Parallel()
	v := newEnv(t)
	c, _, err := v.dial(t, v.srv.Token())
	if err != nil {
		t.Fatal(err)
	}
	// The sidecar of the previous protocol (11: its say_to_room still asks
	// for usage after the post) is told which one this room speaks.
	old := wire.ProtocolVersion - 1
	send(t, c, wire.Hello{Type: wire.TypeHello, Protocol: old, Name: "old", Room: v.topic})
	typ, e := recv(t, c)
	if want := fmt.Sprintf("protocol %d is not spoken here: this room speaks %d", old, wire.ProtocolVersion); typ != wire.TypeError || !strings.Contains(e.(*wire.ErrorFrame).Error, want) {
		t.Fatalf("%s %+v, want %q", typ, e, want)
	}
	send(t, c, wire.PostFrame{Type: wire.TypePost, MessageID: "p", Content: "hi"})
	if _, r := recv(t, c); r.(*wire.PostResult).Error == "" {
		t.Fatal("an unseated connection's post must get an error")
	}
}

func TestHistoryPagesOwnTopic(t *testing.T) {
	t.Parallel()
	v := newEnv(t)
	other := topicstore.NewID()
	v.e.Open(other)
	v.e.PostAsPerson(other, "elsewhere", "")
	c := v.join(t, "Lin", v.topic)
	last := ""
	for i := range 5 {
		id := fmt.Sprintf("m%d", i)
		send(t, c, wire.PostFrame{Type: wire.TypePost, MessageID: id, Content: fmt.Sprint("post ", i), LastSeen: last})
		if _, r := recv(t, c); !r.(*wire.PostResult).Delivered {
			t.Fatal("refused")
		}
		last = id
	}
	send(t, c, wire.HistoryFrame{Type: wire.TypeHistory, RequestID: "h1", Limit: 2})
	_, r := recv(t, c)
	hr := r.(*wire.HistoryResult)
	if len(hr.Posts) != 2 || hr.Posts[0].Content != "post 3" || !hr.HasMore {
		t.Fatalf("page 1: %+v", hr)
	}
	send(t, c, wire.HistoryFrame{Type: wire.TypeHistory, RequestID: "h2", Limit: 10, Before: hr.Posts[0].MessageID})
	_, r = recv(t, c)
	hr = r.(*wire.HistoryResult)
	if len(hr.Posts) != 3 || hr.Posts[0].Content != "post 0" || hr.HasMore {
		t.Fatalf("page 2: %+v", hr)
	}
}

func TestHooks(t *testing.T) {
	t.Parallel()
	v := newEnv(t)
	hooks := &fakeHooks{secrets: map[string]string{v.topic + "/acc": "secret-a", v.topic + "/other": "secret-b"}}
	v.srv.SetHooks(hooks)
	sub := v.e.Subscribe()
	defer sub.Close()
	post := func(path, secret, body string) (int, string) {
		req, _ := http.NewRequest("POST", "http://"+v.srv.Addr()+path, strings.NewReader(body))
		if secret != "" {
			req.Header.Set("Authorization", "Bearer "+secret)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var buf bytes.Buffer
		buf.ReadFrom(resp.Body)
		return resp.StatusCode, buf.String()
	}
	status := `{"model":{"id":"x"},"rate_limits":{"five_hour":{"used_percentage":85,"resets_at":1760000000},"seven_day":{"used_percentage":12.5,"resets_at":"2026-10-12T00:00:00Z"}}}`
	if code, body := post("/hooks/status/"+v.topic+"/acc", "secret-a", status); code != 200 || body != "{}" {
		t.Fatalf("status hook: %d %q", code, body)
	}
	u, ok := v.e.Usage().Get(v.topic, "acc")
	if !ok || u.FiveHour.UsedPercentage != 85 || u.FiveHour.ResetsAt != "2025-10-09T08:53:20Z" || u.SevenDay.ResetsAt != "2026-10-12T00:00:00Z" {
		t.Fatalf("usage = %+v %+v", u.FiveHour, u.SevenDay)
	}
	if code, _ := post("/hooks/activity/PreToolUse/"+v.topic+"/acc", "secret-a", `{}`); code != 200 {
		t.Fatal(code)
	}
	hooks.mu.Lock()
	if len(hooks.events) != 1 || hooks.events[0] != v.topic+"/acc/PreToolUse" {
		t.Fatalf("activity reached the seats as %q", hooks.events)
	}
	hooks.mu.Unlock()
	// Refused: each changes nothing.
	big := `{"x":"` + strings.Repeat("a", maxHookBody) + `"}`
	for _, tc := range []struct {
		name, path, secret, body string
		code                     int
	}{
		{"the room token alone", "/hooks/activity/Stop/" + v.topic + "/acc", v.srv.Token(), `{}`, 403},
		{"another seat's secret", "/hooks/activity/Stop/" + v.topic + "/acc", "secret-b", `{}`, 403},
		{"no secret", "/hooks/status/" + v.topic + "/acc", "", status, 403},
		{"an unknown seat", "/hooks/activity/Stop/" + v.topic + "/nobody", "secret-a", `{}`, 403},
		{"a body that is not JSON", "/hooks/activity/Stop/" + v.topic + "/acc", "secret-a", `{not json`, 400},
		{"an oversized body", "/hooks/activity/Stop/" + v.topic + "/acc", "secret-a", big, 413},
		{"an unknown hook", "/hooks/limited/x/y", "secret-a", `{}`, 404},
		{"a path with too many parts", "/hooks/activity/Stop/" + v.topic + "/acc/x", "secret-a", `{}`, 404},
	} {
		if code, _ := post(tc.path, tc.secret, tc.body); code != tc.code {
			t.Errorf("%s: %d, want %d", tc.name, code, tc.code)
		}
	}
	hooks.mu.Lock()
	defer hooks.mu.Unlock()
	if len(hooks.events) != 1 {
		t.Errorf("refused calls reached the seats: %q", hooks.events)
	}
	if u2, _ := v.e.Usage().Get(v.topic, "acc"); u2 != u {
		t.Errorf("a refused status call changed the usage: %+v", u2)
	}
}

// TestConcurrentPostersKeepTheFloor runs 16 connections posting with honest
// last_seen values: no accepted post missed another's post, and the file
// order is the accept order.
func TestConcurrentPostersKeepTheFloor(t *testing.T) {
	t.Parallel()
	v := newEnv(t)
	sub := v.e.Subscribe()
	defer sub.Close()
	const conns, perConn = 16, 150
	type accepted struct {
		id, lastSeen string
		conn         int
	}
	var mu sync.Mutex
	var order []string // accept order as seen by the room's events
	done := make(chan struct{})
	startCollect := func() {
		defer close(done)
		for ev := range sub.C {
			if ev.Kind == room.EventPost {
				mu.Lock()
				order = append(order, ev.Post.MessageID)
				n := len(order)
				mu.Unlock()
				if n == conns*perConn {
					return
				}
			}
		}
	}
	results := make([][]accepted, conns)
	cs := make([]*websocket.Conn, conns)
	for i := range conns {
		cs[i] = v.join(t, fmt.Sprintf("agent-%d", i), v.topic)
	}
	waitRoster(t, sub, conns+1) // every seat taken before anyone speaks
	go startCollect()
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			seen := "" // the newest post this agent has really seen
			for n := 0; n < perConn; {
				id := fmt.Sprintf("c%d-%d", i, n)
				if err := c.WriteJSON(wire.PostFrame{Type: wire.TypePost, MessageID: id, Content: id, LastSeen: seen}); err != nil {
					t.Error(err)
					return
				}
				_, data, err := c.ReadMessage()
				if err != nil {
					t.Error(err)
					return
				}
				var pr wire.PostResult
				json.Unmarshal(data, &pr)
				if pr.Delivered {
					results[i] = append(results[i], accepted{id: id, lastSeen: seen, conn: i})
					seen = id
					n++
				} else if len(pr.Missed) > 0 {
					seen = pr.Missed[len(pr.Missed)-1].MessageID
				} else {
					t.Errorf("neither delivered nor missed: %+v", pr)
					return
				}
			}
		}()
	}
	wg.Wait()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("not every post reached the subscriber")
	}
	posts, skipped, err := v.store.ReadAll(v.topic)
	if err != nil || skipped != 0 || len(posts) != conns*perConn {
		t.Fatalf("log: %d posts, %d skipped, %v", len(posts), skipped, err)
	}
	pos := map[string]int{}
	for i, p := range posts {
		if p.MessageID != order[i] {
			t.Fatalf("file order differs from accept order at %d: %s vs %s", i, p.MessageID, order[i])
		}
		pos[p.MessageID] = i
	}
	for _, rs := range results {
		for _, a := range rs {
			from := -1
			if a.lastSeen != "" {
				from = pos[a.lastSeen]
			}
			// every post between what the sender saw and its own post must be its own
			for k := from + 1; k < pos[a.id]; k++ {
				if !strings.HasPrefix(posts[k].MessageID, fmt.Sprintf("c%d-", a.conn)) {
					t.Fatalf("%s was accepted having missed %s", a.id, posts[k].MessageID)
				}
			}
		}
	}
}

func TestServerCloseEndsConnections(t *testing.T) {
	t.Parallel()
	v := newEnv(t)
	c := v.join(t, "Lin", v.topic)
	v.srv.Close()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, _, err := c.ReadMessage(); err == nil {
		t.Fatal("connection survived Close")
	}
	_ = os.Getpid
}

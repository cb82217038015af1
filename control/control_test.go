package control

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"pullcept/app"
	"pullcept/dirs"
	"pullcept/room/wire"
	"pullcept/seat"
)

type harness struct {
	in    *io.PipeWriter
	lines chan map[string]any
	app   *app.App
	dir   string // the topic logs
	done  chan error
}

func start(t *testing.T) (*harness, map[string]any) {
	t.Helper()
	return startWith(t, nil)
}

// startWith is start with the app's options changed by opt (nil: none).
func startWith(t *testing.T, opt func(*app.Options)) (*harness, map[string]any) {
	t.Helper()
	home := t.TempDir()
	d, err := dirs.Resolve(func(k string) string { return map[string]string{"PULLCEPT_HOME": home}[k] })
	if err != nil {
		t.Fatal(err)
	}
	o := app.Options{Dirs: d, PersonName: "Master", Accounts: []seat.Account{}, ExePath: "/bin/false"}
	if opt != nil {
		opt(&o)
	}
	a, err := app.Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := &harness{in: inW, lines: make(chan map[string]any, 100), app: a, dir: d.Logs(), done: make(chan error, 1)}
	srv := &Server{App: a}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { h.done <- srv.Serve(ctx, inR, outW); outW.Close() }()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("output is not JSON: %q", sc.Text())
			}
			h.lines <- m
		}
		close(h.lines)
	}()
	t.Cleanup(func() { inW.Close(); cancel() })
	ready := h.next(t)
	if ready["event"] != "ready" || ready["token"] != a.Token() || ready["url"] != a.URL() || ready["topic"] == "" {
		t.Fatalf("first line = %v", ready)
	}
	return h, ready
}

func (h *harness) next(t *testing.T) map[string]any {
	t.Helper()
	select {
	case m := <-h.lines:
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no output line")
		return nil
	}
}

// answer reads lines until one is not a run's event (post, roster, seat,
// activity, usage, resync, delivery): a command's answer.
func (h *harness) answer(t *testing.T) map[string]any {
	t.Helper()
	for {
		switch m := h.next(t); m["event"] {
		case "post", "roster", "seat", "activity", "usage", "resync", "delivery":
		default:
			return m
		}
	}
}

// both reads lines until one of each named event has come, in any order.
func (h *harness) both(t *testing.T, names ...string) map[string]map[string]any {
	t.Helper()
	got := map[string]map[string]any{}
	for len(got) < len(names) {
		m := h.next(t)
		for _, n := range names {
			if m["event"] == n && got[n] == nil {
				got[n] = m
			}
		}
	}
	return got
}

// until reads lines until one has event == name.
func (h *harness) until(t *testing.T, name string) map[string]any {
	t.Helper()
	for {
		if m := h.next(t); m["event"] == name {
			return m
		}
	}
}

// seatBot starts the account bot's seat in topic and seats a sidecar for
// it (closed with the test), once the roster shows it.
func (h *harness) seatBot(t *testing.T, topic string) *websocket.Conn {
	t.Helper()
	h.send(t, `{"cmd":"start","topic":"`+topic+`","account":"bot"}`)
	if m := h.until(t, "start"); m["result"] == nil {
		t.Fatalf("start: %v", m)
	}
	ws, _, err := websocket.DefaultDialer.Dial(h.app.URL(), http.Header{"Authorization": {"Bearer " + h.app.Token()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	if err := ws.WriteJSON(wire.Hello{Type: wire.TypeHello, Protocol: wire.ProtocolVersion, Name: "Bot", Room: topic, AccountID: "bot"}); err != nil {
		t.Fatal(err)
	}
	for m := h.until(t, "roster"); len(m["participants"].([]any)) < 2; m = h.until(t, "roster") {
	}
	return ws
}

func (h *harness) send(t *testing.T, s string) {
	t.Helper()
	if _, err := io.WriteString(h.in, s+"\n"); err != nil {
		t.Fatal(err)
	}
}

func TestServeLifecycle(t *testing.T) {
	h, ready := start(t)
	cur := ready["topic"].(string)
	if ts, _ := h.app.Topics(); len(ts) != 0 {
		t.Fatal("the start topic must not be in the index before something is said")
	}
	h.send(t, `{"cmd":"topics","id":1}`)
	if m := h.until(t, "topics"); m["id"] != 1.0 || len(m["topics"].([]any)) != 0 {
		t.Fatalf("%v", m)
	}
	h.send(t, `{"cmd":"post","topic":"`+cur+`","content":"First words here\nsecond line"}`)
	// The answer and the event travel on two paths: either comes first.
	got := h.both(t, "post", "post_result")
	if post := got["post"]; post["topic"] != cur || post["role"] != "admin" || post["post"].(map[string]any)["speaker"] != "Master" {
		t.Fatalf("post event = %v", post)
	}
	if m := got["post_result"]; m["delivered"] != true || m["message_id"] == "" {
		t.Fatalf("%v", m)
	}
	h.send(t, `{"cmd":"topics"}`)
	ts := h.until(t, "topics")["topics"].([]any)
	if len(ts) != 1 || ts[0].(map[string]any)["name"] != "First words here" {
		t.Fatalf("topics = %v", ts)
	}
	h.send(t, `{"cmd":"rename","topic":"`+cur+`","name":"Renamed"}`)
	h.until(t, "renamed")
	h.send(t, `{"cmd":"new"}`)
	second := h.until(t, "new")["topic"].(string)
	h.send(t, `{"cmd":"open","topic":"`+cur+`"}`)
	opened := h.until(t, "opened")
	if posts := opened["posts"].([]any); len(posts) != 1 {
		t.Fatalf("opened = %v", opened)
	}
	h.send(t, `{"cmd":"delete","topic":"`+cur+`"}`)
	del := h.until(t, "deleted")
	if del["current"] == cur || del["current"] == "" {
		t.Fatalf("deleting the open topic must move to a new one: %v", del)
	}
	if _, err := os.Stat(filepath.Join(h.dir, cur+".jsonl")); !os.IsNotExist(err) {
		t.Fatal("topic file still there")
	}
	h.send(t, `{"cmd":"post","topic":"`+cur+`","content":"to a deleted topic"}`)
	if m := h.until(t, "error"); !strings.Contains(m["error"].(string), "unknown topic") {
		t.Fatalf("%v", m)
	}
	_ = second
}

func TestServeBadInputKeepsRunning(t *testing.T) {
	h, ready := start(t)
	cur := ready["topic"].(string)
	for _, bad := range []string{`{nope`, `{"cmd":"fly"}`, `{}`, `{"cmd":"open","topic":"../../etc"}`, `{"cmd":"post","topic":"` + cur + `","content":""}`} {
		h.send(t, bad)
		if m := h.answer(t); m["event"] != "error" || m["error"] == "" {
			t.Fatalf("%s -> %v", bad, m)
		}
	}
	h.send(t, strings.Repeat("x", MaxLine+10))
	if m := h.answer(t); m["event"] != "error" || !strings.Contains(m["error"].(string), "longer than") {
		t.Fatalf("long line -> %v", m)
	}
	h.send(t, `{"cmd":"post","topic":"`+cur+`","content":"still alive"}`)
	if m := h.until(t, "post_result"); m["delivered"] != true {
		t.Fatalf("%v", m)
	}
	h.in.Close()
	if err := <-h.done; err != nil {
		t.Fatalf("EOF on stdin must end serve cleanly: %v", err)
	}
}

func TestServeFloorRejectionReturnsMissed(t *testing.T) {
	h, ready := start(t)
	cur := ready["topic"].(string)
	h.send(t, `{"cmd":"post","topic":"`+cur+`","content":"one"}`)
	h.until(t, "post_result")
	// The person's own post never counts as missed.
	h.send(t, `{"cmd":"post","topic":"`+cur+`","content":"two"}`)
	if m := h.until(t, "post_result"); m["delivered"] != true {
		t.Fatalf("%v", m)
	}
	// Lin speaks through the room socket, as a sidecar does.
	lin, _, err := websocket.DefaultDialer.Dial(h.app.URL(), http.Header{"Authorization": {"Bearer " + h.app.Token()}})
	if err != nil {
		t.Fatal(err)
	}
	defer lin.Close()
	if err := lin.WriteJSON(wire.Hello{Type: wire.TypeHello, Protocol: wire.ProtocolVersion, Name: "Lin", Room: cur}); err != nil {
		t.Fatal(err)
	}
	var id wire.Identity // a seated hello is answered by its identity
	if err := lin.ReadJSON(&id); err != nil || id.Type != wire.TypeIdentity {
		t.Fatalf("after hello: %+v %v", id, err)
	}
	if err := lin.WriteJSON(wire.PostFrame{Type: wire.TypePost, MessageID: "lin-1", Content: "from Lin"}); err != nil {
		t.Fatal(err)
	}
	var res wire.PostResult
	if err := lin.ReadJSON(&res); err != nil || !res.Delivered {
		t.Fatalf("%+v %v", res, err)
	}
	h.send(t, `{"cmd":"post","topic":"`+cur+`","content":"three"}`)
	m := h.until(t, "post_result")
	missed, _ := m["missed"].([]any)
	if m["delivered"] != false || len(missed) != 1 || missed[0].(map[string]any)["message_id"] != "lin-1" {
		t.Fatalf("%v", m)
	}
	h.send(t, `{"cmd":"post","topic":"`+cur+`","content":"three","last_seen":"lin-1"}`)
	if m := h.until(t, "post_result"); m["delivered"] != true {
		t.Fatalf("%v", m)
	}
}

// TestServePostAttachments: "attachments" are saved under the topic and
// named in the body; a missing file, a folder or a relative path is an
// error and nothing is delivered.
func TestServePostAttachments(t *testing.T) {
	h, ready := start(t)
	cur := ready["topic"].(string)
	tmp := t.TempDir()
	src := filepath.Join(tmp, "report.pdf")
	os.WriteFile(src, []byte("%PDF-1.7"), 0o600)
	for _, bad := range []string{filepath.Join(tmp, "gone.png"), tmp, "report.pdf"} {
		b, _ := json.Marshal(map[string]any{"cmd": "post", "topic": cur, "content": "see", "attachments": []string{src, bad}})
		h.send(t, string(b))
		if m := h.answer(t); m["event"] != "error" {
			t.Fatalf("attachment %s: %v", bad, m)
		}
	}
	if _, err := os.Stat(filepath.Join(h.dir, "attachments", cur)); !os.IsNotExist(err) {
		t.Fatalf("a refused post saved files: %v", err)
	}
	b, _ := json.Marshal(map[string]any{"cmd": "post", "topic": cur, "content": "see", "attachments": []string{src}})
	h.send(t, string(b))
	got := h.both(t, "post", "post_result")
	saved := filepath.Join(h.dir, "attachments", cur, "report.pdf")
	if c := got["post"]["post"].(map[string]any)["content"]; c != "see\n\n添付:\n"+saved {
		t.Fatalf("content %q", c)
	}
	if r := got["post_result"]; r["delivered"] != true || len(r["attachments"].([]any)) != 1 || r["attachments"].([]any)[0] != saved {
		t.Fatalf("post_result %v", r)
	}
	if b, err := os.ReadFile(saved); err != nil || string(b) != "%PDF-1.7" {
		t.Fatalf("saved %q, %v", b, err)
	}
}

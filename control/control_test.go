package control

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pullcept/room"
	"pullcept/room/wire"
	"pullcept/topicstore"
)

type harness struct {
	in    *io.PipeWriter
	lines chan map[string]any
	store *topicstore.Store
	e     *room.Engine
	dir   string
	done  chan error
}

func start(t *testing.T) (*harness, map[string]any) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "logs", "main")
	store, err := topicstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := room.New(room.Config{Log: store, PersonName: "Master"})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := &harness{in: inW, lines: make(chan map[string]any, 100), store: store, e: e, dir: dir, done: make(chan error, 1)}
	srv := &Server{Engine: e, Store: store, URL: "ws://x", Token: "tok"}
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
	if ready["event"] != "ready" || ready["token"] != "tok" || ready["topic"] == "" {
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

// until reads lines until one has event == name.
func (h *harness) until(t *testing.T, name string) map[string]any {
	t.Helper()
	for {
		if m := h.next(t); m["event"] == name {
			return m
		}
	}
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
	if ts, _ := h.store.List(); len(ts) != 0 {
		t.Fatal("the start topic must not be in the index before something is said")
	}
	h.send(t, `{"cmd":"topics","id":1}`)
	if m := h.until(t, "topics"); m["id"] != 1.0 || len(m["topics"].([]any)) != 0 {
		t.Fatalf("%v", m)
	}
	h.send(t, `{"cmd":"post","topic":"`+cur+`","content":"First words here\nsecond line"}`)
	post := h.until(t, "post")
	if post["topic"] != cur || post["role"] != "admin" || post["post"].(map[string]any)["speaker"] != "Master" {
		t.Fatalf("post event = %v", post)
	}
	if m := h.until(t, "post_result"); m["delivered"] != true || m["message_id"] == "" {
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
		if m := h.next(t); m["event"] != "error" || m["error"] == "" {
			t.Fatalf("%s -> %v", bad, m)
		}
	}
	h.send(t, strings.Repeat("x", MaxLine+10))
	if m := h.next(t); m["event"] != "error" || !strings.Contains(m["error"].(string), "longer than") {
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
	lin := h.e.NewConn()
	if err := h.e.Hello(lin, wire.Hello{Name: "Lin", Room: cur}); err != nil {
		t.Fatal(err)
	}
	o, err := h.e.PostFromConn(lin, wire.PostFrame{MessageID: "lin-1", Content: "from Lin"})
	if err != nil || !o.Delivered {
		t.Fatalf("%+v %v", o, err)
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

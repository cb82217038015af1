package control

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"pullcept/app"
	"pullcept/seat"
)

// TestServeSeatQueueBounded (issue 32, finding 3): a seat whose program
// never reads its input (a real PTY: sh in raw mode, then sleep) is sent
// 3,000 posts of 8 KB. On main the typist queued every one: the heap grew
// by more than the posts' text and `seats` said held 0. Now its queue
// stops at its bound: the heap stays under half the posts' text, every
// post is in the topic's log, `seats` reports the posts it holds, why
// (hold_kind backlog, "not reading", "queue full") and how many it did not
// take, serve's activity events say it, and each post not taken is marked
// not received.
func TestServeSeatQueueBounded(t *testing.T) {
	const posts, size = 3000, 8 << 10
	h, ready := startWith(t, func(o *app.Options) {
		o.Accounts = []seat.Account{{ID: "bot", Name: "Bot", Kind: seat.KindCLI, Command: "my-cli"}}
		o.StartPane = func(ctx context.Context, spec seat.PaneSpec) (*seat.Pane, error) {
			spec.Argv = []string{"/bin/sh", "-c", "stty raw -echo; echo ready; exec sleep 1000"}
			return seat.StartPane(ctx, spec)
		}
	})
	cur := ready["topic"].(string)
	// The CLI's sidecar takes its seat, so posts are typed into its pane.
	ws := h.seatBot(t, cur)
	pane, err := h.app.Pane(cur, "bot")
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(pane.Render(), "ready"); {
		if time.Now().After(deadline) {
			t.Fatalf("the program never started:\n%s", pane.Render())
		}
		time.Sleep(5 * time.Millisecond) // polling the screen: no event says a PTY printed
	}
	// The room socket's connection is read, so the room never waits on it.
	go func() {
		for {
			if _, _, err := ws.ReadMessage(); err != nil {
				return
			}
		}
	}()
	// serve's lines are read all along (a stalled reader would keep the
	// events, and their posts, queued); the ones this test asks about are
	// kept.
	var mu sync.Mutex
	var lastHold string
	notTaken := 0
	seats := make(chan map[string]any, 1)
	release := make(chan map[string]any, 1)
	stop := make(chan struct{})
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for {
			select {
			case m, ok := <-h.lines:
				if !ok {
					return
				}
				mu.Lock()
				switch {
				case m["event"] == "seats":
					seats <- m
				case m["event"] == "release":
					release <- m
				case m["event"] == "activity" && m["account"] == "bot" && m["hold"] != nil:
					lastHold, _ = m["hold"].(string)
				case m["event"] == "delivery" && m["account"] == "bot" && m["mark"] == "not_received" && m["why"] == seat.WhyQueueFull:
					notTaken++
				}
				mu.Unlock()
			case <-stop:
				return
			}
		}
	}()
	defer func() { close(stop); <-drained }()

	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	body := strings.Repeat("x", size)
	for i := range posts {
		if o, err := h.app.Post(cur, fmt.Sprintf("%05d %s", i, body[6:]), ""); err != nil || !o.Delivered {
			t.Fatalf("post %d: %+v %v", i, o, err)
		}
	}
	after := heap()
	grew := int64(after) - int64(before)
	t.Logf("heap %d → %d MB over %d posts of %d KB", before>>20, after>>20, posts, size>>10)
	if limit := int64(posts * size / 2); grew > limit {
		t.Errorf("the heap grew by %d MB, more than half the posts' text (%d MB)", grew>>20, limit>>20)
	}

	// Every post is in the log.
	logged, oldest := 0, ""
	for {
		p, err := h.app.Page(cur, 500, oldest)
		if err != nil {
			t.Fatal(err)
		}
		logged += len(p.Posts)
		if !p.HasMore || len(p.Posts) == 0 {
			break
		}
		oldest = p.Posts[0].MessageID
	}
	if logged != posts {
		t.Errorf("the log holds %d posts, want %d", logged, posts)
	}

	// seats: the posts it holds, why, and how many it did not take.
	var bot map[string]any
	for deadline := time.Now().Add(10 * time.Second); ; {
		h.send(t, `{"cmd":"seats","topic":"`+cur+`"}`)
		var m map[string]any
		select {
		case m = <-seats:
		case <-time.After(10 * time.Second):
			t.Fatal("no seats answer")
		}
		res, _ := m["result"].([]any)
		if len(res) == 1 {
			bot, _ = res[0].(map[string]any)
		}
		if bot != nil && bot["hold_kind"] == string(seat.HoldByBacklog) && strings.Contains(bot["hold"].(string), seat.HoldNotReading) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("seats: %v", m)
		}
		time.Sleep(50 * time.Millisecond) // the hold shows once a write has waited StuckAfter
	}
	held, skipped := int(bot["held"].(float64)), int(bot["skipped"].(float64))
	// The PTY's buffer takes a post or so before the writes wait.
	if held < 1 || held > seat.MaxQueuedPosts || skipped < posts-seat.MaxQueuedPosts-8 || held+skipped > posts {
		t.Errorf("seats: held %d, skipped %d of %d posts (bound %d)", held, skipped, posts, seat.MaxQueuedPosts)
	}
	if hold := bot["hold"].(string); !strings.Contains(hold, fmt.Sprintf("queue full: %d posts not typed", skipped)) {
		t.Errorf("seats' hold: %q", hold)
	}
	// u: no key makes the program read; nothing is dropped.
	h.send(t, `{"cmd":"release","topic":"`+cur+`","account":"bot"}`)
	select {
	case m := <-release:
		res, _ := m["result"].(map[string]any)
		if res == nil || res["released"] != false || res["hold_kind"] != string(seat.HoldByBacklog) || !strings.Contains(res["note"].(string), "no key releases them") {
			t.Errorf("release: %v", m)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no release answer")
	}
	if n := h.app.Seats(cur)[0].Held; n < held {
		t.Errorf("the release dropped posts: %d held, was %d", n, held)
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		mu.Lock()
		hold, n := lastHold, notTaken
		mu.Unlock()
		if strings.Contains(hold, "queue full") && n == skipped {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("activity hold %q, %d posts marked not taken, want %d", hold, n, skipped)
		}
		time.Sleep(20 * time.Millisecond) // the lines are read by the drainer
	}
}

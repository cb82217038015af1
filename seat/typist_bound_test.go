package seat

import (
	"pullcept/room/wire"
	"strings"
	"sync"
	"testing"
	"time"
)

// A queue takes posts up to its bound (posts, and the typed bytes of what
// waits, the post being written included), then none until it has drained
// empty (hysteresis), and tells that run once (OnGap) before it types a
// later post; the posts it did not take are marked not received, and the
// hold says why (docs/decisions.md "A seat's queue is bounded"). A write
// that waits on the terminal is the program not reading: held, visibly.
func TestTypistQueueBoundAndHysteresis(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	marks := map[string]string{}
	var gaps []Gap
	ty := NewTypist(TypistOptions{Sleep: (&fakeSleep{}).Sleep, Location: tokyo, MaxPosts: 4, MaxBytes: 1 << 20, StuckAfter: 20 * time.Millisecond,
		OnMark: func(_, _ string, p wire.Post, m Mark, why string) {
			mu.Lock()
			marks[p.MessageID] = string(m) + ":" + why
			mu.Unlock()
		},
		OnGap: func(topic, account string, g Gap) {
			mu.Lock()
			gaps = append(gaps, g)
			mu.Unlock()
		}})
	t.Cleanup(ty.Close)
	ft := newFakeTerm()
	ft.gate = make(chan struct{}) // every text write waits for the test: a program not reading
	ty.Attach("T", "a", ft)
	deliver := func(id string) { ty.Deliver("T", roomPost(id, "Ann", "body "+id), "admin", []string{"a"}) }
	heldBy := func(n int, kind HoldKind, text string, skipped int) {
		t.Helper()
		for deadline := time.Now().Add(testWait); ; {
			got, why := ty.HeldReason("T", "a")
			if got == n && why.Kind == kind && strings.Contains(why.Text, text) && ty.Skipped("T", "a") == skipped {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("held %d %+v skipped %d; want %d %s %q skipped %d", got, why, ty.Skipped("T", "a"), n, kind, text, skipped)
			}
			time.Sleep(2 * time.Millisecond) // the typist's state is read by polling
		}
	}
	// letOne lets the head's text through and waits for its \r.
	letOne := func(id string) {
		t.Helper()
		ft.gate <- struct{}{}
		if e := ft.next(t); !strings.Contains(e, "body "+id) {
			t.Fatalf("typed %q, want %s", e, id)
		}
		if e := ft.next(t); e != "submit" {
			t.Fatalf("after %s: %q", id, e)
		}
	}

	deliver("p1")
	heldBy(1, HoldByBacklog, HoldNotReading, 0)
	for _, id := range []string{"p2", "p3", "p4", "p5", "p6"} {
		deliver(id)
	}
	heldBy(4, HoldByBacklog, HoldNotReading+"; queue full: 2 posts not typed", 2)
	mu.Lock()
	if marks["p5"] != "not_received:"+WhyQueueFull || marks["p6"] != "not_received:"+WhyQueueFull || !strings.HasPrefix(marks["p4"], "held:") {
		t.Fatalf("marks at the bound: %v", marks)
	}
	mu.Unlock()

	// Below the bound but not drained: still not taken.
	letOne("p1")
	heldBy(3, HoldByBacklog, "queue full: 2 posts", 2)
	deliver("p7")
	heldBy(3, HoldByBacklog, "queue full: 3 posts not typed", 3)
	// The app's own instruction to the seat goes past the bound.
	ty.DeliverFirst("T", roomPost("app1", "Pullcept", "body app1"), "app", []string{"a"})
	heldBy(4, HoldByBacklog, "queue full: 3 posts", 3)
	letOne("p2") // its write had begun
	letOne("app1")
	letOne("p3")
	deliver("p8")
	heldBy(1, HoldByBacklog, "queue full: 4 posts", 4)
	mu.Lock()
	if len(gaps) != 0 {
		t.Fatalf("told of a gap before the queue drained: %v", gaps)
	}
	mu.Unlock()
	letOne("p4")
	// Drained: told once, and it takes posts again.
	heldBy(0, "", "", 0)
	mu.Lock()
	if len(gaps) != 1 || gaps[0] != (Gap{Skipped: 4, First: "p5", Last: "p8"}) {
		t.Fatalf("gaps: %+v", gaps)
	}
	mu.Unlock()
	deliver("p9")
	letOne("p9")
	heldBy(0, "", "", 0)
}

// The typed bytes bound too: a post that would take the queue past it is
// not taken, nor any after it until the queue has drained.
func TestTypistQueueByteBound(t *testing.T) {
	t.Parallel()
	ty := NewTypist(TypistOptions{Sleep: (&fakeSleep{}).Sleep, Location: tokyo, MaxPosts: 100, MaxBytes: 20, StuckAfter: time.Hour})
	t.Cleanup(ty.Close)
	ft := newFakeTerm()
	ft.gate = make(chan struct{})
	ty.Attach("T", "a", ft)
	ty.Deliver("T", roomPost("p1", "Ann", strings.Repeat("x", 12)), "admin", []string{"a"})
	ty.Deliver("T", roomPost("p2", "Ann", strings.Repeat("y", 12)), "admin", []string{"a"})
	ty.Deliver("T", roomPost("p3", "Ann", "z"), "admin", []string{"a"})
	for deadline := time.Now().Add(testWait); ty.Skipped("T", "a") != 2; {
		if time.Now().After(deadline) {
			t.Fatalf("skipped %d, want 2", ty.Skipped("T", "a"))
		}
		time.Sleep(2 * time.Millisecond) // polled
	}
	if n, why := ty.HeldReason("T", "a"); n != 1 || why.Kind != HoldByBacklog || why.Text != "queue full: 2 posts not typed (they stay in the room)" {
		t.Fatalf("held %d %+v", n, why)
	}
	ft.gate <- struct{}{}
	if e := ft.next(t); !strings.Contains(e, "xxxx") {
		t.Fatal(e)
	}
	if e := ft.next(t); e != "submit" {
		t.Fatal(e)
	}
	for deadline := time.Now().Add(testWait); ty.Skipped("T", "a") != 0; {
		if time.Now().After(deadline) {
			t.Fatal("the drained queue still skips")
		}
		time.Sleep(2 * time.Millisecond) // polled
	}
}

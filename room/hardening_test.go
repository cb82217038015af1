package room

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"pullcept/room/wire"
)

// rosterCount follows a subscription and counts its roster events and the
// bytes of their participant lists (as JSON, as `serve` writes them).
type rosterCount struct {
	mu      sync.Mutex
	events  int
	entries int
	bytes   int
	last    []Participant
	done    chan struct{}
}

func countRosters(sub *Subscription) *rosterCount {
	c := &rosterCount{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for ev := range sub.C {
			if ev.Kind != EventRoster {
				continue
			}
			b, _ := json.Marshal(ev.Participants)
			c.mu.Lock()
			c.events++
			c.entries += len(ev.Participants)
			c.bytes += len(b)
			c.last = ev.Participants
			c.mu.Unlock()
		}
	}()
	return c
}

// settle waits until no roster event has come for twice RosterEvery.
func (c *rosterCount) settle() {
	prev := -1
	for {
		time.Sleep(2 * RosterEvery)
		c.mu.Lock()
		n := c.events
		c.mu.Unlock()
		if n == prev {
			return
		}
		prev = n
	}
}

// A burst of joins (then of leaves) into one room: the roster events and
// the bytes of their lists grow about linearly, not quadratically, and the
// latest roster event is still the room's exact list. Before coalescing:
// 2,000 joins made 2,000 events with 2,003,000 entries (76 MB of JSON) and
// allocated 133 MB. Not parallel: it reads the process's allocation figures.
func TestRosterBurstIsCoalesced(t *testing.T) {
	const n = 2000
	e := New(Config{Log: newMemLog(), PersonName: "Master", MaxSeats: n})
	if _, err := e.Open(topicA); err != nil {
		t.Fatal(err)
	}
	sub := e.Subscribe()
	c := countRosters(sub)
	defer func() { sub.Close(); <-c.done }()

	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	ids := make([]ConnID, n)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < n; i += 8 {
				ids[i] = e.NewConn()
				if err := e.Hello(ids[i], wire.Hello{Name: fmt.Sprintf("agent-%04d", i), Room: topicA, AccountID: "acc"}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	runtime.ReadMemStats(&m1)
	c.settle()

	c.mu.Lock()
	events, entries, bytes, last := c.events, c.entries, c.bytes, c.last
	c.mu.Unlock()
	final, _ := json.Marshal(e.Roster(topicA))
	t.Logf("%d joins: %d roster events, %d entries, %d bytes of lists (the final list: %d bytes), %.1f MB allocated",
		n, events, entries, bytes, len(final), float64(m1.TotalAlloc-m0.TotalAlloc)/1e6)
	if !reflect.DeepEqual(last, e.Roster(topicA)) || len(last) != n+1 {
		t.Fatalf("the latest roster event has %d participants, the room %d", len(last), len(e.Roster(topicA)))
	}
	// Linear: a few times the final list (quadratic would be ~n/2 times).
	if events > 100 || entries > 10*(n+1) || bytes > 10*len(final) {
		t.Fatalf("%d events, %d entries, %d bytes for %d joins: not coalesced", events, entries, bytes, n)
	}
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 32<<20 {
		t.Fatalf("%d joins allocated %d MB", n, alloc>>20)
	}

	// Leaves, the same.
	c.mu.Lock()
	c.events, c.entries, c.bytes = 0, 0, 0
	c.mu.Unlock()
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < n; i += 8 {
				e.Leave(ids[i])
			}
		}()
	}
	wg.Wait()
	c.settle()
	c.mu.Lock()
	defer c.mu.Unlock()
	t.Logf("%d leaves: %d roster events, %d entries, %d bytes of lists", n, c.events, c.entries, c.bytes)
	if len(c.last) != 1 || !c.last[0].Person {
		t.Fatalf("the latest roster after every leave: %+v", c.last)
	}
	if c.events > 100 || c.entries > 10*(n+1) || c.bytes > 10*len(final) {
		t.Fatalf("%d events, %d entries, %d bytes for %d leaves: not coalesced", c.events, c.entries, c.bytes, n)
	}
}

// A small room still gets one roster event per change, at once (the TUI's
// tests and a person watching a handful of seats see each change).
func TestSmallRoomRosterAtOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sub := f.e.Subscribe()
	defer sub.Close()
	for i := range rosterSmall - 1 {
		f.join(t, fmt.Sprintf("n%d", i), "")
		select {
		case ev := <-sub.C:
			if ev.Kind != EventRoster || len(ev.Participants) != i+2 {
				t.Fatalf("join %d: %+v", i, ev)
			}
		default:
			t.Fatalf("join %d: no roster event at once", i)
		}
	}
}

// A change of a big room that is not published at once comes within
// RosterEvery or so, and a dropped room's pending event is not sent.
func TestBigRoomRosterTrailingEvent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for i := range 40 {
		f.join(t, fmt.Sprintf("n%d", i), "")
	}
	sub := f.e.Subscribe()
	defer sub.Close()
	late := f.join(t, "late", "")
	ev := nextEvent(t, sub)
	if ev.Kind != EventRoster || len(ev.Participants) != 42 || ev.Participants[41].Name != "late" {
		t.Fatalf("trailing roster: %+v", ev)
	}
	f.e.Leave(late)
	f.e.Drop(topicA)
	select {
	case ev := <-sub.C:
		t.Fatalf("event for a dropped room: %+v", ev)
	case <-time.After(3 * RosterEvery):
	}
}

func TestRoomSeatLimit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var ids []ConnID
	for i := range DefaultMaxSeats {
		ids = append(ids, f.join(t, fmt.Sprintf("n%d", i), ""))
	}
	over := f.e.NewConn()
	err := f.e.Hello(over, wire.Hello{Name: "one too many", Room: topicA})
	if !errors.Is(err, ErrRoomFull) || !strings.Contains(err.Error(), fmt.Sprintf("the limit is %d per room", DefaultMaxSeats)) {
		t.Fatalf("hello past the limit: %v", err)
	}
	if r := f.e.Roster(topicA); len(r) != DefaultMaxSeats+1 {
		t.Fatalf("%d seated", len(r))
	}
	if _, err := f.e.PostFromConn(over, wire.PostFrame{Content: "hi"}); !errors.Is(err, ErrNoRoom) {
		t.Fatalf("post of a refused connection: %v", err)
	}
	// A seated connection may still rename itself; the person always posts.
	if err := f.e.Hello(ids[0], wire.Hello{Name: "renamed"}); err != nil {
		t.Fatalf("rename at the limit: %v", err)
	}
	if _, err := f.e.PostAsPerson(topicA, "hello all", ""); err != nil {
		t.Fatal(err)
	}
	// A place freed: the refused connection's next hello is seated.
	f.e.Leave(ids[1])
	if err := f.e.Hello(over, wire.Hello{Name: "one too many", Room: topicA}); err != nil {
		t.Fatalf("hello after a leave: %v", err)
	}
}

func TestHelloNameAndAccountLimits(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	c := f.e.NewConn()
	long := strings.Repeat("名", 100<<10/3)
	err := f.e.Hello(c, wire.Hello{Name: long, Room: topicA})
	want := fmt.Sprintf("the name is %d characters; the limit is %d", len([]rune(long)), wire.MaxNameRunes)
	if !errors.Is(err, ErrNameTooLong) || !strings.Contains(err.Error(), want) {
		t.Fatalf("100 KB name: %v", err)
	}
	if err := f.e.Hello(c, wire.Hello{Name: "x", Room: topicA, AccountID: strings.Repeat("a", wire.MaxAccountIDLen+1)}); !errors.Is(err, ErrAccountTooLong) {
		t.Fatalf("long account_id: %v", err)
	}
	if len(f.e.Roster(topicA)) != 1 {
		t.Fatal("a refused hello took a seat")
	}
	// The refused hellos fixed nothing: this one is seated, 64 characters
	// (spaces around are not counted).
	name := strings.Repeat("😀", wire.MaxNameRunes)
	if err := f.e.Hello(c, wire.Hello{Name: " " + name + " ", Room: topicA, AccountID: strings.Repeat("a", wire.MaxAccountIDLen)}); err != nil {
		t.Fatal(err)
	}
	if r := f.e.Roster(topicA); len(r) != 2 || r[1].Name != name {
		t.Fatalf("roster %+v", r)
	}
	// A rename past the limit keeps the old name.
	if err := f.e.Hello(c, wire.Hello{Name: name + "!"}); !errors.Is(err, ErrNameTooLong) {
		t.Fatalf("long rename: %v", err)
	}
	if r := f.e.Roster(topicA); r[1].Name != name {
		t.Fatalf("renamed to %q", r[1].Name)
	}
}

// An unknown room id of any size is quoted in errors, cut short.
func TestLongRoomIDIsCutInErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	c := f.e.NewConn()
	err := f.e.Hello(c, wire.Hello{Name: "x", Room: strings.Repeat("r", 100<<10)})
	if !errors.Is(err, ErrNoRoom) || len(err.Error()) > 300 {
		t.Fatalf("hello: %d bytes: %.200v", len(err.Error()), err)
	}
	if _, err := f.e.PostFromConn(c, wire.PostFrame{Content: "hi"}); !errors.Is(err, ErrNoRoom) || len(err.Error()) > 300 {
		t.Fatalf("post: %d bytes", len(err.Error()))
	}
}

package topicstore

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"
)

// syncProbe replaces a store's fsync: it records each path synced, in
// order, and can hold the syncs until released.
type syncProbe struct {
	mu      sync.Mutex
	synced  []string
	fail    error         // returned by every sync when set
	gate    chan struct{} // when non-nil, each sync waits for its close
	entered chan string   // each sync's path, as it starts
	rounds  chan []string // the syncer's rounds, as they end
}

func probe(s *Store, delay time.Duration) *syncProbe {
	p := &syncProbe{rounds: make(chan []string, 1000), entered: make(chan string, 1000)}
	s.sy.delay = delay
	s.sy.fsync = func(path string) error {
		p.entered <- path
		if p.gate != nil {
			<-p.gate
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		p.synced = append(p.synced, path)
		return p.fail
	}
	s.sy.after = func(paths []string) { p.rounds <- slices.Clone(paths) }
	return p
}

func (p *syncProbe) count(path string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, s := range p.synced {
		if s == path {
			n++
		}
	}
	return n
}

// round waits for the syncer's next round, as an event, never a sleep; the
// timeout only turns a missing sync into a failure instead of a hang.
func (p *syncProbe) round(t *testing.T) []string {
	t.Helper()
	select {
	case r := <-p.rounds:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("no sync round came after the append")
		return nil
	}
}

// TestAppendIsSyncedSoonAfter: once an append has returned and the sync
// delay has passed, its file has been fsynced, and the directory too when
// the append created the file; a second append does not sync the
// directory again.
func TestAppendIsSyncedSoonAfter(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	p := probe(s, SyncDelay)
	id := NewID()
	path := s.topicPath(id)
	start := time.Now()
	if first := mustAppend(t, s, id, mkPost("m1", "hello")); !first {
		t.Fatal("not first")
	}
	if got := p.count(path); got != 0 {
		t.Fatalf("Append synced %d times itself; it must not wait for the disk", got)
	}
	r := p.round(t)
	if waited := time.Since(start); waited < SyncDelay {
		t.Fatalf("synced after %v, before the delay %v", waited, SyncDelay)
	}
	if !slices.Equal(r, []string{path, s.dir}) || p.count(path) != 1 || p.count(s.dir) != 1 {
		t.Fatalf("round synced %v; want the new file, then its directory", r)
	}
	mustAppend(t, s, id, mkPost("m2", "again"))
	if r := p.round(t); !slices.Equal(r, []string{path}) {
		t.Fatalf("second round synced %v; want the file only", r)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestSyncsAreCoalesced: the appends made while a sync runs are synced
// together by the next round, one fsync per file, and Append never waits
// for a sync that is running.
func TestSyncsAreCoalesced(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	p := probe(s, time.Millisecond)
	p.gate = make(chan struct{})
	a, b := NewID(), NewID()
	mustAppend(t, s, a, mkPost("m0", "x"))
	// The first round is stuck in its first fsync until the gate opens;
	// appends go on meanwhile, without waiting for it.
	select {
	case <-p.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("no sync began")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 200 {
			mustAppend(t, s, a, mkPost(fmt.Sprintf("a%d", i), "x"))
			mustAppend(t, s, b, mkPost(fmt.Sprintf("b%d", i), "x"))
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("appends waited for a sync that was running")
	}
	close(p.gate) // every sync passes from now on
	first := p.round(t)
	second := p.round(t)
	if !slices.Equal(first, []string{s.topicPath(a), s.dir}) {
		t.Fatalf("first round %v", first)
	}
	want := []string{s.topicPath(a), s.topicPath(b), s.dir}
	slices.Sort(want[:2])
	if !slices.Equal(second, want) {
		t.Fatalf("second round %v, want %v: 400 appends in one fsync per file", second, want)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := p.count(s.topicPath(a)) + p.count(s.topicPath(b)); n != 3 {
		t.Fatalf("%d file syncs for 401 appends, want 3", n)
	}
}

// TestCloseSyncsPendingAtOnce: Close does not wait out the delay; it syncs
// what is pending, stops the goroutine, and later appends sync before they
// return.
func TestCloseSyncsPendingAtOnce(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	p := probe(s, time.Hour)
	id := NewID()
	mustAppend(t, s, id, mkPost("m1", "x"))
	closed := make(chan error)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited for the sync delay")
	}
	if p.count(s.topicPath(id)) != 1 {
		t.Fatal("Close did not sync the pending append")
	}
	s.sy.mu.Lock()
	running := s.sy.running
	s.sy.mu.Unlock()
	if running {
		t.Fatal("the sync goroutine still runs after Close")
	}
	mustAppend(t, s, id, mkPost("m2", "x"))
	if p.count(s.topicPath(id)) != 2 {
		t.Fatal("an append after Close returned before its sync")
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// TestSyncerEndsWhenIdle: with nothing appended, no goroutine waits; it
// starts with an append and ends after the round that leaves nothing.
func TestSyncerEndsWhenIdle(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	p := probe(s, time.Millisecond)
	mustAppend(t, s, "t", mkPost("m", "x"))
	s.sy.mu.Lock()
	idle := s.sy.idle
	s.sy.mu.Unlock()
	p.round(t)
	select {
	case <-idle:
	case <-time.After(10 * time.Second):
		t.Fatal("the sync goroutine did not end with nothing left to sync")
	}
	// Reading and listing never start it.
	if _, err := s.List(); err != nil {
		t.Fatal(err)
	}
	s.sy.mu.Lock()
	running := s.sy.running
	s.sy.mu.Unlock()
	if running {
		t.Fatal("the sync goroutine runs with nothing to sync")
	}
}

// TestSyncErrorReported: a failed fsync is told to OnSyncError's function
// and returned by Close for the last round; a file deleted meanwhile is
// not a failure.
func TestSyncErrorReported(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	p := probe(s, time.Hour)
	p.fail = errors.New("EIO")
	var mu sync.Mutex
	var got []string
	s.OnSyncError(func(topic string, err error) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, topic+": "+err.Error())
	})
	mustAppend(t, s, "t1", mkPost("m", "x"))
	if err := s.Close(); err == nil || err.Error() != "EIO" {
		t.Fatalf("Close = %v, want the failed fsync", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(got, []string{"t1: EIO", ": EIO"}) {
		t.Fatalf("reported %q", got)
	}
}

// TestRealSyncOfDeletedFile: the real fsync of a topic deleted before its
// round is no failure.
func TestRealSyncOfDeletedFile(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.sy.delay = time.Hour
	var failed []string
	s.OnSyncError(func(topic string, err error) { failed = append(failed, topic) })
	mustAppend(t, s, "gone", mkPost("m", "x"))
	mustAppend(t, s, "kept", mkPost("m", "x"))
	if err := os.Remove(s.topicPath("gone")); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil || failed != nil {
		t.Fatalf("Close = %v, failures %v", err, failed)
	}
}

package topicstore

// Durability of appends. Append writes a line with one write on an
// O_APPEND file and returns: the room delivers a post whatever the append
// does (spec 003 部屋のログ: 配送も戻り値も追記の成否に依存させず), so an
// append must not wait for the disk either. The write is in the kernel
// when Append returns, so a crash of the process (kill -9) loses nothing;
// a power failure or a kernel crash loses what the kernel had not written
// back yet. The syncer bounds that: SyncDelay after an append, a goroutine
// of the store fsyncs every topic file appended to since its last round
// (and the directory, when a file was created), all the appends of that
// window in one fsync per file. Append only marks the file; it never waits
// for a sync.

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// SyncDelay is how long after an append the store fsyncs the topic file:
// the most a delivered post can stay only in the kernel's memory, plus the
// time the fsync takes. See docs/decisions.md "Store hardening".
const SyncDelay = 5 * time.Millisecond

// syncer fsyncs the files appended to, SyncDelay after the appends, from
// one goroutine that runs while there is something to sync and ends when
// there is nothing left (so an idle store has no goroutine and no timer).
type syncer struct {
	// Set by Open; tests and benchmarks change them before the first
	// append.
	delay time.Duration           // 0: never sync (the benchmark's reference)
	fsync func(path string) error // fsyncs a file or a directory
	after func(paths []string)    // tests: called after each round

	mu      sync.Mutex
	dirty   map[string]bool // paths appended to since their last sync
	running bool            // the goroutine is on duty
	closed  bool            // Close was called: appends sync at once
	idle    chan struct{}   // closed when the running goroutine ends
	kick    chan struct{}   // Close wakes the goroutine out of its wait
	onErr   func(topic string, err error)
	last    error // the last failure of the round that ran at Close
}

// newSyncer returns the syncer Open gives a store.
func newSyncer() *syncer {
	return &syncer{
		delay: SyncDelay,
		fsync: syncPath,
		dirty: map[string]bool{},
		kick:  make(chan struct{}, 1),
	}
}

// syncPath fsyncs the file or directory at path.
func syncPath(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// OnSyncError sets the function told of each fsync that failed: topic is
// the topic whose file it was ("" for the directory), err says why. A
// failed fsync means the posts appended to that file before it may not
// survive a power failure (they are still in the file for every reader).
// fn is called from the store's sync goroutine (or, after Close, from
// Append) and must not block for long. nil stops the calls.
func (s *Store) OnSyncError(fn func(topic string, err error)) {
	s.sy.mu.Lock()
	defer s.sy.mu.Unlock()
	s.sy.onErr = fn
}

// Close fsyncs at once what was appended and not yet synced, and stops the
// store's sync goroutine, waiting for it to end. It returns the error of a
// failed fsync of that last round. The store stays usable: an Append after
// Close fsyncs the file itself before it returns. Close may be called more
// than once.
func (s *Store) Close() error {
	sy := s.sy
	sy.mu.Lock()
	if sy.closed {
		sy.mu.Unlock()
		return nil
	}
	sy.closed = true
	running, idle := sy.running, sy.idle
	sy.mu.Unlock()
	if !running {
		return nil
	}
	select {
	case sy.kick <- struct{}{}:
	default:
	}
	<-idle
	sy.mu.Lock()
	defer sy.mu.Unlock()
	return sy.last
}

// noteAppend marks path (and the directory, when created) to be synced.
// It returns true when the caller must sync itself: the store is closed.
func (s *Store) noteAppend(path string, created bool) (syncNow bool) {
	sy := s.sy
	sy.mu.Lock()
	defer sy.mu.Unlock()
	if sy.delay <= 0 {
		return false
	}
	if sy.closed {
		return true
	}
	sy.dirty[path] = true
	if created {
		sy.dirty[s.dir] = true
	}
	if !sy.running {
		sy.running = true
		sy.idle = make(chan struct{})
		go s.syncLoop(sy.idle)
	}
	return false
}

// syncNow fsyncs path (and the directory, when created) before Append
// returns, for an append after Close.
func (s *Store) syncNow(path string, created bool) {
	paths := []string{path}
	if created {
		paths = append(paths, s.dir)
	}
	for _, p := range paths {
		if err := s.sy.fsync(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.syncFailed(p, err)
		}
	}
}

// syncFailed tells OnSyncError's function about a failed fsync of path.
func (s *Store) syncFailed(path string, err error) {
	s.sy.mu.Lock()
	fn := s.sy.onErr
	s.sy.mu.Unlock()
	if fn == nil {
		return
	}
	topic := ""
	if path != s.dir {
		topic = strings.TrimSuffix(filepath.Base(path), topicExt)
	}
	fn(topic, err)
}

// syncLoop is the store's sync goroutine: it waits SyncDelay (less when
// Close wakes it), fsyncs every path marked meanwhile, files before the
// directory, and goes on while appends keep coming; it ends, closing idle,
// after a round that leaves nothing marked.
func (s *Store) syncLoop(idle chan struct{}) {
	sy := s.sy
	defer close(idle)
	for {
		sy.mu.Lock()
		closing := sy.closed
		sy.mu.Unlock()
		if !closing {
			t := time.NewTimer(sy.delay)
			select {
			case <-t.C:
			case <-sy.kick:
				t.Stop()
			}
		}
		sy.mu.Lock()
		batch := sy.dirty
		sy.dirty = map[string]bool{}
		sy.mu.Unlock()
		paths := make([]string, 0, len(batch))
		for p := range batch {
			if p != s.dir {
				paths = append(paths, p)
			}
		}
		slices.Sort(paths)
		if batch[s.dir] {
			paths = append(paths, s.dir)
		}
		var failed error
		for _, p := range paths {
			if err := sy.fsync(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				failed = err
				s.syncFailed(p, err)
			}
		}
		if sy.after != nil {
			sy.after(paths)
		}
		sy.mu.Lock()
		if sy.closed {
			sy.last = failed
		}
		if len(sy.dirty) == 0 {
			sy.running = false
			sy.mu.Unlock()
			return
		}
		sy.mu.Unlock()
	}
}

package app

// Returning the heap's free pages once the panes are quiet. A burst of
// output (a build log, 10,000 lines a pane) leaves the heap at up to twice
// what the scrollback keeps: the garbage collector lets it grow to its
// goal, and the runtime keeps freed pages for reuse. Once no pane has
// printed for a while, one forced collection hands them back
// (debug.FreeOSMemory), so a server that sits between bursts holds what
// it keeps, not what it once used (docs/performance.md "Memory"). The
// binary's read-only pages go the same way (dropExePages): at the release,
// and once start-up or a seat's launch is over.

import (
	"context"
	"runtime/debug"
	"sync/atomic"
	"time"
)

// releaseAfter is how long the panes must be quiet before the release:
// long enough that a CLI between two bursts (a test run's pauses, a model
// thinking) does not pay a collection each time.
const releaseAfter = 2 * time.Second

// startupSettle is how long after Start the binary's pages are dropped
// once whatever the panes do: start-up's own goroutines (local MCP
// servers, the configuration watch, the first screen) are done by then.
const startupSettle = time.Second

// quietRelease calls release once output has stopped for quiet. Output
// costs the panes' read loops an atomic load (a store when it is the first
// since the goroutine last looked): only the first output after a release
// wakes the goroutine, which then looks four times a quiet whether any came.
type quietRelease struct {
	quiet   time.Duration
	release func()
	seen    atomic.Bool // output since run last looked
	armed   atomic.Bool // output came since the last release
	wake    chan struct{}
}

func newQuietRelease(quiet time.Duration, release func()) *quietRelease {
	if release == nil {
		release = releaseMemory
	}
	return &quietRelease{quiet: quiet, release: release, wake: make(chan struct{}, 1)}
}

// output notes that a pane printed (nil: an App made without Start).
func (q *quietRelease) output() {
	if q == nil {
		return
	}
	if !q.seen.Load() {
		q.seen.Store(true)
	}
	if !q.armed.Load() && q.armed.CompareAndSwap(false, true) {
		select {
		case q.wake <- struct{}{}:
		default:
		}
	}
}

// run waits for output, then for quiet with none, then releases; until
// ctx ends. It looks every quiet/quietSteps, so the release comes quiet to
// quiet plus a step after the last output.
func (q *quietRelease) run(ctx context.Context) {
	step := q.quiet / quietSteps
	t := time.NewTimer(step)
	t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-q.wake:
		}
		q.seen.Store(false)
		for still := 0; still < quietSteps; {
			t.Reset(step)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			still++
			if q.seen.Swap(false) {
				still = 0
			}
		}
		// Disarmed before the release: output during it arms the next one.
		q.armed.Store(false)
		q.release()
	}
}

// quietSteps is how many looks a quiet takes.
const quietSteps = 4

// releaseMemory hands the heap's free pages back and unmaps the binary's
// read-only pages (dropExePages), which come back as they are used.
func releaseMemory() {
	debug.FreeOSMemory()
	dropExePages()
}

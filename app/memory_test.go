package app

import (
	"context"
	"testing"
	"time"
)

// One release after a burst of output, once it has been quiet for the
// wait, and none without output.
func TestQuietReleaseAfterOutput(t *testing.T) {
	const quiet = 30 * time.Millisecond
	released := make(chan time.Time, 10)
	q := newQuietRelease(quiet, func() { released <- time.Now() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); q.run(ctx) }()

	for round := range 2 {
		var last time.Time
		for range 50 {
			q.output()
			last = time.Now()
		}
		select {
		case at := <-released:
			if at.Sub(last) < quiet {
				t.Fatalf("round %d: released %v after the last output, before the %v of quiet", round, at.Sub(last), quiet)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("round %d: no release after the output stopped", round)
		}
		select {
		case <-released:
			t.Fatalf("round %d: two releases for one burst", round)
		default:
		}
	}
	cancel()
	<-done
	if len(released) != 0 {
		t.Fatal("a release without output")
	}
}

// Output that goes on postpones the release until it stops: every release
// comes at least the wait after the output before it.
func TestQuietReleaseWaitsForTheEnd(t *testing.T) {
	const quiet = 40 * time.Millisecond
	released := make(chan time.Time, 100)
	q := newQuietRelease(quiet, func() { released <- time.Now() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go q.run(ctx)
	var outputs []time.Time
	for end := time.Now().Add(4 * quiet); time.Now().Before(end); {
		outputs = append(outputs, time.Now())
		q.output()
		time.Sleep(quiet / 4) // output paced under the wait, not a synchronisation
	}
	last := outputs[len(outputs)-1]
	for {
		var at time.Time
		select {
		case at = <-released:
		case <-time.After(5 * time.Second):
			t.Fatal("no release after the output stopped")
		}
		before := outputs[0]
		for _, o := range outputs {
			if o.Before(at) {
				before = o
			}
		}
		if at.Sub(before) < quiet {
			t.Fatalf("released %v after an output, before the %v of quiet", at.Sub(before), quiet)
		}
		if at.After(last) && at.Sub(last) >= quiet {
			return // the release after the end
		}
	}
}

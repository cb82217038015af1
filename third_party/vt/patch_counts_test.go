package vt

// PATCH(pullcept): tests of change 17: a count in a sequence costs at most a
// line's worth of work.

import (
	"testing"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
)

// TestPatchHugeCountsAreCheap: ECH, CHT, CBT and REP with a count of 10^9
// finish at once (upstream: ECH, CHT and CBT about 4 s each, REP minutes,
// with the pane's lock held). Written on a goroutine so that a loop this
// long fails the test rather than hanging it.
func TestPatchHugeCountsAreCheap(t *testing.T) {
	e := NewEmulator(80, 24)
	_ = e.pr.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = e.WriteString("x\x1b[5G\x1b[999999999X\x1b[999999999I\x1b[999999999Z\x1b[999999999b")
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("CSI 999999999 X, I, Z and b still running after 2 s")
	}
	if got := e.CursorPosition(); got != uv.Pos(79, 0) || !e.atPhantom {
		t.Errorf("cursor %v (pending wrap %v) after REP to the line's end, want (79,0) and a pending wrap", got, e.atPhantom)
	}
	if l := e.Touched()[0]; l == nil || l.LastCell > 80 {
		t.Errorf("row 0 touched to %+v, past the 80 columns", l)
	}
}

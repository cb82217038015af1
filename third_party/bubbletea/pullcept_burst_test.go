package tea

// PATCH(pullcept): the frame budget of WithOnDemandFrames (see README.md).

import (
	"testing"
	"time"
)

// drawnAt waits for text to be written after from and returns when it was.
func drawnAt(t *testing.T, out *stampWriter, text string, from time.Time) time.Time {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		if at, _ := out.firstWith(text, from); !at.IsZero() {
			return at
		}
	}
	t.Fatalf("%q never drawn", text)
	return time.Time{}
}

// A change right after a lone frame is drawn at once (the frame budget has
// a second frame), and the one after it waits for the interval: at 4 fps,
// with a strict one frame per interval "bravo" would wait ~230 ms.
func TestOnDemandChangeAfterALoneFrame(t *testing.T) {
	t.Parallel()
	const interval = 250 * time.Millisecond
	p, out, _ := startProgram(t, 4, true, 2*interval)

	sent := time.Now()
	p.Send(setTextMsg("alpha"))
	alpha := drawnAt(t, out, "alpha", sent)

	time.Sleep(20 * time.Millisecond)
	sent = time.Now()
	p.Send(setTextMsg("bravo"))
	if d := drawnAt(t, out, "bravo", sent).Sub(sent); d > 60*time.Millisecond {
		t.Fatalf("bravo drawn %v after the change, want at once", d)
	}

	sent = time.Now()
	p.Send(setTextMsg("charlie"))
	charlie := drawnAt(t, out, "charlie", sent)
	// The budget is spent: charlie is drawn one interval after alpha, when
	// the next frame is earned (less a little for the clock's granularity).
	if d := charlie.Sub(alpha); d < interval-10*time.Millisecond {
		t.Fatalf("charlie drawn %v after alpha, want at least the interval (%v)", d, interval)
	}
}

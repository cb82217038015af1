package seat

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// waitFrameHeld waits until the emulator holds a frame. A held frame asks
// for no redraw, so there is no event to wait on: it looks every 5 ms.
func waitFrameHeld(t *testing.T, p *Pane) {
	t.Helper()
	deadline := time.After(testWait)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, _, held := p.emu.FrameHeld(); held {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("no frame was ever held; screen:\n%s", ansi.Strip(p.Render()))
		}
	}
}

// writes is the pane's count of emulator writes (each read of output).
func writes(p *Pane) uint64 {
	p.emuMu.Lock()
	defer p.emuMu.Unlock()
	return p.written
}

// A CLI draws a synchronized frame (mode 2026) in three writes with pauses
// between: while the frame is open the pane shows the screen from before
// it, in Render, RenderScrolled and the cursor, and asks for no redraw
// after the read that opened it (which may carry output from before); at
// the end it shows the whole frame. Each write waits for its file, so each
// arrives in a read of its own.
func TestPaneSyncFrameNeverHalfDrawn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	step := func(n string) string { return filepath.Join(dir, n) }
	script := `stty raw -echo; printf 'line1\r\nline2\r\nBEFORE'; ` +
		`while [ ! -e "$1" ]; do sleep 0.01; done; ` +
		`printf '\033[?2026h\033[H\033[2JHALF'; ` +
		`while [ ! -e "$2" ]; do sleep 0.01; done; ` +
		`printf '\033[3;3HMID'; ` +
		`while [ ! -e "$3" ]; do sleep 0.01; done; ` +
		`printf 'AFTER\033[?2026l'; sleep 100`
	p := startPane(t, PaneSpec{Argv: []string{"sh", "-c", script, "sh", step("open"), step("mid"), step("end")}, Cols: 20, Rows: 4, Grace: time.Second})
	waitScreen(t, p, "BEFORE")
	go1 := func(n string) {
		t.Helper()
		if err := os.WriteFile(step(n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	go1("open")
	waitFrameHeld(t, p)
	select { // the opening read's redraw (or BEFORE's, late)
	case <-p.Dirty():
	default:
	}

	s := ansi.Strip(p.Render())
	if strings.Contains(s, "HALF") || !strings.Contains(s, "BEFORE") {
		t.Fatalf("an open frame shows:\n%s", s)
	}
	if x, y, _ := p.Cursor(); x != 6 || y != 2 {
		t.Errorf("cursor during the frame at %d,%d, want 6,2 (after BEFORE)", x, y)
	}
	// The frame's ED 2 pushed the three lines into the scrollback: the
	// scrolled view stays the one from before (no scrollback yet).
	if got, want := p.RenderScrolled(1), p.Render(); got != want {
		t.Errorf("scrolled view during the frame:\n%s\nwant:\n%s", ansi.Strip(got), ansi.Strip(want))
	}

	// More of the frame: read, not shown, no redraw asked.
	w := writes(p)
	go1("mid")
	deadline := time.After(testWait)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for writes(p) == w {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatal("the frame's second write was never read")
		}
	}
	if s := ansi.Strip(p.Render()); strings.Contains(s, "MID") || !strings.Contains(s, "BEFORE") {
		t.Fatalf("an open frame shows:\n%s", s)
	}
	select {
	case <-p.Dirty():
		t.Error("the pane asked for a redraw while the frame was held")
	default:
	}

	go1("end")
	s = waitScreen(t, p, "AFTER")
	if !strings.Contains(s, "HALF") || !strings.Contains(s, "MIDAFTER") || strings.Contains(s, "BEFORE") {
		t.Errorf("after the frame the screen is:\n%s", s)
	}
}

// A frame never closed is shown when its hold ends, without more output:
// the pane's timer asks for the redraw.
func TestPaneSyncFrameHoldEnds(t *testing.T) {
	t.Parallel()
	script := `stty raw -echo; printf 'BEFORE\033[?2026h\033[HHALF'; sleep 100`
	p := startPane(t, PaneSpec{Argv: []string{"sh", "-c", script}, Cols: 20, Rows: 4, Grace: time.Second})
	p.emu.SetSyncTimeout(50 * time.Millisecond) // before or after the frame opens: read when asked
	waitScreen(t, p, "HALF")                    // only a Dirty after the hold can show it
}

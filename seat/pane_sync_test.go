package seat

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// waitFrameHeld waits on Dirty until the emulator holds a frame.
func waitFrameHeld(t *testing.T, p *Pane) {
	t.Helper()
	deadline := time.After(testWait)
	for {
		if _, _, held := p.emu.FrameHeld(); held {
			return
		}
		select {
		case <-p.Dirty():
		case <-deadline:
			t.Fatalf("no frame was ever held; screen:\n%s", ansi.Strip(p.Render()))
		}
	}
}

// A CLI draws a synchronized frame (mode 2026) in two writes with a pause
// between: while the frame is open the pane shows the screen from before
// it, in Render, RenderScrolled and the cursor, and asks for no redraw;
// at the end it shows the whole frame.
func TestPaneSyncFrameNeverHalfDrawn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gofile := filepath.Join(dir, "go")
	script := `stty raw -echo; printf 'line1\r\nline2\r\nBEFORE'; ` +
		`printf '\033[?2026h\033[H\033[2JHALF\033[3;3H'; ` +
		`while [ ! -e "$1" ]; do sleep 0.01; done; ` +
		`printf 'AFTER\033[?2026l'; sleep 100`
	p := startPane(t, PaneSpec{Argv: []string{"sh", "-c", script, "sh", gofile}, Cols: 20, Rows: 4, Grace: time.Second})
	waitFrameHeld(t, p)

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
	select {
	case <-p.Dirty():
		if _, _, held := p.emu.FrameHeld(); held {
			t.Error("the pane asked for a redraw while the frame was held")
		}
	default:
	}

	if err := os.WriteFile(gofile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s = waitScreen(t, p, "AFTER")
	if !strings.Contains(s, "HALF") || strings.Contains(s, "BEFORE") {
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

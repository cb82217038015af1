package vt

import (
	"time"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// PATCH(pullcept): synchronized output, DEC private mode 2026 (README
// section 8). Between CSI ? 2026 h and CSI ? 2026 l the application draws
// a frame; Render, Draw, CursorPosition and CursorHidden show the screen as
// it was when the frame began, so a reader never sees half a frame. The
// parser keeps running (queries inside a frame are answered at once).

// DefaultSyncTimeout is how long an open frame holds the screen: tmux's
// (screen_write_start_sync, 1 s); kitty and others use 150 ms-1 s. A frame
// drawn by a program that died mid-frame shows after it.
const DefaultSyncTimeout = time.Second

// frameHold is the screen at the start of the open frame.
type frameHold struct {
	open    bool
	seq     uint64 // frames begun so far
	start   time.Time
	timeout time.Duration // 0: DefaultSyncTimeout
	now     func() time.Time
	buf     uv.Buffer // lines reused from frame to frame
	cur     Cursor
	pushed  int // the main screen's scrollback pushes at the start
}

func (e *Emulator) clock() time.Time {
	if e.frame.now != nil {
		return e.frame.now()
	}
	return time.Now()
}

func (e *Emulator) syncTimeout() time.Duration {
	if e.frame.timeout > 0 {
		return e.frame.timeout
	}
	return DefaultSyncTimeout
}

// beginFrame copies the screen; a frame already open keeps its copy and
// its deadline (a program repeating 2026h cannot hold the screen for ever).
func (e *Emulator) beginFrame() {
	if e.frame.open {
		return
	}
	f := &e.frame
	f.open = true
	f.seq++
	f.start = e.clock()
	f.cur = e.scr.cur
	f.pushed = e.scrs[0].pushed
	src := e.scr.buf.Lines
	if cap(f.buf.Lines) < len(src) {
		f.buf.Lines = make([]uv.Line, len(src))
	}
	f.buf.Lines = f.buf.Lines[:len(src)]
	for y, l := range src {
		f.buf.Lines[y] = append(f.buf.Lines[y][:0], l...)
	}
}

// endFrame shows the live screen again; resetMode also clears mode 2026
// (a resize or a frame past its time), as tmux does.
func (e *Emulator) endFrame(resetMode bool) {
	if !e.frame.open {
		return
	}
	e.frame.open = false
	if resetMode {
		e.modes[ansi.ModeSynchronizedOutput] = ansi.ModeReset
	}
}

// expireFrame ends a frame open longer than the timeout.
func (e *Emulator) expireFrame() {
	if e.frame.open && !e.frameHeld() {
		e.endFrame(true)
	}
}

// frameHeld reports whether readers see the copy. It only reads, so the
// SafeEmulator's readers may call it under the read lock.
func (e *Emulator) frameHeld() bool {
	return e.frame.open && e.clock().Sub(e.frame.start) < e.syncTimeout()
}

// FrameHeld reports whether an open synchronized frame holds what Render,
// Draw and the cursor show; seq numbers the frames (a new frame shows a
// new copy) and until is when the hold ends if the frame does not.
func (e *Emulator) FrameHeld() (seq uint64, until time.Time, held bool) {
	if !e.frameHeld() {
		return e.frame.seq, time.Time{}, false
	}
	return e.frame.seq, e.frame.start.Add(e.syncTimeout()), true
}

// FramePushed is how many lines went into the main screen's scrollback
// since the held frame began (0 when none is held): a reader showing the
// scrollback above the held screen skips that many newest lines.
func (e *Emulator) FramePushed() int {
	if !e.frameHeld() {
		return 0
	}
	return e.scrs[0].pushed - e.frame.pushed
}

// SetSyncTimeout sets how long an open frame holds the screen; d <= 0
// means DefaultSyncTimeout.
func (e *Emulator) SetSyncTimeout(d time.Duration) {
	e.frame.timeout = d
}

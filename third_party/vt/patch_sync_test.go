package vt

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
)

// fakeClock is a settable clock for the frame timeout.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// syncFrame is one frame as Claude Code draws it: open, rewrite every row
// (coloured, Japanese, some scrolling), move the cursor, close.
func syncFrame(k, w, h int) string {
	var b strings.Builder
	b.WriteString("\x1b[?2026h\x1b[?25l")
	for y := range h {
		fmt.Fprintf(&b, "\x1b[%d;1H\x1b[3%dmframe %d 行 %d\x1b[m\x1b[K", y+1, k%8, k, y)
	}
	if k%3 == 0 {
		// Scroll a line into the scrollback mid-frame.
		fmt.Fprintf(&b, "\x1b[%d;1H\r\nscrolled %d", h, k)
	}
	fmt.Fprintf(&b, "\x1b[%d;%dH\x1b[?25h\x1b[?2026l", k%h+1, k%w+1)
	return b.String()
}

type screenState struct {
	render string
	cur    uv.Position
	hidden bool
}

func stateOf(e *Emulator) screenState {
	return screenState{e.Render(), e.CursorPosition(), e.CursorHidden()}
}

// Whatever the writes are cut into, Render and the cursor show the screen
// before a frame or after it, never a part of one.
func TestPatchSyncNoHalfFrame(t *testing.T) {
	t.Parallel()
	const w, h, frames = 30, 8, 12
	const prefix = "before any frame\r\n"
	var stream strings.Builder
	for k := range frames {
		stream.WriteString(syncFrame(k, w, h))
	}
	data := stream.String() // frames only, back to back

	// The states between frames, from an emulator fed whole frames.
	ref := NewEmulator(w, h)
	_, _ = ref.WriteString(prefix)
	valid := map[screenState]bool{stateOf(ref): true}
	for k := range frames {
		_, _ = ref.WriteString(syncFrame(k, w, h))
		valid[stateOf(ref)] = true
	}

	for _, chunk := range []int{1, 3, 7, 64} {
		e := NewEmulator(w, h)
		clock := &fakeClock{t: time.Unix(1, 0)}
		e.frame.now = clock.now // the frames never time out here
		_, _ = e.WriteString(prefix)
		seen := map[screenState]bool{}
		for p := data; len(p) > 0; {
			n := min(chunk, len(p))
			_, _ = e.WriteString(p[:n])
			p = p[n:]
			st := stateOf(e)
			if !valid[st] {
				t.Fatalf("chunk %d: a half frame is visible after %d bytes:\n%s\ncursor %v hidden %v",
					chunk, len(data)-len(p), st.render, st.cur, st.hidden)
			}
			seen[st] = true
		}
		if len(seen) != len(valid) {
			t.Errorf("chunk %d: saw %d of the %d frame boundaries", chunk, len(seen), len(valid))
		}
	}
}

// Draw shows the held screen too.
func TestPatchSyncDrawHeld(t *testing.T) {
	t.Parallel()
	e := NewEmulator(10, 2)
	_, _ = e.WriteString("old")
	_, _ = e.WriteString("\x1b[?2026h\x1b[Hnew")
	scr := uv.NewScreenBuffer(10, 2)
	e.Draw(scr, scr.Bounds())
	if got := scr.CellAt(0, 0).Content + scr.CellAt(1, 0).Content + scr.CellAt(2, 0).Content; got != "old" {
		t.Errorf("Draw during the frame shows %q, want old", got)
	}
	_, _ = e.WriteString("\x1b[?2026l")
	e.Draw(scr, scr.Bounds())
	if got := scr.CellAt(0, 0).Content + scr.CellAt(1, 0).Content + scr.CellAt(2, 0).Content; got != "new" {
		t.Errorf("Draw after the frame shows %q, want new", got)
	}
}

// A frame never closed is shown once it is DefaultSyncTimeout old, and the
// mode is reset (DECRQM then answers 2), as in tmux.
func TestPatchSyncTimeout(t *testing.T) {
	t.Parallel()
	e := NewEmulator(20, 2)
	t.Cleanup(func() { _ = e.Close() })
	clock := &fakeClock{t: time.Unix(1, 0)}
	e.frame.now = clock.now
	_, _ = e.WriteString("old\x1b[?2026h\x1b[Hhalf")
	if got := plainLine(e.Render()); got != "old" {
		t.Fatalf("open frame shows %q, want old", got)
	}
	seq, until, held := e.FrameHeld()
	if !held || seq != 1 || !until.Equal(clock.now().Add(DefaultSyncTimeout)) {
		t.Fatalf("FrameHeld = %d %v %v, want 1, start+%v, true", seq, until, held, DefaultSyncTimeout)
	}
	clock.advance(DefaultSyncTimeout - time.Nanosecond)
	if got := plainLine(e.Render()); got != "old" {
		t.Fatalf("frame just before its time shows %q, want old", got)
	}
	clock.advance(time.Nanosecond)
	if got := plainLine(e.Render()); got != "half" {
		t.Fatalf("frame past its time shows %q, want half", got)
	}
	if _, _, held := e.FrameHeld(); held {
		t.Error("FrameHeld still true past the timeout")
	}
	if got := repliesTo(t, e, "\x1b[?2026$p"); got != "\x1b[?2026;2$y" {
		t.Errorf("DECRQM after the timeout = %q, want reset", got)
	}
	// A new frame holds again.
	_, _ = e.WriteString("\x1b[?2026h\x1b[Hnext")
	if got := plainLine(e.Render()); got != "half" {
		t.Errorf("second frame shows %q, want half", got)
	}
}

// A frame repeating 2026h keeps its copy and its deadline.
func TestPatchSyncRepeatedSetKeepsDeadline(t *testing.T) {
	t.Parallel()
	e := NewEmulator(20, 2)
	clock := &fakeClock{t: time.Unix(1, 0)}
	e.frame.now = clock.now
	_, _ = e.WriteString("old\x1b[?2026h\x1b[Ha")
	clock.advance(DefaultSyncTimeout / 2)
	_, _ = e.WriteString("\x1b[?2026h\x1b[Hb")
	if got := plainLine(e.Render()); got != "old" {
		t.Fatalf("shows %q, want old", got)
	}
	clock.advance(DefaultSyncTimeout / 2)
	if got := plainLine(e.Render()); got != "bld" {
		t.Errorf("after the first 2026h's timeout shows %q, want bld", got)
	}
}

// A resize ends the hold: the held copy has the old size.
func TestPatchSyncResizeReleases(t *testing.T) {
	t.Parallel()
	e := NewEmulator(20, 2)
	_, _ = e.WriteString("old\x1b[?2026h\x1b[Hnew")
	e.Resize(30, 3)
	if got := plainLine(e.Render()); got != "new" {
		t.Errorf("after resize shows %q, want new", got)
	}
	if lines := strings.Split(e.Render(), "\n"); len(lines) != 3 {
		t.Errorf("Render has %d lines after resize, want 3", len(lines))
	}
}

// Lines scrolled into the scrollback during a frame are counted, so a
// scrolled view can leave them out until the frame ends; RIS ends a frame.
func TestPatchSyncFramePushed(t *testing.T) {
	t.Parallel()
	e := NewEmulator(10, 2)
	_, _ = e.WriteString("a\r\nb\x1b[?2026h\r\nc\r\nd")
	if got := e.FramePushed(); got != 2 {
		t.Errorf("FramePushed = %d, want 2", got)
	}
	_, _ = e.WriteString("\x1bc")
	if _, _, held := e.FrameHeld(); held {
		t.Error("RIS left the frame held")
	}
	if got := e.FramePushed(); got != 0 {
		t.Errorf("FramePushed after the frame = %d, want 0", got)
	}
}

// With a SafeEmulator, a reader on another goroutine (the UI) never sees a
// half frame while a writer (the PTY reader) feeds frames in pieces. Run
// with -race.
func TestPatchSyncConcurrentReader(t *testing.T) {
	t.Parallel()
	const w, h, frames = 30, 8, 40
	ref := NewEmulator(w, h)
	valid := map[string]bool{ref.Render(): true}
	var stream strings.Builder
	for k := range frames {
		f := syncFrame(k, w, h)
		stream.WriteString(f)
		_, _ = ref.WriteString(f)
		valid[ref.Render()] = true
	}
	e := NewSafeEmulator(w, h)
	t.Cleanup(func() { _ = e.Close() })
	go func() { _, _ = io.Copy(io.Discard, e) }()
	done := make(chan struct{})
	go func() {
		defer close(done)
		data := stream.String()
		for i := 0; len(data) > 0; i++ {
			n := min(1+i%13, len(data))
			_, _ = e.Write([]byte(data[:n]))
			data = data[n:]
		}
	}()
	for reading := true; reading; {
		select {
		case <-done:
			reading = false
		default:
		}
		if r := e.Render(); !valid[r] {
			t.Fatalf("the reader saw a half frame:\n%s", r)
		}
	}
}

// plainLine is the first line of a render without styles or trailing blanks.
func plainLine(render string) string {
	first, _, _ := strings.Cut(render, "\n")
	return strings.TrimRight(stripSGR(first), " ")
}

func stripSGR(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			for i < len(s) && s[i] != 'm' {
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

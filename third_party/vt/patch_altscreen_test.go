package vt

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"

	uv "github.com/charmbracelet/ultraviolet"
)

// TestPatchAltScreenKeepsNoScrollback: the alternate screen's scrollback
// (never exposed, up to 10,000 lines) is gone; the main screen's stays, and
// erasing on the alternate screen is still safe.
func TestPatchAltScreenKeepsNoScrollback(t *testing.T) {
	e := NewEmulator(20, 5)
	_, _ = e.WriteString("\x1b[?1049h")
	for range 100 {
		_, _ = e.WriteString("alternate\r\n")
	}
	_, _ = e.WriteString("alternate\x1b[2J") // ED 2 saves the screen to the scrollback
	if sb := e.scrs[1].Scrollback(); sb.Len() != 0 {
		t.Errorf("alternate screen scrollback holds %d lines", sb.Len())
	}
	_, _ = e.WriteString("\x1b[3J") // ED 3 clears it: nil-safe
	_, _ = e.WriteString("\x1b[?1049l")
	for range 10 {
		_, _ = e.WriteString("main\r\n")
	}
	if n := e.ScrollbackLen(); n != 6 {
		t.Errorf("main screen scrollback holds %d lines, want 6", n)
	}
}

// TestPatchAltScreenAllocatedOnUse: a new emulator has no cells for the
// alternate screen, a resize does not make them, entering the alternate
// screen (1049 or 1047) makes them at the current size and leaving drops
// them again (change 13).
func TestPatchAltScreenAllocatedOnUse(t *testing.T) {
	e := NewEmulator(100, 30)
	if e.scrs[1].buf != nil {
		t.Fatal("a new emulator allocated the alternate screen's cells")
	}
	e.Resize(120, 40)
	if e.scrs[1].buf != nil {
		t.Fatal("a resize allocated the alternate screen's cells")
	}
	for _, mode := range []string{"1049", "1047"} {
		_, _ = e.WriteString("\x1b[?" + mode + "h")
		if !e.IsAltScreen() || e.scrs[1].buf == nil {
			t.Fatalf("?%sh: IsAltScreen %v, cells %v", mode, e.IsAltScreen(), e.scrs[1].buf != nil)
		}
		if w, h := e.scrs[1].Width(), e.scrs[1].Height(); w != 120 || h != 40 {
			t.Fatalf("?%sh: alternate screen %dx%d, want 120x40", mode, w, h)
		}
		_, _ = e.WriteString("\x1b[?" + mode + "l")
		if e.IsAltScreen() || e.scrs[1].buf != nil {
			t.Fatalf("?%sl: IsAltScreen %v, cells kept %v", mode, e.IsAltScreen(), e.scrs[1].buf != nil)
		}
	}
	_, _ = e.WriteString("\x1bc") // RIS on the main screen
	if e.scrs[1].buf != nil {
		t.Fatal("RIS allocated the alternate screen's cells")
	}
}

// emulatorHeap is the live heap of one new w x h emulator, averaged over n.
func emulatorHeap(w, h, n int) float64 {
	es := make([]*Emulator, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range es {
		es[i] = NewEmulator(w, h)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(es)
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
}

// TestPatchAltScreenHeap: the live heap of a new emulator grows with one
// screen's cells, not two (change 13). Measured as the difference between
// 100x30 and 1x1 emulators, so the parser's buffers and the scrollback's
// first ring do not count.
func TestPatchAltScreenHeap(t *testing.T) {
	small, large := emulatorHeap(1, 1, 16), emulatorHeap(100, 30, 16)
	screen := float64(100 * 30 * unsafe.Sizeof(uv.Cell{}))
	grown := large - small
	t.Logf("live heap of an emulator: 1x1 %.0f B, 100x30 %.0f B; one 100x30 screen's cells %.0f B", small, large, screen)
	if grown > 1.5*screen {
		t.Errorf("a 100x30 emulator holds %.0f B more than a 1x1 one: %.1f screens of cells, want 1", grown, grown/screen)
	}
}

// BenchmarkEmulatorLiveHeap reports the live heap of a new 100x30 emulator
// and of a 1x1 one (what does not grow with the size: mostly the parser's
// 4 MiB string buffer, see README "Not fixed").
func BenchmarkEmulatorLiveHeap(b *testing.B) {
	var large, small float64
	for b.Loop() {
		large += emulatorHeap(100, 30, 8)
		small += emulatorHeap(1, 1, 8)
	}
	b.ReportMetric(large/float64(b.N), "live-B/100x30")
	b.ReportMetric(small/float64(b.N), "live-B/1x1")
	b.ReportMetric((large-small)/float64(b.N), "live-B/cells")
}

// TestPatchAltScreenSameAsAllocated runs random switches, resizes, resets,
// scroll regions, saved cursors, synchronized frames and text through an
// emulator and through a twin whose alternate screen is given cells again
// after every step (so its buffer lives on while the main screen is shown,
// is resized and reset through Screen.Resize and Screen.Reset, as upstream's
// was), and checks after every step that both show the same (change 13).
func TestPatchAltScreenSameAsAllocated(t *testing.T) {
	steps := []string{
		"\x1b[?1049h", "\x1b[?1049l", "\x1b[?1047h", "\x1b[?1047l", "\x1b[?1048h", "\x1b[?1048l",
		"\x1b7", "\x1b8", "\x1b[s", "\x1b[u", "\x1b[3;8r", "\x1b[r", "\x1b[?6h", "\x1b[?6l",
		"\x1bc", "\x1b[2J", "\x1b[H", "\x1b[5;7H", "\x1b[?25l", "\x1b[?25h", "\x1b[?2026h", "\x1b[?2026l",
		"\x1b[31;44mred on blue\x1b[m", "日本語のテキスト", "line\r\n", "\r\n\r\n\r\n", "\x1b[L", "\x1b[2M",
		"\x1b[?7l", "\x1b[?7h", "0123456789012345678901234567890123456789",
	}
	rng := rand.New(rand.NewPCG(13, 1))
	var cbLazy, cbRef []string
	callbacks := func(log *[]string) Callbacks {
		return Callbacks{
			AltScreen:        func(on bool) { *log = append(*log, fmt.Sprint("alt ", on)) },
			CursorVisibility: func(v bool) { *log = append(*log, fmt.Sprint("visible ", v)) },
		}
	}
	lazy, ref := NewEmulator(20, 8), NewEmulator(20, 8)
	lazy.SetCallbacks(callbacks(&cbLazy))
	ref.SetCallbacks(callbacks(&cbRef))
	ref.allocAltScreen()
	var trace []string
	for i := range 3000 {
		if rng.IntN(12) == 0 {
			w, h := 5+rng.IntN(30), 3+rng.IntN(12)
			trace = append(trace, fmt.Sprintf("resize %dx%d", w, h))
			lazy.Resize(w, h)
			ref.Resize(w, h)
		} else {
			s := steps[rng.IntN(len(steps))]
			trace = append(trace, fmt.Sprintf("%q", s))
			_, _ = lazy.WriteString(s)
			_, _ = ref.WriteString(s)
		}
		ref.allocAltScreen()
		fail := func(what string, got, want any) {
			t.Helper()
			t.Fatalf("step %d (last steps %v): %s\n got %v\nwant %v", i, trace[max(0, len(trace)-8):], what, got, want)
		}
		if got, want := lazy.Render(), ref.Render(); got != want {
			fail("Render", got, want)
		}
		if got, want := lazy.CursorPosition(), ref.CursorPosition(); got != want {
			fail("CursorPosition", got, want)
		}
		if got, want := lazy.CursorHidden(), ref.CursorHidden(); got != want {
			fail("CursorHidden", got, want)
		}
		if got, want := lazy.IsAltScreen(), ref.IsAltScreen(); got != want {
			fail("IsAltScreen", got, want)
		}
		if got, want := lazy.ScrollbackLen(), ref.ScrollbackLen(); got != want {
			fail("ScrollbackLen", got, want)
		}
		if got, want := lazy.atPhantom, ref.atPhantom; got != want {
			fail("pending wrap", got, want)
		}
		for k := range lazy.scrs {
			l, r := &lazy.scrs[k], &ref.scrs[k]
			if l.scroll != r.scroll || l.cur != r.cur || l.saved != r.saved {
				fail(fmt.Sprintf("screen %d scroll, cursor, saved cursor", k),
					[]any{l.scroll, l.cur, l.saved}, []any{r.scroll, r.cur, r.saved})
			}
		}
		if !slices.Equal(cbLazy, cbRef) {
			fail("callbacks", cbLazy, cbRef)
		}
		if !lazy.IsAltScreen() && lazy.scrs[1].buf != nil {
			fail("alternate cells kept on the main screen", true, false)
		}
	}
}

// TestPatchAltScreenSwitch checks the switch itself on fixed input, as
// upstream behaves (it passes with upstream's two allocated screens too):
// 1049 keeps the main screen and its cursor, enters a blank alternate
// screen at the size of the last resize with the cursor at the top left,
// and a resize while on the alternate screen resizes both.
func TestPatchAltScreenSwitch(t *testing.T) {
	e := NewEmulator(10, 4)
	_, _ = e.WriteString("main\r\nscreen\x1b[2;3H")
	e.Resize(12, 5)
	_, _ = e.WriteString("\x1b[?1049h")
	if !e.IsAltScreen() || e.CursorPosition() != uv.Pos(0, 0) || strings.TrimSpace(e.String()) != "" {
		t.Fatalf("entering: alt %v, cursor %v, screen %q", e.IsAltScreen(), e.CursorPosition(), e.String())
	}
	_, _ = e.WriteString("\x1b[5;1H123456789012") // the last row, all 12 columns
	if got := e.scr.buf.Line(4).String(); got != "123456789012" {
		t.Fatalf("alternate screen's last row %q", got)
	}
	_, _ = e.WriteString("\x1b[3;4Hsaved\x1b7\x1b[Hx")
	e.Resize(8, 3)
	if w, h := e.Width(), e.Height(); w != 8 || h != 3 {
		t.Fatalf("resized in the alternate screen: %dx%d", w, h)
	}
	_, _ = e.WriteString("\x1b[?1049l")
	if e.IsAltScreen() || strings.TrimSpace(e.String()) != "main\nscreen" || e.CursorPosition() != uv.Pos(2, 1) {
		t.Fatalf("leaving: alt %v, screen %q, cursor %v", e.IsAltScreen(), e.String(), e.CursorPosition())
	}
	if w, h := e.Width(), e.Height(); w != 8 || h != 3 {
		t.Fatalf("main screen after a resize in the alternate one: %dx%d", w, h)
	}
	// Entering again: blank (the old text is gone), and DECRC restores the
	// cursor saved there before.
	_, _ = e.WriteString("\x1b[?1049h")
	if strings.TrimSpace(e.String()) != "" {
		t.Fatalf("entering again: screen %q, want blank", e.String())
	}
	_, _ = e.WriteString("\x1b8")
	// Saved at column 9 of 12, restored on the 8x3 screen: clamped to it
	// since change 15 (upstream left the cursor at (8,2), off the screen).
	if got := e.CursorPosition(); got != uv.Pos(7, 2) {
		t.Fatalf("cursor after DECRC on the alternate screen %v, want (7,2)", got)
	}
	_, _ = e.WriteString("\x1b[?1049l")
	if got := strings.TrimSpace(e.String()); got != "main\nscreen" {
		t.Fatalf("leaving again: screen %q", got)
	}
}

// TestPatchScrollRegionPastScreen: a scroll region reaching past the screen
// (DECSTBM does not clamp it) is clamped to the screen for IL and DL, on a
// screen never resized, on one made smaller, and on the alternate screen
// (made at the current size when entered): no panic, and the rows tmux
// shows (it clamps the region when it is set).
func TestPatchScrollRegionPastScreen(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func() *Emulator
	}{
		{"main", func() *Emulator { return NewEmulator(10, 5) }},
		{"main resized", func() *Emulator { e := NewEmulator(10, 8); e.Resize(10, 5); return e }},
		{"alternate", func() *Emulator {
			e := NewEmulator(10, 8)
			e.Resize(10, 5)
			_, _ = e.WriteString("\x1b[?1049h")
			return e
		}},
	} {
		for _, op := range []struct{ seq, want string }{
			{"\x1b[3;1H\x1b[M", "a1\nb2\nd4\ne5"},                       // DL: a blank row comes in at the bottom
			{"\x1b[3;1H\x1b[L", "a1\nb2\n\nc3\nd4"},                     // IL: the last row goes
			{"\x1b[3;1H\x1b[9M", "a1\nb2"},                              // DL more than the region holds
			{"\x1b[2;1H\x1b[S", "a1\nc3\nd4\ne5"},                       // SU
			{"\x1b[?69h\x1b[2;40s\x1b[3;2H\x1b[M", "a1\nb2\nc4\nd5\ne"}, // a right margin past the screen too
		} {
			e := c.setup()
			_, _ = e.WriteString("a1\r\nb2\r\nc3\r\nd4\r\ne5\x1b[2;100r" + op.seq)
			if got := strings.TrimRight(e.String(), "\n"); got != op.want {
				t.Errorf("%s, %q: screen %q, want %q", c.name, op.seq, got, op.want)
			}
			_, _ = e.WriteString(strings.Repeat("\n", 120)) // line feeds reach the region's bottom
		}
	}
}

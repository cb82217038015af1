package vt

// PATCH(pullcept): tests of patch_bounds.go. Output of any program in a pane
// reaches the emulator, and a panic in it ends the server with every
// session: random and fuzzed sequences must never panic, and after each
// write the cursor and the scroll region are on the screen.

import (
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"strings"
	"testing"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi/parser"
)

// TestPatchMarginsClampedWhenSet: DECSTBM and DECSLRM keep their margins to
// the screen when they are set, as xterm does: a bottom or right margin past
// the screen is its last row or column, and a region then of fewer than two
// rows or columns is ignored, as before.
func TestPatchMarginsClampedWhenSet(t *testing.T) {
	for _, c := range []struct {
		w, h   int
		seq    string
		region uv.Rectangle
		cursor uv.Position
	}{
		{10, 5, "\x1b[2;100r", uv.Rect(0, 1, 10, 4), uv.Pos(0, 0)},
		{10, 5, "\x1b[3;3H\x1b[104;92r", uv.Rect(0, 0, 10, 5), uv.Pos(2, 2)}, // ignored
		{10, 5, "\x1b[3;3H\x1b[5;100r", uv.Rect(0, 0, 10, 5), uv.Pos(2, 2)},  // one row: ignored
		{10, 5, "\x1b[?69h\x1b[3;100s", uv.Rect(2, 0, 8, 5), uv.Pos(0, 0)},
		{10, 5, "\x1b[?69h\x1b[3;3H\x1b[12;20s", uv.Rect(0, 0, 10, 5), uv.Pos(2, 2)},
		{80, 24, "\x1b[?69h\x1b[?6h\x1b[46;98s\x1b[104;92r", uv.Rect(45, 0, 35, 24), uv.Pos(45, 0)},
		// CUF stops at the right margin, which was past the screen; HTS and
		// TBC there indexed past the tab stops.
		{3, 2, "\x1b[?69h\x1b[2;100s\x1b[1;2H\x1b[99C\x1bH\x1b[g", uv.Rect(1, 0, 2, 2), uv.Pos(2, 0)},
		// The same below a bottom margin past the screen.
		{3, 3, "\x1b[2;100r\x1b[2;1H\x1b[99B", uv.Rect(0, 1, 3, 2), uv.Pos(0, 2)},
	} {
		e := NewEmulator(c.w, c.h)
		_, _ = e.WriteString(c.seq)
		if r, cur := e.scr.ScrollRegion(), e.CursorPosition(); r != c.region || cur != c.cursor {
			t.Errorf("%dx%d %q: region %v, cursor %v; want %v, %v", c.w, c.h, c.seq, r, cur, c.region, c.cursor)
		}
	}

	// The first panic found: ICH inside a right margin past the width moved
	// cells from past the line (index out of range [95] with length 80).
	// The margin is the last column: the row's tail moves right, off it.
	e := NewEmulator(80, 24)
	row := strings.Repeat("0123456789", 8)
	_, _ = e.WriteString(row + "\x1b[?69h\x1b[?6h\x1b[46;98s\x1b[1;5H\x1b[2@")
	if got, want := e.scr.buf.Line(0).String(), row[:49]+"  "+row[49:78]; got != want {
		t.Errorf("row 0 after ICH: %q, want %q", got, want)
	}
}

// TestPatchCursorOnScreenAfterResize: a cursor saved (DECSC) or kept by the
// screen not shown is clamped to a smaller screen when it comes back, as in
// xterm and tmux; upstream put it back off the screen, where HTS and TBC
// indexed past the tab stops.
func TestPatchCursorOnScreenAfterResize(t *testing.T) {
	for _, c := range []struct {
		name, before, after string
	}{
		{"DECRC", "\x1b[20;70H\x1b7", "\x1b8"},
		{"1048", "\x1b[20;70H\x1b[?1048h", "\x1b[?1048l"},
		{"main screen", "\x1b[20;70H\x1b[?1047h", "\x1b[?1047l"},
		{"alternate screen's DECRC", "\x1b[?1049h\x1b[20;70H\x1b7\x1b[?1049l", "\x1b[?1049h\x1b8"},
	} {
		e := NewEmulator(80, 24)
		_, _ = e.WriteString(c.before)
		e.Resize(10, 5)
		_, _ = e.WriteString(c.after)
		if got := e.CursorPosition(); got != uv.Pos(9, 4) {
			t.Errorf("%s: cursor %v on the 10x5 screen, want (9,4)", c.name, got)
		}
		_, _ = e.WriteString("\x1bH\x1b[0g\x88") // HTS, TBC, C1 HTS at the cursor
	}
}

// boundsStep is one step of an input: bytes to write, or a resize to w x h.
type boundsStep struct {
	data string
	w, h int
}

func (s boundsStep) String() string {
	if s.w > 0 {
		return fmt.Sprintf("resize %dx%d", s.w, s.h)
	}
	return fmt.Sprintf("%q", s.data)
}

// boundsGen makes random steps; it knows the screen's size so that counts
// and margins can hit its edges.
type boundsGen struct {
	r    *rand.Rand
	w, h int
}

func (g *boundsGen) pick(s ...string) string { return s[g.r.IntN(len(s))] }

// n is a parameter: mostly 0-130 (the search that found the first panic),
// sometimes an edge of the screen or up to 999.
func (g *boundsGen) n() int {
	switch g.r.IntN(8) {
	case 0:
		return []int{0, 1, g.w - 1, g.w, g.w + 1, g.h - 1, g.h, g.h + 1}[g.r.IntN(8)]
	case 1:
		return g.r.IntN(1000)
	default:
		return g.r.IntN(131)
	}
}

var boundsText = []string{
	"x", "ab ", "日本", "語", "e\u0301", "\u0301", "か\u3099", "ｶﾞ", "ＡＢ", "한",
	"क्षि", "👍🏽", "👨\u200d👩\u200d👧", "🇯🇵", "\u200d", "a\u20dd", "é", "\xe6\x97", "\xff",
}

var boundsItems = []func(g *boundsGen) string{
	// Margins.
	func(g *boundsGen) string { return g.pick("\x1b[?69h", "\x1b[?69l", "\x1b[r", "\x1b[s", "\x1b[u") },
	func(g *boundsGen) string { return fmt.Sprintf("\x1b[%d;%ds", g.n(), g.n()) },
	func(g *boundsGen) string { return fmt.Sprintf("\x1b[%ds", g.n()) },
	func(g *boundsGen) string { return fmt.Sprintf("\x1b[%d;%dr", g.n(), g.n()) },
	func(g *boundsGen) string { return fmt.Sprintf("\x1b[%dr", g.n()) },
	// Editing by a count: ICH, DCH, IL, DL, ECH, REP, SU, SD, DECIC, DECDC, SL, SR.
	func(g *boundsGen) string {
		return fmt.Sprintf("\x1b[%d%s", g.n(), g.pick("@", "P", "L", "M", "X", "b", "S", "T", "'}", "'~", " @", " A"))
	},
	func(g *boundsGen) string {
		return fmt.Sprintf("\x1b[%s%d%s", g.pick("", "?"), g.r.IntN(4), g.pick("J", "K"))
	},
	// Cursor moves and tabs.
	func(g *boundsGen) string {
		return fmt.Sprintf("\x1b[%d%s", g.n(), g.pick("A", "B", "C", "D", "E", "F", "G", "I", "Z", "`", "a", "d", "e", "g"))
	},
	func(g *boundsGen) string { return fmt.Sprintf("\x1b[%d;%d%s", g.n(), g.n(), g.pick("H", "f")) },
	func(g *boundsGen) string {
		return g.pick("\x1bD", "\x1bE", "\x1bM", "\x1bH", "\x1b7", "\x1b8", "\x1b6", "\x1b9", "\x1b#8",
			"\n", "\r", "\b", "\t", "\v", "\f", "\x84", "\x85", "\x88", "\x8d")
	},
	// Modes: origin, insert, autowrap, new line, margins, screens, frames.
	func(g *boundsGen) string {
		return "\x1b[" + g.pick("?6", "4", "?7", "20", "?69", "?1049", "?1047", "?1048", "?47", "?2026",
			"?25", "?5", "?3", "?2048", "?1") + g.pick("h", "l")
	},
	func(g *boundsGen) string { return g.pick("\x1bc", "\x1b[!p") },
	// Text: runs about a line long, and single clusters.
	func(g *boundsGen) string {
		return strings.Repeat(g.pick(boundsText...), g.r.IntN(g.w+3))
	},
	func(g *boundsGen) string { return g.pick(boundsText...) },
	func(g *boundsGen) string {
		return g.pick("\x1b(0", "\x1b(B", "\x1b)0", "\x0e", "\x0f", "\x1bN", "\x1bO", "\x1bn")
	},
	func(g *boundsGen) string {
		return g.pick("\x1b[41m", "\x1b[m", "\x1b[7;1;4m", "\x1b[48;2;1;2;3m", "\x1b[4:3m",
			"\x1b]8;;http://x\x07", "\x1b]8;;\x07", "\x1b]0;title\x07")
	},
	// Queries (newBoundsEmulator drops the replies).
	func(g *boundsGen) string {
		return g.pick("\x1b[6n", "\x1b[?6n", "\x1b[5n", "\x1b[c", "\x1b[>c", "\x1b[18t",
			"\x1bP$qr\x1b\\", "\x1bP$qs\x1b\\", "\x1bP$qm\x1b\\", "\x1b[?2026$p", "\x1b]4;1;?\x07", "\x1b]11;?\x07")
	},
	// Any CSI: a private marker, parameters with subparameters, an
	// intermediate byte and any final byte.
	func(g *boundsGen) string {
		var b strings.Builder
		b.WriteString("\x1b[" + g.pick("", "", "?", ">", "=", "<"))
		for i := range g.r.IntN(5) {
			if i > 0 {
				b.WriteString(g.pick(";", ";", ":"))
			}
			fmt.Fprint(&b, g.n())
		}
		b.WriteString(g.pick("", "", "", " ", "$", "'", "!", "\"", "*"))
		b.WriteByte(byte(0x40 + g.r.IntN(0x3f)))
		return b.String()
	},
	func(g *boundsGen) string {
		var b strings.Builder
		b.WriteString("\x1b[")
		for i := range 1 + g.r.IntN(6) {
			if i > 0 {
				b.WriteString(g.pick(";", ":"))
			}
			b.WriteString(g.pick("0", "1", "2", "4", "5", "38", "48", "58", "255", "256", "999", ""))
		}
		return b.String() + "m"
	},
	// Any OSC, and DCS.
	func(g *boundsGen) string {
		return fmt.Sprintf("\x1b]%s;%s%s", g.pick("0", "1", "2", "4", "7", "8", "10", "11", "12", "52", "104", "110", "133", ""),
			g.pick("", "?", "1;?", "x;y", "999;?", "-1;rgb:1/2/3", ";", "1;2;3", "rgb:", "#12", "file://h/p"),
			g.pick("\x07", "\x1b\\"))
	},
	func(g *boundsGen) string {
		return "\x1bP" + g.pick("", "$q", "1$r", "+q", "q") + g.pick("", "m", "r", "s", " q", "\"p", "t", "x") + "\x1b\\"
	},
	// Bytes of any kind.
	func(g *boundsGen) string {
		b := make([]byte, 1+g.r.IntN(12))
		for i := range b {
			b[i] = byte(g.r.IntN(256))
		}
		return string(b)
	},
}

// boundsSizes are the sizes the random test starts at and resizes to, with
// the smallest screens and random ones.
var boundsSizes = [][2]int{{80, 24}, {1, 1}, {2, 1}, {1, 2}, {2, 2}, {3, 3}, {10, 5}, {20, 8}}

func (g *boundsGen) size() (int, int) {
	if g.r.IntN(4) == 0 {
		return 1 + g.r.IntN(40), 1 + g.r.IntN(12)
	}
	s := boundsSizes[g.r.IntN(len(boundsSizes))]
	return s[0], s[1]
}

// boundsInput is the random input of a seed: a size and n steps.
func boundsInput(seed uint64, n int) (w, h int, steps []boundsStep) {
	g := &boundsGen{r: rand.New(rand.NewPCG(seed, 0))}
	g.w, g.h = g.size()
	w, h = g.w, g.h
	for range n {
		if g.r.IntN(12) == 0 {
			g.w, g.h = g.size()
			steps = append(steps, boundsStep{w: g.w, h: g.h})
			continue
		}
		steps = append(steps, boundsStep{data: boundsItems[g.r.IntN(len(boundsItems))](g)})
	}
	return w, h, steps
}

// newBoundsEmulator is a w x h emulator for runBounds. Replies to queries
// are dropped: with the reading end closed they do not block.
func newBoundsEmulator(w, h int) *Emulator {
	e := NewEmulator(w, h)
	_ = e.pr.Close()
	// A cursor callback changes how text is printed (patch_fastpath.go).
	e.SetCallbacks(Callbacks{CursorPosition: func(_, _ uv.Position) {}})
	return e
}

// renewBounds makes e as a new w x h emulator would be for runBounds (RIS,
// ED 3 and a resize; title and colours may be left) and reports whether it
// could: not when the parser is left inside a string. A new emulator costs 2
// ms (the parser's 4 MiB buffer, then a garbage collection), more than the
// rest of a random input.
func renewBounds(e *Emulator, w, h int) bool {
	e.Resize(w, h)
	_, _ = e.WriteString("\x18\x1bc\x1b[3J")
	return e.parser.State() == parser.GroundState && e.ScrollbackLen() == 0 && !e.IsAltScreen()
}

// runBounds plays steps on e, each write cut in two at a point cut picks
// (so sequences and characters are split across writes), and returns the
// first panic or broken bound, with the stack of a panic.
func runBounds(e *Emulator, steps []boundsStep, cut func(n int) int) (failure, stack string) {
	defer func() {
		if r := recover(); r != nil {
			failure, stack = fmt.Sprintf("panic: %v", r), string(debug.Stack())
		}
	}()
	for i, s := range steps {
		if s.w > 0 {
			e.Resize(s.w, s.h)
		} else {
			k := cut(len(s.data))
			_, _ = e.WriteString(s.data[:k])
			_, _ = e.WriteString(s.data[k:])
		}
		if f := boundsBroken(e); f != "" {
			return fmt.Sprintf("after step %d (%v): %s", i, s, f), ""
		}
	}
	return boundsBroken(e) + boundsRenders(e), ""
}

// boundsBroken says what is off the screen: the cursor (as drawn and as
// kept) or a screen's scroll region.
func boundsBroken(e *Emulator) string {
	screen := e.Bounds()
	if c := e.CursorPosition(); !c.In(screen) {
		return fmt.Sprintf("cursor %v off the %dx%d screen", c, screen.Dx(), screen.Dy())
	}
	if c := e.scr.cur.Position; !c.In(screen) {
		return fmt.Sprintf("cursor kept at %v, off the %dx%d screen", c, screen.Dx(), screen.Dy())
	}
	for i := range e.scrs {
		if r := e.scrs[i].scroll; r.Empty() || !r.In(screen) {
			return fmt.Sprintf("screen %d's scroll region %v not on the %dx%d screen", i, r, screen.Dx(), screen.Dy())
		}
	}
	return ""
}

// boundsRenders says what is wrong with the emulator's output: Render has a
// line per row, and String, Draw and the scrollback can be read.
func boundsRenders(e *Emulator) string {
	if n := strings.Count(e.Render(), "\n") + 1; n != e.Height() {
		return fmt.Sprintf("Render has %d lines for %d rows", n, e.Height())
	}
	_ = e.String()
	e.Draw(uv.NewScreenBuffer(e.Width(), e.Height()), e.Bounds())
	for i := range e.ScrollbackLen() {
		_ = e.Scrollback().Line(i)
	}
	return ""
}

// TestRandomSequencesNeverPanic plays 3,000 random inputs of 40 steps
// (margins set past the screen, every count-taking edit, cursor moves,
// origin and insert mode, both screens, RIS, wide characters and combining
// marks, queries, bytes of any kind, resizes to sizes from 1x1 up) and
// checks after every step that nothing panicked and the cursor and the
// scroll regions are on the screen, and at the end that the screen renders.
func TestRandomSequencesNeverPanic(t *testing.T) {
	t.Parallel()
	// In two halves, which run at once on two cores (under 5 s with -race).
	for half := range uint64(2) {
		t.Run(fmt.Sprint(half), func(t *testing.T) {
			t.Parallel()
			randomBounds(t, half, 3000, 2, 40)
		})
	}
}

// randomBounds plays the seeds below n that are first mod step, with steps
// steps each, on one emulator renewed between them, and reports the first
// five that fail as played on a new emulator.
func randomBounds(t *testing.T, first, n, step uint64, steps int) {
	var e *Emulator
	failed := 0
	for seed := first; seed < n; seed += step {
		w, h, steps := boundsInput(seed, steps)
		cuts := func() func(int) int {
			r := rand.New(rand.NewPCG(seed, 1))
			return func(n int) int { return r.IntN(n + 1) }
		}
		if e == nil || !renewBounds(e, w, h) {
			e = newBoundsEmulator(w, h)
		}
		failure, _ := runBounds(e, steps, cuts())
		if failure == "" {
			continue
		}
		// Reported as played on a new emulator (the one used may have been
		// left broken by the panic).
		e = nil
		fresh, stack := runBounds(newBoundsEmulator(w, h), steps, cuts())
		if fresh == "" {
			fresh = "only after the seeds before it: " + failure
		}
		var b strings.Builder
		for _, s := range steps {
			fmt.Fprintf(&b, "\n\t%v", s)
		}
		t.Errorf("seed %d, %dx%d: %s\nsteps:%s\n%s", seed, w, h, fresh, b.String(), stack)
		if failed++; failed == 5 {
			t.Fatal("more seeds may fail")
		}
	}
}

// FuzzEmulatorNeverPanics writes data to a w x h emulator in two writes,
// resizing to w2 x h2 between them, and checks what the random test checks.
func FuzzEmulatorNeverPanics(f *testing.F) {
	// Like the input the first random search panicked on: ICH with a right
	// margin past the width (index out of range [95] with length 80).
	f.Add(uint8(80), uint8(24), []byte("\x1b[?69h\x1b[?6h\x1b[46;98s\x1b[104;92r\x1b[4h\x1b[2@\x1b[129@\x1b[76P"+
		"\x1b[3L\x1b[111M\x1b[20b\x1b[9'}\x1b[5'~\x1b[200G\x1b[99;99H\x1b[?1049hx\x1bc"), uint16(0), uint8(80), uint8(24))
	// DECSTBM past the screen, then the cursor below it.
	f.Add(uint8(10), uint8(5), []byte("\x1b[2;100r\x1b[?6h\x1b[99Bx\x1bH\x1b[g\n\n\n"), uint16(3), uint8(3), uint8(2))
	// DECRC after a resize, then HTS there (index out of range [1] with
	// length 1 in TabStops.Set).
	f.Add(uint8(80), uint8(24), []byte("\x1b[99;99H\x1b7\x1b8\x1bH"), uint16(10), uint8(10), uint8(5))
	// The main screen's cursor after a resize on the alternate one.
	f.Add(uint8(10), uint8(5), []byte("\x1b[5;9H\x1b[?1049h\x1b[?1049l\x1bH"), uint16(14), uint8(2), uint8(1))
	// Wide characters and margins on a 1x1 screen.
	f.Add(uint8(1), uint8(1), []byte("日本e\u0301\x1b[2@\x1b[?69h\x1b[1;2s\x1b[P\t\x1bH"), uint16(4), uint8(2), uint8(1))
	// Sizes 1 to 160 by 1 to 64; a byte within them is the size.
	size := func(b uint8, most int) int { return 1 + (int(b)+most-1)%most }
	f.Fuzz(func(t *testing.T, w, h uint8, data []byte, cut uint16, w2, h2 uint8) {
		k := int(cut) % (len(data) + 1)
		steps := []boundsStep{{data: string(data[:k])}, {w: size(w2, 160), h: size(h2, 64)}, {data: string(data[k:])}}
		e := newBoundsEmulator(size(w, 160), size(h, 64))
		if failure, stack := runBounds(e, steps, func(int) int { return 0 }); failure != "" {
			t.Fatalf("%s\n%s", failure, stack)
		}
	})
}

package vt

// PATCH(pullcept): faster ways through the parse of text, each giving
// exactly what the parser and the per-character path give (README, change
// 14). The emulator's slow field turns all of them off, so the tests can
// compare the two cell for cell.
//
//   - Write hands a run of printable text in the ground state (printable
//     ASCII and whole, valid UTF-8 characters) to printRun instead of the
//     parser, byte by byte. The last character of a run still goes through
//     the parser, so it ends in the state it would have had.
//   - printRun writes printable ASCII a line at a time (writeASCII): no
//     grapheme buffer, no segmenter, the pen copied once, the line touched
//     once, when no single shift, character set, or cursor callback makes a
//     character anything but itself.
//   - flushGrapheme knows without the segmenter where the clusters of
//     common characters end (flushSimple), and takes their strings from a
//     small cache instead of allocating one per character (clusterString).
//   - Cells are compared without the colours' RGBA methods when their types
//     and values are the same (cellEqualUV), and autowrap is a field, not a
//     map lookup per character.

import (
	"image/color"
	"unicode/utf8"
	"unsafe"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// runChar is the size of the printable character at p[i] that printRun
// may take from the parser (printable ASCII, or a whole valid UTF-8
// sequence of a rune from U+00A0 on), and whether it is ASCII; 0 if none.
func runChar(p []byte, i int) (size int, ascii bool) {
	if i >= len(p) {
		return 0, false
	}
	b := p[i]
	if b >= ansi.SP && b < ansi.DEL {
		return 1, true
	}
	if b < 0xC2 || b > 0xF4 {
		return 0, false // controls, DEL, continuation bytes, C0/C1 and F5-FF leads
	}
	r, n := utf8.DecodeRune(p[i:])
	if r == utf8.RuneError || r < 0xA0 {
		// Invalid or cut short: the parser's way. U+0080-U+009F too: the
		// parser prints them, but leave anything control-like to it.
		return 0, false
	}
	return n, false
}

// printRun takes the printable characters at the start of p (in the ground
// state) but the last one, and prints them as the parser's Print calls
// would, one handlePrint per character. It returns the bytes it took.
func (e *Emulator) printRun(p []byte) int {
	i := 0
	n, ascii := runChar(p, 0)
	for n > 0 {
		if !ascii {
			m, nextASCII := runChar(p, i+n)
			if m == 0 {
				return i // the last: the parser's
			}
			// handlePrint of a rune from U+00A0 on: onto the cluster being
			// composed (its UTF-8 bytes, which these are).
			e.grapheme = append(e.grapheme, p[i:i+n]...)
			i, n, ascii = i+n, m, nextASCII
			continue
		}
		// A run of ASCII: all but its last character go straight to the
		// screen; the last is held as handlePrint holds it, because a
		// combining mark after it would join it.
		j := i + 1
		for j < len(p) && p[j] >= ansi.SP && p[j] < ansi.DEL {
			j++
		}
		if j-1 > i {
			e.printASCII(p[i : j-1])
		}
		m, nextASCII := runChar(p, j)
		if m == 0 {
			return j - 1 // the run ends with this ASCII: its last byte is the parser's
		}
		e.handlePrint(rune(p[j-1]))
		i, n, ascii = j, m, nextASCII
	}
	return i
}

// printASCII prints run (printable ASCII) as handlePrint would, character
// by character: each one proves the cluster before it complete, so what is
// buffered goes out first and every character is a cluster of width 1.
func (e *Emulator) printASCII(run []byte) {
	e.flushGrapheme()
	if e.gsingle != 0 {
		// A single shift applies to the first character only.
		e.handleGrapheme(asciiStr[run[0]], 1)
		run = run[1:]
	}
	if e.charsets[e.gl] != nil || e.cb.CursorPosition != nil {
		// Mapped characters, or a callback for every move: one by one.
		for _, b := range run {
			e.handleGrapheme(asciiStr[b], 1)
		}
		return
	}
	for len(run) > 0 {
		run = run[e.writeASCII(run):]
	}
}

// writeASCII writes the characters of run that go on the cursor's line (at
// least one) and returns how many: handleGrapheme for each, with autowrap,
// the pending wrap, the pen and the link as it has them, no character set,
// no single shift and no cursor callback.
func (e *Emulator) writeASCII(run []byte) int {
	s := e.scr
	awm := e.awm
	x, y := s.cur.X, s.cur.Y
	w, h := s.Width(), s.Height()
	if x < 0 || x >= w || y < 0 || y >= h {
		// Not a place setCursor leaves the cursor: handleGrapheme's way.
		e.handleGrapheme(asciiStr[run[0]], 1)
		return 1
	}
	if e.atPhantom && awm {
		e.index()
		y = s.cur.Y
		x = 0
		if y >= h {
			// A scroll region reaching past the screen (DECSTBM does not
			// clamp) took the cursor below it: handleGrapheme writes
			// nowhere, then the cursor comes back.
			e.lastChar = rune(run[0])
			e.atPhantom = awm && x+1 >= w
			s.setCursor(x+1, y, false)
			return 1
		}
	}
	line := s.buf.Lines[y]
	n := min(len(run), w-x)
	cell := uv.Cell{Width: 1, Style: s.cur.Pen, Link: s.cur.Link}
	first, last := w, -1 // the columns to touch, as SetCell would
	for k, b := range run[:n] {
		cx := x + k
		cell.Content = asciiStr[b]
		p := &line[cx]
		if !cellEqualUV(p, &cell) {
			first = min(first, cx)
			last = max(last, cx+max(1, p.Width))
		}
		if p.Width == 1 {
			*p = cell
		} else {
			line.Set(cx, &cell) // over a wide character: uv blanks the rest of it
		}
	}
	if last >= 0 {
		s.buf.TouchLine(first, y, last-first)
	}
	e.lastChar = rune(run[n-1])
	x += n
	e.atPhantom = awm && x >= w
	s.setCursor(x, y, false)
	return n
}

// setCell is uv.RenderBuffer.SetCell for a non-nil cell, comparing the old
// cell with cellEqualUV.
func (s *Screen) setCell(x, y int, c *uv.Cell) {
	b := s.buf
	if p := b.CellAt(x, y); p == nil || !cellEqualUV(p, c) {
		width := 1
		if c.Width > 0 {
			width = c.Width
		}
		if p != nil && p.Width > 0 {
			width = max(width, p.Width)
		}
		b.TouchLine(x, y, width)
	}
	b.Buffer.SetCell(x, y, c)
}

// cellEqualUV is (*uv.Cell).Equal: colours are equal when their RGBA
// values are; here colours of the same type and value are taken as equal
// without calling RGBA.
func cellEqualUV(a, b *uv.Cell) bool {
	return a.Width == b.Width && a.Content == b.Content &&
		a.Style.Attrs == b.Style.Attrs && a.Style.Underline == b.Style.Underline && a.Link == b.Link &&
		colorEqualUV(a.Style.Fg, b.Style.Fg) && colorEqualUV(a.Style.Bg, b.Style.Bg) &&
		colorEqualUV(a.Style.UnderlineColor, b.Style.UnderlineColor)
}

// colorEqualUV is ultraviolet's colorEqual.
func colorEqualUV(a, b color.Color) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if colorSame(a, b) {
		return true
	}
	ar, ag, ab, aa := a.RGBA()
	br, bg, bb, ba := b.RGBA()
	return ar == br && ag == bg && ab == bb && aa == ba
}

// blankCell is c.IsZero() || c.Equal(&uv.EmptyCell) (the scrollback's
// trailing blanks), without the colours' RGBA methods.
func blankCell(c *uv.Cell) bool {
	switch c.Content {
	case "":
		if c.Width != 0 {
			return false
		}
	case " ":
		if c.Width != 1 {
			return false
		}
	default:
		return false
	}
	return c.Link == (uv.Link{}) && styleZero(&c.Style)
}

// simpleRuneWidth is the width of r if r is one of the common characters
// that are grapheme clusters of their own next to each other and next to
// printable ASCII (Grapheme_Cluster_Break Other: not Extend, ZWJ,
// SpacingMark, Prepend, Hangul, a regional indicator or pictographic, no
// Indic conjunct class), 0 otherwise. TestPatchSimpleRunes checks every one
// against the segmenter and the width ansi.GraphemeWidth gives.
func simpleRuneWidth(r rune) int {
	switch {
	case r < 0x3000:
		switch {
		case r >= 0x00C0 && r <= 0x024F: // Latin-1 letters, Latin Extended-A and -B
			return 1
		case r >= 0x2010 && r <= 0x2027: // dashes, quotes, bullets, …
			return 1
		case r >= 0x2500 && r <= 0x257F: // box drawing
			return 1
		}
	case r <= 0x30FF:
		switch {
		case r >= 0x3001 && r <= 0x3003, // 、。〃
			r >= 0x3041 && r <= 0x3096, // hiragana (not the combining 3099, 309A)
			r >= 0x30A1 && r <= 0x30FA, // katakana
			r == 0x30FC:                // ー
			return 2
		}
	case r >= 0x3400 && r <= 0x4DBF, r >= 0x4E00 && r <= 0x9FFF: // CJK ideographs
		return 2
	case r >= 0xFF01 && r <= 0xFF5E: // full-width ASCII
		return 2
	case r >= 0xFF66 && r <= 0xFF9D: // half-width katakana (not the marks FF9E, FF9F)
		return 1
	}
	return 0
}

// flushSimple hands the clusters at the start of g that need no segmenter
// to handleGrapheme (printable ASCII or simple runes, each followed by
// nothing, by printable ASCII or by another simple rune) and returns the
// rest.
func (e *Emulator) flushSimple(g []byte) []byte {
	n, width := simpleChar(g)
	for n > 0 {
		m, next := 0, 0
		if n < len(g) {
			if m, next = simpleChar(g[n:]); m == 0 {
				break // what follows may join it: the segmenter's
			}
		}
		e.handleGrapheme(e.clusterString(g[:n]), width)
		g = g[n:]
		n, width = m, next
	}
	return g
}

// simpleChar is the size and width of the first character of b when it is
// printable ASCII or a simple rune; 0 otherwise.
func simpleChar(b []byte) (n, width int) {
	if len(b) == 0 {
		return 0, 0
	}
	if c := b[0]; c < utf8.RuneSelf {
		if c >= ansi.SP && c < ansi.DEL {
			return 1, 1
		}
		return 0, 0
	}
	r, n := utf8.DecodeRune(b)
	if w := simpleRuneWidth(r); w > 0 && r != utf8.RuneError {
		return n, w
	}
	return 0, 0
}

// clusterCache holds the strings of recent short clusters, so a character
// seen before gets its string without an allocation: 256 sets of two, the
// set picked by the cluster's bytes, the newest first.
type clusterCache [256][2]struct {
	key uint64 // the bytes, and the length in the top byte
	s   string
}

// clusterString is string(b), from e's cache for clusters of up to 7 bytes.
func (e *Emulator) clusterString(b []byte) string {
	if len(b) == 0 || len(b) > 7 {
		return string(b)
	}
	if len(b) == 1 && b[0] < utf8.RuneSelf {
		return asciiStr[b[0]]
	}
	var key uint64
	for _, c := range b {
		key = key<<8 | uint64(c)
	}
	key |= uint64(len(b)) << 56
	if e.clusters == nil {
		e.clusters = new(clusterCache)
	}
	set := &e.clusters[(key*0x9E3779B97F4A7C15)>>56]
	if set[0].key == key {
		return set[0].s
	}
	if set[1].key == key {
		set[0], set[1] = set[1], set[0]
		return set[0].s
	}
	s := string(b)
	set[1] = set[0]
	set[0].key, set[0].s = key, s
	return s
}

// sameWords reports whether a and b hold the same type and the same data
// pointer: then they are the same value, whatever the type (a copy of an
// interface copies its words). False says nothing.
func sameWords(a, b color.Color) bool {
	wa, wb := (*[2]unsafe.Pointer)(unsafe.Pointer(&a)), (*[2]unsafe.Pointer)(unsafe.Pointer(&b))
	return wa[0] == wb[0] && wa[1] == wb[1] // not ==: that compiles to a memequal call
}

// linkSame is *a == *b, comparing the strings' lengths before their bytes.
func linkSame(a, b *uv.Link) bool {
	return len(a.URL) == len(b.URL) && len(a.Params) == len(b.Params) &&
		(len(a.URL) == 0 || a.URL == b.URL) && (len(a.Params) == 0 || a.Params == b.Params)
}

// mayRepeat is false when a cannot be a repeat of b (cellSame): their
// widths, content lengths or first bytes differ.
func mayRepeat(a, b *uv.Cell) bool {
	return a.Width == b.Width && len(a.Content) == len(b.Content) &&
		(len(a.Content) == 0 || a.Content[0] == b.Content[0])
}

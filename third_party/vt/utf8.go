package vt

import (
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// printableASCII reports whether r is a character that can never join the
// grapheme cluster beside it. No ASCII character is a combining mark, a ZWJ, a
// spacing mark or a regional indicator, and CR and LF are not printable, so a
// cluster boundary between two of these is certain without asking the
// segmenter.
func printableASCII(r rune) bool {
	return r >= ansi.SP && r < ansi.DEL
}

// handlePrint handles printable characters.
//
// A character is held back rather than printed straight away, because the one
// after it may be a combining mark that belongs to the same cluster. Printing
// "e" from "e\u0301" before the mark arrives puts the base in one cell and
// leaves the mark to become a zero-width cell of its own, which the next write
// or erase then destroys.
func (e *Emulator) handlePrint(r rune) {
	// PATCH(pullcept): a C1 control written as a UTF-8 character (U+0080 to
	// U+009F) is neither drawn nor acted on, as tmux drops it (its width is
	// not 0 or more). Kept, it went into a cell and out to the terminal the
	// screen is drawn on, which may act on it: U+009D 52;c;… U+009C writes
	// the clipboard (README change 19).
	if r >= 0x80 && r < 0xA0 {
		return
	}
	// No ASCII character can extend the cluster before it: none of them is
	// Extend, ZWJ, SpacingMark, Prepend, a regional indicator, or part of an
	// Indic conjunct. So an ASCII character arriving is proof that whatever is
	// buffered is finished, and the buffer can go out.
	//
	// This is also what keeps the buffer from being re-segmented as it grows.
	// Asking where the clusters are on every character costs the length of the
	// buffer each time, which is quadratic over a long run of combining marks
	// that never resolves into more than one cluster.
	if printableASCII(r) {
		// Two printable ASCII characters in a row is the common case by a wide
		// margin, and needs no segmenting at all.
		if len(e.grapheme) == 1 && printableASCII(rune(e.grapheme[0])) {
			e.handleGrapheme(asciiStr[e.grapheme[0]], 1) // PATCH(pullcept): no allocation (compact.go)
			e.grapheme = utf8.AppendRune(e.grapheme[:0], r)
			return
		}
		e.flushGrapheme()
	}

	e.grapheme = utf8.AppendRune(e.grapheme, r)
}

// flushGrapheme flushes the current grapheme buffer, if any, and handles the
// grapheme as a single unit.
func (e *Emulator) flushGrapheme() {
	if len(e.grapheme) == 0 {
		return
	}

	// XXX: We always use [ansi.GraphemeWidth] here to report accurate widths
	// and it's up to the caller to decide how to handle Unicode vs non-Unicode
	// modes.
	method := ansi.GraphemeWidth
	graphemes := e.grapheme
	for len(graphemes) > 0 {
		// PATCH(pullcept): common characters are clusters of their own
		// without asking the segmenter, and their strings come from a cache
		// (patch_fastpath.go).
		if !e.slow {
			if graphemes = e.flushSimple(graphemes); len(graphemes) == 0 {
				break
			}
		}
		cluster, width := ansi.FirstGraphemeCluster(graphemes, method)
		if len(cluster) == 0 {
			break
		}
		if e.slow {
			e.handleGrapheme(string(cluster), width)
		} else {
			e.handleGrapheme(e.clusterString(cluster), width) // PATCH(pullcept)
		}
		graphemes = graphemes[len(cluster):]
	}
	e.grapheme = e.grapheme[:0] // Reset the grapheme buffer.
}

// handleGrapheme handles UTF-8 graphemes.
func (e *Emulator) handleGrapheme(content string, width int) {
	awm := e.awm // PATCH(pullcept): the mode map's DECAWM, kept in a field
	if e.slow {
		awm = e.isModeSet(ansi.ModeAutoWrap)
	}
	cell := uv.Cell{
		Content: content,
		Width:   width,
		Style:   e.scr.cursorPen(),
		Link:    e.scr.cursorLink(),
	}

	x, y := e.scr.CursorPosition()
	if e.atPhantom && awm {
		// moves cursor down similar to [Terminal.linefeed] except it doesn't
		// respects [ansi.LNM] mode.
		// This will reset the phantom state i.e. pending wrap state.
		e.index()
		_, y = e.scr.CursorPosition()
		x = 0
	}

	// A single shift applies to the next character, whatever that character
	// turns out to be. Take it now, so it cannot leak onto the one after this
	// when this is a cluster no charset has a mapping for.
	single := e.gsingle
	e.gsingle = 0

	// Handle character set mappings
	if len(content) == 1 { //nolint:nestif
		var charset CharSet
		c := content[0]
		if single > 1 && single < 4 {
			charset = e.charsets[single]
		} else if c < 128 {
			charset = e.charsets[e.gl]
		} else {
			charset = e.charsets[e.gr]
		}

		if charset != nil {
			if r, ok := charset[c]; ok {
				cell.Content = r
				cell.Width = 1
			}
		}
	}

	if cell.Width == 1 && len(content) == 1 {
		e.lastChar, _ = utf8.DecodeRuneInString(content)
	}

	// PATCH(pullcept): a wide character that does not fit in the columns
	// left on the line wraps whole to the next line, leaving the rest of
	// this line as it was (xterm, tmux). Upstream wrote it past the edge,
	// where it was dropped (charmbracelet/x#975). A character wider than
	// the whole line is written where it is: no line could hold it.
	if awm && x > 0 && x+cell.Width > e.scr.Width() {
		e.index()
		_, y = e.scr.CursorPosition()
		x = 0
	}

	if e.slow {
		e.scr.SetCell(x, y, &cell)
	} else {
		e.scr.setCell(x, y, &cell) // PATCH(pullcept): without RGBA calls (patch_fastpath.go)
	}

	// Handle phantom state at the end of the line.
	// PATCH(pullcept): the wrap is pending once the far edge of the
	// character reaches the last column, not its first cell; otherwise a
	// wide character ending exactly at the edge is overwritten by the next
	// character. The cursor stays on the last column (setCursor clamps).
	e.atPhantom = awm && x+max(cell.Width, 1) >= e.scr.Width()
	x += cell.Width

	// NOTE: We don't reset the phantom state here, we handle it up above.
	e.scr.setCursor(x, y, false)
}

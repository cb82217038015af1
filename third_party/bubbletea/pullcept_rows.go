package tea

// PATCH(pullcept): changed rows only (see README.md). Upstream clears the
// cell buffer and draws the whole view into it on every frame, parsing every
// row's text and escape sequences, and the terminal renderer then compares
// every row with the screen. With one row changed (a key's echo in a pane)
// that is most of a frame's cost. Here the rows of the view whose text and
// starting pen are the same as in the last frame keep their cells, and only
// the others are drawn again, from the nearest row above that starts with no
// style: the cells are exactly those a whole draw would give.

import (
	"strings"
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// rowPen is what a row of a view inherits from the rows above it when the
// view is drawn whole: the SGR style and the hyperlink in effect.
type rowPen struct {
	style uv.Style
	link  uv.Link
}

// viewRows is a view split into the rows it draws on the screen, with the
// pen each row starts with.
type viewRows struct {
	text string
	// start[i]:end[i] is row i in text.
	start, end []int
	pens       []rowPen
}

func (r *viewRows) row(i int) string { return r.text[r.start[i]:r.end[i]] }

// split fills r with the first rows of text (a view's content with "\r\n"
// already made "\n"), as many as the screen has. It reports false when a row
// is not independent of the others beyond its pen — invalid UTF-8, an escape
// sequence running past the end of its row, a string sequence that is
// passed through to the terminal (it rides on the next cell drawn, which may
// be on the next row), or a zero-width first glyph (it would join the last
// cell of the row above) — and then only a whole draw is exact.
//
// A row with the text and starting pen of the same row of last (when last
// is a valid split) is not scanned again: it ends with the pen it ended with
// then.
func (r *viewRows) split(text string, rows int, wc bool, p *ansi.Parser, last *viewRows) bool {
	r.text = text
	r.start, r.end, r.pens = r.start[:0], r.end[:0], r.pens[:0]
	var pen rowPen
	for i := 0; len(r.start) < rows; {
		j := strings.IndexByte(text[i:], '\n')
		e := len(text)
		if j >= 0 {
			e = i + j
		}
		y := len(r.start)
		r.start, r.end, r.pens = append(r.start, i), append(r.end, e), append(r.pens, pen)
		if last != nil && y+1 < len(last.pens) && last.pens[y] == pen && last.row(y) == text[i:e] {
			pen = last.pens[y+1]
		} else {
			var ok bool
			if pen, ok = scanRow(text[i:e], pen, wc, p); !ok {
				return false
			}
		}
		if j < 0 {
			break
		}
		i = e + 1
	}
	return true
}

// scanRow returns the pen at the end of row, drawn from pen, and whether the
// row is independent of the rows around it (see split).
func scanRow(row string, pen rowPen, wc bool, p *ansi.Parser) (rowPen, bool) {
	if !utf8.ValidString(row) {
		return pen, false
	}
	decode := ansi.DecodeSequence[string]
	if wc {
		decode = ansi.DecodeSequenceWc[string]
	}
	first := true // no glyph yet
	for i := 0; i < len(row); {
		if row[i] != ansi.ESC {
			if first {
				if _, width, _, _ := decode(row[i:], ansi.NormalState, nil); width == 0 {
					return pen, false
				}
				first = false
			}
			j := strings.IndexByte(row[i:], ansi.ESC)
			if j < 0 {
				break
			}
			i += j
			continue
		}
		seq, _, n, state := decode(row[i:], ansi.NormalState, p)
		if state != ansi.NormalState || n == 0 {
			return pen, false
		}
		switch {
		case ansi.HasCsiPrefix(seq) && p.Command() == 'm':
			uv.ReadStyle(p.Params(), &pen.style)
		case ansi.HasOscPrefix(seq) && p.Command() == 8:
			uv.ReadLink(p.Data(), &pen.link)
		case ansi.HasApcPrefix(seq) || ansi.HasDcsPrefix(seq) || ansi.HasSosPrefix(seq) || ansi.HasPmPrefix(seq):
			return pen, false
		}
		i += n
	}
	return pen, true
}

// drawChangedRows draws the rows of content that differ from the last frame
// drawn into the cell buffer and reports how many it drew and true, or
// reports false (and draws nothing) when the whole view must be drawn: diff
// is false (the first frame, a new size, a full repaint), the row count
// changed, or a row is not independent. Called with s.mu held, before the
// whole draw it may replace.
func (s *cursedRenderer) drawChangedRows(content string, diff bool) (int, bool) {
	content = strings.ReplaceAll(content, "\r\n", "\n") // as uv.StyledString.Draw does
	if s.rowParser == nil {
		s.rowParser = ansi.NewParser()
	}
	s.nextRows, s.lastRows = s.lastRows, s.nextRows
	cur, last := &s.lastRows, &s.nextRows
	valid := s.rowsValid
	var known *viewRows // the last split, when every row of it was scanned clean
	if valid {
		known = last
	}
	ok := cur.split(content, s.cellbuf.Height(), s.cellbuf.Method != ansi.GraphemeWidth, s.rowParser, known)
	s.rowsValid = ok
	if !ok || !diff || !valid || s.wholeFrames || len(cur.start) != len(last.start) {
		return 0, false
	}
	w := s.cellbuf.Width()
	from, to := -1, -1 // the rows being gathered for one draw
	zero := 0          // the last row so far that starts with no pen
	drawn := 0
	draw := func() {
		if from < 0 {
			return
		}
		drawn += to - from + 1
		uv.NewStyledString(cur.text[cur.start[from]:cur.end[to]]).Draw(s.cellbuf, uv.Rect(0, from, w, to-from+1))
		for y := from; y <= to; y++ {
			// Touched whole, as a whole draw touches them: the terminal
			// renderer then writes the same bytes.
			s.cellbuf.TouchLine(0, y, w)
		}
	}
	for i := range cur.start {
		if cur.pens[i] == (rowPen{}) {
			zero = i
		}
		if cur.pens[i] == last.pens[i] && cur.row(i) == last.row(i) {
			continue
		}
		if from >= 0 && zero <= to+1 {
			to = i
			continue
		}
		draw()
		from, to = zero, i
	}
	draw()
	return drawn, true
}

// fewRows says whether a frame that drew n rows of a screen of height rows
// is rendered without the terminal renderer's scroll detection. It hashes
// every row of the screen twice per frame (uv's updateHashmap: most of the
// cost of a frame in which one row changed), and a scroll needs most rows of
// its region to have changed, so with few rows changed it finds nothing to
// gain. A frame with more rows changed is rendered with it, as upstream.
func fewRows(n, height int) bool { return n*4 <= height }

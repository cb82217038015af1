package seat

// A pane's screen as the host draws it: Render (row by row, from a cache of
// the last one), the cursor, the scrollback.

import (
	"bytes"
	"encoding/binary"
	"image/color"
	"strings"
	"unsafe"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

// Size is the pane's size in cells.
func (p *Pane) Size() (cols, rows int) { return p.emu.Width(), p.emu.Height() }

// Render is the screen: exactly Rows lines of Cols cells, joined by \n,
// with SGR styles. A row whose cells are those of the last Render keeps its
// text from then: a key's echo renders one row, not the screen (the
// emulator renders every cell of every row, about 60 ns a cell).
func (p *Pane) Render() string {
	// Exclusive: no output is written meanwhile, so the cells read one by
	// one below are one screen.
	p.emuMu.Lock()
	defer p.emuMu.Unlock()
	if _, _, held := p.emu.FrameHeld(); held {
		// The screen from before an open synchronized frame (the emulator
		// keeps it apart from its cells; the hold ends without a write).
		p.rows = rowCache{}
		return p.emu.Render()
	}
	if p.rows.screen != "" && p.rows.written == p.written {
		return p.rows.screen // nothing written since
	}
	p.rows.screen, p.rows.written = p.rows.render(p.emu.Emulator), p.written
	return p.rows.screen
}

// rowCache is the last Render, row by row: each row's key (its cells by
// value, rowKey) and its text. Keys, not copies of the cells: a copy was
// the screen again (100x30 cells of 112 bytes, 336 KB a pane); a row's key
// is a few bytes a cell.
type rowCache struct {
	keys  [][]byte
	text  []string
	valid []bool  // the row's key and text are filled in
	key   []byte  // scratch: the key of the row being compared
	cells uv.Line // scratch: a row whose cells are not one array
	// screen is the last Render, made when the pane's written count was
	// written.
	screen  string
	written uint64
	// marks is the array of the emulator's touched marks cleared at the
	// last render, of the main screen or (alt) the alternate one.
	marks **uv.LineData
	alt   bool
}

// render is e.Render() (every row rendered by uv.Line.Render, joined by
// "\n"), rendering again only the rows whose cells changed.
func (c *rowCache) render(e *vt.Emulator) string {
	w, h := e.Width(), e.Height()
	if len(c.keys) != h { // a new width changes every row's key
		c.keys, c.text, c.valid = make([][]byte, h), make([]string, h), make([]bool, h)
	}
	// The emulator marks the rows it changed (uv's touched lines, which its
	// own renderer draws by); the marks are cleared below, so a row with
	// none is as last rendered. Any doubt compares every row: another
	// screen shown, or the marks not the array cleared last time (a reset,
	// a resize or a synchronized frame drops them, and a new array grows
	// with the next change).
	touched, alt := e.Touched(), e.IsAltScreen()
	known := c.marks != nil && unsafe.SliceData(touched) == c.marks && c.alt == alt && len(touched) == h
	n := h
	for y := range h {
		if known && c.valid[y] && touched[y] == nil {
			n += len(c.text[y])
			continue
		}
		row := liveRow(e, y, w)
		if row == nil {
			if len(c.cells) != w {
				c.cells = make(uv.Line, w)
			}
			row = c.cells
			for x := range w {
				if cell := e.CellAt(x, y); cell != nil {
					row[x] = *cell
				} else {
					row[x] = uv.Cell{}
				}
			}
		}
		// Most touched rows are drawn again as they were: one key each.
		c.key = rowKey(c.key[:0], row)
		if !c.valid[y] || !bytes.Equal(c.key, c.keys[y]) {
			c.keys[y] = append(c.keys[y][:0], c.key...)
			c.text[y], c.valid[y] = uv.Line(row).Render(), true
		}
		n += len(c.text[y])
	}
	clear(touched)
	c.marks, c.alt = nil, alt
	if len(touched) == h {
		c.marks = unsafe.SliceData(touched)
	}
	var b strings.Builder
	b.Grow(n)
	for y, t := range c.text {
		if y > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(t)
	}
	return b.String()
}

// rowKey appends row's cells to b by value: each one's text, width, style,
// colours and link, each string after its length, so two rows have the
// same key exactly when they draw the same (whatever memory their strings
// and colours are in).
func rowKey(b []byte, row []uv.Cell) []byte {
	for i := range row {
		c := &row[i]
		b = appendKeyString(b, c.Content)
		b = binary.AppendUvarint(b, uint64(c.Width))
		b = append(b, c.Style.Attrs, byte(c.Style.Underline))
		b = appendKeyColor(b, c.Style.Fg)
		b = appendKeyColor(b, c.Style.Bg)
		b = appendKeyColor(b, c.Style.UnderlineColor)
		b = appendKeyString(b, c.Link.URL)
		b = appendKeyString(b, c.Link.Params)
	}
	return b
}

func appendKeyString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// appendKeyColor appends a colour's type and value: the same value in two
// types may be drawn differently (31 against 38;5;1).
func appendKeyColor(b []byte, c color.Color) []byte {
	switch c := c.(type) {
	case nil:
		return append(b, 0)
	case ansi.BasicColor:
		return append(b, 1, byte(c))
	case ansi.IndexedColor:
		return append(b, 2, byte(c))
	case ansi.TrueColor:
		return binary.BigEndian.AppendUint32(append(b, 3), uint32(c))
	case color.RGBA:
		return append(b, 4, c.R, c.G, c.B, c.A)
	}
	r, g, bl, a := c.RGBA()
	b = append(b, 5)
	for _, v := range [4]uint32{r, g, bl, a} {
		b = binary.BigEndian.AppendUint16(b, uint16(v))
	}
	return b
}

// liveRow is row y of e's screen as the cells it holds, or nil when its w
// cells are not one array (then each cell is read on its own).
func liveRow(e *vt.Emulator, y, w int) []uv.Cell {
	if w == 0 {
		return nil
	}
	first, last := e.CellAt(0, y), e.CellAt(w-1, y)
	if first == nil || last == nil {
		return nil
	}
	row := unsafe.Slice(first, w)
	if &row[w-1] != last {
		return nil
	}
	return row
}

// Cursor is the cursor's cell (0-based) and whether it is shown.
func (p *Pane) Cursor() (x, y int, visible bool) {
	pos := p.emu.CursorPosition()
	return pos.X, pos.Y, !p.emu.CursorHidden()
}

// AltScreen reports whether the application is on the alternate screen.
func (p *Pane) AltScreen() bool { return p.emu.IsAltScreen() }

// ScrollbackLen is the number of lines in the main screen's scrollback.
func (p *Pane) ScrollbackLen() int {
	p.emuMu.RLock()
	defer p.emuMu.RUnlock()
	return p.emu.ScrollbackLen()
}

// ScrollbackLine is scrollback line i (0 is the oldest) with SGR styles,
// trailing blanks trimmed; "" when i is out of range.
func (p *Pane) ScrollbackLine(i int) string {
	line := func() uv.Line {
		p.emuMu.RLock()
		defer p.emuMu.RUnlock()
		return p.emu.Scrollback().Line(i)
	}()
	return line.Render() // a pushed line is never modified
}

// RenderScrolled is Render with the view moved offset lines back into the
// scrollback: the last offset scrollback lines (padded to the width, like
// the screen's), then the top of the screen.
// Offset is clamped to the scrollback; on the alternate screen (which keeps
// none) it is Render.
func (p *Pane) RenderScrolled(offset int) string {
	p.emuMu.RLock()
	defer p.emuMu.RUnlock()
	screen := p.emu.Render()
	if offset <= 0 || p.emu.IsAltScreen() {
		return screen
	}
	sb := p.emu.Scrollback()
	// While a synchronized frame is held, the lines it pushed are not shown
	// yet: the view stays the one from before the frame.
	n := max(0, sb.Len()-p.emu.FramePushed())
	offset = min(offset, n)
	cols, rows := p.emu.Width(), p.emu.Height()
	lines := make([]string, 0, rows)
	for i := n - offset; i < n && len(lines) < rows; i++ {
		l := sb.Line(i).Render()
		if w := ansi.StringWidth(l); w < cols {
			l += strings.Repeat(" ", cols-w) // as wide as the screen's lines
		}
		lines = append(lines, l)
	}
	for _, l := range strings.SplitN(screen, "\n", rows) {
		if len(lines) == rows {
			break
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
}

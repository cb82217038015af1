package vt

// PATCH(pullcept): compact encoding of scrollback lines (README, section
// "Scrollback lines are stored compactly"). A uv.Cell is 112 bytes; a line
// here is a few bytes of opcodes and its text, about one byte a cell for
// ASCII, decoded back to exactly the cells that were pushed.
//
// A line is the number of cells (uvarint), then one item per cell or
// state change:
//
//	0x20-0x7e   that ASCII character, width 1, the current style and link
//	0x80-0xff   the first byte of one UTF-8 rune, width 1 (the rune follows)
//	opZero      a zero uv.Cell (a wide character's placeholder)
//	opWide      rune: width 2, followed by a zero cell
//	opCell      zigzag width, uvarint length, content: any other cell
//	opRepeat    uvarint n: the previous cell n more times
//	opStyle     a style (below) becomes the current one
//	opPlain     the zero style becomes the current one
//	opLink      uvarint length, URL, uvarint length, params
//	opNoLink    the zero link becomes the current one
//
// A style is a flags byte (attrs, underline, fg, bg, underline colour
// present), then the attrs byte, the underline byte and each colour as a
// tag and its value. Colours keep their Go type; a type not listed in
// appendColor goes to the scrollback's side table (ext) by slot number.

import (
	"encoding/binary"
	"image/color"
	"reflect"
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

const (
	opZero = iota
	opCell
	opWide
	opRepeat
	opStyle
	opPlain
	opLink
	opNoLink
)

const (
	styleAttrs = 1 << iota
	styleUnderline
	styleFg
	styleBg
	styleUl
)

// Colour tags.
const (
	tagBasic = 1 + iota
	tagIndexed
	tagRGBAOpaque // color.RGBA with A 0xff: 3 bytes
	tagRGBA
	tagRGB // ansi.RGBColor
	tagTrue
	tagNRGBA
	tagRGBA64
	tagNRGBA64
	tagCMYK
	tagAlpha
	tagAlpha16
	tagGray
	tagGray16
	tagExt
)

// asciiStr holds the one-byte strings, so decoding ASCII allocates nothing.
var asciiStr = func() (t [128]string) {
	for i := range t {
		t[i] = string(rune(i))
	}
	return
}()

// extTable holds colours of types the encoding does not know, one slot per
// style item that uses one; the slot is freed with its line.
type extTable struct {
	colors []color.Color
	free   []uint32
	used   int
}

func (t *extTable) put(c color.Color) uint64 {
	t.used++
	if n := len(t.free); n > 0 {
		id := t.free[n-1]
		t.free = t.free[:n-1]
		t.colors[id] = c
		return uint64(id)
	}
	t.colors = append(t.colors, c)
	return uint64(len(t.colors) - 1)
}

func (t *extTable) release(id uint64) {
	if id >= uint64(len(t.colors)) || t.colors[id] == nil {
		return
	}
	t.colors[id] = nil
	t.free = append(t.free, uint32(id))
	t.used--
}

// colorSame reports whether a and b are the same type and value.
func colorSame(a, b color.Color) bool {
	// PATCH(pullcept): the same interface words (a colour copied from the
	// pen into every cell it wrote) are the same type and value
	// (patch_fastpath.go).
	if sameWords(a, b) {
		return true
	}
	switch a := a.(type) {
	case nil:
		return b == nil
	case ansi.BasicColor:
		b, ok := b.(ansi.BasicColor)
		return ok && a == b
	case ansi.IndexedColor:
		b, ok := b.(ansi.IndexedColor)
		return ok && a == b
	case color.RGBA:
		b, ok := b.(color.RGBA)
		return ok && a == b
	case ansi.RGBColor:
		b, ok := b.(ansi.RGBColor)
		return ok && a == b
	case ansi.TrueColor:
		b, ok := b.(ansi.TrueColor)
		return ok && a == b
	case color.NRGBA:
		b, ok := b.(color.NRGBA)
		return ok && a == b
	case color.RGBA64:
		b, ok := b.(color.RGBA64)
		return ok && a == b
	case color.NRGBA64:
		b, ok := b.(color.NRGBA64)
		return ok && a == b
	case color.CMYK:
		b, ok := b.(color.CMYK)
		return ok && a == b
	case color.Alpha:
		b, ok := b.(color.Alpha)
		return ok && a == b
	case color.Alpha16:
		b, ok := b.(color.Alpha16)
		return ok && a == b
	case color.Gray:
		b, ok := b.(color.Gray)
		return ok && a == b
	case color.Gray16:
		b, ok := b.(color.Gray16)
		return ok && a == b
	}
	// Another type: the same only if comparable (== would panic otherwise).
	t := reflect.TypeOf(a)
	return t == reflect.TypeOf(b) && t.Comparable() && a == b
}

func styleSame(a, b *uv.Style) bool {
	if a.Attrs != b.Attrs || a.Underline != b.Underline {
		return false
	}
	// PATCH(pullcept): a style copied from the pen has the same interface
	// words as the pen: no call for the usual case (patch_fastpath.go).
	if sameWords(a.Fg, b.Fg) && sameWords(a.Bg, b.Bg) && sameWords(a.UnderlineColor, b.UnderlineColor) {
		return true
	}
	return colorSame(a.Fg, b.Fg) && colorSame(a.Bg, b.Bg) && colorSame(a.UnderlineColor, b.UnderlineColor)
}

func styleZero(s *uv.Style) bool {
	return s.Attrs == 0 && s.Underline == 0 && s.Fg == nil && s.Bg == nil && s.UnderlineColor == nil
}

func cellZero(c *uv.Cell) bool {
	return c.Width == 0 && c.Content == "" && c.Link == (uv.Link{}) && styleZero(&c.Style)
}

// cellSame reports whether two cells encode the same (for opRepeat).
func cellSame(a, b *uv.Cell) bool {
	// PATCH(pullcept): first bytes first, the usual difference (patch_fastpath.go).
	if len(a.Content) != len(b.Content) || len(a.Content) > 0 && a.Content[0] != b.Content[0] {
		return false
	}
	return a.Width == b.Width && a.Content == b.Content && a.Link == b.Link && styleSame(&a.Style, &b.Style)
}

func appendColor(b []byte, c color.Color, ext *extTable) []byte {
	switch c := c.(type) {
	case ansi.BasicColor:
		return append(b, tagBasic, byte(c))
	case ansi.IndexedColor:
		return append(b, tagIndexed, byte(c))
	case color.RGBA:
		if c.A == 0xff {
			return append(b, tagRGBAOpaque, c.R, c.G, c.B)
		}
		return append(b, tagRGBA, c.R, c.G, c.B, c.A)
	case ansi.RGBColor:
		return append(b, tagRGB, c.R, c.G, c.B)
	case ansi.TrueColor:
		return binary.LittleEndian.AppendUint32(append(b, tagTrue), uint32(c))
	case color.NRGBA:
		return append(b, tagNRGBA, c.R, c.G, c.B, c.A)
	case color.RGBA64:
		b = append(b, tagRGBA64)
		return binary.LittleEndian.AppendUint64(b, uint64(c.R)|uint64(c.G)<<16|uint64(c.B)<<32|uint64(c.A)<<48)
	case color.NRGBA64:
		b = append(b, tagNRGBA64)
		return binary.LittleEndian.AppendUint64(b, uint64(c.R)|uint64(c.G)<<16|uint64(c.B)<<32|uint64(c.A)<<48)
	case color.CMYK:
		return append(b, tagCMYK, c.C, c.M, c.Y, c.K)
	case color.Alpha:
		return append(b, tagAlpha, c.A)
	case color.Alpha16:
		return binary.LittleEndian.AppendUint16(append(b, tagAlpha16), c.A)
	case color.Gray:
		return append(b, tagGray, c.Y)
	case color.Gray16:
		return binary.LittleEndian.AppendUint16(append(b, tagGray16), c.Y)
	}
	return binary.AppendUvarint(append(b, tagExt), ext.put(c))
}

func appendStyle(b []byte, s *uv.Style, ext *extTable) []byte {
	var flags byte
	if s.Attrs != 0 {
		flags |= styleAttrs
	}
	if s.Underline != 0 {
		flags |= styleUnderline
	}
	if s.Fg != nil {
		flags |= styleFg
	}
	if s.Bg != nil {
		flags |= styleBg
	}
	if s.UnderlineColor != nil {
		flags |= styleUl
	}
	b = append(b, opStyle, flags)
	if s.Attrs != 0 {
		b = append(b, s.Attrs)
	}
	if s.Underline != 0 {
		b = append(b, s.Underline)
	}
	for _, c := range [...]color.Color{s.Fg, s.Bg, s.UnderlineColor} {
		if c != nil {
			b = appendColor(b, c, ext)
		}
	}
	return b
}

// singleRune reports whether s is exactly one valid UTF-8 rune.
func singleRune(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	return n == len(s) && n > 0 && (r != utf8.RuneError || n > 1)
}

// appendLine appends the encoding of line to b.
func appendLine(b []byte, line uv.Line, ext *extTable) []byte {
	b = binary.AppendUvarint(b, uint64(len(line)))
	var style uv.Style
	var link uv.Link
	for i := 0; i < len(line); {
		c := &line[i]
		if cellZero(c) {
			b = append(b, opZero)
			i++
			b, i = appendRepeat(b, line, i, 1)
			continue
		}
		if !styleSame(&c.Style, &style) {
			if styleZero(&c.Style) {
				b = append(b, opPlain)
			} else {
				b = appendStyle(b, &c.Style, ext)
			}
			style = c.Style
		}
		if !linkSame(&c.Link, &link) { // PATCH(pullcept): c.Link != link, without memequal calls
			if c.Link == (uv.Link{}) {
				b = append(b, opNoLink)
			} else {
				b = binary.AppendUvarint(append(b, opLink), uint64(len(c.Link.URL)))
				b = append(b, c.Link.URL...)
				b = binary.AppendUvarint(b, uint64(len(c.Link.Params)))
				b = append(b, c.Link.Params...)
			}
			link = c.Link
		}
		start := len(b)
		switch {
		case c.Width == 1 && len(c.Content) == 1 && c.Content[0] >= 0x20 && c.Content[0] < 0x7f:
			b = append(b, c.Content[0])
		case c.Width == 1 && c.Content != "" && c.Content[0] >= 0x80 && singleRune(c.Content):
			b = append(b, c.Content...)
		case c.Width == 2 && i+1 < len(line) && singleRune(c.Content) && cellZero(&line[i+1]):
			b = append(append(b, opWide), c.Content...)
			i += 2
			continue // a repeat would mean the placeholder: not used after a pair
		default:
			b = append(b, opCell)
			b = binary.AppendVarint(b, int64(c.Width))
			b = binary.AppendUvarint(b, uint64(len(c.Content)))
			b = append(b, c.Content...)
		}
		i++
		// PATCH(pullcept): appendRepeat only when the next cell may repeat
		// this one (its first byte and width alike).
		if i < len(line) && mayRepeat(&line[i], c) {
			b, i = appendRepeat(b, line, i, len(b)-start)
		}
	}
	return b
}

// appendRepeat replaces a run of cells equal to line[i-1] by opRepeat when
// that is shorter than writing them (each costs size bytes).
func appendRepeat(b []byte, line uv.Line, i, size int) ([]byte, int) {
	n := 0
	for i+n < len(line) && cellSame(&line[i+n], &line[i-1]) {
		n++
	}
	if n == 0 {
		return b, i
	}
	var tmp [binary.MaxVarintLen64]byte
	if 1+binary.PutUvarint(tmp[:], uint64(n)) >= n*size {
		return b, i // writing them again is no longer: let the loop do it
	}
	b = binary.AppendUvarint(append(b, opRepeat), uint64(n))
	return b, i + n
}

// lineDecoder walks an encoded line.
type lineDecoder struct {
	b     []byte
	p     int
	ext   *extTable
	onExt func(id uint64) // set: report side-table slots instead of reading them
	style uv.Style
	link  uv.Link
}

func (d *lineDecoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b[d.p:])
	d.p += n
	return v
}

func (d *lineDecoder) bytes(n uint64) []byte {
	s := d.b[d.p : d.p+int(n)]
	d.p += int(n)
	return s
}

func (d *lineDecoder) str(n uint64) string {
	if n == 1 && d.b[d.p] < 0x80 {
		d.p++
		return asciiStr[d.b[d.p-1]]
	}
	return string(d.bytes(n))
}

func (d *lineDecoder) color() color.Color {
	tag := d.b[d.p]
	d.p++
	v := d.b[d.p:]
	switch tag {
	case tagBasic:
		d.p++
		return ansi.BasicColor(v[0])
	case tagIndexed:
		d.p++
		return ansi.IndexedColor(v[0])
	case tagRGBAOpaque:
		d.p += 3
		return color.RGBA{v[0], v[1], v[2], 0xff}
	case tagRGBA:
		d.p += 4
		return color.RGBA{v[0], v[1], v[2], v[3]}
	case tagRGB:
		d.p += 3
		return ansi.RGBColor{R: v[0], G: v[1], B: v[2]}
	case tagTrue:
		d.p += 4
		return ansi.TrueColor(binary.LittleEndian.Uint32(v))
	case tagNRGBA:
		d.p += 4
		return color.NRGBA{v[0], v[1], v[2], v[3]}
	case tagRGBA64:
		d.p += 8
		x := binary.LittleEndian.Uint64(v)
		return color.RGBA64{uint16(x), uint16(x >> 16), uint16(x >> 32), uint16(x >> 48)}
	case tagNRGBA64:
		d.p += 8
		x := binary.LittleEndian.Uint64(v)
		return color.NRGBA64{uint16(x), uint16(x >> 16), uint16(x >> 32), uint16(x >> 48)}
	case tagCMYK:
		d.p += 4
		return color.CMYK{v[0], v[1], v[2], v[3]}
	case tagAlpha:
		d.p++
		return color.Alpha{v[0]}
	case tagAlpha16:
		d.p += 2
		return color.Alpha16{binary.LittleEndian.Uint16(v)}
	case tagGray:
		d.p++
		return color.Gray{v[0]}
	case tagGray16:
		d.p += 2
		return color.Gray16{binary.LittleEndian.Uint16(v)}
	}
	id := d.uvarint() // tagExt
	if d.onExt != nil {
		d.onExt(id)
		return nil
	}
	return d.ext.colors[id]
}

func (d *lineDecoder) readStyle() {
	flags := d.b[d.p]
	d.p++
	d.style = uv.Style{}
	if flags&styleAttrs != 0 {
		d.style.Attrs = d.b[d.p]
		d.p++
	}
	if flags&styleUnderline != 0 {
		d.style.Underline = d.b[d.p]
		d.p++
	}
	if flags&styleFg != 0 {
		d.style.Fg = d.color()
	}
	if flags&styleBg != 0 {
		d.style.Bg = d.color()
	}
	if flags&styleUl != 0 {
		d.style.UnderlineColor = d.color()
	}
}

// next decodes the next item that stands for cells. For a cell it fills c
// and returns 1 (2 for opWide: c and a zero placeholder); for opRepeat it
// leaves c alone and returns -n: the previous cell n more times.
func (d *lineDecoder) next(c *uv.Cell) int {
	for {
		op := d.b[d.p]
		switch {
		case op >= 0x20 && op < 0x7f:
			d.p++
			*c = uv.Cell{Content: asciiStr[op], Width: 1, Style: d.style, Link: d.link}
			return 1
		case op >= 0x80:
			_, size := utf8.DecodeRune(d.b[d.p:])
			*c = uv.Cell{Content: string(d.bytes(uint64(size))), Width: 1, Style: d.style, Link: d.link}
			return 1
		}
		d.p++
		switch op {
		case opZero:
			*c = uv.Cell{}
			return 1
		case opWide:
			_, size := utf8.DecodeRune(d.b[d.p:])
			*c = uv.Cell{Content: d.str(uint64(size)), Width: 2, Style: d.style, Link: d.link}
			return 2
		case opCell:
			w, k := binary.Varint(d.b[d.p:])
			d.p += k
			*c = uv.Cell{Content: d.str(d.uvarint()), Width: int(w), Style: d.style, Link: d.link}
			return 1
		case opRepeat:
			return -int(d.uvarint())
		case opStyle:
			d.readStyle()
		case opPlain:
			d.style = uv.Style{}
		case opLink:
			url := string(d.bytes(d.uvarint()))
			d.link = uv.Link{URL: url, Params: string(d.bytes(d.uvarint()))}
		case opNoLink:
			d.link = uv.Link{}
		default:
			panic("vt: corrupt scrollback line")
		}
	}
}

// decodeLine returns the cells b encodes.
func decodeLine(b []byte, ext *extTable) uv.Line {
	if len(b) == 0 {
		return nil
	}
	d := lineDecoder{b: b, ext: ext}
	line := make(uv.Line, d.uvarint())
	for i := 0; i < len(line); {
		n := d.next(&line[i])
		if n < 0 { // repeat line[i-1]; line[i] was not written
			for k := range -n {
				line[i+k] = line[i-1]
			}
			n = -n
		}
		i += n // after opWide line[i+1] stays the zero cell
	}
	return line
}

// decodeCell returns cell x of the line b encodes, or false past its end.
func decodeCell(b []byte, x int, ext *extTable) (uv.Cell, bool) {
	if x < 0 || x >= lineWidth(b) {
		return uv.Cell{}, false
	}
	d := lineDecoder{b: b, ext: ext}
	d.uvarint()
	var c uv.Cell // the last cell decoded
	for i := 0; ; {
		n := d.next(&c)
		switch {
		case n < 0: // c is the cell repeated
			n = -n
		case n == 2 && x == i+1: // opWide's placeholder
			return uv.Cell{}, true
		}
		if x < i+n {
			return c, true
		}
		i += n
	}
}

// lineWidth is the number of cells b encodes.
func lineWidth(b []byte) int {
	v, _ := binary.Uvarint(b)
	return int(v)
}

// forEachExt calls f with every side-table slot the line b uses.
func forEachExt(b []byte, f func(id uint64)) {
	d := lineDecoder{b: b, onExt: f}
	var c uv.Cell
	for i, width := 0, int(d.uvarint()); i < width; {
		n := d.next(&c)
		i += max(n, -n)
	}
}

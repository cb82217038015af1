package vt

import (
	"fmt"
	"image/color"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// oddColor is a colour type the encoding does not know: it goes to the
// side table, and being a pointer it is only equal to itself.
type oddColor struct{ r, g, b uint8 }

func (c *oddColor) RGBA() (r, g, b, a uint32) {
	return uint32(c.r) * 0x101, uint32(c.g) * 0x101, uint32(c.b) * 0x101, 0xffff
}

// trimmed is line as Push keeps it: without trailing blank or zero cells.
func trimmed(line uv.Line) uv.Line {
	n := len(line)
	for n > 0 && (line[n-1].IsZero() || line[n-1].Equal(&uv.EmptyCell)) {
		n--
	}
	return line[:n]
}

// sameCells fails unless got and want are the same cells, compared with ==
// (so colours must keep their Go type, not only their RGBA value).
func sameCells(t testing.TB, what string, got, want uv.Line) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d cells, want %d\ngot  %+v\nwant %+v", what, len(got), len(want), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: cell %d = %#v, want %#v", what, i, got[i], want[i])
		}
	}
}

// roundTrip pushes line and checks Line, Lines and CellAt give it back.
func roundTrip(t testing.TB, what string, line uv.Line) *Scrollback {
	t.Helper()
	want := slices.Clone(trimmed(line))
	sb := NewScrollback(4)
	sb.Push(line)
	sameCells(t, what+" (Line)", sb.Line(0), want)
	sameCells(t, what+" (Lines)", sb.Lines()[0], want)
	if got := sb.LineWidth(0); got != len(want) {
		t.Fatalf("%s: LineWidth = %d, want %d", what, got, len(want))
	}
	for x := range want {
		if c := sb.CellAt(x, 0); c == nil || *c != want[x] {
			t.Fatalf("%s: CellAt(%d) = %#v, want %#v", what, x, c, want[x])
		}
	}
	if c := sb.CellAt(len(want), 0); c != nil {
		t.Fatalf("%s: CellAt past the end = %#v, want nil", what, c)
	}
	return sb
}

// cells makes a line of one cell per grapheme of s, each with style st and
// link l; wide graphemes get their zero placeholder, as uv.Line.Set does.
func cells(s string, st uv.Style, l uv.Link) uv.Line {
	var line uv.Line
	for _, g := range splitGraphemes(s) {
		c := uv.Cell{Content: g, Width: ansi.StringWidth(g), Style: st, Link: l}
		line = append(line, c)
		for range c.Width - 1 {
			line = append(line, uv.Cell{})
		}
	}
	return line
}

func splitGraphemes(s string) []string {
	var out []string
	for len(s) > 0 {
		g, _ := ansi.FirstGraphemeCluster(s, ansi.GraphemeWidth)
		out = append(out, g)
		s = s[len(g):]
	}
	return out
}

func TestCompactLineRoundTrip(t *testing.T) {
	t.Parallel()
	red := uv.Style{Fg: ansi.Red}
	colours := []color.Color{
		ansi.BasicColor(1), ansi.BrightWhite, ansi.IndexedColor(1), ansi.IndexedColor(255),
		color.RGBA{1, 2, 3, 0xff}, color.RGBA{1, 2, 3, 4}, ansi.RGBColor{R: 9, G: 8, B: 7},
		ansi.TrueColor(0x123456), color.NRGBA{5, 6, 7, 8}, color.RGBA64{1, 0x2345, 0xffff, 0x8000},
		color.NRGBA64{0xfff0, 2, 3, 4}, color.CMYK{1, 2, 3, 4}, color.Transparent, color.Alpha{7},
		color.Gray{9}, color.Gray16{0x1234}, &oddColor{1, 2, 3}, ansi.HexColor("#abcdef"),
	}
	tests := map[string]uv.Line{
		"empty":  nil,
		"ascii":  cells("hello, world ~!", uv.Style{}, uv.Link{}),
		"blanks": cells("a      b", uv.Style{}, uv.Link{}),
		// Trailing blanks are trimmed by Push, coloured ones are kept.
		"trailing blanks":         append(cells("ab", red, uv.Link{}), uv.EmptyCell, uv.EmptyCell, uv.Cell{}),
		"coloured trailing blank": append(cells("ab", uv.Style{}, uv.Link{}), uv.Cell{Content: " ", Width: 1, Style: uv.Style{Bg: ansi.Blue}}),
		"wide":                    cells("日本語のテキスト、端末。", uv.Style{}, uv.Link{}),
		"wide coloured":           append(cells("a", uv.Style{}, uv.Link{}), cells("端末", uv.Style{Fg: ansi.IndexedColor(33), Attrs: uv.AttrBold}, uv.Link{})...),
		"emoji and zwj":           cells("🙂 👩‍💻 🇯🇵 x", uv.Style{}, uv.Link{}),
		"combining marks":         cells("e\u0301 a\u0308\u0323 ﾊﾟ", uv.Style{}, uv.Link{}),
		"non-ascii width 1":       cells("─│┌┐éßΩ▒", uv.Style{}, uv.Link{}),
		"repeats":                 cells("──────────  ==========          x", uv.Style{Fg: ansi.Green}, uv.Link{}),
		"repeated wide":           cells("ーーーーーー", uv.Style{}, uv.Link{}),
		"link": append(append(cells("see ", uv.Style{}, uv.Link{}),
			cells("here", uv.Style{Underline: uv.UnderlineSingle}, uv.NewLink("https://example.com/a?b=c", "id=1"))...),
			cells(" and ", uv.Style{}, uv.Link{})...),
		"adjacent links": append(cells("ab", uv.Style{}, uv.NewLink("https://a.example")),
			cells("cd", uv.Style{}, uv.NewLink("https://a.example", "id=2"))...),
		"link without url": cells("x", uv.Style{}, uv.Link{Params: "id=3"}),
		"odd cells": {
			{Content: "", Width: 1}, {Content: "ab", Width: 1}, {Content: "x", Width: 3},
			{Content: "y", Width: -2}, {Content: "\x01", Width: 1}, {Content: "\x7f", Width: 1},
			{Content: "\xff", Width: 1}, {Content: "\xe6\x97", Width: 1}, {Content: " ", Width: 2},
			{Content: "日", Width: 2}, // wide without its placeholder
			{Content: "", Width: 0, Style: red}, {Content: "", Width: 0, Link: uv.NewLink("u")},
			{Content: "z", Width: 0}, {Content: "a", Width: 1},
		},
		"placeholder runs": {{Content: "a", Width: 1}, {}, {}, {}, {}, {Content: "b", Width: 1}},
		"same rgb, other types": {
			{Content: "a", Width: 1, Style: uv.Style{Fg: ansi.BasicColor(1)}},
			{Content: "a", Width: 1, Style: uv.Style{Fg: ansi.IndexedColor(1)}},
			{Content: "a", Width: 1, Style: uv.Style{Fg: color.RGBA{0x80, 0, 0, 0xff}}},
			{Content: "a", Width: 1, Style: uv.Style{Fg: ansi.RGBColor{R: 0x80}}},
			{Content: "a", Width: 1, Style: uv.Style{Fg: ansi.TrueColor(0x800000)}},
		},
	}
	for bit := uint8(1); bit != 0; bit <<= 1 {
		tests[fmt.Sprintf("attr %#x", bit)] = cells("attr", uv.Style{Attrs: bit}, uv.Link{})
	}
	tests["all attrs"] = cells("all", uv.Style{Attrs: 0xff}, uv.Link{})
	for u := uv.UnderlineNone; u <= uv.UnderlineDashed; u++ {
		tests[fmt.Sprintf("underline %d", u)] = cells("under", uv.Style{Underline: u, UnderlineColor: ansi.IndexedColor(200)}, uv.Link{})
	}
	for i, c := range colours {
		tests[fmt.Sprintf("colour %d %T", i, c)] = slices.Concat(
			cells("fg", uv.Style{Fg: c}, uv.Link{}),
			cells("bg", uv.Style{Bg: c}, uv.Link{}),
			cells("ul", uv.Style{UnderlineColor: c, Underline: uv.UnderlineCurly}, uv.Link{}),
			cells("all", uv.Style{Fg: c, Bg: c, UnderlineColor: c, Attrs: uv.AttrItalic, Underline: uv.UnderlineDotted}, uv.Link{}),
		)
	}
	for name, line := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			roundTrip(t, name, line)
		})
	}
}

// The encoding is compact: ASCII is a byte a cell, a wide rune its UTF-8
// bytes plus one, a colour change a few bytes.
func TestCompactLineSize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		line uv.Line
		max  int
	}{
		{"80 ascii", cells(strings.Repeat("abcdefgh", 10), uv.Style{}, uv.Link{}), 1 + 80},
		{"40 spaces in text", cells("a"+strings.Repeat(" ", 40)+"b", uv.Style{}, uv.Link{}), 1 + 1 + 2 + 1 + 1},
		{"10 kanji", cells(strings.Repeat("端", 10), uv.Style{}, uv.Link{}), 1 + 10*4},
		{"a 256-colour word", cells("word", uv.Style{Fg: ansi.IndexedColor(200)}, uv.Link{}), 1 + 4 + 4},
		{"a truecolour word on truecolour", cells("word", uv.Style{Fg: color.RGBA{1, 2, 3, 255}, Bg: color.RGBA{4, 5, 6, 255}}, uv.Link{}), 1 + 10 + 4},
	} {
		var ext extTable
		if n := len(appendLine(nil, tc.line, &ext)); n > tc.max {
			t.Errorf("%s: %d bytes, want at most %d", tc.name, n, tc.max)
		}
	}
}

// Lines that went through the emulator read back as they were on the
// screen, every attribute the parser sets included.
func TestCompactEmulatorLines(t *testing.T) {
	t.Parallel()
	inputs := []string{
		"\x1b[1;3;4;5;7;8;9mall\x1b[m \x1b[2mfaint\x1b[22m \x1b[6mrapid\x1b[m",
		"\x1b[31mred \x1b[91mbright \x1b[38;5;123mindexed \x1b[38;2;1;2;3mrgb \x1b[48;2;4;5;6mbg\x1b[m",
		"\x1b[4:3;58;5;9mcurly\x1b[4:2;58;2;10;20;30mdouble\x1b[4:4mdotted\x1b[4:5mdashed\x1b[m",
		"\x1b[38:3::10:20:30mcmy\x1b[38:4::1:2:3:4mcmyk\x1b[38:1mtransparent\x1b[m",
		"\x1b]8;id=7;https://example.com/x\x1b\\link\x1b]8;;\x1b\\ after",
		"日本語\x1b[32mテキスト\x1b[m🙂e\u0301 ──── x",
		"\x1b[44m   \x1b[K", // a coloured erase to the end of the line
	}
	for _, in := range inputs {
		e := NewEmulator(40, 3)
		_, _ = e.WriteString(in)
		want := slices.Clone(trimmed(e.scr.buf.Line(0)))
		_, _ = e.WriteString("\r\n\r\n\r\n")
		if e.ScrollbackLen() != 1 {
			t.Fatalf("%q: scrollback holds %d lines, want 1", in, e.ScrollbackLen())
		}
		sameCells(t, fmt.Sprintf("%q", in), e.Scrollback().Line(0), want)
		if len(want) == 0 {
			t.Fatalf("%q: nothing on the line", in)
		}
	}
}

// fuzzCells turns bytes into a line of arbitrary cells, drawing styles,
// colours of every type, links, widths and contents from them.
func fuzzCells(data []byte, odd *oddColor) uv.Line {
	next := func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
	pickColor := func() color.Color {
		v := next()
		switch next() % 18 {
		case 0:
			return nil
		case 1:
			return ansi.BasicColor(v % 16)
		case 2:
			return ansi.IndexedColor(v)
		case 3:
			return color.RGBA{v, next(), next(), 0xff}
		case 4:
			return color.RGBA{v, next(), next(), next()}
		case 5:
			return ansi.RGBColor{R: v, G: next(), B: next()}
		case 6:
			return ansi.TrueColor(uint32(v) << 16)
		case 7:
			return color.NRGBA{v, next(), next(), next()}
		case 8:
			return color.RGBA64{uint16(v) << 8, uint16(next()), 0xffff, uint16(next())}
		case 9:
			return color.NRGBA64{uint16(v), uint16(next()) << 8, 1, 2}
		case 10:
			return color.CMYK{v, next(), next(), next()}
		case 11:
			return color.Alpha{v}
		case 12:
			return color.Alpha16{uint16(v) * 257}
		case 13:
			return color.Gray{v}
		case 14:
			return color.Gray16{uint16(v)}
		case 15:
			return odd
		case 16:
			return &oddColor{v, 0, 0}
		}
		return ansi.HexColor(fmt.Sprintf("#%02x0000", v))
	}
	contents := []string{" ", "a", "~", "日", "🙂", "👩‍💻", "e\u0301", "─", "", "ab", "\x00", "\x1b", "\x7f", "\xff", "\xc3", "é"}
	var line uv.Line
	var st uv.Style
	var link uv.Link
	for len(data) > 0 {
		op := next()
		switch op % 8 {
		case 0:
			st = uv.Style{Fg: pickColor(), Bg: pickColor(), UnderlineColor: pickColor(), Attrs: next(), Underline: next() % 7}
		case 1:
			st = uv.Style{}
		case 2:
			switch next() % 3 {
			case 0:
				link = uv.Link{}
			case 1:
				link = uv.NewLink(fmt.Sprintf("https://x.example/%d", next()))
			default:
				link = uv.NewLink(string([]byte{next(), next()}), "id="+string([]byte{next()}))
			}
		case 3:
			line = append(line, uv.Cell{})
		case 4: // a wide cell and its placeholder
			line = append(line, uv.Cell{Content: "端", Width: 2, Style: st, Link: link}, uv.Cell{})
		case 5: // a raw content, several times
			n := int(next() % 5)
			w := int(int8(next())) % 4
			n = min(n, len(data))
			c := uv.Cell{Content: string(data[:n]), Width: w, Style: st, Link: link}
			data = data[n:]
			for range 1 + int(next()%6) {
				line = append(line, c)
			}
		default:
			c := contents[int(next())%len(contents)]
			w := ansi.StringWidth(c)
			for range 1 + int(next()%3) {
				line = append(line, uv.Cell{Content: c, Width: w, Style: st, Link: link})
			}
		}
	}
	return line
}

// FuzzCompactLine pushes arbitrary cells and checks they read back equal,
// through a small scrollback so lines (and side-table colours) get evicted.
func FuzzCompactLine(f *testing.F) {
	f.Add([]byte("hello"))
	f.Add([]byte{0, 1, 15, 2, 3, 1, 4, 0, 7, 'a', 7, 'b', 2, 1, 5, 6, 5, 4, 3, 2, 1})
	f.Add([]byte{4, 4, 3, 3, 6, 2, 6, 2, 0, 200, 15, 9, 15, 8, 16, 0xff, 6, 6})
	f.Fuzz(func(t *testing.T, data []byte) {
		data = data[:min(len(data), 512)] // CellAt per cell is quadratic in the width
		odd := &oddColor{1, 2, 3}
		sb := NewScrollback(3)
		var pushed []uv.Line
		// Several lines from the same bytes, each starting further in.
		for i := 0; i < 5 && i <= len(data); i++ {
			line := fuzzCells(data[i:], odd)
			sb.Push(line)
			pushed = append(pushed, slices.Clone(trimmed(line)))
		}
		if sb.Len() != min(3, len(pushed)) {
			t.Fatalf("len = %d, want %d", sb.Len(), min(3, len(pushed)))
		}
		kept := pushed[len(pushed)-sb.Len():]
		for i, want := range kept {
			sameCells(t, fmt.Sprintf("line %d", i), sb.Line(i), want)
			for x := range want {
				if c := sb.CellAt(x, i); c == nil || *c != want[x] {
					t.Fatalf("line %d CellAt(%d) = %#v, want %#v", i, x, c, want[x])
				}
			}
		}
		// Only the kept lines' unknown colours are held.
		n := 0
		for i := range sb.Len() {
			forEachExt(sb.line(i), func(uint64) { n++ })
		}
		if sb.ext.used != n {
			t.Fatalf("side table holds %d colours, the kept lines use %d", sb.ext.used, n)
		}
	})
}

// colouredLines is n lines of exactly cols columns of words in 16-, 256-
// and true colour, some bold, as a build or a chat CLI prints them (the
// shape of bench/run.sh memory's long-lines case).
func colouredLines(n, cols int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"build", "ok", "error:", "main.go:42:", "func", "return", "nil", "pullcept", "seat", "--", "12.5", "{x}"}
	var b strings.Builder
	for i := range n {
		col := 0
		head := fmt.Sprintf("%05d ", i)
		b.WriteString("\x1b[2m" + head + "\x1b[m")
		col += len(head)
		for col < cols {
			w := words[rng.IntN(len(words))]
			w = w[:min(len(w), cols-col)]
			switch rng.IntN(4) {
			case 0:
				fmt.Fprintf(&b, "\x1b[3%dm%s\x1b[39m", rng.IntN(8), w)
			case 1:
				fmt.Fprintf(&b, "\x1b[1;38;5;%dm%s\x1b[m", rng.IntN(256), w)
			case 2:
				fmt.Fprintf(&b, "\x1b[38;2;%d;%d;%dm%s\x1b[m", rng.IntN(256), rng.IntN(256), rng.IntN(256), w)
			default:
				b.WriteString(w)
			}
			col += len(w)
			if col < cols {
				b.WriteByte(' ')
				col++
			}
		}
		b.WriteString("\r\n")
	}
	return []byte(b.String())
}

// liveHeap is the live heap after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkScrollbackBytesPerLine fills a 10,000-line scrollback of a
// 100x30 emulator and reports the live heap a line costs, "before" as the
// released code kept it (a clone of its cells) and "after" (compact); the
// timed loop is a push onto the full scrollback.
func BenchmarkScrollbackBytesPerLine(b *testing.B) {
	const lines, cols = DefaultScrollbackSize, 100
	for _, in := range []struct {
		name string
		data []byte
	}{
		{"long coloured lines", colouredLines(lines+30, cols)},
		{"short lines", func() []byte { // seq 1 10030
			var s strings.Builder
			for i := range lines + 30 {
				fmt.Fprintf(&s, "%d\r\n", i+1)
			}
			return []byte(s.String())
		}()},
	} {
		b.Run(in.name, func(b *testing.B) {
			e := NewEmulator(cols, 30)
			_, _ = e.Write(in.data)
			sb := e.Scrollback()
			if sb.Len() != lines {
				b.Fatalf("scrollback holds %d lines, want %d", sb.Len(), lines)
			}
			decoded := sb.Lines()
			heap0 := liveHeap()
			// Before: each line a clone of its cells, as the released Push kept it.
			before := make([]uv.Line, len(decoded))
			for i, l := range decoded {
				before[i] = slices.Clone(l)
			}
			heap1 := liveHeap()
			runtime.KeepAlive(before)
			before = nil
			// After: a fresh scrollback holding the same lines encoded.
			heap2 := liveHeap()
			after := NewScrollback(lines)
			for _, l := range decoded {
				after.Push(l)
			}
			heap3 := liveHeap()
			line := decoded[len(decoded)/2]
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				after.Push(line)
			}
			b.StopTimer()
			runtime.KeepAlive(after)
			// After the loop: ResetTimer deletes metrics reported before it.
			b.ReportMetric(float64(heap1-heap0)/lines, "B/line-before")
			b.ReportMetric(float64(heap3-heap2)/lines, "B/line-after")
		})
	}
}

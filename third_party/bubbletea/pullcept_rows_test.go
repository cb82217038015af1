package tea

// PATCH(pullcept): tests of drawing only the changed rows (pullcept_rows.go).

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"
)

// rowsRenderer is a renderer of an alternate-screen view of w x h cells,
// writing to out.
func rowsRenderer(out *bytes.Buffer, w, h int, whole bool) *cursedRenderer {
	r := newCursedRenderer(out, []string{"TERM=xterm-256color"}, w, h)
	r.setColorProfile(colorprofile.TrueColor)
	r.wholeFrames = whole
	return r
}

func frameOf(r *cursedRenderer, content string) {
	r.render(View{AltScreen: true, Content: content})
	_, _ = r.flush(false)
}

// wholeCells is what a whole draw of content puts in a w x h buffer.
func wholeCells(content string, w, h int) uv.ScreenBuffer {
	b := uv.NewScreenBuffer(w, h)
	b.Clear()
	uv.NewStyledString(content).Draw(b, b.Bounds())
	return b
}

func cellsDiffer(t *testing.T, got, want uv.ScreenBuffer) string {
	t.Helper()
	for y := range want.Height() {
		for x := range want.Width() {
			g, w := got.CellAt(x, y), want.CellAt(x, y)
			if (g == nil) != (w == nil) || g != nil && (*g != *w) {
				return fmt.Sprintf("cell %d,%d: %+v, a whole draw gives %+v", x, y, g, w)
			}
		}
	}
	return ""
}

// rowPieces are the bits random rows are made of: plain and wide text,
// styles that end on the row or run on into the rows below, resets,
// hyperlinks, a combining mark, a string sequence passed through.
var rowPieces = []string{
	"plain text ", "日本語の行 ", "│", "\x1b[31m", "\x1b[1;44m", "\x1b[38;5;208m", "\x1b[38;2;10;200;30m",
	"\x1b[m", "\x1b[0m", "\x1b[7m", "\x1b]8;;https://example.com\x1b\\", "\x1b]8;;\x1b\\", "e\u0301", "x",
	"\x1b_Gx=1\x1b\\", "   ", "🙂", "\x1b[4:3m", "\x1b[58;5;3m",
}

func randomRow(rnd *rand.Rand, w int) string {
	var b strings.Builder
	for n := rnd.IntN(8); n > 0; n-- {
		b.WriteString(rowPieces[rnd.IntN(len(rowPieces))])
	}
	if rnd.IntN(3) == 0 {
		b.WriteString(strings.Repeat("w", rnd.IntN(w+10))) // past the edge too
	}
	return b.String()
}

// Whatever rows change from frame to frame, the cell buffer holds exactly
// what a whole draw of the frame gives. (The bytes sent differ now and then:
// the whole renderer repaints some rows of wide characters that did not
// change.) What the terminal shows is checked with an emulator in Pullcept's
// tui tests (TestChangedRowsOnTheTerminal).
func TestChangedRowsMatchWholeDraw(t *testing.T) {
	t.Parallel()
	const w, h = 30, 8
	rnd := rand.New(rand.NewPCG(1, 2))
	var out bytes.Buffer
	rows := rowsRenderer(&out, w, h, false)
	lines := make([]string, h)
	for i := range lines {
		lines[i] = randomRow(rnd, w)
	}
	for frame := range 2000 {
		for n := 1 + rnd.IntN(3); n > 0; n-- {
			lines[rnd.IntN(h)] = randomRow(rnd, w)
		}
		if frame%97 == 0 { // now and then a different row count
			content := strings.Join(lines[:h-1], "\n")
			frameOf(rows, content)
		}
		content := strings.Join(lines, "\n")
		if frame%5 == 0 {
			content = strings.ReplaceAll(content, "\n", "\r\n")
		}
		frameOf(rows, content)
		if d := cellsDiffer(t, rows.cellbuf, wholeCells(content, w, h)); d != "" {
			t.Fatalf("frame %d: %s\ncontent %q", frame, d, content)
		}
		out.Reset()
	}
}

// A frame in which one row changed draws that row alone (the others keep
// their cells untouched), also below a style that runs on from above; a
// row whose inherited style changed is drawn again though its text did
// not change.
func TestChangedRowsDrawsOnlyThoseRows(t *testing.T) {
	t.Parallel()
	const w, h = 20, 6
	var out bytes.Buffer
	r := rowsRenderer(&out, w, h, false)
	lines := []string{"top", "\x1b[32mgreen runs on", "still green", "\x1b[mplain", "five", "six"}
	frameOf(r, strings.Join(lines, "\n"))
	drawn := func(content string) []int {
		t.Helper()
		// Count the rows drawn: a row keeps its cells' identity (the same
		// Content strings) unless it was drawn again; mark them first.
		for y := range h {
			for x := range w {
				if c := r.cellbuf.CellAt(x, y); c != nil && c.Content == " " {
					c.Content = "\x00" // a row drawn again loses the mark
				}
			}
		}
		r.render(View{AltScreen: true, Content: content})
		// Draw without rendering to the terminal, so the marks stay out of it.
		r.mu.Lock()
		_, ok := r.drawChangedRows(content, true)
		r.mu.Unlock()
		if !ok {
			t.Fatalf("frame %q drawn whole", content)
		}
		var rows []int
		for y := range h {
			if c := r.cellbuf.CellAt(w-1, y); c == nil || c.Content != "\x00" {
				rows = append(rows, y)
			}
		}
		for y := range h { // undo the marks
			for x := range w {
				if c := r.cellbuf.CellAt(x, y); c != nil && c.Content == "\x00" {
					c.Content = " "
				}
			}
		}
		return rows
	}
	lines[4] = "FIVE"
	if got := drawn(strings.Join(lines, "\n")); fmt.Sprint(got) != "[4]" {
		t.Errorf("one plain row changed: rows %v drawn, want [4]", got)
	}
	lines[2] = "STILL green"
	if got := drawn(strings.Join(lines, "\n")); fmt.Sprint(got) != "[1 2]" {
		t.Errorf("a row under a running style changed: rows %v drawn, want [1 2] (from the row the style starts on)", got)
	}
	lines[1] = "\x1b[31mred runs on"
	if got := drawn(strings.Join(lines, "\n")); fmt.Sprint(got) != "[1 2 3]" {
		t.Errorf("a running style changed: rows %v drawn, want [1 2 3] (rows 2 and 3 inherit it)", got)
	}
	if d := cellsDiffer(t, r.cellbuf, wholeCells(strings.Join(lines, "\n"), w, h)); d != "" {
		t.Fatal(d)
	}
}

// BenchmarkFlushOneRow is a frame of a 160x40 screen of styled English and
// Japanese text in which one row changed (a key's echo), drawn by changed
// rows and whole (upstream).
func BenchmarkFlushOneRow(b *testing.B) {
	const w, h = 160, 40
	lines := make([]string, h)
	for i := range lines {
		lines[i] = fmt.Sprintf("\x1b[2m│\x1b[m \x1b[1;36m%02d\x1b[m %s \x1b[38;5;%dm%s\x1b[m", i,
			strings.Repeat("日本語のテキスト ", 4), i, strings.Repeat("the quick brown fox ", 4))
	}
	for _, whole := range []bool{false, true} {
		name := "changed-rows"
		if whole {
			name = "whole"
		}
		b.Run(name, func(b *testing.B) {
			var out bytes.Buffer
			r := rowsRenderer(&out, w, h, whole)
			frameOf(r, strings.Join(lines, "\n"))
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				lines[20] = fmt.Sprintf("echo %d", i)
				frameOf(r, strings.Join(lines, "\n"))
				out.Reset()
			}
		})
	}
}

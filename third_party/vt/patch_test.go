package vt

// Tests for the changes made in this patched copy (see README.md). Each one
// fails on the released v0.1.0.

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// Fix 1: a wide character that does not fit in the columns left on the line
// wraps whole to the next line (charmbracelet/x#975).
func TestPatchWideCharWraps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		w, h  int
		input string
		want  []string
		pos   uv.Position
	}{
		{
			// The line fills exactly: か must not overwrite お.
			name: "exact fit then wide", w: 10, h: 3,
			input: "あいうえおかきくけこさ",
			want:  []string{"あいうえお", "かきくけこ", "さ"},
			pos:   uv.Pos(2, 2),
		},
		{
			// One column left: お goes to the next line, the last column
			// stays blank.
			name: "one column left", w: 10, h: 3,
			input: "aあいうえおか",
			want:  []string{"aあいうえ", "おか", ""},
			pos:   uv.Pos(4, 1),
		},
		{
			name: "issue 975", w: 5, h: 3,
			input: "abcd中",
			want:  []string{"abcd", "中", ""},
			pos:   uv.Pos(2, 1),
		},
		{
			// An ASCII character after a wide one ending at the edge wraps.
			name: "exact fit then narrow", w: 4, h: 2,
			input: "abあx",
			want:  []string{"abあ", "x"},
			pos:   uv.Pos(1, 1),
		},
		{
			// At the bottom the wrap scrolls.
			name: "wrap scrolls", w: 5, h: 2,
			input: "12345\r\nabcd中",
			want:  []string{"abcd", "中"},
			pos:   uv.Pos(2, 1),
		},
		{
			// Without autowrap nothing moves to the next line (unchanged).
			name: "no autowrap", w: 5, h: 2,
			input: "\x1b[?7labcd中",
			want:  []string{"abcd", ""},
			pos:   uv.Pos(4, 0),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newTestTerminal(t, tt.w, tt.h)
			_, _ = e.WriteString(tt.input)
			diffRows(t, plainRows(e), tt.want)
			if got := e.CursorPosition(); got != tt.pos {
				t.Errorf("cursor = %v, want %v", got, tt.pos)
			}
		})
	}
}

// Fix 2: IL and DL inside a scroll region whose top is not the first row
// leave the cursor on its row, at the left margin. Upstream moved it down by
// the region top. The same helper misuse moved the cursor down on CR in
// origin mode.
func TestPatchInsertDeleteLineCursor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		input string
		pos   uv.Position
	}{
		{"IL", "\x1b[3;8r\x1b[5;4H\x1b[L", uv.Pos(0, 4)},
		{"DL", "\x1b[3;8r\x1b[5;4H\x1b[2M", uv.Pos(0, 4)},
		{"IL at region top", "\x1b[3;8r\x1b[3;4H\x1b[L", uv.Pos(0, 2)},
		{"DL at region bottom", "\x1b[3;8r\x1b[8;4H\x1b[M", uv.Pos(0, 7)},
		{"IL no region", "\x1b[5;4H\x1b[L", uv.Pos(0, 4)},
		{"IL clears pending wrap", "\x1b[3;8r\x1b[5;1H" + strings.Repeat("x", 10) + "\x1b[L", uv.Pos(0, 4)},
		{"CR in origin mode", "\x1b[3;8r\x1b[?6h\x1b[2;4Hab\r", uv.Pos(0, 3)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newTestTerminal(t, 10, 10)
			_, _ = e.WriteString(tt.input)
			if got := e.CursorPosition(); got != tt.pos {
				t.Errorf("cursor = %v, want %v", got, tt.pos)
			}
		})
	}

	// Text written after IL/DL lands on the right row.
	e := newTestTerminal(t, 10, 10)
	for i := range 10 {
		_, _ = fmt.Fprintf(e, "\x1b[%dHline%d", i+1, i)
	}
	_, _ = e.WriteString("\x1b[3;8r\x1b[5;4H\x1b[LIL\x1b[7;2H\x1b[MDL")
	diffRows(t, plainRows(e), []string{
		"line0", "line1", "line2", "line3", "IL", "line4", "DLne6", "", "line8", "line9",
	})
}

// Fix 3a: a line feed at the bottom of the screen rotates the line slices:
// the line that was second is now first, and no cell was copied.
func TestPatchLineFeedRotatesLines(t *testing.T) {
	t.Parallel()
	e := newTestTerminal(t, 8, 4)
	_, _ = e.WriteString("a\r\nb\r\nc\r\nd")
	lines := e.scr.buf.Lines
	second, last := &lines[1][0], &lines[3][0]
	// A blue background pen: the line that comes in takes it.
	_, _ = e.WriteString("\x1b[44m\r\n\x1b[m")
	if &lines[0][0] != second {
		t.Errorf("line 1 was copied into line 0, not moved")
	}
	if &lines[2][0] != last {
		t.Errorf("line 3 was copied into line 2, not moved")
	}
	diffRows(t, plainRows(e), []string{"b", "c", "d", ""})
	for x := range 8 {
		c := e.CellAt(x, 3)
		if c.Content != " " || c.Width != 1 || c.Style.Bg != ansi.Blue {
			t.Fatalf("new line cell %d = %+v, want a blank with a blue background", x, c)
		}
	}
	if got := e.ScrollbackLen(); got != 1 {
		t.Fatalf("scrollback has %d lines, want 1", got)
	}
	if got := e.Scrollback().Line(0).String(); got != "a" {
		t.Errorf("scrollback line 0 = %q, want %q", got, "a")
	}
}

// Fix 3b (a push onto a full scrollback moves no line):
// TestPatchScrollbackPushDoesNotShift in scrollback_test.go.

// The rotating insertLineArea/deleteLineArea give the same buffer as the
// ultraviolet cell-by-cell versions they replace, wide cells, coloured blanks
// and narrow regions included.
func TestPatchLineAreaMatchesUV(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(1))
	const w, h = 12, 9
	bg := uv.EmptyCell
	bg.Style.Bg = ansi.Red
	for i := range 2000 {
		s := NewScreen(w, h)
		s.cb = &Callbacks{}
		for y := range h {
			for x := 0; x < w; x++ {
				c := uv.Cell{Content: string(rune('a' + rng.Intn(26))), Width: 1}
				if rng.Intn(4) == 0 {
					c = uv.Cell{Content: "漢", Width: 2}
				}
				s.SetCell(x, y, &c)
				x += c.Width - 1
			}
		}
		area := uv.Rect(0, 0, w, h)
		area.Min.Y = rng.Intn(h)
		area.Max.Y = area.Min.Y + 1 + rng.Intn(h-area.Min.Y)
		if rng.Intn(4) == 0 { // left/right margins: the slow path
			area.Min.X = rng.Intn(w / 2)
			area.Max.X = w/2 + 1 + rng.Intn(w/2)
		}
		y := area.Min.Y + rng.Intn(area.Dy())
		n := 1 + rng.Intn(h)
		var c *uv.Cell
		if rng.Intn(2) == 0 {
			c = &bg
		}

		want := &uv.Buffer{Lines: make([]uv.Line, h)}
		for j, l := range s.buf.Lines {
			want.Lines[j] = append(uv.Line(nil), l...)
		}
		insert := rng.Intn(2) == 0
		if insert {
			want.InsertLineArea(y, n, c, area)
			s.insertLineArea(y, n, c, area)
		} else {
			want.DeleteLineArea(y, n, c, area)
			s.deleteLineArea(y, n, c, area)
		}
		if !reflect.DeepEqual(s.buf.Lines, want.Lines) {
			t.Fatalf("case %d: insert=%v y=%d n=%d area=%v bg=%v:\n got %q\nwant %q",
				i, insert, y, n, area, c != nil, s.buf.String(), want.String())
		}
		for j := y; j < area.Max.Y; j++ {
			if s.buf.Touched[j] == nil {
				t.Fatalf("case %d: line %d changed but is not marked touched", i, j)
			}
		}
	}
}

package vt

// PATCH(pullcept): tests of change 16, margins as xterm keeps them: ICH and
// DCH on any row between the left and right margins, and the left and right
// margins gone with DECLRMM.

import (
	"strings"
	"testing"

	uv "github.com/charmbracelet/ultraviolet"
)

// TestPatchInsertDeleteCharAnyRow: ICH and DCH work on rows outside the
// DECSTBM region (upstream did nothing there), and keep to DECSLRM's columns.
func TestPatchInsertDeleteCharAnyRow(t *testing.T) {
	for _, c := range []struct{ seq, want string }{
		{"\x1b[2;3r\x1b[1;2H\x1b[2@", "a  bcd\nghijkl\nmnopqr\nstuvwx"}, // above the region
		{"\x1b[2;3r\x1b[4;2H\x1b[2P", "abcdef\nghijkl\nmnopqr\nsvwx"},   // below it
		{"\x1b[2;3r\x1b[2;2H\x1b[@", "abcdef\ng hijk\nmnopqr\nstuvwx"},  // in it, as before
		{"\x1b[?69h\x1b[2;4s\x1b[4;3H\x1b[@", "abcdef\nghijkl\nmnopqr\nst uwx"},
		{"\x1b[?69h\x1b[2;4s\x1b[4;3H\x1b[P", "abcdef\nghijkl\nmnopqr\nstv wx"},
		{"\x1b[?69h\x1b[2;4s\x1b[4;6H\x1b[P", "abcdef\nghijkl\nmnopqr\nstuvwx"}, // right of the margins: nothing
	} {
		e := NewEmulator(6, 4)
		_, _ = e.WriteString("abcdef\r\nghijkl\r\nmnopqr\r\nstuvwx" + c.seq)
		if got := strings.TrimRight(e.String(), "\n"); got != c.want {
			t.Errorf("%q: screen %q, want %q", c.seq, got, c.want)
		}
	}
}

// TestPatchLeftRightMarginsEndWithMode: resetting DECLRMM (CSI ? 69 l) drops
// the left and right margins, as xterm does; upstream kept them, and ICH,
// IL and the line feed at the bottom went on keeping to them.
func TestPatchLeftRightMarginsEndWithMode(t *testing.T) {
	e := NewEmulator(10, 3)
	_, _ = e.WriteString("0123456789\x1b[?69h\x1b[3;6s\x1b[?69l")
	if r := e.scr.ScrollRegion(); r != uv.Rect(0, 0, 10, 3) {
		t.Fatalf("region after DECLRMM reset %v, want the screen", r)
	}
	_, _ = e.WriteString("\x1b[1;8H\x1b[@") // column 8: outside the old margins
	if got := e.scr.buf.Line(0).String(); got != "0123456 78" {
		t.Errorf("row 0 after ICH %q, want %q", got, "0123456 78")
	}
	_, _ = e.WriteString("\x1b[3;9Hx\ny") // a line feed on the last row, right of the old margins
	if got := strings.TrimRight(e.String(), "\n"); got != "\n        x\n         y" {
		t.Errorf("screen after the line feed %q: did not scroll", got)
	}
}

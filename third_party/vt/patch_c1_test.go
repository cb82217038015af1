package vt

import (
	"io"
	"strings"
	"testing"
)

// Every C1 control written as a UTF-8 character is neither drawn nor acted
// on, alone or in the sequences it would start (CSI, OSC 52), and a link
// holding one is no link (README change 19). Upstream kept each one in a
// cell, which the screen's renderer wrote out to the outer terminal.
func TestPatchC1ControlsDropped(t *testing.T) {
	t.Parallel()
	for _, slow := range []bool{false, true} {
		for r := rune(0x80); r < 0xA0; r++ {
			c1 := string(r)
			e := NewEmulator(20, 3)
			e.slow = slow
			go func() { _, _ = io.Copy(io.Discard, e) }()
			in := "A" + c1 + "\x1b[CB\r\n" + // a cell past it left as it was
				"\u009d52;c;aGk=\u009c\u009b2J" + c1 + "\r\n" + // the clipboard, an erase
				"\x1b]8;;http://x" + c1 + "y\x1b\\L\x1b]8;;\x1b\\"
			_, _ = e.WriteString(in)
			rows := plainRows(e)
			if want := []string{"A B", "52;c;aGk=2J", "L"}; strings.Join(rows, "|") != strings.Join(want, "|") {
				t.Errorf("U+%04X (slow %v): rows %q, want %q", r, slow, rows, want)
			}
			for y := range e.Height() {
				for x := range e.Width() {
					if c := e.CellAt(x, y); c != nil && hasControl([]byte(c.Content)) {
						t.Errorf("U+%04X (slow %v): cell %d,%d holds %q", r, slow, x, y, c.Content)
					}
				}
			}
			if c := e.CellAt(0, 2); c == nil || c.Link.URL != "" {
				t.Errorf("U+%04X (slow %v): a link with a control kept: %+v", r, slow, c)
			}
			_ = e.Close()
		}
	}
}

func TestPatchHasControl(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"http://example.com/日本": false, "": false, "a\x1bb": true, "a\x07": true, "\x7f": true,
		"a\u0085": true, "\u009c": true, "a\x9cb": true, "\xff": true, "\u00a0": false, "\xe2\x9c\xb3": false,
	} {
		if got := hasControl([]byte(s)); got != want {
			t.Errorf("hasControl(%q) = %v, want %v", s, got, want)
		}
	}
}

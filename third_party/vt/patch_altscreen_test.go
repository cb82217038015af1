package vt

import "testing"

// TestPatchAltScreenKeepsNoScrollback: the alternate screen's scrollback
// (never exposed, up to 10,000 lines) is gone; the main screen's stays, and
// erasing on the alternate screen is still safe.
func TestPatchAltScreenKeepsNoScrollback(t *testing.T) {
	e := NewEmulator(20, 5)
	_, _ = e.WriteString("\x1b[?1049h")
	for range 100 {
		_, _ = e.WriteString("alternate\r\n")
	}
	_, _ = e.WriteString("alternate\x1b[2J") // ED 2 saves the screen to the scrollback
	if sb := e.scrs[1].Scrollback(); sb.Len() != 0 {
		t.Errorf("alternate screen scrollback holds %d lines", sb.Len())
	}
	_, _ = e.WriteString("\x1b[3J") // ED 3 clears it: nil-safe
	_, _ = e.WriteString("\x1b[?1049l")
	for range 10 {
		_, _ = e.WriteString("main\r\n")
	}
	if n := e.ScrollbackLen(); n != 6 {
		t.Errorf("main screen scrollback holds %d lines, want 6", n)
	}
}

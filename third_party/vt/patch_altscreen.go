package vt

// PATCH(pullcept): the alternate screen's cells exist only while it is
// shown. Upstream made both screens' cells in NewEmulator (a 100x30 screen
// is 3,000 uv.Cells of 112 bytes: 336 KB), though most programs never switch
// to the alternate screen. Nothing of its cells outlives a visit: entering it
// clears it, so a buffer made at the current size on entry and dropped on
// leaving shows the same screen. What does outlive a visit lives in the
// Screen and is kept: the scroll region (reset by a resize or RIS, as
// upstream) and the cursor saved with DECSC on the alternate screen.

import uv "github.com/charmbracelet/ultraviolet"

// clampedArea: insertLineArea and deleteLineArea (IL, DL, SU, SD, a line
// feed at the bottom margin) work on the part of the scroll region that is
// on the screen. DECSTBM and DECSLRM did not clamp their margins (upstream;
// since change 15 they do, patch_bounds.go, and this is a second guard),
// so `ESC[2;100r` on a 5-row screen gave a region past the screen; the
// rotation sliced the line slice up to the region's bottom, which reads the
// slice's capacity: rows a larger size left hidden (shown again by DL) on a
// screen made larger and resized, a panic on one never resized. The
// alternate screen, made at its size when entered, has no such capacity,
// so it would panic where the upstream one showed stale rows; clamped, both
// show what tmux shows (it clamps the margins when they are set).

// allocAltScreen gives the alternate screen its cells, blank, at the main
// screen's size (both screens always have the same size).
func (e *Emulator) allocAltScreen() {
	s := &e.scrs[1]
	if s.buf != nil {
		return
	}
	s.buf = uv.NewRenderBuffer(e.scrs[0].Width(), e.scrs[0].Height())
}

// releaseAltScreen drops the alternate screen's cells once the main screen
// is shown again.
func (e *Emulator) releaseAltScreen() {
	e.scrs[1].buf = nil
}

// resizeAltScreen is Screen.Resize for the alternate screen, which may have
// no cells: then only its scroll region is reset, as Resize would, to the
// main screen's new bounds.
func (e *Emulator) resizeAltScreen(width, height int) {
	s := &e.scrs[1]
	if s.buf != nil {
		s.Resize(width, height)
		return
	}
	s.scroll = e.scrs[0].Bounds()
}

// resetAltScreen is Screen.Reset for the alternate screen, which may have
// no cells.
func (e *Emulator) resetAltScreen() {
	s := &e.scrs[1]
	if s.buf != nil {
		s.Reset()
		return
	}
	s.cur, s.saved = Cursor{}, Cursor{}
	s.scroll = e.scrs[0].Bounds()
}

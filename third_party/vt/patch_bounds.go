package vt

// PATCH(pullcept): no output of a program takes the cursor or an operation
// past the screen. Upstream kept a DECSTBM bottom or a DECSLRM right margin
// past the screen, a cursor saved before the screen got smaller, and the
// cursor of the screen not shown across a resize; from there ICH indexed
// past the line in ultraviolet's InsertCellArea, HTS and TBC past the tab
// stops, and writes went nowhere. Margins are clamped when set (handlers.go)
// and cursors when restored or resized, as xterm and tmux do.

import "github.com/charmbracelet/x/exp/ordered"

// clampHiddenCursor clamps the cursor of the screen not shown to a new size;
// Resize clamps the shown one.
func (e *Emulator) clampHiddenCursor(width, height int) {
	s := &e.scrs[0]
	if e.scr == s {
		s = &e.scrs[1]
	}
	s.cur.X = ordered.Clamp(s.cur.X, 0, width-1)
	s.cur.Y = ordered.Clamp(s.cur.Y, 0, height-1)
}

package tui

// Copying: a line selection in a terminal pane's scroll mode or in the
// room, made with keys (v, the arrows, y) or a mouse drag, put on the
// outer terminal's clipboard with OSC 52. The sequence goes out through
// the program's output (tea.SetClipboard), so it reaches the terminal of
// a client attached to the pullcept server too.

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// lineSel is a selection of whole lines between anchor and cur (either
// order). In a pane the lines are counted as the screen's rows (0 is the
// live screen's top, negative rows the scrollback); in the room as the
// index of the room's drawn lines.
type lineSel struct {
	room        bool
	pane        int // the pane's index (not room)
	anchor, cur int
	// mouse: made by a drag (copied on release); entered: the drag put the
	// pane in scroll mode, which the release leaves again.
	mouse, entered bool
}

func (s *lineSel) bounds() (int, int) { return min(s.anchor, s.cur), max(s.anchor, s.cur) }

// dragStart is a left press in a pane's or the room's lines: a motion
// with the button held makes it a selection.
type dragStart struct {
	room bool
	pane int
	line int
}

// paneRows is the height of pane i's lines on screen.
func (m *model) paneRows(i int) int {
	if i < len(m.lay.Panes) {
		return m.lay.Panes[i].Inner().H
	}
	return 0
}

// selValid reports whether the selection still belongs to what has focus:
// the focused pane in scroll mode, or the room.
func (m *model) selValid() bool {
	s := m.sel
	if s.room {
		return m.focus == focusRoom && m.cur() != nil
	}
	return m.focus == focusPane && m.scrollMode && m.paneIdx == s.pane
}

// roomLines are the room's drawn lines at its width, and the first shown.
func (m *model) roomLines() ([]roomLine, int) {
	rs := m.cur()
	in := m.lay.Room.Inner()
	if rs == nil || in.Empty() {
		return nil, 0
	}
	all := rs.lines(in.W, m.roomCtx())
	rs.view(in.W, in.H, m.roomCtx()) // clamps the offset
	end := len(all) - rs.offset
	return all, max(end-in.H, 0)
}

// startSel starts (or, when one is under way, starts over at its cursor)
// a selection in the scrolled pane or the room.
func (m *model) startSel(room bool) {
	if m.sel != nil && !m.sel.mouse && m.sel.room == room {
		m.sel.anchor = m.sel.cur
		return
	}
	if room {
		all, start := m.roomLines()
		if len(all) == 0 {
			m.status = "nothing in the room to select"
			return
		}
		// At the post cursor's last line (the newest post at the bottom:
		// the bottom line, as before the cursor).
		h := m.lay.Room.Inner().H
		last := min(start+h, len(all)) - 1
		if s, ok := m.selectedPost(); ok {
			last = s.last
		}
		m.sel = &lineSel{room: true, anchor: last, cur: last}
		m.moveSel(0, false, false) // shown
	} else {
		s, ok := m.focusedPane()
		if !ok {
			return
		}
		h := m.paneRows(m.paneIdx)
		row := h - 1 - m.scrollOff // the view's bottom line
		if _, y, vis := s.Pane.Cursor(); vis && m.scrollOff == 0 && y >= 0 && y < h {
			row = y // the application's cursor line, as tmux starts
		}
		m.sel = &lineSel{pane: m.paneIdx, anchor: row, cur: row}
	}
	m.status = "selecting: ↑/↓ extend, y copies, esc cancels"
	m.panesDirty = true
}

// moveSel moves the selection's cursor by d lines (to an end with
// top/bottom) and scrolls the view to keep it shown.
func (m *model) moveSel(d int, top, bottom bool) {
	s := m.sel
	if s.room {
		rs := m.cur()
		all, _ := m.roomLines()
		h := m.lay.Room.Inner().H
		switch {
		case top:
			s.cur = 0
		case bottom:
			s.cur = len(all) - 1
		default:
			s.cur += d
		}
		s.cur = min(max(s.cur, 0), max(len(all)-1, 0))
		end := len(all) - rs.offset
		start := max(end-h, 0)
		if s.cur < start {
			rs.offset = len(all) - s.cur - h
		} else if s.cur >= end {
			rs.offset = len(all) - s.cur - 1
		}
		rs.offset = max(rs.offset, 0)
		return
	}
	p, ok := m.focusedPane()
	if !ok {
		return
	}
	h, sb := m.paneRows(s.pane), p.Pane.ScrollbackLen()
	switch {
	case top:
		s.cur = -sb
	case bottom:
		s.cur = h - 1
	default:
		s.cur += d
	}
	s.cur = min(max(s.cur, -sb), h-1)
	if s.cur+m.scrollOff < 0 {
		m.scrollOff = -s.cur
	} else if s.cur+m.scrollOff >= h {
		m.scrollOff = h - 1 - s.cur
	}
	m.scrollOff = min(max(m.scrollOff, 0), sb)
	m.panesDirty = true
}

// selText is the selected lines' text: plain (no SGR), trailing spaces
// trimmed, one line each.
func (m *model) selText() (string, int) {
	lo, hi := m.sel.bounds()
	var out []string
	if m.sel.room {
		all, _ := m.roomLines()
		for i := max(lo, 0); i <= hi && i < len(all); i++ {
			out = append(out, plainLine(all[i].text))
		}
		return strings.Join(out, "\n"), len(out)
	}
	ps := m.panes()
	if m.sel.pane >= len(ps) {
		return "", 0
	}
	p := ps[m.sel.pane].Pane
	sb := p.ScrollbackLen()
	for a := lo; a <= hi; {
		off := min(max(-a, 0), sb)
		lines := strings.Split(p.RenderScrolled(off), "\n")
		i := a + off
		if i < 0 || i >= len(lines) {
			break
		}
		for ; i < len(lines) && a <= hi; i, a = i+1, a+1 {
			out = append(out, plainLine(lines[i]))
		}
	}
	return strings.Join(out, "\n"), len(out)
}

func plainLine(s string) string { return strings.TrimRight(ansi.Strip(s), " ") }

// copySel puts the selection on the clipboard and ends it.
func (m *model) copySel() tea.Cmd {
	if m.sel == nil {
		m.status = "nothing selected: v starts a selection"
		return nil
	}
	text, n := m.selText()
	m.endSel()
	return m.clip(text, plural(n, "line"))
}

// clip puts text on the clipboard; the status says "copied what".
func (m *model) clip(text, what string) tea.Cmd {
	m.copied = text
	m.status = "copied " + what
	return tea.SetClipboard(text)
}

// endSel drops the selection (leaving the scroll mode a drag entered).
func (m *model) endSel() {
	if s := m.sel; s != nil && s.entered && m.scrollMode {
		m.scrollMode, m.scrollOff = false, 0
	}
	m.sel = nil
	m.panesDirty = true
}

// selected reports whether line (in the selection's counting) is selected
// in the room (room) or pane i.
func (m *model) selected(room bool, pane, line int) bool {
	s := m.sel
	if s == nil || s.room != room || (!room && s.pane != pane) {
		return false
	}
	lo, hi := s.bounds()
	return line >= lo && line <= hi
}

// reverse draws a selected line: plain, in reverse video, w cells.
func reverse(line string, w int) string { return style(fit(ansi.Strip(line), w), "7") }

// pressLines notes a left press on a pane's or the room's lines, where a
// drag may start.
func (m *model) pressLines(x, y int) {
	m.drag = nil
	if in := m.lay.Room.Inner(); in.Contains(x, y) {
		_, start := m.roomLines()
		m.drag = &dragStart{room: true, line: start + y - in.Y}
		return
	}
	for i, r := range m.lay.Panes {
		if in := r.Inner(); in.Contains(x, y) && i < len(m.panes()) {
			off := 0
			if m.scrollMode && m.paneIdx == i {
				off = m.scrollOff
			}
			m.drag = &dragStart{pane: i, line: y - in.Y - off}
		}
	}
}

// motion extends a drag's selection to the line under the mouse.
func (m *model) motion(ms tea.Mouse) {
	d := m.drag
	if d == nil || ms.Button != tea.MouseLeft {
		return
	}
	if d.room {
		all, start := m.roomLines()
		in := m.lay.Room.Inner()
		if len(all) == 0 || m.focus != focusRoom {
			return
		}
		line := start + min(max(ms.Y-in.Y, 0), in.H-1)
		line = min(line, len(all)-1)
		if m.sel == nil {
			m.sel = &lineSel{room: true, anchor: min(max(d.line, 0), len(all)-1), mouse: true}
		}
		m.sel.cur = line
		return
	}
	if d.pane >= len(m.lay.Panes) || m.focus != focusPane || m.paneIdx != d.pane {
		return
	}
	in := m.lay.Panes[d.pane].Inner()
	if m.sel == nil {
		entered := !m.scrollMode
		if entered {
			m.scrollMode, m.scrollOff = true, 0
		}
		m.sel = &lineSel{pane: d.pane, anchor: d.line, mouse: true, entered: entered}
	}
	m.sel.cur = min(max(ms.Y-in.Y, 0), in.H-1) - m.scrollOff
	m.panesDirty = true
}

// release copies a drag's selection.
func (m *model) release() tea.Cmd {
	m.drag = nil
	if m.sel == nil || !m.sel.mouse {
		return nil
	}
	return m.copySel()
}

// selMove carries out a moving action on the selection's cursor; false
// when act is not one.
func (m *model) selMove(act action, page int) bool {
	switch act {
	case actUp:
		m.moveSel(-1, false, false)
	case actDown:
		m.moveSel(1, false, false)
	case actPgUp:
		m.moveSel(-page, false, false)
	case actPgDn:
		m.moveSel(page, false, false)
	case actTop:
		m.moveSel(0, true, false)
	case actBottom:
		m.moveSel(0, false, true)
	default:
		return false
	}
	return true
}

// roomSelLines is how many lines the room of topic draws when the room's
// selection is in it (0 when none is).
func (m *model) roomSelLines(topic string) int {
	if m.sel == nil || !m.sel.room || topic != m.topic {
		return 0
	}
	all, _ := m.roomLines()
	return len(all)
}

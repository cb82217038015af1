package tui

// The mouse: clicks and the wheel.

import (
	tea "charm.land/bubbletea/v2"
)

func (m *model) click(ms tea.Mouse) tea.Cmd {
	m.drag = nil
	if ms.Button != tea.MouseLeft || m.help || m.dlg != nil || m.nl.open {
		return nil
	}
	x, y := ms.X, ms.Y
	defer m.pressLines(x, y) // after the focus moved: a drag may follow
	switch {
	case m.lay.Input.Contains(x, y):
		m.setFocus(focusInput, 0)
	case m.lay.Topics.Contains(x, y):
		m.setFocus(focusTopics, 0)
		row := y - m.lay.Topics.Y
		if row == 0 {
			if err := m.newTopic(); err != nil {
				m.status = err.Error()
			}
			return nil
		}
		if i := row - 1 + m.topicsTop(); i < len(m.topics) {
			m.tsel = i
			return m.openTopic(m.topics[i].ID)
		}
	case m.lay.Room.Contains(x, y):
		// The line under the mouse, read before the focus (which starts
		// the cursor at the newest post) may scroll the view.
		r := m.lay.Room.Inner()
		rs := m.cur()
		off, line := 0, -1
		if rs != nil && r.Contains(x, y) {
			vis, _ := rs.view(r.W, r.H, m.roomCtx())
			if i := y - r.Y; i < len(vis) {
				_, start := m.roomLines()
				off, line = rs.offset, start+i
			}
		}
		m.setFocus(focusRoom, 0)
		if line < 0 {
			return nil
		}
		rs.offset = off
		// Any line of a post selects it; a fold's header also opens or
		// closes the fold.
		all, _ := m.roomLines()
		items := roomItems(all)
		for i, it := range items {
			if line >= it.first && line <= it.last {
				m.setCursor(items, i)
				if it.key.fold != "" {
					m.toggleFold(rs, it.key.fold)
				}
				break
			}
		}
	case m.lay.Parts.Contains(x, y):
		m.setFocus(focusParts, 0)
		// Any line of a participant's block (its row and the figures
		// under it) selects that participant.
		_, owner := m.partLines(m.lay.Parts.W)
		top := partsTop(owner, m.psel, m.lay.Parts.H-1)
		if i := y - m.lay.Parts.Y - 1 + top; y > m.lay.Parts.Y && i < len(owner) {
			m.psel = owner[i]
		}
	case m.lay.Strip.Contains(x, y):
		// A name on the strip focuses that hidden pane.
		for _, it := range m.stripItems() {
			if x >= m.lay.Strip.X+it.x && x < m.lay.Strip.X+it.x+it.w {
				m.setFocus(focusPane, it.pane)
			}
		}
	default:
		for i, r := range m.lay.Panes {
			if r.Contains(x, y) {
				m.setFocus(focusPane, i)
			}
		}
	}
	return nil
}

func (m *model) wheel(ms tea.Mouse) {
	d := 0
	switch ms.Button {
	case tea.MouseWheelUp:
		d = 3
	case tea.MouseWheelDown:
		d = -3
	default:
		return
	}
	x, y := ms.X, ms.Y
	if m.lay.Room.Contains(x, y) || m.lay.Input.Contains(x, y) {
		if rs := m.cur(); rs != nil {
			rs.offset += d
			if m.focus == focusRoom {
				m.cursorIntoView()
			}
		}
		return
	}
	if m.lay.Topics.Contains(x, y) {
		m.tsel = min(max(m.tsel-d/3, 0), max(len(m.topics)-1, 0))
		return
	}
	for i, r := range m.lay.Panes {
		if !r.Contains(x, y) {
			continue
		}
		ps := m.panes()
		if i >= len(ps) {
			return
		}
		m.setFocus(focusPane, i)
		if !m.scrollMode {
			if d < 0 {
				return
			}
			m.scrollMode, m.scrollOff = true, 0
		}
		m.scrollOff = min(max(m.scrollOff+d, 0), ps[i].Pane.ScrollbackLen())
		if m.scrollOff == 0 && d < 0 {
			m.scrollMode = false
		}
		m.panesDirty = true
	}
}

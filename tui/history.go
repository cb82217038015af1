package tui

// Input history: what the person sent from this screen, recalled with ↑
// and ↓ in the input line as a shell does.

// histCap is how many sent posts a screen remembers.
const histCap = 100

// remember adds a sent text to the history (not twice in a row) and ends
// any recall.
func (m *model) remember(text string) {
	if n := len(m.hist); n == 0 || m.hist[n-1] != text {
		m.hist = append(m.hist, text)
		if len(m.hist) > histCap {
			m.hist = append([]string(nil), m.hist[len(m.hist)-histCap:]...)
		}
	}
	m.histAt = len(m.hist)
}

// recalling reports whether the input holds, unedited, the entry ↑/↓
// recalled last.
func (m *model) recalling() bool {
	return m.histAt >= 0 && m.histAt < len(m.hist) && m.input.String() == m.hist[m.histAt]
}

// historyUp recalls the entry before when the input is empty, or holds a
// recalled entry with the cursor on its first line; false when ↑ is the
// editor's (or the room's) to take. At the oldest entry ↑ stays there.
func (m *model) historyUp() bool {
	switch {
	case m.input.String() == "":
		m.histAt = len(m.hist)
	case !m.recalling() || m.input.lineStart() != 0:
		return false
	}
	if len(m.hist) == 0 {
		return false // nothing to recall: ↑ scrolls the room as before
	}
	if m.histAt > 0 {
		m.histAt--
	}
	m.input.Set(m.hist[m.histAt])
	return true
}

// historyDown goes forward from a recalled entry whose last line has the
// cursor: to the next entry, and after the newest back to an empty line.
func (m *model) historyDown() bool {
	if !m.recalling() || m.input.lineEnd() != len(m.input.buf) {
		return false
	}
	m.histAt++
	if m.histAt >= len(m.hist) {
		m.histAt = len(m.hist)
		m.input.Set("")
		return true
	}
	m.input.Set(m.hist[m.histAt])
	return true
}

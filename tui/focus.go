package tui

// Focus and the terminal panes: cycling, pane numbers, layouts, writing to
// the focused pane.

import (
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"
)

func (m *model) focusedPane() (SeatInfo, bool) {
	ps := m.panes()
	if m.focus != focusPane || m.paneIdx >= len(ps) {
		return SeatInfo{}, false
	}
	return ps[m.paneIdx], true
}

func (m *model) writePane(p Pane, b []byte) {
	if len(b) == 0 {
		return
	}
	m.exec(func() { _, _ = p.Write(b) })
}

// numbersOffMsg hides the pane numbers shown by the prefix # of seq.
type numbersOffMsg struct{ seq int }

// paneNumbersTime is how long prefix # shows the pane numbers.
const paneNumbersTime = 2 * time.Second

// later delivers msg after d (expireAfter when set: tests run it at once
// or not at all).
func (m *model) later(d time.Duration, msg tea.Msg) tea.Cmd {
	if m.expireAfter == nil {
		return tea.Tick(d, func(time.Time) tea.Msg { return msg })
	}
	return m.expireAfter(d, msg)
}

// paneDigit is the pane number a digit key stands for: 1–9, and 0 for 10.
func paneDigit(k string) (int, bool) {
	if len(k) != 1 || k[0] < '0' || k[0] > '9' {
		return 0, false
	}
	if k == "0" {
		return 10, true
	}
	return int(k[0] - '0'), true
}

// focusNumber focuses pane n (counted from 1, as the titles and the strip
// number them), bringing it on screen when it was hidden.
func (m *model) focusNumber(n int) {
	if n < 1 || n > len(m.panes()) {
		m.status = fmt.Sprintf("no pane %d here (%d panes)", n, len(m.panes()))
		return
	}
	m.setFocus(focusPane, n-1)
}

// nextLayout cycles the pane layouts (prefix space).
func (m *model) nextLayout() {
	m.paneLayout = (m.paneLayout + 1) % layoutCount
	m.status = "layout: " + layoutNames[m.paneLayout]
	if len(m.panes()) == 0 {
		m.status += " (for the terminal panes; none here yet)"
	}
}

// focusOrder is the cycle prefix o walks: hidden panes too (focusing one
// brings it on screen).
func (m *model) focusOrder() [][2]int {
	out := [][2]int{{int(focusInput), 0}, {int(focusRoom), 0}}
	for i := range m.panes() {
		if !m.lay.PaneArea.Empty() || m.zoom != zoomNone {
			out = append(out, [2]int{int(focusPane), i})
		}
	}
	if m.showTopics && !m.lay.Topics.Empty() {
		out = append(out, [2]int{int(focusTopics), 0})
	}
	if m.showParts && !m.lay.Parts.Empty() {
		out = append(out, [2]int{int(focusParts), 0})
	}
	return out
}

func (m *model) cycleFocus(d int) {
	order := m.focusOrder()
	at := 0
	for i, f := range order {
		if focusKind(f[0]) == m.focus && (m.focus != focusPane || f[1] == m.paneIdx) {
			at = i
		}
	}
	f := order[(at+d+len(order))%len(order)]
	m.setFocus(focusKind(f[0]), f[1])
}

func (m *model) setFocus(f focusKind, pane int) {
	if f != focusPane || pane != m.paneIdx {
		if m.scrollMode {
			m.scrollMode = false
			m.panesDirty = true
		}
	}
	entering := f == focusRoom && m.focus != focusRoom
	m.focus, m.paneIdx = f, pane
	if entering {
		m.enterRoom()
	}
	if m.zoom != zoomNone {
		switch {
		case f == focusPane:
			m.zoom = zoomPane + pane
		case f == focusRoom:
			m.zoom = zoomRoom
		}
	}
}

package tui

// Topics: opening, showing and loading them, their names, renaming, deleting
// and moving between them.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"pullcept/room/wire"
)

// newTopic opens a fresh topic (not in the list until something happens
// in it) and shows it.
func (m *model) newTopic() error {
	id, err := m.app.NewTopic()
	if err != nil {
		return fmt.Errorf("tui: new topic: %w", err)
	}
	rs := newRoomState(id)
	rs.loaded = true
	rs.roster = m.app.Roster(id)
	m.rooms[id] = rs
	m.show(id)
	return nil
}

// show makes topic the one on screen.
func (m *model) show(topic string) {
	m.topic = topic
	m.scrollMode = false
	m.zoom = zoomNone
	if m.focus == focusPane {
		m.focus = focusInput
	}
	m.paneIdx, m.paneSpare, m.numbers = 0, 0, false
	if m.onShow != nil {
		m.onShow(topic)
	}
	m.seenTopic()
	m.refreshSeats()
	m.readLoop(topic)
	for i, t := range m.topics {
		if t.ID == topic {
			m.tsel = i
		}
	}
}

// openTopic opens a listed topic: its room (seating the person) and its
// last page.
func (m *model) openTopic(id string) tea.Cmd {
	reopened := !m.app.IsOpen(id) // first time in this run: its sessions may come back
	if err := m.app.EnsureOpen(id); err != nil {
		m.status = "open: " + err.Error()
		return nil
	}
	rs, ok := m.rooms[id]
	if !ok {
		rs = newRoomState(id)
		rs.loadMarks(m.app)
		m.rooms[id] = rs
	}
	rs.roster = m.app.Roster(id)
	m.show(id)
	var cmds []tea.Cmd
	if reopened {
		cmds = append(cmds, m.bringBack(id))
	}
	if !rs.loaded && !rs.loading {
		rs.loading = true
		cmds = append(cmds, m.loadPage(id, ""))
	}
	return tea.Batch(cmds...)
}

// bringBack applies "reopen_seats" to a topic opened again: its recorded
// sessions start (auto), or the person is asked (ask), or nothing (off).
func (m *model) bringBack(topic string) tea.Cmd {
	if m.seats == nil {
		return nil
	}
	accts := m.app.Recorded(topic)
	if len(accts) == 0 {
		return nil
	}
	switch m.app.ReopenSeats() {
	case "off":
		m.status = fmt.Sprintf("%d session(s) recorded here (%s): %s a, then s starts one", len(accts), m.accountNames(accts), m.prefix)
		return nil
	case "ask":
		m.dlg = &dialog{topic: topic, reopen: true, lines: []string{
			"Bring back this topic's sessions?", "",
			m.accountNames(accts) + " had sessions here; each resumes its conversation where it still exists.",
			"", "[y] bring them back    [n] not now",
		}}
		return nil
	}
	return m.reopen(topic)
}

// reopen starts a topic's recorded sessions in a Cmd; the seats' own
// notices say which resumed and which started fresh.
func (m *model) reopen(topic string) tea.Cmd {
	b := m.app
	return func() tea.Msg {
		_, errs := b.Reopen(context.Background(), topic)
		if len(errs) > 0 {
			return noteMsg{err: errors.Join(errs...), list: true}
		}
		return noteMsg{list: true}
	}
}

// accountNames is the accounts' calling names, joined.
func (m *model) accountNames(ids []string) string {
	var names []string
	for _, id := range ids {
		name := id
		for _, a := range m.accounts {
			if a.ID == id {
				name = a.Name
			}
		}
		names = append(names, wire.OneLine(name))
	}
	return strings.Join(names, ", ")
}

func (m *model) loadPage(topic, before string) tea.Cmd {
	b := m.app
	return func() tea.Msg {
		p, err := b.Page(topic, pageSize, before)
		return pageMsg{topic: topic, page: p, err: err}
	}
}

func (m *model) loadTopics() tea.Cmd {
	if m.listBusy {
		m.listAgain = true
		return nil
	}
	m.listBusy = true
	b := m.app
	return func() tea.Msg {
		l, err := b.Topics()
		return topicsMsg{list: l, err: err}
	}
}

func (m *model) listed(topic string) bool {
	for _, t := range m.topics {
		if t.ID == topic {
			return true
		}
	}
	return false
}

// unnamed reports whether topic is not in the list, or is listed without a
// name: a post may just have put it in the index or named it (a seat start
// lists a topic before its first post names it), so the list is reloaded.
func (m *model) unnamed(topic string) bool {
	for _, t := range m.topics {
		if t.ID == topic {
			return t.Name == ""
		}
	}
	return true
}

func (m *model) topicName(id string) string {
	for _, t := range m.topics {
		if t.ID == id && t.Name != "" {
			return wire.OneLine(t.Name)
		}
	}
	if !m.listed(id) {
		return "new topic"
	}
	return "(untitled)"
}

// askDelete opens the confirmation for topic.
func (m *model) askDelete(topic string) {
	name := m.topicName(topic)
	lines := []string{
		fmt.Sprintf("Delete the topic “%s”?", name),
		"Its log and attachments are removed for good.",
	}
	if m.seats != nil {
		var names []string
		for _, s := range m.seats.Seats(topic) {
			if s.State != StateExited && s.State != "" {
				names = append(names, wire.OneLine(s.Name))
			}
		}
		if len(names) > 0 {
			lines = append(lines, fmt.Sprintf("This stops %d running session(s): %s.", len(names), strings.Join(names, ", ")))
		}
	}
	lines = append(lines, "", "[y] delete    [n] cancel")
	m.dlg = &dialog{topic: topic, lines: lines}
}

// deleteTopic runs the deletion in order: sessions, the store, the room.
func (m *model) deleteTopic(topic string) tea.Cmd {
	b := m.app
	return func() tea.Msg {
		// The app's order: sessions, the store, the room.
		if err := b.Delete(context.Background(), topic); err != nil {
			return deletedMsg{topic: topic, err: err}
		}
		return deletedMsg{topic: topic}
	}
}

func (m *model) startRename(topic string) {
	if !m.listed(topic) {
		m.status = "this topic has no log yet: say something first, then rename it"
		return
	}
	m.renaming = topic
	m.renameEd = newEditor()
	for _, t := range m.topics {
		if t.ID == topic {
			m.renameEd.Set(t.Name)
		}
	}
	m.showTopics = true
}

func (m *model) moveTopic(d int) tea.Cmd {
	if len(m.topics) == 0 {
		return nil
	}
	at := -1
	for i, t := range m.topics {
		if t.ID == m.topic {
			at = i
		}
	}
	next := 0
	if at >= 0 {
		next = (at + d + len(m.topics)) % len(m.topics)
	} else if d < 0 {
		next = len(m.topics) - 1
	}
	return m.openTopic(m.topics[next].ID)
}

package tui

// Needs-you signals on the screen: the app's (a seat waits for the person,
// an addressed seat ended its turn without answering) and the screen's own
// (a post addressed to the person while another topic is on screen or the
// room is scrolled up). Each marks the topic row and the participants row
// and, as config.json's "notify" says, rings the outer terminal: BEL,
// and/or a desktop notification (OSC 9 and OSC 777; terminals that do not
// know them ignore them).

import (
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"pullcept/app"
	"pullcept/room/wire"
)

// takeNeed records an app needs-you signal and rings for a new one.
func (m *model) takeNeed(n app.Need) tea.Cmd {
	if n.Why == app.NeedLoop {
		// The topic's, not a seat's: marked ↻ and told by loop.go; rung here.
		if !n.On || !app.Marks(m.notify.AgentLoop) {
			return nil
		}
		return ring(m.notify.AgentLoop, wire.OneLine(n.Name)+" ("+m.topicName(n.Topic)+")")
	}
	if m.needs[n.Topic] == nil {
		m.needs[n.Topic] = map[string]app.Need{}
	}
	if !n.On {
		delete(m.needs[n.Topic], n.Account)
		return nil
	}
	m.needs[n.Topic][n.Account] = n
	way := m.notify.Permission
	text := wire.OneLine(n.Name) + " is waiting for your " + n.Why
	switch n.Why {
	case app.NeedUnanswered:
		way, text = m.notify.Unanswered, wire.OneLine(n.Name)+" ended its turn without answering"
	case app.NeedElicitation:
		text = wire.OneLine(n.Name) + " is waiting for your input"
	case app.NeedDialog:
		text = wire.OneLine(n.Name) + " is waiting for your choice in a dialog"
	}
	if !app.Marks(way) {
		delete(m.needs[n.Topic], n.Account)
		return nil
	}
	return ring(way, text+" ("+m.topicName(n.Topic)+")")
}

// notePersonMention marks a post addressed to the person that they are not
// looking at, and rings.
func (m *model) notePersonMention(ev app.RoomEvent) tea.Cmd {
	if ev.Own || !slices.Contains(ev.Post.To, m.app.PersonName()) || !app.Marks(m.notify.Mention) {
		return nil
	}
	if rs := m.rooms[ev.Topic]; ev.Topic == m.topic && rs != nil && rs.offset == 0 {
		return nil // on screen, at the newest post
	}
	m.mentions[ev.Topic] = true
	return ring(m.notify.Mention, wire.OneLine(ev.Post.Speaker)+" wrote to you in "+m.topicName(ev.Topic))
}

// seenTopic clears the mention mark of the topic on screen once its newest
// post is in view.
func (m *model) seenTopic() {
	if rs := m.cur(); rs == nil || rs.offset == 0 {
		delete(m.mentions, m.topic)
	}
}

// topicNeedsYou reports whether a topic row carries the needs-you mark.
func (m *model) topicNeedsYou(topic string) bool {
	return m.mentions[topic] || len(m.needs[topic]) > 0
}

// ring is the outer terminal's bell and/or desktop notification for way.
func ring(way, text string) tea.Cmd {
	var b strings.Builder
	if app.Rings(way) {
		b.WriteString("\a")
	}
	if app.Desktop(way) {
		t := strings.NewReplacer(";", ",", "\a", "", "\x1b", "").Replace(wire.OneLine(text))
		b.WriteString("\x1b]9;" + t + "\a")
		b.WriteString("\x1b]777;notify;Pullcept;" + t + "\a")
	}
	if b.Len() == 0 {
		return nil
	}
	return tea.Raw(b.String())
}

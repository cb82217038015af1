package tui

// Sending the input line: a post, the post that waits for the seats it
// addresses, and the result.

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"pullcept/app"
	"pullcept/room/wire"
)

// send posts the input to the topic on screen, judged against the newest
// post drawn. The post itself runs in a Cmd.
func (m *model) send() tea.Cmd {
	text := m.input.String()
	if strings.TrimSpace(text) == "" && len(m.att.chips) == 0 {
		return nil
	}
	w := m.waiting
	again := w != nil && w.topic == m.topic && w.text == text
	if names := m.startingAddressees(text); again && !(w.offer && len(names) > 0) {
		m.waiting = nil // a second Enter: send now, past the seat still starting
	} else if len(names) > 0 {
		// The room delivers no past post to a later joiner: a post to a
		// seat still starting would never reach it. Wait for it.
		m.waiting = &waitingPost{topic: m.topic, text: text, names: names}
		m.status = fmt.Sprintf("%s is starting and not in the room yet: this post waits here and goes when %s joins (Enter again sends it now, and %s will not get it)",
			strings.Join(names, ", "), strings.Join(names, ", "), strings.Join(names, ", "))
		return nil
	} else if absent := m.absentAddressees(text); len(absent) > 0 {
		// An account with no seat here would never get it either: the
		// post stays, and one key seats it and sends on its joining.
		names := callNames(absent)
		m.waiting = &waitingPost{topic: m.topic, text: text, names: names, offer: true}
		who, them := oneLines(names), "it"
		if len(names) > 1 {
			them = "they"
		}
		m.status = fmt.Sprintf("%s %s not in the room — %s starts %s and sends when %s %s (Enter again sends it now, without %s)",
			who, isAre(len(names)), m.keyFor(ctxInput, actStartAndSend), who, them, joinJoins(len(names)), who)
		return nil
	}
	m.waiting = nil
	if strings.TrimSpace(text) != "" {
		m.remember(text)
	}
	rs := m.cur()
	topic, last := m.topic, rs.watermark
	m.input.Set("")
	rs.offset = 0
	if cmd := m.sendWith(topic, text, last); cmd != nil {
		return cmd
	}
	b := m.app
	return func() tea.Msg {
		out, err := b.Post(topic, text, last)
		return postResultMsg{topic: topic, text: text, out: out, err: err}
	}
}

// waitingPost is a post held in the input line until the seats it
// addresses, still starting, have joined the room.
type waitingPost struct {
	topic, text string
	names       []string
	// offer: the names have no seat here and the person was offered to
	// start them (it waits for that key or a second Enter); started: the
	// person started them, and it goes once every name is in the roster.
	offer, started bool
}

// addressed are the names text @-mentions among the roster's and the
// accounts', matched as the room matches them (app.Mentions). The screen
// matches names only to decide whether a post waits (spec 003
// 「画面は照合をしない」); the room still addresses the post.
func (m *model) addressed(text string) map[string]bool {
	var names []string
	for _, p := range m.roster() {
		names = append(names, p.Name)
	}
	for _, a := range m.accounts {
		names = append(names, a.Name)
	}
	out := map[string]bool{}
	for _, n := range app.Mentions(text, names) {
		out[n] = true
	}
	return out
}

// inRoom reports whether name is a participant of the room on screen.
func (m *model) inRoom(name string) bool {
	for _, p := range m.roster() {
		if p.Name == name {
			return true
		}
	}
	return false
}

// startingAddressees are the calling names @-mentioned in text that belong
// to a seat of the topic on screen that runs or starts but is not in the
// room yet.
func (m *model) startingAddressees(text string) []string {
	named := m.addressed(text)
	var out []string
	for _, s := range m.seatList {
		if s.State == StateExited || m.inRoom(s.Name) || slices.Contains(out, s.Name) {
			continue
		}
		if named[s.Name] {
			out = append(out, s.Name)
		}
	}
	return out
}

// absentAddressees are the configured accounts (not MCP servers) whose
// calling name text @-mentions and that have no running or starting seat
// in the topic on screen and are not in its room.
func (m *model) absentAddressees(text string) []Account {
	named := m.addressed(text)
	var out []Account
	for _, a := range m.accounts {
		if a.Kind == "mcp" || !named[a.Name] || m.inRoom(a.Name) {
			continue
		}
		if s, _, ok := m.seatOf(a.ID); ok && s.State != StateExited {
			continue
		}
		out = append(out, a)
	}
	return out
}

func callNames(as []Account) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.Name
	}
	return out
}

// oneLines is names as the status line shows them.
func oneLines(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = wire.OneLine(n)
	}
	return strings.Join(out, ", ")
}

func isAre(n int) string {
	if n > 1 {
		return "are"
	}
	return "is"
}

func joinJoins(n int) string {
	if n > 1 {
		return "join"
	}
	return "joins"
}

// startAndSend starts the seats of the accounts the input's post names
// that are not in the room, and sends the post when every one of them has
// joined (the room gives no past post to a later joiner, so it never
// enters the room before; topic 「席を取る前の発言が届かないことは変えない」).
func (m *model) startAndSend() tea.Cmd {
	text := m.input.String()
	absent := m.absentAddressees(text)
	if m.seats == nil || len(absent) == 0 {
		m.status = "the post names no account that is out of the room (" + m.keyFor(ctxInput, actStartAndSend) + " starts one and sends when it joins)"
		return nil
	}
	names := callNames(absent)
	who := oneLines(names)
	m.waiting = &waitingPost{topic: m.topic, text: text, names: names, started: true}
	m.status = "starting " + who + ": this post waits here and goes when " + who + " " + joinJoins(len(names))
	seats, topic := m.seats, m.topic
	return func() tea.Msg {
		var errs []error
		for _, a := range absent {
			if err := seats.Start(topic, a.ID); err != nil {
				errs = append(errs, fmt.Errorf("%s could not start: %s", wire.OneLine(a.Name), strings.TrimPrefix(err.Error(), a.ID+" in topic "+topic+": ")))
			}
		}
		return waitStartMsg{topic: topic, text: text, err: errors.Join(errs...)}
	}
}

// waitStartMsg is how the starts of startAndSend went.
type waitStartMsg struct {
	topic, text string
	err         error
}

// waitStarted takes a waitStartMsg: a start that failed ends the wait,
// and the post stays in the input line.
func (m *model) waitStarted(msg waitStartMsg) tea.Cmd {
	m.refreshSeats()
	if msg.err == nil {
		return tea.Batch(m.loadTopics(), m.sendWaiting()) // it may have joined already
	}
	if w := m.waiting; w != nil && w.topic == msg.topic && w.text == msg.text {
		m.waiting = nil
	}
	m.status = strings.ReplaceAll(msg.err.Error(), "\n", "; ") + "; the post stays in the input line"
	return m.loadTopics()
}

// sendWaiting sends the waiting post once everyone it addresses is in
// the room of its topic.
func (m *model) sendWaiting() tea.Cmd {
	w := m.waiting
	if w == nil || w.offer || w.topic != m.topic || m.input.String() != w.text {
		return nil
	}
	if w.started {
		for _, n := range w.names {
			if !m.inRoom(n) {
				return nil
			}
		}
	} else if len(m.startingAddressees(w.text)) > 0 {
		return nil
	}
	m.waiting = nil
	m.status = oneLines(w.names) + " joined: the waiting post was sent"
	return m.send()
}

// clearInput is ctrl+c in the input line: it clears the line (text and
// attachments); on a line already empty it says how to leave, since
// ctrl+c ends nothing here.
func (m *model) clearInput() {
	if m.input.String() == "" && len(m.att.chips) == 0 {
		m.status = "the input line is empty; to leave: " + m.prefix + " d detaches (the sessions keep running), " + m.prefix + " q quits"
		return
	}
	m.input.Set("")
	m.att.chips, m.att.undo = nil, nil
	m.waiting = nil
	m.histAt = len(m.hist)
}

// restore puts text back in the input exactly as written.
func (m *model) restore(text string) {
	if cur := m.input.String(); cur != "" {
		text += "\n" + cur
	}
	m.input.Set(text)
}

func (m *model) postResult(msg postResultMsg) tea.Cmd {
	rs := m.rooms[msg.topic]
	switch {
	case msg.err != nil:
		m.restore(msg.text)
		m.restoreChips(msg.atts, msg.chips)
		m.status = "not sent: " + msg.err.Error()
	case !msg.out.Delivered:
		n := 0
		if rs != nil {
			n = rs.addMissed(msg.out.Missed)
			m.keepWindow(rs)
		}
		m.restore(msg.text)
		m.restoreChips(msg.atts, msg.chips)
		m.status = fmt.Sprintf("not sent: %d new posts came in while you wrote (%d drawn now); read them, then send again", len(msg.out.Missed), n)
	default:
		if rs != nil {
			rs.addLive(msg.out.Post, wire.RoleAdmin, true)
		}
		if m.unnamed(msg.topic) {
			return m.loadTopics()
		}
	}
	return nil
}

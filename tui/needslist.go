package tui

// The needs-you list on the screen (prefix !): the app's list of what waits
// for the person across every topic (app/needslist.go), newest first, each
// item with its topic, seat and since when; Enter jumps to it, one key
// answers a prompt, h shows the topic's answered items. The screen also
// tells the app what it has seen: the topic on screen at its newest post
// (SeenPosts), which takes the posts to the person up to it off the list
// on every screen.

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"pullcept/app"
	"pullcept/room/wire"
)

// NeedsBackend is a Backend that keeps the needs-you list (*app.App). A
// backend without it has no list: prefix ! says so.
type NeedsBackend interface {
	NeedsList() []app.NeedItem
	AnswerNeed(id, answer, screen string) (app.AnswerResult, error)
	NeedAnswers(topic string) ([]app.AnswerRecord, error)
	SeenPosts(screen, topic, upTo string)
}

// needsState is the list's overlay.
type needsState struct {
	open  bool
	sel   int
	items []app.NeedItem
	// answered is the topic whose answered items are shown ("" = the open
	// items), records them.
	answered string
	records  []app.AnswerRecord
	// seen is the newest post reported seen, by topic.
	seen map[string]string
}

func (m *model) needsBackend() (NeedsBackend, bool) {
	nb, ok := m.app.(NeedsBackend)
	return nb, ok
}

// openNeeds opens the list (prefix !).
func (m *model) openNeeds() tea.Cmd {
	if _, ok := m.needsBackend(); !ok {
		m.status = "this screen has no needs-you list"
		return nil
	}
	m.nl.open, m.nl.sel, m.nl.answered = true, 0, ""
	m.refreshNeeds()
	return nil
}

// refreshNeeds reads the list again (an item opened, changed or left).
func (m *model) refreshNeeds() {
	nb, ok := m.needsBackend()
	if !ok || !m.nl.open {
		return
	}
	m.nl.items = nb.NeedsList()
	m.nl.sel = max(min(m.nl.sel, len(m.nl.items)-1), 0)
}

// selectedNeed is the item under the cursor.
func (m *model) selectedNeed() (app.NeedItem, bool) {
	if m.nl.answered != "" || m.nl.sel >= len(m.nl.items) {
		return app.NeedItem{}, false
	}
	return m.nl.items[m.nl.sel], true
}

func (m *model) needsKey(act action) (tea.Cmd, bool) {
	switch act {
	case actClose:
		m.nl.open = false
	case actUp:
		m.nl.sel = max(m.nl.sel-1, 0)
	case actDown:
		m.nl.sel = max(min(m.nl.sel+1, len(m.nl.items)-1), 0)
	case actExpand:
		m.toggleAnswered()
	case actOpen:
		return m.jumpNeed(), true
	}
	return nil, true
}

// toggleAnswered shows the selected item's topic's answered items (the
// topic on screen when the list is empty), or the open items again.
func (m *model) toggleAnswered() {
	if m.nl.answered != "" {
		m.nl.answered = ""
		m.refreshNeeds()
		return
	}
	topic := m.topic
	if it, ok := m.selectedNeed(); ok {
		topic = it.Topic
	}
	nb, _ := m.needsBackend()
	recs, err := nb.NeedAnswers(topic)
	if err != nil {
		m.status = "answered items: " + err.Error()
		return
	}
	m.nl.answered, m.nl.records = topic, recs
}

// needsAnswerKey answers the selected item with the answer bound to key;
// ok false: key is no answer key.
func (m *model) needsAnswerKey(key string) (tea.Cmd, bool) {
	isDigit := len(key) == 1 && key[0] >= '1' && key[0] <= '9'
	if key != "y" && key != "a" && key != "n" && !isDigit {
		return nil, false
	}
	it, ok := m.selectedNeed()
	if !ok {
		m.status = "nothing selected to answer with " + key
		return nil, true
	}
	for _, ans := range it.Answers {
		if ans.Key != key {
			continue
		}
		nb, _ := m.needsBackend()
		res, err := nb.AnswerNeed(it.ID, ans.ID, m.screen)
		if err != nil {
			m.status = "answer: " + err.Error()
		} else {
			m.status = wire.OneLine(res.Note)
		}
		m.refreshNeeds()
		return nil, true
	}
	if len(it.Answers) == 0 {
		m.status = "this item has no answer here: Enter jumps to it"
	} else {
		m.status = fmt.Sprintf("%s is not an answer of this item (%s)", key, answerHint(it))
	}
	return nil, true
}

// jumpNeed shows the selected item: its topic, its seat's pane focused (a
// post: the room at its newest).
func (m *model) jumpNeed() tea.Cmd {
	it, ok := m.selectedNeed()
	m.nl.open = false
	if !ok {
		m.status = "nothing needs you"
		return nil
	}
	cmd := m.openTopic(it.Topic)
	if it.Kind == app.NeedMention || it.Account == "" {
		m.setFocus(focusRoom, 0)
		return cmd
	}
	if _, n, ok := m.seatOf(it.Account); ok && n > 0 {
		m.focusNumber(n)
	} else {
		m.setFocus(focusParts, 0)
	}
	return cmd
}

// reportSeen tells the app this screen shows the topic on screen at its
// newest post (once per post).
func (m *model) reportSeen() {
	nb, ok := m.needsBackend()
	rs := m.cur()
	roomHidden := m.zoom != zoomNone && m.zoom != zoomRoom // a pane zoomed over it
	if !ok || rs == nil || rs.offset != 0 || len(rs.posts) == 0 || roomHidden {
		return
	}
	last := rs.posts[len(rs.posts)-1].MessageID
	if m.nl.seen == nil {
		m.nl.seen = map[string]string{}
	}
	if m.nl.seen[m.topic] == last {
		return
	}
	m.nl.seen[m.topic] = last
	nb.SeenPosts(m.screen, m.topic, last)
}

// needKinds are the list's words for each kind.
var needKinds = map[string]string{
	app.NeedPermission:  "permission",
	app.NeedQuestion:    "question",
	app.NeedElicitation: "input",
	app.NeedUnanswered:  "unanswered",
	app.NeedLimited:     "limited",
	app.NeedError:       "error",
	app.NeedMention:     "to you",
	app.NeedDialog:      "dialog",
	app.NeedLoop:        "agent loop",
}

// answerHint is an item's answers as keys: "y yes · a always · n no".
func answerHint(it app.NeedItem) string {
	var parts []string
	for _, a := range it.Answers {
		parts = append(parts, a.Key+" "+wire.OneLine(a.Label))
	}
	return strings.Join(parts, " · ")
}

// needsLines are the overlay's rows and the row of the selected item.
func (m *model) needsLines(w int) (lines []string, selRow, selEnd int) {
	if m.nl.answered != "" {
		if len(m.nl.records) == 0 {
			return []string{"(nothing answered in this topic)"}, 0, 0
		}
		for _, r := range m.nl.records {
			head := r.At.In(m.loc).Format("01-02 15:04:05") + "  " + wire.OneLine(r.Name) + " · " + needKinds[r.Kind] + " · " + wire.OneLine(r.Label)
			if !r.Done {
				head += " (not given)"
			}
			lines = append(lines, head)
			detail := "    " + wire.OneLine(r.Tool)
			if r.Input != "" {
				detail += ": " + wire.OneLine(r.Input)
			}
			lines = append(lines, detail+"  — "+wire.OneLine(r.Who)+" from "+wire.OneLine(r.Screen)+", "+r.Via)
		}
		return lines, 0, 0
	}
	if len(m.nl.items) == 0 {
		return []string{"(nothing needs you)"}, 0, 0
	}
	for i, it := range m.nl.items {
		mark := "  "
		if i == m.nl.sel {
			mark, selRow = "▶ ", len(lines)
		}
		who := wire.OneLine(it.Name)
		if who == "" {
			who = "the agents" // a topic's item (the loop budget)
		}
		lines = append(lines, mark+needKinds[it.Kind]+" — "+who+" in “"+m.topicName(it.Topic)+"” since "+it.Since.In(m.loc).Format("15:04:05"))
		var detail string
		switch {
		case it.Tool != "" && it.Input != "":
			detail = wire.OneLine(it.Tool) + ": " + wire.OneLine(it.Input)
		case it.Tool != "":
			detail = wire.OneLine(it.Tool)
		}
		if it.Text != "" {
			detail = strings.TrimPrefix(detail+" · "+wire.OneLine(it.Text), " · ")
		}
		if h := answerHint(it); h != "" {
			detail = strings.TrimPrefix(detail+"  ["+h+"]", "  ")
		}
		if detail != "" {
			lines = append(lines, "    "+detail)
		}
		if i == m.nl.sel {
			selEnd = len(lines) - 1
		}
	}
	return lines, selRow, selEnd
}

// overlayNeeds draws the list over the body.
func (m *model) overlayNeeds(rows []string) {
	w := min(m.w-2, 160)
	head := " Needs you — ↑/↓ select, Enter jumps, y/a/n or 1…9 answers, h answered, Esc closes"
	if m.nl.answered != "" {
		head = " Answered in “" + m.topicName(m.nl.answered) + "” — h back, Esc closes"
	}
	all, selRow, selEnd := m.needsLines(w - 2)
	y, h := m.overlayRows()
	off := max(selEnd+1-(h-1), 0)
	if m.nl.answered != "" {
		off = max(len(all)-(h-1), 0) // the newest answers in view
	}
	lines := []string{style(fit(ellipsis(head, w), w), "1", "7")}
	for i, l := range all[min(off, len(all)):] {
		if len(lines) >= h {
			break
		}
		attr := "48;5;235"
		if m.nl.answered == "" && i+off >= selRow && i+off <= selEnd && len(m.nl.items) > 0 {
			attr = "48;5;238"
		}
		lines = append(lines, style(fit(ellipsis(" "+l, w), w), attr))
	}
	for len(lines) < h {
		lines = append(lines, style(fit("", w), "48;5;235"))
	}
	overlay(rows, Rect{X: (m.w - w) / 2, Y: y, W: w, H: h}, lines, m.w)
}

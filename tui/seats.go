package tui

// Seats: the participants panel's rows, the seat keys (start, stop, restart,
// release), nicknames.

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"pullcept/app"
	"pullcept/room/wire"
)

// refreshSeats reads the seat manager (in memory) for the shown topic and
// the running markers.
func (m *model) refreshSeats() {
	m.panesDirty = true
	if m.seats == nil {
		m.seatList = nil
		return
	}
	m.accounts = m.seats.Accounts()
	m.seatList = m.seats.Seats(m.topic)
	m.running = map[string]int{}
	for _, t := range m.topics {
		m.running[t.ID] = runningCount(m.seats.Seats(t.ID))
	}
	m.running[m.topic] = runningCount(m.seatList)
	m.readUsage()
	if n := len(m.panes()); m.paneIdx >= n {
		m.paneIdx = max(n-1, 0)
		if n == 0 && m.focus == focusPane {
			m.focus = focusInput
		}
	}
}

// readUsage reads the figures of every account's seat in the shown topic.
func (m *model) readUsage() {
	m.usage = map[string]app.Usage{}
	for _, a := range m.accounts {
		if u, ok := m.app.Usage(m.topic, a.ID); ok {
			m.usage[a.ID] = u
		}
	}
}

func runningCount(ss []SeatInfo) int {
	n := 0
	for _, s := range ss {
		if s.State != StateExited && s.State != "" {
			n++
		}
	}
	return n
}

// partRows are the participants panel's rows: the roster's people and
// connections, and every account with its state in this topic and the
// figures its seat reported here (nil when none arrived).
type partRow struct {
	name, account, kind, state string
	hue                        *int
	usage                      *app.Usage
	// mcp is the entry name of a local MCP server's row, notes the dim
	// lines under it (mcp.go).
	mcp   string
	notes []string
}

func (m *model) partRows() []partRow {
	var rows []partRow
	inRoster := map[string]bool{}
	for _, p := range m.roster() {
		if p.Account != "" {
			inRoster[p.Account] = true
		}
	}
	for _, p := range m.roster() {
		if p.Person {
			rows = append(rows, partRow{name: p.Name, state: "admin", hue: p.Hue})
		}
	}
	known := map[string]bool{}
	for _, a := range m.accounts {
		known[a.ID] = true
		if a.Kind == "mcp" {
			continue // the MCP section lists them (mcp.go)
		}
		st := "—"
		var seat SeatInfo
		for _, s := range m.seatList {
			if s.Account == a.ID {
				st, seat = s.State, s
			}
		}
		switch {
		case st == StateExited:
		case st == StateAsleep: // the row's note says since when
		case seat.Held > 0:
			st = fmt.Sprintf("%d held", seat.Held)
		case m.needs[m.topic][a.ID].Why == app.NeedUnanswered:
			st = "no answer"
		case seat.Activity == "waiting":
			st = "waiting"
		case inRoster[a.ID]:
			st = "in room"
		}
		row := partRow{name: a.Name, account: a.ID, kind: a.Kind, state: st}
		if seat.Skipped > 0 && st != StateExited {
			// Its queue is full: later posts are not typed (they stay in
			// the room; the seat is told when it has drained).
			row.notes = []string{fmt.Sprintf("full: %d not typed", seat.Skipped)}
		}
		if seat.Failure != "" && st != StateExited {
			row.notes = append(row.notes, failureText(seat.Failure))
		}
		if st == StateAsleep {
			row.notes = append(row.notes, "asleep since "+seat.AsleepSince.In(m.loc).Format("15:04"))
		}
		if u, ok := m.usage[a.ID]; ok {
			row.usage = &u
		}
		rows = append(rows, row)
	}
	for _, p := range m.roster() {
		if !p.Person && !known[p.Account] {
			rows = append(rows, partRow{name: p.Name, account: "", state: "connected", hue: p.Hue})
		}
	}
	return append(rows, m.mcpRows()...)
}

func (m *model) selectedAccount() (string, string, bool) {
	rows := m.partRows()
	if m.psel < 0 || m.psel >= len(rows) || rows[m.psel].account == "" {
		return "", "", false
	}
	return rows[m.psel].account, rows[m.psel].name, true
}

// seatTarget is the seat a seat key acts on: the focused terminal pane's,
// else the participants' selection when they have the focus (issue 31:
// the key acts on what the person looks at). Elsewhere it acts on nothing
// and the status line says what to focus.
func (m *model) seatTarget() (acct, name string, ok bool) {
	switch m.focus {
	case focusPane:
		if s, ok := m.focusedPane(); ok {
			return s.Account, s.Name, true
		}
	case focusParts:
		if acct, name, ok := m.selectedAccount(); ok {
			return acct, name, true
		}
		m.status = "select an account in the participants first (j/k)"
		return "", "", false
	}
	m.status = "focus a terminal pane (" + m.prefix + " o) or the participants (" + m.prefix + " a) first: this key acts on the seat there"
	return "", "", false
}

// seatOf is account's seat in the topic on screen and its pane's number
// (0: no pane).
func (m *model) seatOf(account string) (SeatInfo, int, bool) {
	n := 0
	for _, s := range m.seatList {
		if s.Pane != nil {
			n++
		}
		if s.Account == account {
			if s.Pane == nil {
				return s, 0, true
			}
			return s, n, true
		}
	}
	return SeatInfo{}, 0, false
}

func (m *model) seatOp(act action) tea.Cmd {
	if m.seats == nil {
		m.status = "no seats: add an account to config.json to seat a CLI here"
		return nil
	}
	acct, name, ok := m.seatTarget()
	if !ok {
		return nil
	}
	name = wire.OneLine(name)
	if act == actReleaseSeat {
		return m.releaseSeat(acct, name)
	}
	s, pane, seated := m.seatOf(acct)
	live := seated && s.State != StateExited
	where := ""
	if pane > 0 {
		where = fmt.Sprintf(" (pane %d)", pane)
	}
	switch act {
	case actStartSeat:
		if live {
			m.status = name + " already runs in this topic" + where
			return nil
		}
	case actStopSeat:
		if !seated {
			m.status = name + " has no seat in this topic"
			return nil
		}
		if live { // like tmux's kill-pane: asks first
			m.dlg = &dialog{seat: &seatAsk{act: act, topic: m.topic, account: acct, name: name}, title: "Stop a seat",
				lines: []string{"Stop " + name + where + "?", "", "[y] stop    [n] cancel"}}
			return nil
		}
	case actRestartSeat:
		if live && (s.Activity == "working" || s.Activity == "waiting") {
			m.dlg = &dialog{seat: &seatAsk{act: act, topic: m.topic, account: acct, name: name}, title: "Restart a seat",
				lines: []string{"Restart " + name + where + "?", name + " is in a turn (" + s.Activity + "): restarting ends it.", "", "[y] restart    [n] cancel"}}
			return nil
		}
	}
	return m.runSeatOp(act, m.topic, acct, name)
}

// runSeatOp carries out a seat action. Its notices name the seat by its
// calling name, never the account id.
func (m *model) runSeatOp(act action, topic, acct, name string) tea.Cmd {
	seats := m.seats
	verb := map[action]string{actStartSeat: "starting", actStopSeat: "stopping", actRestartSeat: "restarting", actReleaseSeat: "releasing"}[act]
	if s, _, ok := m.seatOf(acct); ok && act == actStopSeat && s.State == StateExited && topic == m.topic {
		verb = "closing" // an ended seat's pane: Stop closes it
	}
	m.status = verb + " " + name
	return func() tea.Msg {
		var err error
		switch act {
		case actStartSeat:
			err = seats.Start(topic, acct)
		case actStopSeat:
			err = seats.Stop(topic, acct)
		case actRestartSeat:
			err = seats.Restart(topic, acct)
		}
		if err != nil {
			// The seat manager's errors begin "<account> in topic <id>: ".
			why := strings.TrimPrefix(err.Error(), acct+" in topic "+topic+": ")
			return noteMsg{err: fmt.Errorf("%s %s: %s", verb, name, why)}
		}
		if act == actStartSeat || act == actRestartSeat {
			// The seat's own notice ("started (new session)", "resumed
			// session …") says how it went; "done" must not replace it.
			return noteMsg{list: true}
		}
		return noteMsg{note: verb + " " + name + ": done", list: true}
	}
}

// releaseAskMsg: a release found the seat's posts held behind the
// person's unsent keys; the screen asks before clearing them.
type releaseAskMsg struct {
	topic, account, name string
	r                    ReleaseResult
}

// releaseSeat is `u`: it releases what holds the seat's posts, or says why
// it does not; for unsent keys it says what it believes is unsent and asks
// before clearing them (spec 003 keeps the person's half-typed keys).
func (m *model) releaseSeat(acct, name string) tea.Cmd {
	seats, topic := m.seats, m.topic
	m.status = "releasing " + name
	return func() tea.Msg {
		r, err := seats.Release(topic, acct)
		if err != nil {
			return noteMsg{err: fmt.Errorf("releasing %s: %w", name, err)}
		}
		if r.Unsent != "" {
			return releaseAskMsg{topic: topic, account: acct, name: name, r: r}
		}
		return noteMsg{note: r.Note, list: true}
	}
}

// askClearUnsent opens the confirmation for a release behind unsent keys.
func (m *model) askClearUnsent(msg releaseAskMsg) {
	m.status = msg.r.Note
	held := "1 held post"
	if msg.r.Held != 1 {
		held = fmt.Sprintf("%d held posts", msg.r.Held)
	}
	m.dlg = &dialog{release: &msg, title: "Clear unsent keys", lines: []string{
		fmt.Sprintf("Clear %s in %s's prompt and type %s?", msg.r.Shown, wire.OneLine(msg.name), held),
		"The keys are what pullcept believes you typed there and did not send.",
		"", "[y] clear and type    [n] keep them",
	}}
}

// clearUnsent is the person's yes to askClearUnsent.
func (m *model) clearUnsent(msg releaseAskMsg) tea.Cmd {
	seats := m.seats
	return func() tea.Msg {
		r, err := seats.ClearUnsent(msg.topic, msg.account, msg.r.Unsent)
		if err != nil {
			return noteMsg{err: fmt.Errorf("releasing %s: %w", msg.name, err)}
		}
		return noteMsg{note: r.Note, list: true}
	}
}

// startNickname edits the selected account's nickname on the status line.
func (m *model) startNickname() {
	acct, name, ok := m.selectedAccount()
	if !ok {
		m.status = "select an account in the participants panel first (" + m.prefix + " a)"
		return
	}
	m.nicking = acct
	m.renameEd = newEditor()
	for _, a := range m.accounts {
		if a.ID == acct && a.Nickname != "" {
			name = a.Nickname
		}
	}
	m.renameEd.Set(name)
}

func (m *model) nicknameKey(act action) tea.Cmd {
	switch act {
	case actConfirm:
		acct, nick, b := m.nicking, strings.TrimSpace(m.renameEd.String()), m.app
		m.nicking = ""
		for _, a := range m.accounts {
			if a.ID == acct && nick == a.FullName {
				nick = "" // its own name: no nickname
			}
		}
		return func() tea.Msg {
			name, err := b.SetNickname(acct, nick)
			if err != nil {
				return noteMsg{err: fmt.Errorf("nickname: %w", err)}
			}
			return noteMsg{note: "the room now calls " + acct + " " + name}
		}
	case actCancel:
		m.nicking = ""
	default:
		m.edit(&m.renameEd, act)
	}
	return nil
}

package tui

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"pullcept/app"
	"pullcept/room/wire"
)

// Messages into the model.
type (
	roomEventMsg    struct{ ev app.RoomEvent }
	appEventMsg     struct{ ev app.Event }
	seatsChangedMsg struct{}
	// paneOutputMsg: a pane's screen changed, no seat's state did.
	paneOutputMsg struct{}
	pageMsg       struct {
		topic string
		page  app.Page
		err   error
	}
	postResultMsg struct {
		topic, text string
		out         app.Outcome
		err         error
		// atts are the post's attachments as they came back (where they
		// were saved), chips the chips they were (attach.go).
		atts  []app.Attachment
		chips []chip
	}
	topicsMsg struct {
		list []app.Topic
		err  error
	}
	deletedMsg struct {
		topic string
		err   error
	}
	noteMsg struct {
		note string
		err  error
		list bool // reload the topic list
	}
)

type focusKind int

const (
	focusInput focusKind = iota
	focusRoom
	focusPane
	focusTopics
	focusParts
)

// dialog is the delete confirmation.
type dialog struct {
	topic string
	lines []string
	// reopen: the dialog asks to bring the topic's sessions back; quit:
	// to quit while sessions run (else it asks to delete the topic).
	reopen, quit bool
	// mcp: it asks to delete this local MCP server (mcp.go).
	mcp string
	// seat: it asks to stop or restart this seat (seatOp).
	seat *seatAsk
	// title is the box's title when the kind's own does not fit.
	title string
	// release: it asks to clear a seat's unsent keys and type its held
	// posts (releaseSeat).
	release *releaseAskMsg
}

// seatAsk is a seat action waiting for the person's y.
type seatAsk struct {
	act                  action
	topic, account, name string
}

// pageSize is how many posts a page of the room loads.
const pageSize = 50

// model is the one Bubble Tea model.
type model struct {
	app    Backend
	seats  Seats
	notify app.Notify
	// needs are the app's needs-you signals by topic and account;
	// mentions the topics with a post to the person not yet seen.
	needs    map[string]map[string]app.Need
	mentions map[string]bool
	// notices is the status line's log; helpNotices shows it in the help
	// overlay.
	notices     []notice
	helpNotices bool
	// waiting is a post held in the input line for seats still starting.
	waiting *waitingPost
	// expireAfter schedules a notice's expiry; nil means tea.Tick (tests
	// that run commands synchronously replace it).
	expireAfter func(time.Duration, tea.Msg) tea.Cmd
	prefix      string
	loc         *time.Location
	now         func() time.Time
	exec        func(func())

	w, h int
	lay  Layout

	topic   string
	rooms   map[string]*roomState
	topics  []app.Topic
	tsel    int
	running map[string]int // topic -> seats not exited

	accounts []Account
	seatList []SeatInfo // the shown topic's
	psel     int
	// usage is the shown topic's seat figures by account, read with the
	// seats and on each app.RoomUsage event of that topic.
	usage map[string]app.Usage

	focus   focusKind
	paneIdx int
	zoom    int
	// paneLayout is how the panes share their area (prefix space cycles);
	// paneSpare the pane shown in the last place when some are hidden
	// (the last hidden one focused); numbers: the pane numbers are shown
	// (prefix #) and a digit focuses that pane; numbersSeq tells their
	// timeout from an older one's.
	paneLayout int
	paneSpare  int
	numbers    bool
	numbersSeq int
	showTopics bool
	showParts  bool
	armed      bool
	help       bool
	helpOff    int
	dlg        *dialog
	renaming   string
	renameEd   editor
	nicking    string // the account whose nickname renameEd edits (on the status line)
	input      editor
	// hist is what the person sent from this screen, oldest first (at
	// most histCap); histAt is the entry ↑/↓ recalled (len(hist): none).
	hist   []string
	histAt int
	// sel is the line selection being made in scroll mode or the room
	// (nil: none); drag a mouse press that may become one; copied the
	// text last put on the clipboard.
	sel        *lineSel
	drag       *dragStart
	copied     string
	status     string
	subscribed bool

	scrollMode bool
	scrollOff  int
	paneText   map[Pane]string
	// paneCur is each pane's cursor, read with paneText so a frame never
	// shows the cursor ahead of the text (a key's echo moving the cursor
	// would otherwise be drawn once for the cursor and again for the text).
	paneCur    map[Pane]paneCursor
	paneSize   map[Pane][2]int
	panesDirty bool
	// sameView is set by an update that changed nothing on screen (a key
	// typed into a pane: its echo comes as its own change), so View gives
	// the last frame again instead of drawing it while the echo is on its
	// way; lastView is that frame, drawn caches the frame's pieces.
	sameView bool
	lastView *tea.View
	drawn    frameCache
	frames   int // frames drawn (tests)
	// panesOnly is set by an update that changed only what the panes show:
	// the frame draws the panes and keeps every other rectangle's lines.
	panesOnly bool
	listBusy  bool
	listAgain bool

	// server: this screen is one attached terminal of the pullcept server
	// (Options.Server); detached: the person detached (Run's result).
	server, detached bool
	// draftFile is the draft file of a ctrl+g edit under way (removed when
	// the screen ends before the editor does).
	draftFile string
	// mcpServers are the local MCP servers as last read; mcpDraft the
	// text of a new server the app refused, for the next try (mcp.go).
	mcpServers []app.MCPServer
	mcpDraft   string
	startTopic string
	onShow     func(string)
	clients    func() int
	program    programFunc
	// att is the input line's attachments and the room's reading of
	// them (attach.go).
	att attachState
}

func newModel(o Options, exec func(func())) (*model, error) {
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if o.Location == nil { // every time shown goes through m.loc
		o.Location = time.Local
	}
	m := &model{
		app: o.App, seats: o.Seats, notify: o.App.Notify(), needs: map[string]map[string]app.Need{}, mentions: map[string]bool{}, prefix: o.Prefix, loc: o.Location,
		now: time.Now, exec: exec,
		rooms: map[string]*roomState{}, running: map[string]int{}, usage: map[string]app.Usage{},
		showTopics: true, showParts: true, input: newEditor(), renameEd: newEditor(),
		paneText: map[Pane]string{}, paneSize: map[Pane][2]int{}, status: o.Status,
		server: o.Server, startTopic: o.Topic, onShow: o.OnShow, clients: o.Clients, program: o.Program,
		att: newAttachState(o.Env),
	}
	if m.seats == nil && m.status == "" {
		m.status = "no seats: add an account to config.json to seat a CLI here; the room works for you alone"
	}
	m.startNotices(o.ConfigErrors)
	if err := m.newTopic(); err != nil {
		return nil, err
	}
	m.refreshSeats()
	m.refreshMCP()
	return m, nil
}

// Init loads the topic list (and opens Options.Topic).
func (m *model) Init() tea.Cmd {
	if m.startTopic != "" {
		return tea.Batch(m.loadTopics(), m.openTopic(m.startTopic))
	}
	return m.loadTopics()
}

func (m *model) cur() *roomState { return m.rooms[m.topic] }

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

// panes are the shown topic's seats that have a terminal.
func (m *model) panes() []SeatInfo {
	var out []SeatInfo
	for _, s := range m.seatList {
		if s.Pane != nil {
			out = append(out, s)
		}
	}
	return out
}

func (m *model) roomCtx() roomCtx {
	c := roomCtx{person: m.app.PersonName(), kinds: map[string]string{}, names: map[string]string{}, loc: m.loc, now: m.now()}
	if b := m.attacher(); b != nil {
		c.att, c.attB = m.att.view, b
	}
	for _, a := range m.accounts {
		c.kinds[a.ID] = a.Kind
		c.names[a.ID] = a.Name
	}
	return c
}

// presize lays the screen out for a terminal of w x h known before the
// program starts (the server's screens: the client said its size), so the
// first frame is the whole screen. Otherwise the first frame went out
// empty, and the screen then waited for the end of the frame interval
// that empty frame had started (36 ms of an attach's 48).
func (m *model) presize(w, h int) {
	if w <= 0 || h <= 0 {
		return
	}
	m.w, m.h = w, h
	_ = m.sync() // nothing is loaded yet: no command to run
}

// Update is the one place the model changes.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	before := m.status
	m.sameView, m.panesOnly = false, false
	cmd := m.update(msg)
	var expire tea.Cmd
	if m.status != before && m.status != "" {
		expire = m.noticed(m.status)
	}
	return m, tea.Batch(cmd, m.sync(), expire, m.att.view.queuedImages(m.attacher()))
}

// testHooks lets tests run code on the model's goroutine.
var testHooks func(m *model, msg tea.Msg) bool

func (m *model) update(msg tea.Msg) tea.Cmd {
	if testHooks != nil && testHooks(m, msg) {
		return nil
	}
	switch msg := msg.(type) {
	case editedMsg:
		m.edited(msg)
		return nil
	case expireMsg:
		if m.status == msg.text {
			m.status = ""
		}
		return nil
	case numbersOffMsg:
		if msg.seq == m.numbersSeq {
			m.numbers = false
		}
		return nil
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.PasteMsg:
		return m.paste(msg.Content)
	case tea.MouseClickMsg:
		return m.click(tea.Mouse(msg))
	case tea.MouseMotionMsg:
		m.motion(tea.Mouse(msg))
	case tea.MouseReleaseMsg:
		return m.release()
	case tea.MouseWheelMsg:
		m.wheel(tea.Mouse(msg))
	case roomEventMsg:
		return m.event(msg.ev)
	case appEventMsg:
		switch msg.ev.Kind {
		case app.EventRoom:
			return m.event(msg.ev.Room)
		case app.EventNotice:
			m.status = msg.ev.Notice
			return m.loadTopics() // a seat start puts its topic in the index
		case app.EventResync:
			return m.resync()
		case app.EventNeedsYou:
			return m.takeNeed(msg.ev.Need)
		case app.EventMCP:
			m.refreshMCP()
		case app.EventDelivery:
			if rs := m.rooms[msg.ev.Delivery.Topic]; rs != nil {
				rs.setMark(msg.ev.Delivery)
			}
		}
	case mcpDoneMsg:
		return m.mcpDone(msg)
	case waitStartMsg:
		return m.waitStarted(msg)
	case paneOutputMsg:
		m.panesDirty, m.panesOnly = true, true
	case seatsChangedMsg:
		seats, accounts, running, usage := m.seatList, m.accounts, m.running, m.usage
		m.refreshSeats()
		// A pane's output (most changes: a key's echo) changes only the
		// panes; the rest of the frame is kept.
		m.panesOnly = slices.Equal(seats, m.seatList) && slices.Equal(accounts, m.accounts) &&
			maps.Equal(running, m.running) && reflect.DeepEqual(usage, m.usage)
	case pageMsg:
		rs := m.rooms[msg.topic]
		if rs == nil {
			return nil
		}
		rs.loading = false
		if msg.err != nil {
			m.status = "reading the log: " + msg.err.Error()
			rs.loaded = true
			rs.hasMore = false // not read again at every message
			return nil
		}
		before := m.roomSelLines(msg.topic)
		rs.addOlder(msg.page.Posts, msg.page.HasMore)
		if d := m.roomSelLines(msg.topic) - before; d > 0 {
			m.sel.anchor += d // the lines came in above the selection
			m.sel.cur += d
		}
		if msg.page.Skipped > 0 {
			rs.skipped += msg.page.Skipped
			m.status = fmt.Sprintf("%d unreadable lines skipped in the log of “%s”", rs.skipped, m.topicName(msg.topic))
		}
	case postResultMsg:
		return m.postResult(msg)
	case topicsMsg:
		m.listBusy = false
		if msg.err != nil {
			m.status = "topic list: " + msg.err.Error()
		} else {
			m.topics = msg.list
			m.tsel = min(m.tsel, max(len(m.topics)-1, 0))
			m.refreshSeats()
		}
		if m.listAgain {
			m.listAgain = false
			return m.loadTopics()
		}
	default:
		return m.attachMsg(msg)
	case deletedMsg:
		if msg.err != nil {
			m.status = "delete: " + msg.err.Error()
			return m.loadTopics()
		}
		delete(m.rooms, msg.topic)
		m.status = "topic deleted"
		if msg.topic == m.topic {
			if err := m.newTopic(); err != nil {
				m.status = err.Error()
			}
		}
		m.refreshSeats()
		return m.loadTopics()
	case releaseAskMsg:
		m.askClearUnsent(msg)
		return nil
	case noteMsg:
		if msg.err != nil {
			m.status = msg.err.Error()
		} else if msg.note != "" {
			m.status = msg.note
		}
		m.refreshSeats()
		if msg.list {
			return m.loadTopics()
		}
	}
	return nil
}

func (m *model) event(ev app.RoomEvent) tea.Cmd {
	switch ev.Kind {
	case app.RoomPost:
		var cmd tea.Cmd
		if m.unnamed(ev.Topic) {
			cmd = m.loadTopics()
		}
		if rs := m.rooms[ev.Topic]; rs != nil {
			// A cursor not on the newest post keeps its place: the view
			// stays still as posts come in below (a log follower follows
			// only from the end).
			hold := rs == m.cur() && m.focus == focusRoom && rs.cursor != (itemKey{})
			before := 0
			if hold {
				all, _ := m.roomLines()
				before = len(all)
			}
			rs.addLive(ev.Post, ev.Role, ev.Own)
			if hold && before > 0 {
				all, _ := m.roomLines()
				rs.offset += len(all) - before
			}
			m.keepWindow(rs)
		}
		return tea.Batch(cmd, m.notePersonMention(ev))
	case app.RoomRoster:
		if rs := m.rooms[ev.Topic]; rs != nil {
			rs.roster = ev.Participants
		}
		return m.sendWaiting()
	case app.RoomLogError:
		m.status = "log write failed (the post was delivered): " + ev.Err
	case app.RoomUsage:
		// A seat's figures changed: the participants panel is drawn from
		// them on this frame.
		if ev.Topic == m.topic {
			if u, ok := m.app.Usage(ev.Topic, ev.Account); ok {
				m.usage[ev.Account] = u
			} else {
				delete(m.usage, ev.Account)
			}
		}
	}
	return nil
}

// resync re-reads what the screen shows after events were lost: the topic
// list, and each open room's roster and last page.
func (m *model) resync() tea.Cmd {
	m.status = "the screen fell behind the room's events; reloaded"
	m.refreshMCP()
	cmds := []tea.Cmd{m.loadTopics()}
	for id, rs := range m.rooms {
		rs.roster = m.app.Roster(id)
		old := rs.offset
		*rs = *newRoomState(id)
		rs.roster, rs.offset, rs.loading = m.app.Roster(id), old, true
		rs.loadMarks(m.app)
		cmds = append(cmds, m.loadPage(id, ""))
	}
	return tea.Batch(cmds...)
}

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

// keyFor is the first key the table binds to act in ctx, as shown.
func (m *model) keyFor(ctx keyCtx, act action) string {
	for _, b := range bindings {
		if b.ctx == ctx && b.act == act {
			return keyLabel(ctx, b.keys[0], m.prefix)
		}
	}
	return "?"
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

// sync runs after every update: layout, pane sizes and renders, paging.
func (m *model) sync() tea.Cmd {
	if m.sel != nil && !m.selValid() {
		m.sel = nil // left scroll mode or the room: the selection goes
		m.panesDirty = true
	}
	panes := m.panes()
	if m.zoom >= zoomPane && m.zoom-zoomPane >= len(panes) {
		m.zoom = zoomNone
	}
	in := layoutIn{W: m.w, H: m.h, Topics: m.showTopics, Parts: m.showParts, Panes: len(panes), Zoom: m.zoom,
		PaneLayout: m.paneLayout, Spare: m.paneSpare}
	rows, _, _ := m.input.layout(max(m.w-2, 2))
	in.InputLines = len(rows) + m.chipRows()
	m.lay = computeLayout(in)
	if m.focus == focusPane && m.paneIdx < len(panes) && m.lay.Panes[m.paneIdx].Empty() && !m.lay.PaneArea.Empty() {
		// A hidden pane took focus: it comes on screen in the last place.
		m.paneSpare = m.paneIdx
		in.Spare = m.paneSpare
		m.lay = computeLayout(in)
	}
	for i, s := range panes {
		r := m.lay.Panes[i].Inner()
		if r.Empty() {
			continue
		}
		sz := [2]int{r.W, r.H}
		if m.paneSize[s.Pane] != sz {
			m.paneSize[s.Pane] = sz
			p := s.Pane
			m.exec(func() { _ = p.Resize(sz[0], sz[1]) })
			m.panesDirty = true
		}
	}
	if m.panesDirty {
		m.panesDirty = false
		m.sameView = false
		keep := map[Pane]string{}
		curs := map[Pane]paneCursor{}
		for i, s := range panes {
			if m.lay.Panes[i].Empty() {
				continue
			}
			if m.scrollMode && m.focus == focusPane && i == m.paneIdx {
				keep[s.Pane] = s.Pane.RenderScrolled(m.scrollOff)
			} else {
				keep[s.Pane] = s.Pane.Render()
			}
			var c paneCursor
			c.x, c.y, c.visible = s.Pane.Cursor()
			curs[s.Pane] = c
		}
		m.paneText = keep
		m.paneCur = curs
	}
	// Load older posts when the view reaches the top.
	rs := m.cur()
	if rs != nil && rs.loaded && rs.hasMore && !rs.loading && !m.lay.Room.Empty() {
		r := m.lay.Room.Inner()
		if _, atTop := rs.view(r.W, r.H, m.roomCtx()); atTop && len(rs.posts) > 0 {
			rs.loading = true
			return m.loadPage(rs.topic, rs.posts[0].MessageID)
		}
	}
	return nil
}

// paneCursor is a pane's cursor as read with its text.
type paneCursor struct {
	x, y    int
	visible bool
}

// keyCtx is where a key goes now.
func (m *model) keyCtx() keyCtx {
	switch {
	case m.help:
		return ctxHelp
	case m.dlg != nil:
		return ctxDialog
	case m.renaming != "" || m.nicking != "":
		return ctxRename
	case m.att.picker != nil:
		return ctxPicker
	case m.att.chipMode && m.focus == focusInput && len(m.att.chips) > 0:
		return ctxChips
	}
	switch m.focus {
	case focusPane:
		if m.scrollMode {
			return ctxScroll
		}
		return ctxPane
	case focusTopics:
		return ctxTopics
	case focusRoom:
		return ctxRoom
	case focusParts:
		return ctxParts
	}
	if len(m.input.candidates(m.roster())) > 0 {
		return ctxCandidates
	}
	return ctxInput
}

func (m *model) roster() []app.Participant {
	if rs := m.cur(); rs != nil {
		return rs.roster
	}
	return nil
}

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

func (m *model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := msg.String()
	numbers := m.numbers
	if m.armed {
		m.armed = false
		act, ok := lookup(ctxPrefix, k, m.prefix)
		if !ok {
			m.status = fmt.Sprintf("%s %s is not bound (%s ? lists the keys)", m.prefix, k, m.prefix)
			return nil
		}
		return m.do(act, ctxPrefix)
	}
	if m.numbers {
		m.numbers = false
		if n, ok := paneDigit(k); ok {
			m.focusNumber(n)
			return nil
		}
		if act, ok := lookup(ctxNumbers, k, m.prefix); ok && act == actClose {
			return nil
		}
		// Any other key hides the numbers and goes on as usual.
	}
	if k == m.prefix {
		m.armed = true
		return nil
	}
	ctx := m.keyCtx()
	switch ctx {
	case ctxPane:
		if s, ok := m.focusedPane(); ok {
			app := false
			if a, ok := s.Pane.(AppCursorKeys); ok {
				app = a.AppCursorKeys()
			}
			m.writePane(s.Pane, keyBytes(tea.Key(msg), app))
			m.sameView = !numbers
		}
		return nil
	case ctxCandidates:
		if act, ok := lookup(ctxCandidates, k, m.prefix); ok {
			return m.do(act, ctxCandidates)
		}
		ctx = ctxInput
	case ctxPicker:
		return m.pickerKey(msg)
	}
	if act, ok := lookup(ctx, k, m.prefix); ok {
		return m.do(act, ctx)
	}
	if ctx == ctxRename { // the input line's editing keys work here too
		if act, ok := lookup(ctxInput, k, m.prefix); ok {
			m.edit(&m.renameEd, act)
			return nil
		}
	}
	if (ctx == ctxInput || ctx == ctxRename) && msg.Text != "" && !msg.Mod.Contains(tea.ModCtrl) && !msg.Mod.Contains(tea.ModAlt) {
		m.editing(ctx).Insert(msg.Text)
	}
	return nil
}

func (m *model) editing(ctx keyCtx) *editor {
	if ctx == ctxRename {
		return &m.renameEd
	}
	return &m.input
}

func (m *model) paste(s string) tea.Cmd {
	switch ctx := m.keyCtx(); ctx {
	case ctxPane:
		if sp, ok := m.focusedPane(); ok {
			m.writePane(sp.Pane, pasteBytes(sp.Pane, s))
		}
	case ctxInput, ctxCandidates:
		if !m.pasteAttach(s) {
			m.input.Insert(s)
		}
	case ctxRename:
		m.renameEd.Insert(strings.ReplaceAll(s, "\n", " "))
	}
	return nil
}

// pasteBytes is a paste as a terminal sends it to p's application: wrapped
// in ESC[200~ … ESC[201~ when the application asked for bracketed paste,
// with any end marker inside the text removed so the text cannot end the
// paste early and have the rest taken as typed keys.
func pasteBytes(p Pane, s string) []byte {
	if b, ok := p.(BracketedPaste); !ok || !b.BracketedPaste() {
		return []byte(s)
	}
	const start, end = "\x1b[200~", "\x1b[201~"
	for strings.Contains(s, end) {
		s = strings.ReplaceAll(s, end, "")
	}
	return []byte(start + s + end)
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

func (m *model) roomPage() int {
	return max(m.lay.Room.Inner().H-1, 1)
}

// do carries out an action from the table.
func (m *model) do(act action, ctx keyCtx) tea.Cmd {
	if cmd, ok := m.doAttach(act, ctx); ok {
		return cmd
	}
	rs := m.cur()
	switch ctx {
	case ctxHelp:
		switch act {
		case actClose:
			m.help = false
		case actUp:
			m.helpOff--
		case actDown:
			m.helpOff++
		case actPgUp:
			m.helpOff -= 10
		case actPgDn:
			m.helpOff += 10
		}
		m.helpOff = max(m.helpOff, 0)
		return nil
	case ctxDialog:
		d := m.dlg
		m.dlg = nil
		switch {
		case act == actConfirm && d != nil && d.quit:
			return tea.Quit
		case act == actDetach && d != nil && d.quit:
			return m.detach()
		case act == actDetach:
			m.dlg = d // d only answers the quit dialog
		case act == actConfirm && d != nil && d.reopen:
			return m.reopen(d.topic)
		case act == actConfirm && d != nil && d.mcp != "":
			return m.deleteMCP(d.mcp)
		case act == actConfirm && d != nil && d.release != nil:
			return m.clearUnsent(*d.release)
		case d != nil && d.release != nil:
			m.status = "kept the keys in " + wire.OneLine(d.release.name) + "'s prompt; its posts stay held"
			return nil
		case d != nil && d.mcp != "":
			return nil
		case act == actConfirm && d != nil && d.seat != nil:
			return m.runSeatOp(d.seat.act, d.seat.topic, d.seat.account, d.seat.name)
		case d != nil && d.seat != nil:
			return nil
		case act == actConfirm && d != nil:
			m.status = "deleting “" + m.topicName(d.topic) + "”"
			return m.deleteTopic(d.topic)
		}
		return nil
	case ctxRename:
		if m.nicking != "" {
			return m.nicknameKey(act)
		}
		topic := m.renaming
		switch act {
		case actConfirm:
			m.renaming = ""
			name, b := m.renameEd.String(), m.app
			return func() tea.Msg {
				if err := b.Rename(topic, name); err != nil {
					return noteMsg{err: fmt.Errorf("rename: %w", err), list: true}
				}
				return noteMsg{note: "renamed", list: true}
			}
		case actCancel:
			m.renaming = ""
		default:
			m.edit(&m.renameEd, act)
		}
		return nil
	case ctxCandidates:
		c := m.input.candidates(m.roster())
		switch act {
		case actUp:
			m.input.sel = (m.input.sel - 1 + len(c)) % len(c)
		case actDown:
			m.input.sel = (m.input.sel + 1) % len(c)
		case actPick:
			m.input.Pick(c[min(m.input.sel, len(c)-1)])
		case actClose:
			m.input.Dismiss()
		}
		return nil
	case ctxScroll:
		if s, ok := m.focusedPane(); ok {
			page := max(m.lay.Panes[m.paneIdx].Inner().H-1, 1)
			switch act {
			case actSelect:
				m.startSel(false)
				return nil
			case actCopy:
				return m.copySel()
			case actCancel:
				if m.sel != nil {
					m.endSel()
					return nil
				}
				act = actClose
			}
			if m.sel != nil && m.selMove(act, page) {
				return nil
			}
			switch act {
			case actUp:
				m.scrollOff++
			case actDown:
				m.scrollOff--
			case actPgUp:
				m.scrollOff += page
			case actPgDn:
				m.scrollOff -= page
			case actTop:
				m.scrollOff = s.Pane.ScrollbackLen()
			case actBottom:
				m.scrollOff = 0
			case actClose:
				m.scrollMode = false
				m.scrollOff = 0
			}
			m.scrollOff = min(max(m.scrollOff, 0), s.Pane.ScrollbackLen())
			m.panesDirty = true
		}
		return nil
	case ctxTopics:
		switch act {
		case actUp:
			m.tsel = max(m.tsel-1, 0)
			return nil
		case actDown:
			m.tsel = min(m.tsel+1, max(len(m.topics)-1, 0))
			return nil
		case actOpen:
			if m.tsel < len(m.topics) {
				return m.openTopic(m.topics[m.tsel].ID)
			}
			return nil
		case actRename:
			if m.tsel < len(m.topics) {
				m.startRename(m.topics[m.tsel].ID)
			}
			return nil
		case actDelete:
			if m.tsel < len(m.topics) {
				m.askDelete(m.topics[m.tsel].ID)
			}
			return nil
		}
	case ctxRoom:
		switch act {
		case actSelect:
			m.startSel(true)
			return nil
		case actCopy:
			if m.sel != nil {
				return m.copySel()
			}
			return m.copyPost()
		case actOpen:
			if m.sel != nil {
				return m.copySel()
			}
			m.openSelected()
			return nil
		case actCancel:
			if m.sel != nil {
				m.endSel()
				return nil
			}
			act = actFocusInput
		}
		if m.sel != nil && m.selMove(act, m.roomPage()) {
			return nil
		}
		if rs != nil && m.cursorKey(rs, act) {
			return nil
		}
		switch act {
		case actExpand:
			rs.expandAll = !rs.expandAll
			rs.expanded = map[string]bool{}
			rs.invalidate()
			if _, items, i := m.roomItemsNow(); i >= 0 {
				if rs.cursor != (itemKey{}) {
					rs.cursor = items[i].key // a post now folded: its fold
				}
				m.showItem(items[i])
			}
			// Said too: the notices may all be off screen.
			if rs.expandAll {
				m.status = "MCP notices expanded (e folds them)"
			} else {
				m.status = "MCP notices folded (e expands them)"
			}
			return nil
		}
	case ctxParts:
		if cmd, ok := m.mcpKey(act); ok {
			return cmd
		}
		switch act {
		case actUp:
			m.psel = max(m.psel-1, 0)
			return nil
		case actDown:
			m.psel = min(m.psel+1, max(len(m.partRows())-1, 0))
			return nil
		case actNickname:
			m.startNickname()
			return nil
		}
	case ctxInput:
		switch act {
		case actSend:
			return m.send()
		case actNewline:
			m.input.Insert("\n")
			return nil
		case actEditor:
			return m.editInput()
		case actClearInput:
			m.clearInput()
			return nil
		case actStartAndSend:
			return m.startAndSend()
		case actPgUp, actPgDn:
			m.scrollRoom(rs, act)
			return nil
		case actUp:
			if !m.historyUp() && !m.input.Up() {
				rs.offset++
			}
			return nil
		case actDown:
			if !m.historyDown() && !m.input.Down() {
				rs.offset--
			}
			return nil
		case actLeft, actRight, actHome, actEnd, actBackspace, actDeleteChar, actKillBefore, actKillAfter, actKillWord:
			m.edit(&m.input, act)
			return nil
		}
	}
	// Actions shared by the prefix table and the panels.
	switch act {
	case actNewTopic:
		if err := m.newTopic(); err != nil {
			m.status = err.Error()
		}
		m.focus = focusInput
	case actNextTopic:
		return m.moveTopic(1)
	case actPrevTopic:
		return m.moveTopic(-1)
	case actFocusNext:
		m.cycleFocus(1)
	case actFocusPrev:
		m.cycleFocus(-1)
	case actFocusInput:
		m.setFocus(focusInput, 0)
	case actFocusTopics:
		m.showTopics = true
		m.setFocus(focusTopics, 0)
	case actFocusRoom:
		m.setFocus(focusRoom, 0)
	case actFocusParts:
		m.showParts = true
		m.setFocus(focusParts, 0)
	case actZoom:
		switch {
		case m.zoom != zoomNone:
			m.zoom = zoomNone
		case m.focus == focusPane:
			m.zoom = zoomPane + m.paneIdx
		default:
			m.zoom = zoomRoom
			m.focus = focusRoom
		}
	case actStartSeat, actStopSeat, actRestartSeat, actReleaseSeat:
		if ctx == ctxPrefix && m.focus == focusParts {
			if cmd, ok := m.mcpKey(act); ok { // the panel's own key would
				return cmd
			}
		}
		return m.seatOp(act)
	case actRename:
		m.startRename(m.topic)
	case actDelete:
		if !m.listed(m.topic) {
			m.status = "this topic is not saved yet: there is nothing to delete"
			return nil
		}
		m.askDelete(m.topic)
	case actHelp:
		m.help, m.helpNotices = true, false
		m.helpOff = 0
	case actNotices:
		m.help, m.helpNotices = true, true
		m.helpOff = 1 << 30 // the newest in view: the overlay clamps it to the last page
	case actNextLayout:
		m.nextLayout()
	case actPaneNumbers:
		if m.help || m.dlg != nil || m.renaming != "" {
			return nil // the digit belongs to what is open
		}
		if len(m.panes()) == 0 {
			m.status = "no terminal panes here to number"
			return nil
		}
		m.numbers = true
		m.numbersSeq++
		return m.later(paneNumbersTime, numbersOffMsg{seq: m.numbersSeq})
	case actQuit:
		return m.askQuit()
	case actDetach:
		return m.detach()
	case actScrollMode:
		if s, ok := m.focusedPane(); ok {
			m.scrollMode = true
			m.scrollOff = 0
			m.panesDirty = true
			m.status = fmt.Sprintf("scroll mode: %s (%d lines of scrollback); q leaves", wire.OneLine(s.Name), s.Pane.ScrollbackLen())
		} else {
			m.status = "scroll mode needs a focused terminal pane (" + m.prefix + " o)"
		}
	case actToggleTopics:
		m.showTopics = !m.showTopics
		if !m.showTopics && m.focus == focusTopics {
			m.focus = focusInput
		}
	case actToggleParts:
		m.showParts = !m.showParts
		if !m.showParts && m.focus == focusParts {
			m.focus = focusInput
		}
	case actSendPrefix:
		if s, ok := m.focusedPane(); ok {
			m.writePane(s.Pane, prefixBytes(m.prefix))
		}
	case actCancel:
	}
	return nil
}

// prefixBytes is what the prefix key itself sends to a terminal.
func prefixBytes(prefix string) []byte {
	if rest, ok := strings.CutPrefix(prefix, "ctrl+"); ok && len(rest) == 1 {
		if b, ok := ctrlByte(rune(rest[0])); ok {
			return []byte{b}
		}
	}
	return []byte(prefix)
}

func (m *model) edit(e *editor, act action) {
	switch act {
	case actLeft:
		e.Left()
	case actRight:
		e.Right()
	case actHome:
		e.Home()
	case actEnd:
		e.End()
	case actBackspace:
		e.Backspace()
	case actDeleteChar:
		e.Delete()
	case actKillBefore:
		e.KillBefore()
	case actKillAfter:
		e.KillAfter()
	case actKillWord:
		e.KillWord()
	}
}

func (m *model) click(ms tea.Mouse) tea.Cmd {
	m.drag = nil
	if ms.Button != tea.MouseLeft || m.help || m.dlg != nil {
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

// scrollRoom moves the room view for a scrolling action (from the room or
// the input line) and reports whether act was one.
func (m *model) scrollRoom(rs *roomState, act action) bool {
	switch act {
	case actUp:
		rs.offset++
	case actDown:
		rs.offset--
	case actPgUp:
		rs.offset += m.roomPage()
	case actPgDn:
		rs.offset -= m.roomPage()
	case actTop:
		rs.offset = 1 << 30
	case actBottom:
		rs.offset = 0
	default:
		return false
	}
	if rs.offset <= 0 && rs.topic == m.topic {
		delete(m.mentions, m.topic)
	}
	return true
}

// askQuit quits at once when no session runs and no other terminal is
// attached; else it asks first, since quitting stops every running session
// and the server, and offers to detach instead.
func (m *model) askQuit() tea.Cmd {
	n, topics := 0, 0
	for _, c := range m.running {
		if c > 0 {
			n += c
			topics++
		}
	}
	others := 0
	if m.clients != nil {
		others = m.clients()
	}
	if n == 0 && others == 0 {
		return tea.Quit
	}
	var lines []string
	if n > 0 {
		lines = append(lines, fmt.Sprintf("Quitting stops %d running session(s) in %d topic(s).", n, topics),
			"Topics whose sessions can resume bring them back when opened again.")
	}
	if others > 0 {
		lines = append(lines, fmt.Sprintf("Quitting also ends the %d other attached client(s) (pullcept ls lists them).", others))
	}
	if m.server {
		lines = append(lines, "Detaching leaves everything running; pullcept attaches again.",
			"", "[y] quit    [d] detach    [n] cancel")
	} else {
		lines = append(lines, "", "[y] quit    [n] cancel")
	}
	m.dlg = &dialog{quit: true, lines: lines}
	return nil
}

// detach ends this screen and leaves the sessions running (prefix d).
func (m *model) detach() tea.Cmd {
	if !m.server {
		m.status = "detach needs the pullcept server; this screen runs without one"
		return nil
	}
	m.detached = true
	return tea.Quit
}

package tui

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"pullcept/app"
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
	// loops are the topics whose agents reached the loop budget (loop.go).
	loops map[string]app.LoopState
	// nl is the needs-you list (prefix !); screen names this screen to
	// the app (who answered from where, who saw a post).
	nl     needsState
	screen string
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
	// shownPanes is what the seats were last told this screen shows
	// (PaneShower): topic and accounts.
	shownPanes string
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
		screen: o.Screen, server: o.Server, startTopic: o.Topic, onShow: o.OnShow, clients: o.Clients, program: o.Program,
		att: newAttachState(o.Env),
	}
	if m.screen == "" {
		m.screen = "terminal"
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

// showPanes tells the seats which panes this screen shows, when that
// changed: a pane on a screen never sleeps (docs/decisions.md "Sleeping
// seats").
func (m *model) showPanes(panes []SeatInfo) {
	ps, ok := m.seats.(PaneShower)
	if !ok {
		return
	}
	var accs []string
	for i, s := range panes {
		if i < len(m.lay.Panes) && !m.lay.Panes[i].Inner().Empty() {
			accs = append(accs, s.Account)
		}
	}
	key := m.topic + "\x00" + strings.Join(accs, "\x00")
	if key == m.shownPanes {
		return
	}
	m.shownPanes = key
	ps.ShowPanes(m.topic, accs)
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
	m.reportSeen()
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
		case app.EventNeedsList:
			m.refreshNeeds()
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
	case app.RoomLoop:
		m.takeLoop(ev.Loop)
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
		m.readLoop(id)
		cmds = append(cmds, m.loadPage(id, ""))
	}
	return tea.Batch(cmds...)
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
	m.showPanes(panes)
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

func (m *model) roster() []app.Participant {
	if rs := m.cur(); rs != nil {
		return rs.roster
	}
	return nil
}

// Package room is the room engine: one room per topic, each with its floor
// and its seats (one per connection), and the single deliver() every post
// goes through — from the TUI, a sidecar, a local MCP server's notification
// or the app itself. deliver() takes mentions into `to`, judges the floor,
// appends the log line, tells subscribers and hands the post to whoever
// types it into terminals, all under the room's one lock, so the order the
// floor gives is the order in the file.
//
// Spec: 003 "部屋プロトコル", "床", "部屋のログ", "トピック", "宛先は本文の中の
// @ で指定する", "発言は端末へ入る".
package room

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"pullcept/ids"
	"pullcept/room/wire"
	"pullcept/topicstore"
)

// Errors a post can get instead of a judgement.
var (
	ErrNoRoom       = errors.New("no room")
	ErrOnlyMentions = errors.New(ErrOnlyMentionsText)
	ErrEmpty        = errors.New("empty post: there is nothing to say")
	ErrTooLarge     = errors.New("post too large")
	ErrDuplicateID  = errors.New("message_id already used in this room")
	ErrBadID        = errors.New("bad message_id")
	// A hello the room does not take (nothing is changed by it).
	ErrNameTooLong    = errors.New("name too long")
	ErrAccountTooLong = errors.New("account_id too long")
	ErrRoomFull       = errors.New("room full")
	ErrPersonsName    = errors.New("the person's name")
)

// DefaultMaxSeats is how many socket connections one room seats when
// Config.MaxSeats is zero. The person's own seat is not counted and never
// refused.
const DefaultMaxSeats = 256

// MaxContentBytes bounds a post's body.
const MaxContentBytes = 256 << 10

// ConnID identifies a connection: the room's unit of identity for seats,
// the floor and the own-post rule. It never goes on the wire.
type ConnID uint64

// Log is what the room needs from the topic store.
type Log interface {
	Append(topic string, p topicstore.Post) (first bool, err error)
	NoteFirstPost(topic, content string) error
	Page(topic string, limit int, before string) (topicstore.Page, error)
}

// Delivery is a post handed to the terminal typist: type it into the
// terminal of each account in Accounts for Topic (the seated accounts other
// than the speaker's connection's).
type Delivery struct {
	Topic    string
	Post     wire.Post
	Role     string
	Accounts []string
	// First: the post goes before the posts already waiting in each
	// terminal (the resume instruction after a usage limit).
	First bool
	// LoopSeq > 0: the post is past the loop budget and held in every
	// terminal as that ordinal, until LoopReleaser lets it go (loop.go).
	LoopSeq int
}

// Typer types posts into terminals. Type must not block: it queues.
type Typer interface {
	Type(d Delivery)
}

// Config wires an Engine.
type Config struct {
	Log Log
	// Typer may be nil (nothing is typed).
	Typer Typer
	// AccountKind answers the kind of a configured account; nil or !ok
	// means unknown.
	AccountKind func(account string) (kind string, ok bool)
	// AccountNames answers a configured account's calling name (nickname,
	// else name) and name as saved now; nil or !ok: not configured. A seat
	// naming a configured account is called by these names, whatever its
	// hello said (spec 003: 再接続は保存設定の呼称を採用する), and Rename
	// reads them again.
	AccountNames func(account string) (name, fullName string, ok bool)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// PersonName is the person's name in every room (the TUI or the
	// serve controller). Empty means "you".
	PersonName string
	// PersonHue is the person's declared hue, if any.
	PersonHue *int
	// MaxSeats bounds the socket connections seated in one room; zero
	// means DefaultMaxSeats. A hello past it gets ErrRoomFull.
	MaxSeats int
	// Loop answers the loop budget's rule now (loop.go); nil counts
	// nothing.
	Loop func() LoopRule
}

// Engine holds every room of this run.
type Engine struct {
	cfg      Config
	broker   *broker
	usage    *UsageBook
	nextConn atomic.Uint64
	person   ConnID

	mu    sync.Mutex
	rooms map[string]*Room
	conns map[ConnID]*conn
}

// conn is a socket connection's membership: fixed to the room its first
// hello named.
type conn struct {
	topic   string // "" until seated
	decided bool   // the first hello fixed the room (even if it did not exist)
}

// Room is one topic's floor and seats.
type Room struct {
	topic string
	mu    sync.Mutex
	floor *floor
	seats map[ConnID]*seat
	order []ConnID // seat order for the roster

	prior sync.Once // the floor's ids of the posts logged before this run

	sockets int  // seats of socket connections (the person's not counted)
	dropped bool // the topic was deleted: no more roster events
	roster  rosterState
	loop    loopCount // agent posts since the person's last (loop.go)
}

type seat struct {
	name     string // the calling name: addressing, the roster, speaker
	fullName string // the account's name when it differs ("" otherwise)
	hue      *int
	account  string
	since    uint64 // floor position when the seat was taken
	person   bool
	asleep   bool // a sleeping seat's placeholder (SeatAsleep)
}

// New makes an engine.
func New(cfg Config) *Engine {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.PersonName == "" {
		cfg.PersonName = "you"
	}
	if cfg.MaxSeats <= 0 {
		cfg.MaxSeats = DefaultMaxSeats
	}
	e := &Engine{cfg: cfg, broker: newBroker(), usage: newUsageBook(), rooms: map[string]*Room{}, conns: map[ConnID]*conn{}}
	e.person = e.NewConn()
	return e
}

// NewConn allocates a connection id.
func (e *Engine) NewConn() ConnID { return ConnID(e.nextConn.Add(1)) }

// Person is the connection id of the person at the screen.
func (e *Engine) Person() ConnID { return e.person }

// PersonName is the person's name in the rooms.
func (e *Engine) PersonName() string { return e.cfg.PersonName }

// Subscribe returns a new event subscription.
func (e *Engine) Subscribe() *Subscription { return e.broker.subscribe() }

// Usage is the usage book.
func (e *Engine) Usage() *UsageBook { return e.usage }

// Open makes the room of topic if this run has none, and seats the person
// in it. Opening twice is harmless.
func (e *Engine) Open(topic string) (*Room, error) {
	if !topicstore.ValidID(topic) {
		return nil, fmt.Errorf("open %q: %w", topic, topicstore.ErrBadID)
	}
	e.mu.Lock()
	r, ok := e.rooms[topic]
	if !ok {
		r = &Room{topic: topic, floor: newFloor(), seats: map[ConnID]*seat{}}
		e.rooms[topic] = r
	}
	e.mu.Unlock()
	if !ok {
		e.seat(r, e.person, &seat{name: e.cfg.PersonName, hue: e.cfg.PersonHue, person: true}) // never refused
	}
	return r, nil
}

// Room returns the room of topic if it is open.
func (e *Engine) Room(topic string) (*Room, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	r, ok := e.rooms[topic]
	return r, ok
}

// Topics lists the open rooms' topics.
func (e *Engine) Topics() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]string, 0, len(e.rooms))
	for t := range e.rooms {
		out = append(out, t)
	}
	return out
}

// Drop throws the room of a deleted topic away. Connections seated in it
// get an error for everything they send afterwards.
func (e *Engine) Drop(topic string) {
	e.mu.Lock()
	r := e.rooms[topic]
	delete(e.rooms, topic)
	e.mu.Unlock()
	if r != nil {
		r.mu.Lock()
		r.dropped = true // a roster event still due is not sent
		r.mu.Unlock()
	}
	e.usage.dropTopic(topic)
}

// Hello seats a socket connection. The first hello fixes the room for the
// connection's life; a later hello may rename the seat (same seat, same
// position) but never moves it. A hello naming no room or a room this run
// does not have leaves the connection unseated.
//
// A hello whose name is over wire.MaxNameRunes characters or whose
// account_id is over wire.MaxAccountIDLen bytes is refused and changes
// nothing (not even the room it would fix), and so is a hello taking the
// person's name (ErrPersonsName). A hello into a room that seats
// Config.MaxSeats connections already is refused with ErrRoomFull; the room
// stays fixed, and a later hello takes a seat once one is free.
func (e *Engine) Hello(id ConnID, h wire.Hello) error {
	name := strings.TrimSpace(h.Name)
	if n := utf8.RuneCountInString(name); n > wire.MaxNameRunes {
		return fmt.Errorf("%w: the name is %d characters; the limit is %d", ErrNameTooLong, n, wire.MaxNameRunes)
	}
	if n := len(h.AccountID); n > wire.MaxAccountIDLen {
		return fmt.Errorf("%w: account_id is %d bytes; the limit is %d", ErrAccountTooLong, n, wire.MaxAccountIDLen)
	}
	if name == "" {
		name = "unnamed"
	}
	full := strings.TrimSpace(h.FullName)
	if n := utf8.RuneCountInString(full); n > wire.MaxNameRunes {
		return fmt.Errorf("%w: the full name is %d characters; the limit is %d", ErrNameTooLong, n, wire.MaxNameRunes)
	}
	if saved, savedFull, ok := e.accountNames(h.AccountID); ok {
		name, full = saved, savedFull
	}
	if err := e.checkName(name); err != nil {
		return err
	}
	e.mu.Lock()
	c, ok := e.conns[id]
	if !ok {
		c = &conn{}
		e.conns[id] = c
	}
	if !c.decided {
		c.decided = true
		c.topic = h.Room
		if !topicstore.ValidID(h.Room) && h.Room != "" {
			// No room has this id; keep a bounded copy for the errors
			// that quote it (the cut form is no valid id either).
			c.topic = wire.Cut(h.Room, topicstore.MaxIDLen)
		}
	}
	topic := c.topic
	r := e.rooms[topic]
	e.mu.Unlock()
	if topic == "" {
		return fmt.Errorf("%w: hello names no room", ErrNoRoom)
	}
	if r == nil {
		return fmt.Errorf("%w: room %q does not exist in this run", ErrNoRoom, topic)
	}
	return e.seat(r, id, &seat{name: name, fullName: fullNameOf(name, full), hue: h.Hue, account: h.AccountID})
}

// SeatAsleep seats a placeholder for account's sleeping seat in topic's
// room, called by the account's saved names (name when it has none): an
// app-owned connection, so the roster keeps the seat, `@Name` resolves to
// it and deliveries name its account (docs/decisions.md "Sleeping seats").
// It is one socket seat for the room's bound. Leave ends it.
func (e *Engine) SeatAsleep(topic, account, name string) (ConnID, error) {
	full := ""
	if saved, savedFull, ok := e.accountNames(account); ok {
		name, full = saved, savedFull
	}
	r, ok := e.Room(topic)
	if !ok {
		return 0, fmt.Errorf("%w: room %q does not exist in this run", ErrNoRoom, topic)
	}
	id := e.NewConn()
	e.mu.Lock()
	e.conns[id] = &conn{topic: topic, decided: true}
	e.mu.Unlock()
	if err := e.seat(r, id, &seat{name: name, fullName: fullNameOf(name, full), account: account, asleep: true}); err != nil {
		e.Leave(id)
		return 0, err
	}
	return id, nil
}

// accountNames is Config.AccountNames for a declared account.
func (e *Engine) accountNames(account string) (name, full string, ok bool) {
	if account == "" || e.cfg.AccountNames == nil {
		return "", "", false
	}
	name, full, ok = e.cfg.AccountNames(account)
	name, full = strings.TrimSpace(name), strings.TrimSpace(full)
	return name, full, ok && name != ""
}

// fullNameOf is the full name a post of a speaker called name carries: ""
// when it is no other name.
func fullNameOf(name, full string) string {
	if full == name {
		return ""
	}
	return full
}

// checkName refuses a calling name no connection may take.
func (e *Engine) checkName(name string) error {
	if strings.EqualFold(name, e.cfg.PersonName) {
		// Only the person speaks under the person's name: the log keeps no
		// role, so a reloaded post under it would read as the person's.
		return fmt.Errorf("%w: %q is the person's name in this run's rooms (names match ignoring case); connect under another name", ErrPersonsName, name)
	}
	return nil
}

// Identity is the names connection id is seated under (ok false: not
// seated).
func (e *Engine) Identity(id ConnID) (wire.Identity, bool) {
	r, err := e.connRoom(id)
	if err != nil {
		return wire.Identity{}, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.seats[id]
	if !ok {
		return wire.Identity{}, false
	}
	return wire.Identity{Type: wire.TypeIdentity, Name: s.name, FullName: s.fullName}, true
}

// Rename calls every seat of account, in every room, by the account's
// saved names (Config.AccountNames) from now on: the roster of each room
// changes, the connection, its seat position and its floor position stay.
// Posts already said keep the names they were said under. It returns the
// connections whose names changed (to be told their identity). A saved name
// no connection may take (the person's) renames nothing.
func (e *Engine) Rename(account string) ([]ConnID, error) {
	name, full, ok := e.accountNames(account)
	if !ok {
		return nil, nil
	}
	if err := e.checkName(name); err != nil {
		return nil, err
	}
	full = fullNameOf(name, full)
	e.mu.Lock()
	rooms := make([]*Room, 0, len(e.rooms))
	for _, r := range e.rooms {
		rooms = append(rooms, r)
	}
	e.mu.Unlock()
	var changed []ConnID
	for _, r := range rooms {
		func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			n := 0
			for _, id := range r.order {
				s := r.seats[id]
				if s.person || s.account != account || (s.name == name && s.fullName == full) {
					continue
				}
				s.name, s.fullName = name, full
				changed = append(changed, id)
				n++
			}
			if n > 0 && !r.dropped {
				e.rosterChangedLocked(r)
			}
		}()
	}
	return changed, nil
}

// seat seats (or renames) connection id in r; a new socket seat past
// Config.MaxSeats is refused.
func (e *Engine) seat(r *Room, id ConnID, s *seat) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.seats[id]; ok {
		s.since = old.since // re-introduction keeps the seat's position
	} else {
		if !s.person && r.sockets >= e.cfg.MaxSeats {
			return fmt.Errorf("%w: room %q already seats %d connections; the limit is %d per room (try again when one leaves)", ErrRoomFull, r.topic, r.sockets, e.cfg.MaxSeats)
		}
		if !s.person {
			r.sockets++
		}
		s.since = r.floor.last
		r.order = append(r.order, id)
	}
	r.seats[id] = s
	e.rosterChangedLocked(r)
	return nil
}

// Leave removes a connection's seat (on disconnect).
func (e *Engine) Leave(id ConnID) {
	e.mu.Lock()
	c := e.conns[id]
	delete(e.conns, id)
	var r *Room
	if c != nil {
		r = e.rooms[c.topic]
	}
	e.mu.Unlock()
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.seats[id]
	if !ok {
		return
	}
	delete(r.seats, id)
	if !s.person {
		r.sockets--
	}
	for i, o := range r.order {
		if o == id {
			r.order = append(r.order[:i:i], r.order[i+1:]...)
			break
		}
	}
	e.rosterChangedLocked(r)
}

// Roster lists the participants of topic's room.
func (e *Engine) Roster(topic string) []Participant {
	r, ok := e.Room(topic)
	if !ok {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rosterLocked()
}

func (r *Room) rosterLocked() []Participant {
	out := make([]Participant, 0, len(r.order))
	for _, id := range r.order {
		s := r.seats[id]
		out = append(out, Participant{Name: s.name, FullName: s.fullName, Hue: s.hue, Account: s.account, Person: s.person, Asleep: s.asleep})
	}
	return out
}

// connRoom is the room a socket connection sits in.
func (e *Engine) connRoom(id ConnID) (*Room, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	c, ok := e.conns[id]
	if !ok || !c.decided {
		return nil, fmt.Errorf("%w: send hello with a room first", ErrNoRoom)
	}
	if c.topic == "" {
		return nil, fmt.Errorf("%w: hello named no room", ErrNoRoom)
	}
	r, ok := e.rooms[c.topic]
	if !ok {
		return nil, fmt.Errorf("%w: room %q does not exist (never opened in this run, or deleted)", ErrNoRoom, c.topic)
	}
	return r, nil
}

// ConnTopic is the topic a connection is seated in ("" if none).
func (e *Engine) ConnTopic(id ConnID) string {
	r, err := e.connRoom(id)
	if err != nil {
		return ""
	}
	return r.topic
}

// Outcome is the result of a judged post.
type Outcome struct {
	Delivered bool
	Post      wire.Post   // the post as delivered
	Missed    []wire.Post // when the floor refused it
	// LoopHeld is the budget when the post went past it and is held in
	// every terminal (loop.go); 0 when it is typed as usual.
	LoopHeld int
}

// source says which door a post came in by; it decides role, judgement and
// mention handling.
type source int

const (
	fromPerson source = iota // the TUI: role admin, judged
	fromSocket               // a sidecar: role = account kind, judged
	fromMCP                  // a local MCP server's notification: role mcp, not judged, no mentions
	fromApp                  // the app's own notice: role app, not judged
)

type input struct {
	messageID string
	content   string
	to        []string
	lastSeen  string
	// for fromMCP / fromApp, who speaks
	name    string
	account string
	hue     *int
	// only (fromApp): type it into these accounts' terminals alone, before
	// what waits there; skip: into every terminal but this account's.
	only []string
	skip string
}

// PostAsPerson delivers an admin post from the person at the screen to
// topic, judged against lastSeen (the newest post drawn).
func (e *Engine) PostAsPerson(topic, content, lastSeen string) (Outcome, error) {
	r, ok := e.Room(topic)
	if !ok {
		return Outcome{}, fmt.Errorf("%w: topic %q is not open", ErrNoRoom, topic)
	}
	return e.deliver(r, e.person, fromPerson, input{content: content, lastSeen: lastSeen})
}

// PostFromConn delivers a socket connection's post frame.
func (e *Engine) PostFromConn(id ConnID, f wire.PostFrame) (Outcome, error) {
	r, err := e.connRoom(id)
	if err != nil {
		return Outcome{}, err
	}
	return e.deliver(r, id, fromSocket, input{messageID: f.MessageID, content: f.Content, to: f.To, lastSeen: f.LastSeen})
}

// Notify delivers a local MCP server's notification, as the server's mcp
// account: never judged, body and addressees untouched.
func (e *Engine) Notify(topic, account, name string, hue *int, content string) (Outcome, error) {
	r, ok := e.Room(topic)
	if !ok {
		return Outcome{}, fmt.Errorf("%w: topic %q is not open", ErrNoRoom, topic)
	}
	return e.deliver(r, 0, fromMCP, input{content: content, name: name, account: account, hue: hue})
}

// AppName is the speaker of the app's own notices.
const AppName = "Pullcept（自動通知）"

// NoReply marks every app notice: the sessions need not answer it. It is
// added in one place (deliver, for every app notice) at the end of the
// notice's first line, so a last line such as "operation_id: …" stays
// last and whole.
const NoReply = "（返信不要）"

// AppNoticeText is an app notice's body as delivered: content with NoReply
// at the end of its first line (once).
func AppNoticeText(content string) string {
	first, rest, multi := strings.Cut(content, "\n")
	if strings.HasSuffix(first, NoReply) {
		return content
	}
	if !multi {
		return first + NoReply
	}
	return first + NoReply + "\n" + rest
}

// AppNotice delivers the app's own notice to topic.
func (e *Engine) AppNotice(topic, content string) (Outcome, error) {
	r, ok := e.Room(topic)
	if !ok {
		return Outcome{}, fmt.Errorf("%w: topic %q is not open", ErrNoRoom, topic)
	}
	return e.deliver(r, 0, fromApp, input{content: content, name: AppName})
}

// AppNoticeAbout delivers the app's notice about account's seat to topic,
// typed into every other seat (the seat itself is told otherwise: a seat
// stopped at its usage limit gets the resume instruction instead).
func (e *Engine) AppNoticeAbout(topic, account, content string) (Outcome, error) {
	r, ok := e.Room(topic)
	if !ok {
		return Outcome{}, fmt.Errorf("%w: topic %q is not open", ErrNoRoom, topic)
	}
	return e.deliver(r, 0, fromApp, input{content: content, name: AppName, skip: account})
}

// AppInstruct delivers the app's own notice addressed to one seat (name,
// of account) and typed into that seat's terminal alone, before the posts
// held there: the resume instruction once its usage limit is over (spec
// 003 発言は端末へ入る, #389/#294). The room and its log see it like any
// app notice.
func (e *Engine) AppInstruct(topic, account, name, content string) (Outcome, error) {
	r, ok := e.Room(topic)
	if !ok {
		return Outcome{}, fmt.Errorf("%w: topic %q is not open", ErrNoRoom, topic)
	}
	return e.deliver(r, 0, fromApp, input{content: content, name: AppName, to: []string{name}, only: []string{account}})
}

// deliver is the one path of every post.
func (e *Engine) deliver(r *Room, from ConnID, src source, in input) (Outcome, error) {
	if len(in.content) > MaxContentBytes {
		return Outcome{}, fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, len(in.content), MaxContentBytes)
	}
	if in.messageID != "" && !validMessageID(in.messageID) {
		return Outcome{}, fmt.Errorf("%w: at most 128 printable characters without spaces", ErrBadID)
	}
	if in.messageID != "" {
		e.seedPrior(r)
	}
	to := wire.Addressees(in.to)
	content := in.content
	if src == fromApp {
		content = AppNoticeText(content)
	}

	r.mu.Lock()
	// Released once, by unlock (before the index is written) or, should
	// something below fail, by the defer: no lock outlives a fault.
	locked := true
	unlock := func() {
		if locked {
			locked = false
			r.mu.Unlock()
		}
	}
	defer unlock()
	var s *seat
	if src == fromPerson || src == fromSocket {
		s = r.seats[from]
		if s == nil {
			unlock()
			return Outcome{}, fmt.Errorf("%w: this connection has no seat in room %q", ErrNoRoom, r.topic)
		}
	}
	if src != fromMCP {
		names := make([]string, 0, len(r.seats))
		for _, id := range r.order {
			names = append(names, r.seats[id].name)
		}
		var took []string
		content, took = TakeMentions(content, names)
		if len(took) > 0 && strings.TrimSpace(content) == "" {
			unlock()
			return Outcome{}, ErrOnlyMentions
		}
		to = wire.Addressees(append(to, took...))
	}
	if strings.TrimSpace(content) == "" {
		unlock()
		return Outcome{}, ErrEmpty
	}
	id := in.messageID
	if id == "" {
		id = ids.Random()
	} else if r.floor.has(id) {
		unlock()
		return Outcome{}, fmt.Errorf("%w: %s", ErrDuplicateID, id)
	}
	if s != nil {
		if missed := r.floor.missed(in.lastSeen, s.since, from); len(missed) > 0 {
			unlock()
			return Outcome{Missed: missed}, nil
		}
	}

	p := wire.Post{MessageID: id, Content: content, To: to, TS: e.cfg.Now().UTC().Format(TSLayout)}
	role := wire.RoleUnknown
	switch src {
	case fromPerson:
		p.Speaker, p.Hue, role = s.name, s.hue, wire.RoleAdmin
	case fromSocket:
		p.Speaker, p.FullName, p.Hue, p.Account = s.name, s.fullName, s.hue, s.account
		role = e.roleOf(s.account)
	case fromMCP:
		p.Speaker, p.Hue, p.Account, role = in.name, in.hue, in.account, wire.RoleMCP
		if _, full, ok := e.accountNames(in.account); ok {
			p.FullName = fullNameOf(in.name, full)
		}
	case fromApp:
		p.Speaker, p.FromApp, role = in.name, true, wire.RoleApp
	}

	first, appendErr := e.cfg.Log.Append(r.topic, toLogPost(p))
	r.floor.add(p, from)
	var accounts []string
	skip := in.skip
	if s != nil {
		skip = s.account
	}
	seen := map[string]bool{}
	for _, cid := range r.order {
		st := r.seats[cid]
		if cid == from || st.account == "" || st.account == skip || seen[st.account] {
			continue
		}
		seen[st.account] = true
		accounts = append(accounts, st.account)
	}
	if in.only != nil {
		accounts = in.only
	}
	if appendErr != nil {
		e.broker.publish(Event{Kind: EventLogError, Topic: r.topic, Err: appendErr.Error()})
	}
	e.broker.publish(Event{Kind: EventPost, Topic: r.topic, Post: p, Own: from == e.person, Role: role})
	person := e.cfg.PersonName
	if ps := r.seats[e.person]; ps != nil {
		person = ps.name
	}
	seq := e.countLoop(r, src, role, p, person)
	if e.cfg.Typer != nil {
		e.cfg.Typer.Type(Delivery{Topic: r.topic, Post: p, Role: role, Accounts: accounts, First: in.only != nil, LoopSeq: seq})
	}
	unlock()

	if first {
		// The index is written outside the room lock (spec: 索引はロックの外で書く).
		if err := e.cfg.Log.NoteFirstPost(r.topic, p.Content); err != nil {
			e.broker.publish(Event{Kind: EventLogError, Topic: r.topic, Err: err.Error()})
		}
	}
	o := Outcome{Delivered: true, Post: p}
	if seq > 0 {
		o.LoopHeld = e.loopRule().Budget
	}
	return o, nil
}

// seedPrior gives the room's floor, once, the ids of the topic's last
// FloorWindow posts in the log, so that a sender's message_id is refused
// when any of the topic's last FloorWindow posts holds it, across a
// restart too (docs/decisions.md "message_id"). Read at the first post
// that brings its own id, outside the room's lock; a log that cannot be
// read seeds nothing (the floor alone still refuses).
func (e *Engine) seedPrior(r *Room) {
	r.prior.Do(func() {
		page, err := e.cfg.Log.Page(r.topic, FloorWindow, "")
		if err != nil {
			return
		}
		ids := make([]string, len(page.Posts))
		for i, p := range page.Posts {
			ids[i] = p.MessageID
		}
		r.mu.Lock()
		r.floor.seedPrior(ids)
		r.mu.Unlock()
	})
}

// TSLayout is the UTC RFC 3339 timestamp of posts, to the millisecond.
const TSLayout = "2006-01-02T15:04:05.000Z07:00"

// roleOf is the tag role of a socket post: the kind of the account the
// connection named, never admin/mcp/app, else unknown.
func (e *Engine) roleOf(account string) string {
	if account == "" || e.cfg.AccountKind == nil {
		return wire.RoleUnknown
	}
	kind, ok := e.cfg.AccountKind(account)
	if !ok {
		return wire.RoleUnknown
	}
	switch kind {
	case "", wire.RoleAdmin, wire.RoleMCP, wire.RoleApp, wire.RoleUnknown:
		return wire.RoleUnknown
	}
	return kind
}

func validMessageID(id string) bool {
	if len(id) > 128 || !utf8.ValidString(id) {
		return false
	}
	for _, r := range id {
		if r <= ' ' || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			return false
		}
	}
	return true
}

func toLogPost(p wire.Post) topicstore.Post {
	return topicstore.Post{MessageID: p.MessageID, Speaker: p.Speaker, FullName: p.FullName, Account: p.Account, FromApp: p.FromApp, Content: p.Content, To: p.To, TS: p.TS}
}

// FromLogPost converts a log line to a wire post.
func FromLogPost(p topicstore.Post) wire.Post {
	return wire.Post{MessageID: p.MessageID, Speaker: p.Speaker, FullName: p.FullName, Account: p.Account, FromApp: p.FromApp, Content: p.Content, To: p.To, TS: p.TS}
}

// History answers a connection's history request from its own topic.
func (e *Engine) History(id ConnID, limit int, before string) ([]wire.Post, bool, error) {
	r, err := e.connRoom(id)
	if err != nil {
		return nil, false, err
	}
	return e.TopicPage(r.topic, limit, before)
}

// TopicPage reads a page of topic's log, oldest first, clamping limit to
// [1, wire.HistoryMax] (0 means wire.HistoryDefault).
func (e *Engine) TopicPage(topic string, limit int, before string) ([]wire.Post, bool, error) {
	if limit <= 0 {
		limit = wire.HistoryDefault
	}
	if limit > wire.HistoryMax {
		limit = wire.HistoryMax
	}
	page, err := e.cfg.Log.Page(topic, limit, before)
	if err != nil {
		return nil, false, err
	}
	out := make([]wire.Post, len(page.Posts))
	for i, p := range page.Posts {
		out[i] = FromLogPost(p)
	}
	return out, page.HasMore, nil
}

// UsageFor answers a connection's usage request: its own (topic, account).
func (e *Engine) UsageFor(id ConnID) (Usage, bool, error) {
	r, err := e.connRoom(id)
	if err != nil {
		return Usage{}, false, err
	}
	r.mu.Lock()
	s := r.seats[id]
	r.mu.Unlock()
	if s == nil || s.account == "" {
		return Usage{}, false, errors.New("this connection has no account: usage figures belong to a seat's account")
	}
	u, ok := e.usage.Get(r.topic, s.account)
	return u, ok, nil
}

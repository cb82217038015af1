package seat

// The seat manager: the ledger of running seats, one per (topic, account).
// It resolves a launch, starts its pane, attaches the pane to the typist,
// records the session id, and when the process ends applies the dropped
// resume rule (#127) and tells its subscribers. Switching topics stops
// nothing; deleting a topic stops its seats first (StopTopic); quitting
// stops them all (Close). Stops the person or the app asked for are
// "requested" and never drop a record.

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"pullcept/ids"

	"pullcept/room/wire"
)

// Seat states reported in events.
const (
	StateStarting = "starting"
	StateRunning  = "running"
	StateExited   = "exited"
)

// ErrSeatRunning and ErrNoSeat are returned by Start and Stop.
var (
	ErrSeatRunning = errors.New("seat already running")
	ErrNoSeat      = errors.New("no running seat")
	ErrNoAccount   = errors.New("no such account")
)

// Event reports a seat's life: starting, running (with how it launched),
// exited (with its status and whether the resume record was dropped).
type Event struct {
	Topic         string `json:"topic"`
	Account       string `json:"account"`
	Name          string `json:"name,omitempty"`
	State         string `json:"state"`
	SessionID     string `json:"session_id,omitempty"`
	ResumedFrom   string `json:"resumed_from,omitempty"`
	DroppedResume string `json:"dropped_resume,omitempty"`
	// DroppedOnExit: a resumed session ended by itself before it ever
	// joined the room, so its record was dropped (#127).
	DroppedOnExit bool     `json:"dropped_on_exit,omitempty"`
	UnseenHistory bool     `json:"unseen_history,omitempty"`
	Argv          []string `json:"argv,omitempty"`
	Exit          string   `json:"exit,omitempty"`
	Code          *int     `json:"code,omitempty"`
	Requested     bool     `json:"requested,omitempty"`
	Error         string   `json:"error,omitempty"`
	// Type is "" for the life events above and EventActivity for a change
	// of the seat's activity or of the posts it holds.
	Type     string            `json:"type,omitempty"`
	Activity *ActivitySnapshot `json:"activity,omitempty"`
	// Held is how many posts the seat's terminal holds, Hold why.
	Held int    `json:"held,omitempty"`
	Hold string `json:"hold,omitempty"`
}

// EventActivity is the Type of an activity event.
const EventActivity = "activity"

// ManagerOptions wire a Manager.
type ManagerOptions struct {
	Store   Store
	Typist  *Typist
	RoomURL string
	Token   string
	// ExePath is this pullcept binary (the sidecar command).
	ExePath    string
	RuntimeDir string
	// Home is where transcripts are looked for; "" = the user's home.
	Home string
	// BaseEnv is the children's base environment; nil = os.Environ().
	BaseEnv []string
	// Cols and Rows are a new pane's size (the TUI resizes it).
	Cols, Rows int
	Log        *slog.Logger
	// StartPane starts a launch's process; nil means StartPane (a real
	// PTY). Tests put a fake process starter here.
	StartPane func(ctx context.Context, spec PaneSpec) (*Pane, error)
	// OnUsage takes a seat's usage figures (Codex: from its rollout file,
	// codex_usage.go), called from the seat's own goroutine, and a Claude
	// seat's usage limit (a StopFailure rate_limit hook, with no reset
	// time); nil = not watched.
	OnUsage func(topic, account string, r wire.UsageReport)
	// OnChange, when set, is called (it must not block) on every change
	// of a seat's state instead of Changed signalling, from the goroutine
	// that made it; OnOutput the same for a change of a pane's screen (nil:
	// those go to OnChange, or Changed).
	OnChange, OnOutput func()
	// OnMark is told each change of a post's delivery mark in a seat
	// (marks.go), in order; it must not block.
	OnMark func(MarkEvent)
	// ReceiveBound is the delivery marks' not-received bound; zero means
	// ReceiveBound.
	ReceiveBound time.Duration
}

// Manager runs seats. Its methods are safe for concurrent use.
type Manager struct {
	o        ManagerOptions
	mu       sync.Mutex
	accounts map[string]Account
	order    []string
	seats    map[seatKey]*Seat
	subs     map[chan Event]struct{}
	changed  chan struct{}
	wg       sync.WaitGroup
	gen      uint64 // the last launch generation handed out (under mu)
	envSrc   envSource
	marks    *Deliveries // the posts' delivery marks (marks.go)
}

type seatKey struct{ topic, account string }

// Seat is one running (or just ended) launch of an account in a topic.
type Seat struct {
	Topic   string
	Account Account
	Launch  Launch
	Pane    *Pane

	// Activity is what the seat's CLI is doing (hooks); set at creation.
	Activity *Activity

	// Generation numbers this launch in the run (every Start a new one);
	// PtyID names it to the sessions (session operations' pty_id), unique
	// across runs. Both are set at creation.
	Generation uint64
	PtyID      string
	capability string // the launch's operation capability (its env only)

	mu        sync.Mutex
	state     string
	appeared  bool
	requested bool
	exit      string // how it ended, once it has
	done      chan struct{}
	cancelID  context.CancelFunc
}

// Terminal is the seat's pane (nil while starting).
func (s *Seat) Terminal() *Pane { s.mu.Lock(); defer s.mu.Unlock(); return s.Pane }

// State is starting, running or exited.
func (s *Seat) State() string { s.mu.Lock(); defer s.mu.Unlock(); return s.state }

// Exit is how the seat's process ended ("" while it runs).
func (s *Seat) Exit() string { s.mu.Lock(); defer s.mu.Unlock(); return s.exit }

// Done is closed when the seat has ended and been cleaned up.
func (s *Seat) Done() <-chan struct{} { return s.done }

// NewManager makes a manager for the given accounts.
func NewManager(o ManagerOptions, accounts []Account) *Manager {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.StartPane == nil {
		o.StartPane = StartPane
	}
	m := &Manager{o: o, seats: map[seatKey]*Seat{}, subs: map[chan Event]struct{}{}, changed: make(chan struct{}, 1)}
	m.SetAccounts(accounts)
	m.marks = NewDeliveries(DeliveriesOptions{OnMark: o.OnMark, Bound: o.ReceiveBound})
	if o.Typist != nil {
		o.Typist.setHoldReporter(m.typistHeld)
		o.Typist.setMarkReporter(m.marks.typist)
	}
	return m
}

// SetAccounts replaces the account list (running seats keep running).
func (m *Manager) SetAccounts(accounts []Account) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.accounts = map[string]Account{}
	m.order = nil
	for _, a := range accounts {
		m.accounts[a.ID] = a
		m.order = append(m.order, a.ID)
	}
	m.signal()
}

// Accounts lists the accounts in config order.
func (m *Manager) Accounts() []Account {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Account, 0, len(m.order))
	for _, id := range m.order {
		out = append(out, m.accounts[id])
	}
	return out
}

// Names answers an account's calling name (nickname, else name) and name as
// saved now (ok false: not configured).
func (m *Manager) Names(account string) (name, fullName string, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.accounts[account]
	if !ok {
		return "", "", false
	}
	return a.CallName(), a.Name, true
}

// CallName is what the room calls s's account now: the saved names (a
// rename reaches a running seat), else those it was launched with.
func (m *Manager) CallName(s *Seat) string {
	if name, _, ok := m.Names(s.Account.ID); ok {
		return name
	}
	return s.Account.CallName()
}

// Kind answers an account's kind (for the room's roles).
func (m *Manager) Kind(account string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.accounts[account]
	return string(a.Kind), ok
}

// Subscribe returns a channel of seat events; it is buffered and a slow
// reader misses events rather than blocking seats.
func (m *Manager) Subscribe() <-chan Event {
	c := make(chan Event, 256)
	m.mu.Lock()
	m.subs[c] = struct{}{}
	m.mu.Unlock()
	return c
}

// Changed is signalled (coalesced) when a seat's state or a pane's screen
// changed, unless ManagerOptions.OnChange takes the changes.
func (m *Manager) Changed() <-chan struct{} { return m.changed }

// output is a change of a pane's screen.
func (m *Manager) output() {
	if m.o.OnOutput != nil {
		m.o.OnOutput()
		return
	}
	m.signal()
}

func (m *Manager) signal() {
	if m.o.OnChange != nil {
		m.o.OnChange()
		return
	}
	select {
	case m.changed <- struct{}{}:
	default:
	}
}

func (m *Manager) emit(ev Event) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for c := range m.subs {
		select {
		case c <- ev:
		default:
			m.o.Log.Warn("seat event dropped: subscriber full", "state", ev.State)
		}
	}
	m.signal()
}

// Seats lists the seats of topic (running or starting), by account order.
func (m *Manager) Seats(topic string) []*Seat {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*Seat
	for k, s := range m.seats {
		if k.topic == topic {
			out = append(out, s)
		}
	}
	pos := map[string]int{}
	for i, id := range m.order {
		pos[id] = i
	}
	sort.Slice(out, func(i, j int) bool { return pos[out[i].Account.ID] < pos[out[j].Account.ID] })
	return out
}

// All lists every topic's seats (no order).
func (m *Manager) All() []*Seat {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*Seat, 0, len(m.seats))
	for _, s := range m.seats {
		out = append(out, s)
	}
	return out
}

// Seat returns the seat of account in topic.
func (m *Manager) Seat(topic, account string) (*Seat, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.seats[seatKey{topic, account}]
	return s, ok
}

// SawInRoster records that account appeared in topic's room roster: a
// resumed session that did so is not a failed resume.
func (m *Manager) SawInRoster(topic, account string) {
	if s, ok := m.Seat(topic, account); ok {
		s.mu.Lock()
		s.appeared = true
		s.mu.Unlock()
		s.Activity.Joined()
	}
}

// Start launches account in topic.
func (m *Manager) Start(ctx context.Context, topic, account string) (Event, error) {
	return m.StartMode(ctx, topic, account, "")
}

// StartMode is Start with a launch mode (LaunchRequest.Mode): "" is the
// resume rule, LaunchFresh a new conversation, LaunchResume the recorded
// one or ErrCannotResume.
func (m *Manager) StartMode(ctx context.Context, topic, account, mode string) (Event, error) {
	return m.StartWith(ctx, topic, account, StartOptions{Mode: mode})
}

// StartOptions vary a start: Mode is StartMode's; Wake starts a sleeping
// seat again (app/hibernate.go): its posts are held ("waking") until it
// joins the room, and Unseen tells it, resumed or not, that the topic holds
// posts it was not typed.
type StartOptions struct {
	Mode   string
	Wake   bool
	Unseen bool
}

// StartWith is Start with options.
func (m *Manager) StartWith(ctx context.Context, topic, account string, o StartOptions) (Event, error) {
	mode := o.Mode
	capability, err := NewHookSecret()
	if err != nil {
		return Event{}, err
	}
	m.mu.Lock()
	acc, ok := m.accounts[account]
	if !ok {
		m.mu.Unlock()
		return Event{}, fmt.Errorf("%w %q", ErrNoAccount, account)
	}
	key := seatKey{topic, account}
	if old, ok := m.seats[key]; ok && old.State() != StateExited {
		m.mu.Unlock()
		return Event{}, fmt.Errorf("%s in topic %s: %w", account, topic, ErrSeatRunning)
	}
	m.gen++
	s := &Seat{Topic: topic, Account: acc, state: StateStarting, done: make(chan struct{}),
		Generation: m.gen, PtyID: ids.Random(), capability: capability}
	def := acc.Kind.def()
	s.Activity = NewActivity(ActivityOptions{ReportsStart: def.reportsStart, EscInterrupts: def.interrupt != nil,
		AbortReported: acc.Kind == KindCodex, AnsweredToTurnEnd: def.answeredToTurnEnd,
		TurnEndSettle: def.turnEndSettle,
		CLI:           acc.CallName(), OnChange: func(snap ActivitySnapshot) {
			m.marks.Busy(topic, account, busyState(snap.State))
			m.emit(Event{Type: EventActivity, Topic: topic, Account: account, Name: acc.CallName(), Activity: &snap})
		}})
	m.seats[key] = s
	m.mu.Unlock()
	if o.Wake {
		s.Activity.Waking() // before the typist may type into it
	}
	m.marks.Seat(topic, account, def.promptSignal, def.receipts)
	m.emit(Event{Topic: topic, Account: account, Name: acc.CallName(), State: StateStarting})

	fail := func(err error) (Event, error) {
		m.mu.Lock()
		delete(m.seats, key)
		m.mu.Unlock()
		m.marks.Ended(topic, account)
		close(s.done)
		ev := Event{Topic: topic, Account: account, Name: acc.CallName(), State: StateExited, Error: err.Error()}
		m.emit(ev)
		return ev, err
	}
	var pane *Pane
	defer func() {
		// A fault before the seat has a process (the launch, a screen's
		// call) must not leave the seat reserved as starting: it could
		// never be started again. The fault goes on to its caller.
		if r := recover(); r != nil {
			if pane == nil {
				_, _ = fail(fmt.Errorf("the launch failed: %v", r))
			}
			panic(r)
		}
	}()
	l, err := Resolve(LaunchRequest{Account: acc, Topic: topic, RoomURL: m.o.RoomURL, Token: m.o.Token,
		ExePath: m.o.ExePath, RuntimeDir: m.o.RuntimeDir, Home: m.o.Home, Store: m.o.Store, BaseEnv: m.baseEnv(ctx),
		Mode: mode, Capability: capability, UnseenHistory: o.Unseen})
	if err != nil {
		return fail(err)
	}
	started := time.Now()
	// The pane outlives ctx (a command's context): it stops by Stop only.
	pane, err = m.o.StartPane(context.WithoutCancel(ctx), PaneSpec{Argv: l.Argv, Env: l.Env, Dir: l.Dir, Cols: m.o.Cols, Rows: m.o.Rows, OnDirty: m.output,
		OnFault: func(err error) { m.o.Log.Error("seat pane", "topic", topic, "account", acc.ID, "err", err) }})
	if err != nil {
		l.RemoveRegistration()
		return fail(err)
	}
	pane.SetKeyFilter(s.Activity.PersonKeys)
	s.mu.Lock()
	s.Launch, s.Pane = l, pane
	s.mu.Unlock()
	s.Activity.Launched()
	if err := RecordStart(m.o.Store, l); err != nil {
		m.o.Log.Error("record session", "err", err)
	}
	if m.o.Typist != nil {
		m.o.Typist.AttachGated(topic, account, pane, s.Activity)
	}
	s.mu.Lock()
	s.state = StateRunning
	s.mu.Unlock()
	ev := Event{Topic: topic, Account: account, Name: acc.CallName(), State: StateRunning, SessionID: l.SessionID,
		ResumedFrom: l.ResumedFrom, DroppedResume: l.DroppedResume, UnseenHistory: l.UnseenHistory, Argv: l.Argv}
	m.emit(ev)

	idCtx, cancelID := context.WithCancel(context.Background())
	s.cancelID = cancelID
	m.watchUsage(idCtx, s, l.TranscriptRoot, l.SessionID) // a resume: its id is known
	if l.CaptureID {
		m.wg.Add(1)
		go func() { // Codex picks its own id: learn it from its rollout file
			defer m.wg.Done()
			id, err := l.WatchSessionID(idCtx, started, m.takenID(topic, account))
			if err != nil || id == "" {
				return
			}
			s.mu.Lock()
			s.Launch.SessionID = id
			s.mu.Unlock()
			m.watchUsage(idCtx, s, l.TranscriptRoot, id)
			if err := RecordSession(m.o.Store, l, id); err != nil {
				m.o.Log.Error("record codex session", "err", err)
				return
			}
			m.emit(Event{Topic: topic, Account: account, Name: acc.CallName(), State: StateRunning, SessionID: id})
		}()
	}
	m.wg.Add(1)
	go m.watch(s, key)
	return ev, nil
}

// takenID reports session ids other seats of the account already hold.
func (m *Manager) takenID(topic, account string) func(string) bool {
	return func(id string) bool {
		m.mu.Lock()
		defer m.mu.Unlock()
		for k, s := range m.seats {
			if k.account == account && k.topic != topic {
				s.mu.Lock()
				held := s.Launch.SessionID == id
				s.mu.Unlock()
				if held {
					return true
				}
			}
		}
		return false
	}
}

// watch forwards pane output as "changed" and cleans up when it ends.
func (m *Manager) watch(s *Seat, key seatKey) {
	defer m.wg.Done()
	pane := s.Terminal()
	for {
		select {
		case <-pane.Dirty():
			m.signal()
			continue
		case <-pane.Done():
		}
		break
	}
	status, _ := s.Terminal().ExitStatus()
	s.cancelID()
	if m.o.Typist != nil {
		m.o.Typist.Detach(s.Topic, s.Account.ID)
	}
	m.marks.Ended(s.Topic, s.Account.ID)
	s.Activity.Exited()
	s.mu.Lock()
	appeared, requested := s.appeared, s.requested || status.Requested
	s.state = StateExited
	l := s.Launch
	s.mu.Unlock()
	if s.Account.Kind.def().resumeLoadedSignal {
		// The CLI says when a resumed conversation loaded (SessionStart
		// "resume"); its sidecar may join the room before a failed resume
		// exits, so the roster would not tell (#127, docs/decisions.md).
		appeared = s.Activity.ResumeLoaded()
	}
	dropped, err := DropAfterExit(m.o.Store, l, appeared, requested)
	if err != nil {
		m.o.Log.Error("drop resume after exit", "err", err)
	}
	if err := l.RemoveRegistration(); err != nil {
		m.o.Log.Warn("remove registration", "err", err)
	}
	s.mu.Lock()
	s.exit = status.String()
	s.mu.Unlock()
	m.mu.Lock()
	if m.seats[key] == s && requested {
		// A seat that ended by itself stays, with its last screen and
		// why it ended, until it is started again or closed (tmux's
		// remain-on-exit): its output is the only trace of what happened.
		delete(m.seats, key)
	}
	m.mu.Unlock()
	code := status.Code
	ev := Event{Topic: s.Topic, Account: s.Account.ID, Name: s.Account.CallName(), State: StateExited, Exit: status.String(),
		Code: &code, Requested: requested, SessionID: l.SessionID}
	if dropped {
		ev.DroppedOnExit, ev.DroppedResume = true, l.ResumedFrom
	}
	close(s.done)
	m.emit(ev)
}

// Stop asks account's seat in topic to end and waits until it has. A seat
// that already ended by itself is closed: its pane goes.
func (m *Manager) Stop(topic, account, reason string) error {
	s, ok := m.Seat(topic, account)
	if !ok {
		return fmt.Errorf("%s in topic %s: %w", account, topic, ErrNoSeat)
	}
	if s.State() == StateExited {
		m.dismiss(s)
		return nil
	}
	m.stop(s, reason)
	return nil
}

// dismiss forgets an ended seat.
func (m *Manager) dismiss(s *Seat) {
	m.mu.Lock()
	if m.seats[seatKey{s.Topic, s.Account.ID}] == s {
		delete(m.seats, seatKey{s.Topic, s.Account.ID})
	}
	m.mu.Unlock()
	m.signal()
}

func (m *Manager) stop(s *Seat, reason string) {
	s.mu.Lock()
	s.requested = true
	pane := s.Pane
	s.mu.Unlock()
	if pane != nil {
		m.interrupt(s, pane)
		pane.Stop(reason)
	}
	<-s.done
}

// interruptWait is how long a stop waits after interrupting a busy CLI,
// so it can write the turn it was in.
const interruptWait = time.Second

// interrupt lets a busy CLI of a kind that has an interrupt key (Claude:
// Esc) end its turn before the signals, so the turn is written to its
// transcript: a session stopped mid-turn otherwise leaves a transcript with
// no conversation in it, which Claude then cannot resume (#127).
func (m *Manager) interrupt(s *Seat, pane *Pane) {
	key := s.Account.Kind.def().interrupt
	snap := s.Activity.Snapshot()
	if key == nil || (snap.State != ActWorking && snap.State != ActWaiting) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), interruptWait)
	defer cancel()
	if pane.TypeRoom(ctx, key) != nil {
		return
	}
	select {
	case <-pane.Done():
	case <-ctx.Done():
	}
}

// Restart stops the seat (if running) and starts it again.
func (m *Manager) Restart(ctx context.Context, topic, account string) (Event, error) {
	if s, ok := m.Seat(topic, account); ok {
		m.stop(s, "restart")
	}
	return m.Start(ctx, topic, account)
}

// StopTopic stops every seat of topic (before the topic is deleted).
func (m *Manager) StopTopic(topic string) error {
	var wg sync.WaitGroup
	for _, s := range m.Seats(topic) {
		if s.State() == StateExited {
			m.dismiss(s)
			continue
		}
		wg.Add(1)
		go func() { defer wg.Done(); m.stop(s, "topic deleted") }()
	}
	wg.Wait()
	return nil
}

// Close stops every seat (the app is quitting) and waits for the manager's
// goroutines.
func (m *Manager) Close() {
	m.mu.Lock()
	all := make([]*Seat, 0, len(m.seats))
	for _, s := range m.seats {
		all = append(all, s)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Add(1)
		go func() { defer wg.Done(); m.stop(s, "pullcept quit") }()
	}
	wg.Wait()
	m.wg.Wait()
}

// Running reports whether topic has any seat.
func (m *Manager) Running(topic string) bool {
	for _, s := range m.Seats(topic) {
		if s.State() != StateExited {
			return true
		}
	}
	return false
}

// LaunchRef names one launch of a seat: its topic, account, generation and
// pty id (session operations).
type LaunchRef struct {
	Topic, Account string
	Generation     uint64
	PtyID          string
}

// Ref is the seat's launch.
func (s *Seat) Ref() LaunchRef {
	return LaunchRef{Topic: s.Topic, Account: s.Account.ID, Generation: s.Generation, PtyID: s.PtyID}
}

// LaunchOf answers the launch whose operation capability this is, while it
// has not ended (ok false: none, or it ended).
func (m *Manager) LaunchOf(capability string) (LaunchRef, bool) {
	if capability == "" {
		return LaunchRef{}, false
	}
	for _, s := range m.All() {
		if subtle.ConstantTimeCompare([]byte(s.capability), []byte(capability)) == 1 && s.State() != StateExited {
			return s.Ref(), true
		}
	}
	return LaunchRef{}, false
}

// Alive says whether launch l is still the running launch of its seat.
func (m *Manager) Alive(l LaunchRef) bool {
	s, ok := m.Seat(l.Topic, l.Account)
	return ok && s.Generation == l.Generation && s.State() != StateExited
}

// ResumeCheck says whether account's running seat in topic could be
// resumed as it is now (a restart that must not start a new
// conversation): its session id, the topic's record holding that id, the
// account's resume line and the conversation's transcript. It answers the
// session id, or why not (ErrCannotResume).
func (m *Manager) ResumeCheck(topic, account string) (string, error) {
	s, ok := m.Seat(topic, account)
	if !ok || s.State() == StateExited {
		return "", fmt.Errorf("%s in topic %s: %w", account, topic, ErrNoSeat)
	}
	s.mu.Lock()
	l := s.Launch
	s.mu.Unlock()
	id := l.SessionID
	switch {
	case id == "":
		return "", fmt.Errorf("%w: the session's conversation id is not known (yet)", ErrCannotResume)
	case l.Account.ResumeLine() == "":
		return "", fmt.Errorf("%w: the account has no resume line", ErrCannotResume)
	}
	t, err := m.o.Store.Get(topic)
	if err != nil {
		return "", fmt.Errorf("%w: read the topic's record: %v", ErrCannotResume, err)
	}
	if rec := t.Sessions[account]; rec != id {
		return "", fmt.Errorf("%w: the topic's resume record does not hold the running conversation", ErrCannotResume)
	}
	if !l.Account.Kind.conversationExists(l.TranscriptRoot, l.Dir, id) {
		return "", fmt.Errorf("%w: the conversation's transcript was not found", ErrCannotResume)
	}
	return id, nil
}

// Errors of hook calls.
var (
	// ErrHookSecret reports a hook call without the seat's secret.
	ErrHookSecret = errors.New("not this seat's hook secret")
)

// CheckHook says whether secret is the hook secret of account's running
// seat in topic. The room token is not enough: every seat has it.
func (m *Manager) CheckHook(topic, account, secret string) error {
	s, ok := m.Seat(topic, account)
	if !ok {
		return fmt.Errorf("%s in topic %s: %w", account, topic, ErrNoSeat)
	}
	s.mu.Lock()
	want := s.Launch.Hook.Secret
	s.mu.Unlock()
	if want == "" || subtle.ConstantTimeCompare([]byte(want), []byte(secret)) != 1 {
		return fmt.Errorf("%s in topic %s: %w", account, topic, ErrHookSecret)
	}
	return nil
}

// hookBarrier bounds how long a hook that can open a prompt waits for a
// post being typed to get its \r.
const hookBarrier = 5 * time.Second

// Activity takes one activity hook call of account's seat in topic (the
// caller has checked the secret). A hook after which the CLI may open a
// prompt returns only once no post is being typed into the seat.
func (m *Manager) Activity(ctx context.Context, topic, account, event string, body []byte) error {
	s, ok := m.Seat(topic, account)
	if !ok {
		return fmt.Errorf("%s in topic %s: %w", account, topic, ErrNoSeat)
	}
	ev, err := ParseHookEvent(event, body)
	if err != nil {
		return err
	}
	if ev.Event == "StopFailure" && ev.Error == StopFailureRateLimit && m.o.OnUsage != nil {
		// The CLI's own word that it stopped at its limit, taken before the
		// turn's end lets a post be typed; the payload has no reset time
		// (the app takes the book's).
		m.o.OnUsage(topic, account, wire.UsageReport{Limit: &wire.UsageLimit{Message: ev.ErrorDetails}})
	}
	s.Activity.Apply(ev)
	m.marks.Hook(topic, account, ev.Event, body)
	switch ev.Event {
	case "PreToolUse", "PermissionRequest", "Elicitation", "Notification":
		ctx, cancel := context.WithTimeout(ctx, hookBarrier)
		defer cancel()
		if err := s.Activity.WaitTyping(ctx); err != nil {
			m.o.Log.Warn("hook barrier: a post was still being typed", "topic", topic, "account", account, "event", event)
		}
	}
	return nil
}

// ReleaseOutcome is what the person's release of a seat's held posts did
// (or why it did nothing).
type ReleaseOutcome struct {
	// Was is the reason that held the posts (zero: none).
	Was HoldReason
	// Held is how many posts the seat's terminal held.
	Held int
	// Done: the hold was ended (the posts are typed unless another reason
	// still applies).
	Done bool
	// Unsent, for the unsent-keys hold, is what the app believes the
	// person typed and did not send: ClearUnsent clears it on their
	// second word.
	Unsent string
	// Note is one sentence for the person.
	Note string
}

// ErrNotRunning reports a release of a seat that is not running.
var ErrNotRunning = errors.New("not running: it holds nothing")

// Release ends the hold of account's seat in topic on the person's word,
// as far as the reason's kind lets it (HoldKind.Release): an answered
// prompt, a tool, a settle or a usage limit ends; an open prompt is not
// typed into; unsent keys are reported, for ClearUnsent.
func (m *Manager) Release(topic, account string) (ReleaseOutcome, error) {
	s, ok := m.Seat(topic, account)
	if !ok || s.State() == StateExited {
		return ReleaseOutcome{}, m.notRunning(account)
	}
	name := m.CallName(s)
	var held int
	var queue HoldReason // the typist's: a backlog is its own
	if m.o.Typist != nil {
		held, queue = m.o.Typist.HeldReason(topic, account)
	}
	unsent := ""
	if p := s.Terminal(); p != nil {
		unsent = p.UnsentText()
	}
	why := s.Activity.Hold()
	if unsent != "" {
		why = firstHold(why, unsentHold)
	}
	if queue.Kind == HoldByBacklog || queue.Kind == HoldByLoop {
		why = firstHold(why, queue)
	}
	out := ReleaseOutcome{Was: why, Held: held}
	switch {
	case !why.Held():
		out.Note = name + " holds no posts"
	case held == 0 && why.Kind != HoldByLimit:
		// Nothing to type: a running tool's or a prompt's hold stays for
		// the posts that may come.
		out.Note = name + " holds no posts (" + why.Text + ")"
	case why.Kind == HoldByWaking:
		out.Note = fmt.Sprintf("%s holds %s: it is waking; they are typed once it has joined the room", name, strings.Replace(posts(held), " held", "", 1))
	case why.Kind.Release() == ReleaseCannot:
		// Nothing is dropped: the posts wait for the program to read, and
		// those past the bound are in the room already.
		out.Note = fmt.Sprintf("%s holds %s (%s): no key releases them; they are typed as its program reads its input", name, strings.Replace(posts(held), " held", "", 1), why.Text)
	case why.Kind.Release() == ReleaseRefused:
		out.Note = name + " is " + why.Text + ": answer in its pane (posts are not typed into an open prompt)"
	case why.Kind.Release() == ReleaseByTopic:
		// The topic's hold, for every seat: one seat alone is not let go.
		out.Note = fmt.Sprintf("%s holds %s past the topic's loop budget: let the agents go on (the topic's go-on key), or post", name, strings.Replace(posts(held), " held", "", 1))
	case why.Kind.Release() == ReleaseAfterClear:
		n := strings.Replace(posts(held), " held", "", 1)
		out.Note = fmt.Sprintf("%s holds %s behind your unsent keys %s", name, n, QuoteUnsent(unsent))
		if _, ok := s.Account.Kind.ClearKeys(unsent); !ok {
			out.Note += ": send or clear them in its pane (no safe clear key for a " + string(s.Account.Kind) + " program)"
			break
		}
		out.Unsent = unsent
	default:
		s.Activity.Release()
		out.Done = true
		out.Note = fmt.Sprintf("released %s (%s): %s", name, why.Text, posts(held)+" will be typed")
		if why.Kind == HoldByLimit {
			out.Note = fmt.Sprintf("released %s: its usage limit is taken as over; %s", name, posts(held)+" will be typed")
		}
		if unsent != "" {
			out.Note += "; unsent keys in its prompt still hold them (u again offers to clear them)"
		}
	}
	return out, nil
}

// ClearUnsent clears the person's unsent keys in account's seat in topic
// with the kind's clear keys, if they still read text (what Release
// reported and the person confirmed), so the held posts are typed. The
// spec keeps the person's half-typed keys (003 「打ちかけの文字を消す形は
// 採らない」): this runs only on their explicit second word.
func (m *Manager) ClearUnsent(topic, account, text string) (ReleaseOutcome, error) {
	s, ok := m.Seat(topic, account)
	if !ok || s.State() == StateExited || s.Terminal() == nil {
		return ReleaseOutcome{}, m.notRunning(account)
	}
	name := m.CallName(s)
	p := s.Terminal()
	keys, ok := s.Account.Kind.ClearKeys(text)
	if !ok {
		return ReleaseOutcome{}, fmt.Errorf("%s: no key is known to clear a %s prompt safely; clear it in its pane", name, s.Account.Kind)
	}
	wrote, err := p.ClearUnsent(text, keys)
	if err != nil {
		return ReleaseOutcome{}, err
	}
	var held int
	if m.o.Typist != nil {
		held, _ = m.o.Typist.HeldReason(topic, account)
	}
	if !wrote {
		return ReleaseOutcome{}, fmt.Errorf("%s: the unsent keys changed (now %s); nothing cleared", name, QuoteUnsent(p.UnsentText()))
	}
	return ReleaseOutcome{Was: unsentHold, Held: held, Done: true,
		Note: fmt.Sprintf("cleared %s in %s's prompt; %s", QuoteUnsent(text), name, posts(held)+" will be typed")}, nil
}

// notRunning is ErrNotRunning for account, by the name the room calls it.
func (m *Manager) notRunning(account string) error {
	name, _, ok := m.Names(account)
	if !ok {
		name = account
	}
	return fmt.Errorf("%s is %w", name, ErrNotRunning)
}

// posts is "1 held post" / "N held posts".
func posts(n int) string {
	if n == 1 {
		return "1 held post"
	}
	return fmt.Sprintf("%d held posts", n)
}

// QuoteUnsent is unsent text for a status line: on one line, without
// control characters, at most 24 characters (… when cut), quoted.
func QuoteUnsent(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		if unicode.IsControl(r) || !unicode.IsPrint(r) && r != ' ' {
			return -1
		}
		return r
	}, s)
	if r := []rune(s); len(r) > 24 {
		s = string(r[:23]) + "…"
	}
	return "'" + s + "'"
}

// typistHeld turns the typist's hold reports into activity events.
func (m *Manager) typistHeld(topic, account string, held int, why string) {
	name := account
	if s, ok := m.Seat(topic, account); ok {
		name = m.CallName(s)
	}
	m.emit(Event{Type: EventActivity, Topic: topic, Account: account, Name: name, Held: held, Hold: why})
}

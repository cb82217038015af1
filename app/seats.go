package app

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"pullcept/seat"
)

// lifecycle is the one lock of each seat's life (topic, account): the
// person's start, stop and restart and the sessions' operations
// (sessionops.go) take it, so two of them never interleave on one seat and
// an operation's check of the current PTY holds until it has acted.
type lifecycle struct {
	mu    sync.Mutex
	locks map[[2]string]chan struct{}
}

// lock takes the seat's lock, waiting while another holds it (ctx ends the
// wait).
func (l *lifecycle) lock(ctx context.Context, topic, account string) (unlock func(), err error) {
	l.mu.Lock()
	if l.locks == nil {
		l.locks = map[[2]string]chan struct{}{}
	}
	key := [2]string{topic, account}
	ch := l.locks[key]
	if ch == nil {
		ch = make(chan struct{}, 1)
		l.locks[key] = ch
	}
	l.mu.Unlock()
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Account is a configured account.
type Account = seat.Account

// SeatInfo is one seat of a topic, for the front ends.
type SeatInfo struct {
	Account string
	Name    string
	Kind    string
	State   string // starting, running, exited
	// Exit is how it ended: a seat that ended by itself stays, with its
	// last screen, until started again or closed.
	Exit     string
	Activity seat.ActivitySnapshot
	// Held is how many posts its terminal holds, Hold why, HoldKind its
	// kind (seat/hold.go).
	Held     int
	Hold     string
	HoldKind seat.HoldKind
	// Skipped is how many posts its full queue did not take (they are in
	// the room), 0 when it takes posts.
	Skipped int
	// Pane is its terminal; nil while starting or asleep.
	Pane *seat.Pane
	// AsleepSince, Screen and Freed are a sleeping seat's (State
	// StateAsleep, hibernate.go): since when, its pane's last screen, the
	// memory its CLI held.
	AsleepSince time.Time
	Screen      string
	Freed       int64
}

// Accounts lists the accounts in config order.
func (a *App) Accounts() []Account { return a.seats.Accounts() }

// Seats lists a topic's seats, by account order.
func (a *App) Seats(topic string) []SeatInfo {
	var out []SeatInfo
	for _, s := range a.seats.Seats(topic) {
		held, why := a.typist.HeldReason(topic, s.Account.ID)
		out = append(out, SeatInfo{Account: s.Account.ID, Name: a.seats.CallName(s), Kind: string(s.Account.Kind),
			State: s.State(), Exit: s.Exit(), Activity: s.Activity.Snapshot(), Held: held, Hold: why.Text, HoldKind: why.Kind,
			Skipped: a.typist.Skipped(topic, s.Account.ID), Pane: s.Terminal()})
	}
	if sl := a.sleepingSeats(topic); len(sl) > 0 {
		out = append(out, sl...)
		pos := map[string]int{}
		for i, acc := range a.seats.Accounts() {
			pos[acc.ID] = i
		}
		sort.SliceStable(out, func(i, j int) bool { return pos[out[i].Account] < pos[out[j].Account] })
	}
	return out
}

// queueGap tells a seat whose full queue has drained the posts it was not
// typed (seat.TypistOptions.OnGap): the floor cannot, once the seat has
// seen a later post (docs/decisions.md "A seat's queue is bounded"). The
// notice goes through the room like the resume instruction: typed into
// that seat alone, next, and kept in the log.
func (a *App) queueGap(topic, account string, g seat.Gap) {
	name := account
	if s, ok := a.seats.Seat(topic, account); ok {
		name = a.seats.CallName(s)
	}
	a.log.Info("seat queue drained after a gap", "topic", topic, "account", account, "skipped", g.Skipped)
	if _, err := a.engine.AppInstruct(topic, account, name, GapNotice(name, g)); err != nil {
		a.log.Warn("gap notice not posted", "topic", topic, "err", err)
	}
}

// GapNotice is what is typed once into a seat whose full queue did not
// take g's posts.
func GapNotice(name string, g seat.Gap) string {
	return fmt.Sprintf("%s さん、この端末への発言の列が上限に達していた間の部屋の発言 %d 件（message_id %s から %s まで）は、この端末へ打っていません。部屋とログには残っています。"+
		"read_room_history の before にこの知らせの message_id を渡し、has_more の間さかのぼって読んでください。", name, g.Skipped, g.First, g.Last)
}

// SetPersonEnv names the person's environment for a seat started without
// one in its context (seat.WithEnv): a session operation, a topic
// reopened. The server's is its most recently active client's.
func (a *App) SetPersonEnv(f func() seat.EnvUpdate) { a.seats.SetEnvSource(f) }

// StartSeat launches account in topic (its room opened first).
func (a *App) StartSeat(ctx context.Context, topic, account string) (seat.Event, error) {
	if err := a.EnsureOpen(topic); err != nil {
		return seat.Event{}, err
	}
	unlock, err := a.life.lock(ctx, topic, account)
	if err != nil {
		return seat.Event{}, err
	}
	defer unlock()
	defer dropExePages() // a launch's own pages, as start-up's (memory.go)

	if a.Asleep(topic, account) { // `s`, a session's start: it wakes
		return a.wakeLocked(ctx, topic, account, seat.StartOptions{})
	}
	return a.seats.Start(ctx, topic, account)
}

// StopSeat stops account's seat in topic and waits until it has ended.
func (a *App) StopSeat(topic, account, reason string) error {
	unlock, err := a.life.lock(context.Background(), topic, account)
	if err != nil {
		return err
	}
	defer unlock()
	if a.endSleep(topic, account) { // its sleep ends for good
		return nil
	}
	return a.seats.Stop(topic, account, reason)
}

// RestartSeat stops the seat (if running) and starts it again.
func (a *App) RestartSeat(ctx context.Context, topic, account string) (seat.Event, error) {
	if err := a.EnsureOpen(topic); err != nil {
		return seat.Event{}, err
	}
	unlock, err := a.life.lock(ctx, topic, account)
	if err != nil {
		return seat.Event{}, err
	}
	defer unlock()
	if a.Asleep(topic, account) {
		return a.wakeLocked(ctx, topic, account, seat.StartOptions{})
	}
	return a.seats.Restart(ctx, topic, account)
}

// ReleaseOutcome is what a release did (seat.ReleaseOutcome), named here
// for the front ends.
type ReleaseOutcome = seat.ReleaseOutcome

// ReleaseSeat ends a seat's hold on the person's word, as far as the
// hold's kind lets it, and says what it did (seat.Manager.Release).
func (a *App) ReleaseSeat(topic, account string) (seat.ReleaseOutcome, error) {
	return a.seats.Release(topic, account)
}

// ClearUnsentSeat clears the person's unsent keys text in a seat's prompt
// on their second word, so its held posts are typed.
func (a *App) ClearUnsentSeat(topic, account, text string) (seat.ReleaseOutcome, error) {
	return a.seats.ClearUnsent(topic, account, text)
}

// Pane is account's running terminal in topic.
func (a *App) Pane(topic, account string) (*seat.Pane, error) {
	s, ok := a.seats.Seat(topic, account)
	var p *seat.Pane
	if ok {
		p = s.Terminal()
	}
	if p == nil {
		return nil, fmt.Errorf("%s has no running seat in topic %s", account, topic)
	}
	return p, nil
}

// WatchSeats is signalled (coalesced) when a seat's state changed (a seat
// started, ended, its activity or holds moved): not for a pane's output.
// Every watcher gets every change; stop ends the watch.
func (a *App) WatchSeats() (states <-chan struct{}, stop func()) {
	states, _, stop = a.watch(false)
	return states, stop
}

// WatchSeatsAndOutput is WatchSeats and, on output, a signal (coalesced)
// each time a pane's screen changed: a screen redraws its panes for it
// without reading the seats again.
func (a *App) WatchSeatsAndOutput() (states, output <-chan struct{}, stop func()) {
	return a.watch(true)
}

func (a *App) watch(output bool) (<-chan struct{}, <-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	var out chan struct{}
	if output {
		out = make(chan struct{}, 1)
	}
	a.watchMu.Lock()
	a.watchers[ch] = out
	a.watchMu.Unlock()
	return ch, out, func() {
		a.watchMu.Lock()
		delete(a.watchers, ch)
		a.watchMu.Unlock()
	}
}

// fanChange hands a change of a seat's state to every watcher, from the
// goroutine that made it (the seat manager's OnChange).
func (a *App) fanChange() {
	a.watchMu.Lock()
	for ch := range a.watchers {
		notify(ch)
	}
	a.watchMu.Unlock()
}

// fanOutput hands a change of a pane's screen to the watchers of output,
// from the pane's reader (OnOutput): a key's echo reaches the screens with
// no goroutine between.
func (a *App) fanOutput() {
	a.quiet.output()
	a.watchMu.Lock()
	for _, out := range a.watchers {
		if out != nil {
			notify(out)
		}
	}
	a.watchMu.Unlock()
}

func notify(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// Running counts the seats that have not ended, by topic (topics without
// one are absent).
func (a *App) Running() map[string]int {
	out := map[string]int{}
	for _, s := range a.seats.All() {
		if s.State() != seat.StateExited {
			out[s.Topic]++
		}
	}
	asleep, _ := a.Sleeping() // sessions too: the server stays up for them
	for t, n := range asleep {
		out[t] += n
	}
	return out
}

// SeatEvent is a seat's life or activity event.
type SeatEvent = seat.Event

// SeatActivity is the Type of a seat's activity event.
const SeatActivity = seat.EventActivity

// Reopen brings back a topic's sessions (spec 000 decision 3, トピックはセッション
// の器; 003 トピック 復帰の手段は二段構え): every account the topic records a
// session for that is configured, launchable and not running is started —
// resumed where the conversation still exists, fresh otherwise (the seat
// manager's resume rule) — and the status line is told which (the seats'
// notices). A seat that cannot start does not stop the others or the
// topic ("再開できない席があってもトピックは開く"): its error is returned with the
// others'.
func (a *App) Reopen(ctx context.Context, topic string) (started []seat.Event, errs []error) {
	for _, acc := range a.Recorded(topic) {
		ev, err := a.StartSeat(ctx, topic, acc)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		started = append(started, ev)
	}
	return started, errs
}

// Recorded lists the accounts a topic records a session for that are
// configured, launchable and not running there now, in config order.
func (a *App) Recorded(topic string) []string {
	t, err := a.store.Get(topic)
	if err != nil || len(t.Sessions) == 0 {
		return nil
	}
	var out []string
	for _, acc := range a.seats.Accounts() {
		if _, rec := t.Sessions[acc.ID]; !rec || !acc.Kind.Launchable() {
			continue
		}
		if _, running := a.seats.Seat(topic, acc.ID); running {
			continue
		}
		out = append(out, acc.ID)
	}
	return out
}

// ReopenSeats is config.json's "reopen_seats": auto, ask or off.
func (a *App) ReopenSeats() string { return a.reopen }

package app

// Sleeping seats (issue 35; docs/decisions.md "Sleeping seats"). Off by
// default: config.json "hibernate_after" (a Go duration) turns it on. An
// idle seat whose conversation can be resumed natively, whose pane is on
// no screen, sleeps: its CLI is stopped with its stop sequence, its resume
// record kept, and an app-owned placeholder keeps it in the room (the
// roster, `@Name`, deliveries). A post addressed to it wakes it: resumed,
// the post held ("waking") until it has joined, then typed once. Room-wide
// posts wake nobody and are not typed on wake; the woken seat is told that
// posts it has not seen exist. A departure from 003 トピック
// 「セッションは止めない（決定2）」 and 002 AI 判断1, the person's choice.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"pullcept/room"
	"pullcept/seat"
)

// StateAsleep is a sleeping seat's state and activity (SeatInfo, serve's
// seats and activity events, the participants).
const StateAsleep = "asleep"

// hibernation is the run's sleeping seats.
type hibernation struct {
	mu       sync.Mutex
	after    time.Duration // 0: seats never sleep
	sleepers map[[2]string]*sleeper
	// shown: the seats whose panes each screen shows now (SetShown).
	shown map[any]map[[2]string]bool
}

// sleeper is one sleeping (or waking) seat.
type sleeper struct {
	name   string
	kind   string
	since  time.Time
	screen string // its pane's last screen
	freed  int64  // the resident memory its process tree held (bytes)
	// stopped: its CLI has been stopped and screen read; until then the
	// seat's own entry stands for it on screens (sleepingSeats).
	stopped bool
	conn    room.ConnID
	// missed: a room-wide post was not typed into it while it slept.
	missed bool
	// limited: it slept at its usage limit; the resume at reset wakes it.
	limited bool
	// waking: a wake has begun; pending are the posts addressed to it
	// until its new terminal is attached, then attached.
	waking   bool
	pending  []room.Delivery
	attached bool
}

// WakeJoinMax bounds how long a woken seat's posts wait for it to join the
// room.
var WakeJoinMax = 30 * time.Second

// hibernateTick is how often idle seats are looked at, for a given
// hibernate_after.
func hibernateTick(after time.Duration) time.Duration {
	return min(max(after/4, 250*time.Millisecond), 30*time.Second)
}

// runHibernation puts idle seats to sleep while hibernate_after is set.
func (a *App) runHibernation(ctx context.Context) {
	t := time.NewTimer(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		a.hib.mu.Lock()
		after := a.hib.after
		a.hib.mu.Unlock()
		if after > 0 {
			a.sweep(ctx, after)
		}
		next := 5 * time.Second // off: look again for a config change
		if after > 0 {
			next = hibernateTick(after)
		}
		t.Reset(next)
	}
}

// HibernateAfter is how long a seat stays idle before it sleeps (0: never).
func (a *App) HibernateAfter() time.Duration {
	a.hib.mu.Lock()
	defer a.hib.mu.Unlock()
	return a.hib.after
}

// setHibernateAfter takes config.json's value.
func (a *App) setHibernateAfter(d time.Duration) {
	a.hib.mu.Lock()
	a.hib.after = d
	a.hib.mu.Unlock()
}

// SetShown records the seats whose panes the screen key shows now (nil:
// none, the screen went): a pane on a screen never sleeps.
func (a *App) SetShown(key any, topic string, accounts []string) {
	a.hib.mu.Lock()
	defer a.hib.mu.Unlock()
	if len(accounts) == 0 {
		delete(a.hib.shown, key)
		return
	}
	m := map[[2]string]bool{}
	for _, acc := range accounts {
		m[[2]string{topic, acc}] = true
	}
	a.hib.shown[key] = m
}

// onScreen reports whether any screen shows k's pane (hib.mu held).
func (h *hibernation) onScreenLocked(k [2]string) bool {
	for _, m := range h.shown {
		if m[k] {
			return true
		}
	}
	return false
}

// sweep puts every seat to sleep that may sleep now.
func (a *App) sweep(ctx context.Context, after time.Duration) {
	for _, s := range a.seats.All() {
		if s.State() != seat.StateRunning {
			continue
		}
		k := [2]string{s.Topic, s.Account.ID}
		a.hib.mu.Lock()
		skip := a.hib.onScreenLocked(k) || a.hib.sleepers[k] != nil
		a.hib.mu.Unlock()
		if skip || a.seats.Sleepable(s.Topic, s.Account.ID, after) != nil {
			continue
		}
		a.sleep(ctx, s.Topic, s.Account.ID, after)
	}
}

// sleep puts account's seat in topic to sleep, if it still may: deliveries
// to it are diverted first (so none is typed into a terminal that goes),
// its placeholder seated before its CLI stops (so `@Name` always
// resolves), then it is stopped with its stop sequence.
func (a *App) sleep(ctx context.Context, topic, account string, after time.Duration) {
	lctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	unlock, err := a.life.lock(lctx, topic, account)
	if err != nil {
		return // the person or an operation acts on it now
	}
	defer unlock()
	s, ok := a.seats.Seat(topic, account)
	if !ok {
		return
	}
	k := [2]string{topic, account}
	sl := &sleeper{name: a.seats.CallName(s), kind: string(s.Account.Kind), since: time.Now()}
	limited, _ := s.Activity.Limited()
	sl.limited = limited
	a.hib.mu.Lock()
	if a.hib.onScreenLocked(k) || a.hib.sleepers[k] != nil {
		a.hib.mu.Unlock()
		return
	}
	a.hib.sleepers[k] = sl
	a.hib.mu.Unlock()
	// Checked again with deliveries diverted: a post that reached its queue
	// before keeps it awake.
	if err := a.seats.Sleepable(topic, account, after); err != nil {
		a.dropSleeper(k, sl)
		return
	}
	conn, err := a.engine.SeatAsleep(topic, account, sl.name)
	if err != nil {
		a.log.Warn("sleep: no placeholder", "topic", topic, "account", account, "err", err)
		a.dropSleeper(k, sl)
		return
	}
	a.hib.mu.Lock()
	sl.conn = conn
	a.hib.mu.Unlock()
	screen, rss, err := a.seats.Sleep(topic, account)
	if err != nil {
		a.engine.Leave(conn)
		a.dropSleeper(k, sl)
		return
	}
	a.hib.mu.Lock()
	sl.screen, sl.freed, sl.stopped = screen, rss, true
	a.hib.mu.Unlock()
	// The stopped CLI's sidecar leaves the room as its connection closes;
	// until it has, a wake (waiting on this lock) could take its roster
	// entry for the woken launch's join.
	for deadline := time.Now().Add(5 * time.Second); awakeIn(a.engine.Roster(topic), account) && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	a.log.Info("seat asleep", "topic", topic, "account", account, "freed_bytes", rss)
	snap := seat.ActivitySnapshot{State: StateAsleep, Signal: fmt.Sprintf("idle for %s", after), Since: sl.since}
	a.bus.publish(Event{Kind: EventSeat, Seat: seat.Event{Type: seat.EventActivity, Topic: topic, Account: account, Name: sl.name, Activity: &snap}})
	a.bus.publish(Event{Kind: EventNotice, Notice: fmt.Sprintf("%s is asleep (idle for %s%s); a post to @%s, a key in its pane or s wakes it", sl.name, after, freedText(rss), sl.name)})
	a.fanChange()
	a.wakeIfPending(topic, account)
}

// awakeIn: the roster holds a connection of account that is no placeholder.
func awakeIn(roster []room.Participant, account string) bool {
	return slices.ContainsFunc(roster, func(p room.Participant) bool { return p.Account == account && !p.Asleep })
}

// freedText is "; 250 MB freed" ("" when unknown).
func freedText(rss int64) string {
	if rss <= 0 {
		return ""
	}
	return fmt.Sprintf("; %d MB freed", rss>>20)
}

// dropSleeper forgets sl (its placeholder already left, or never seated).
func (a *App) dropSleeper(k [2]string, sl *sleeper) {
	a.hib.mu.Lock()
	if a.hib.sleepers[k] == sl {
		delete(a.hib.sleepers, k)
	}
	pending := sl.pending
	sl.pending = nil
	a.hib.mu.Unlock()
	for _, d := range pending { // addressed while it went to sleep: its terminal still runs
		a.typeNow(d)
	}
	a.fanChange()
}

// typeNow hands d to the typist.
func (a *App) typeNow(d room.Delivery) { typer{a.typist}.Type(d) }

// ReleaseLoop types the posts held by the loop budget (room.LoopReleaser).
func (a *App) ReleaseLoop(topic string, upTo int) { typer{a.typist}.ReleaseLoop(topic, upTo) }

// Type is the room's typer: deliveries to a sleeping seat are diverted
// (addressed: held for it and it wakes; room-wide: not typed, noted).
func (a *App) Type(d room.Delivery) {
	a.hib.mu.Lock()
	if len(a.hib.sleepers) == 0 {
		a.hib.mu.Unlock()
		a.typeNow(d)
		return
	}
	rest := make([]string, 0, len(d.Accounts))
	for _, acc := range d.Accounts {
		k := [2]string{d.Topic, acc}
		sl := a.hib.sleepers[k]
		if sl == nil || sl.attached {
			rest = append(rest, acc)
			continue
		}
		if !addressedTo(d, sl.name) {
			sl.missed = true
			continue
		}
		one := d
		one.Accounts = []string{acc}
		sl.pending = append(sl.pending, one)
		if !sl.waking && sl.conn != 0 {
			sl.waking = true
			go a.wake(context.Background(), d.Topic, acc, seat.StartOptions{}) // the room's lock is held: never wait here
		}
	}
	a.hib.mu.Unlock()
	if len(rest) > 0 {
		d.Accounts = rest
		a.typeNow(d)
	}
}

// addressedTo: d names name in its addressees, or is the app's instruction
// to that seat alone (the resume after a usage limit).
func addressedTo(d room.Delivery, name string) bool {
	if d.First {
		return true
	}
	return slices.ContainsFunc(d.Post.To, func(n string) bool { return strings.EqualFold(n, name) })
}

// wakeIfPending wakes a seat that a post addressed while it went to sleep.
func (a *App) wakeIfPending(topic, account string) {
	a.hib.mu.Lock()
	sl := a.hib.sleepers[[2]string{topic, account}]
	start := sl != nil && len(sl.pending) > 0 && !sl.waking
	if start {
		sl.waking = true
	}
	a.hib.mu.Unlock()
	if start {
		go a.wake(context.Background(), topic, account, seat.StartOptions{})
	}
}

// Asleep reports whether account's seat in topic sleeps (or is waking).
func (a *App) Asleep(topic, account string) bool {
	a.hib.mu.Lock()
	defer a.hib.mu.Unlock()
	sl := a.hib.sleepers[[2]string{topic, account}]
	return sl != nil && !sl.attached
}

// wake starts a sleeping seat again, resumed natively where its
// conversation still exists (else fresh, and the person is told), its
// posts held until it joins; the posts addressed to it meanwhile are handed
// to its new terminal. It takes the seat's lifecycle lock.
func (a *App) wake(ctx context.Context, topic, account string, o seat.StartOptions) (seat.Event, error) {
	unlock, err := a.life.lock(ctx, topic, account)
	if err != nil {
		return seat.Event{}, err
	}
	defer unlock()
	return a.wakeLocked(ctx, topic, account, o)
}

// wakeLocked is wake under the seat's lifecycle lock.
func (a *App) wakeLocked(ctx context.Context, topic, account string, o seat.StartOptions) (seat.Event, error) {
	k := [2]string{topic, account}
	a.hib.mu.Lock()
	sl := a.hib.sleepers[k]
	if sl == nil || sl.attached {
		a.hib.mu.Unlock()
		return seat.Event{}, fmt.Errorf("%s is not asleep in topic %s", account, topic)
	}
	sl.waking = true
	o.Wake, o.Unseen = true, sl.missed
	a.hib.mu.Unlock()
	ev, err := a.seats.StartWith(ctx, topic, account, o)
	a.hib.mu.Lock()
	if err != nil {
		sl.waking = false // it sleeps on; its held posts wait for the next wake
		n := len(sl.pending)
		a.hib.mu.Unlock()
		a.bus.publish(Event{Kind: EventNotice, Notice: fmt.Sprintf("%s could not wake: %v; %d post(s) addressed to it wait for its next wake", sl.name, err, n)})
		return ev, err
	}
	pending := sl.pending
	sl.pending, sl.attached = nil, true
	for _, d := range pending { // under hib.mu: a later delivery comes after them
		a.typeNow(d)
	}
	a.hib.mu.Unlock()
	if o.Unseen && ev.ResumedFrom != "" {
		// A resumed Claude keeps the instructions its conversation began
		// with (measured, 2.1.197): the look-back line the launch's sidecar
		// gives would not reach it. Typed into it alone, before its held
		// posts, as the queue's gap notice is.
		if _, err := a.engine.AppInstruct(topic, account, sl.name, WakeNotice(sl.name)); err != nil {
			a.log.Warn("wake notice not posted", "topic", topic, "err", err)
		}
	}
	// A launch that never joins (a cli program with no sidecar) must not
	// hold its posts for ever: past WakeJoinMax they are typed and the
	// placeholder leaves.
	time.AfterFunc(WakeJoinMax, func() {
		a.hib.mu.Lock()
		still := a.hib.sleepers[k] == sl // this wake, not a later sleep's
		a.hib.mu.Unlock()
		if !still {
			return
		}
		if s, ok := a.seats.Seat(topic, account); ok && s.State() != seat.StateExited {
			s.Activity.Joined()
		}
		a.joinedAfterSleep(topic, account)
	})
	if ev.DroppedResume != "" {
		a.bus.publish(Event{Kind: EventNotice, Notice: fmt.Sprintf("%s woke fresh: its conversation (%s) could not be resumed; it is told the topic has posts it has not seen", sl.name, ev.DroppedResume)})
	}
	a.log.Info("seat woken", "topic", topic, "account", account, "resumed_from", ev.ResumedFrom, "unseen", o.Unseen)
	a.fanChange()
	return ev, nil
}

// WakeNotice is typed once into a seat woken, resumed, after room-wide
// posts it was not typed while it slept: that they exist, never how many
// (002 AI 判断2), and how to pull them (002 AI 判断3: it decides).
func WakeNotice(name string) string {
	return name + " さん、眠っていた間の部屋の発言は、この端末へ打っていません。部屋とログには残っています。" +
		"必要なら read_room_history の before にこの知らせの message_id を渡し、has_more の間さかのぼって読んでください。"
}

// joined ends a woken seat's sleep once its sidecar sits in the room: its
// placeholder leaves.
func (a *App) joinedAfterSleep(topic, account string) {
	k := [2]string{topic, account}
	a.hib.mu.Lock()
	sl := a.hib.sleepers[k]
	if sl == nil || !sl.attached {
		a.hib.mu.Unlock()
		return
	}
	delete(a.hib.sleepers, k)
	a.hib.mu.Unlock()
	a.engine.Leave(sl.conn)
	a.fanChange()
}

// endedAfterWake forgets a woken seat whose launch ended before it joined
// (its pane says why).
func (a *App) endedAfterWake(topic, account string) {
	if s, ok := a.seats.Seat(topic, account); ok && s.State() != seat.StateExited {
		return // the exit of the launch that went to sleep; the woken one runs
	}
	a.joinedAfterSleep(topic, account)
}

// endSleep ends a seat's sleep for good (the person's or a session's
// stop): its placeholder leaves the room; its resume record stays. ok false:
// it was not asleep.
func (a *App) endSleep(topic, account string) bool {
	k := [2]string{topic, account}
	a.hib.mu.Lock()
	sl := a.hib.sleepers[k]
	if sl == nil || sl.attached {
		a.hib.mu.Unlock()
		return false
	}
	delete(a.hib.sleepers, k)
	a.hib.mu.Unlock()
	if sl.conn != 0 {
		a.engine.Leave(sl.conn)
	}
	a.bus.publish(Event{Kind: EventSeat, Seat: seat.Event{Topic: topic, Account: account, Name: sl.name, State: seat.StateExited, Exit: "stopped while asleep", Requested: true}})
	a.fanChange()
	return true
}

// dropTopicSleepers ends the sleep of every seat of a deleted topic.
func (a *App) dropTopicSleepers(topic string) {
	a.hib.mu.Lock()
	var accs []string
	for k := range a.hib.sleepers {
		if k[0] == topic {
			accs = append(accs, k[1])
		}
	}
	a.hib.mu.Unlock()
	for _, acc := range accs {
		a.endSleep(topic, acc)
	}
}

// sleepingSeats are topic's sleeping seats as SeatInfo, the placeholder's
// (State and Activity StateAsleep).
func (a *App) sleepingSeats(topic string) []SeatInfo {
	a.hib.mu.Lock()
	defer a.hib.mu.Unlock()
	var out []SeatInfo
	for k, sl := range a.hib.sleepers {
		if k[0] != topic || sl.attached || !sl.stopped {
			continue
		}
		out = append(out, SeatInfo{Account: k[1], Name: sl.name, Kind: sl.kind, State: StateAsleep,
			Activity: seat.ActivitySnapshot{State: StateAsleep, Since: sl.since}, AsleepSince: sl.since, Screen: sl.screen, Freed: sl.freed})
	}
	return out
}

// Sleeping counts the sleeping seats by topic and the memory they freed.
func (a *App) Sleeping() (byTopic map[string]int, freed int64) {
	a.hib.mu.Lock()
	defer a.hib.mu.Unlock()
	byTopic = map[string]int{}
	for k, sl := range a.hib.sleepers {
		if !sl.attached {
			byTopic[k[0]]++
			freed += sl.freed
		}
	}
	return byTopic, freed
}

// unlimitAsleep is the resume at a usage limit's reset for a seat that
// slept at its limit: the instruction, addressed to it alone, wakes it
// first and is typed once it has joined.
func (a *App) unlimitAsleep(topic, account string) bool {
	a.hib.mu.Lock()
	sl := a.hib.sleepers[[2]string{topic, account}]
	ok := sl != nil && !sl.attached && sl.limited
	name := ""
	if ok {
		sl.limited = false
		name = sl.name
	}
	a.hib.mu.Unlock()
	if !ok {
		return false
	}
	if _, err := a.engine.AppInstruct(topic, account, name, ResumeInstruction(name)); err != nil {
		a.log.Warn("resume instruction not posted", "topic", topic, "err", err)
	}
	if _, err := a.engine.AppNoticeAbout(topic, account, fmt.Sprintf("%s の利用上限が解除されました", name)); err != nil {
		a.log.Warn("release notice not posted", "topic", topic, "err", err)
	}
	return true
}

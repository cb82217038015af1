package app

// Usage limits (issue "Usage and limits", point 5; spec 003 発言は端末へ入る:
// the app's own notices of a seat stopped at its usage limit and released,
// and the resume instruction typed once into that seat, #389/#294/#403).
// "Limited" is read from the figures the reports already carry — a window
// at 100 % (spec #161: no path of its own) — and, for Codex, from its
// usage-limit end of turn. A limited seat holds its posts like the
// permission hold; when the limit is over (its reset time has passed, or a
// report shows every window below its limit) the room is told, one resume
// instruction is typed into that seat before the held posts, and they
// follow in order. The person can release a limited seat early (prefix a,
// u): nothing is then typed for it. docs/decisions.md "Usage figures and limits".

import (
	"fmt"
	"sync"
	"time"

	"pullcept/room/wire"
)

// LimitMargin is how long after a window's reset time the seat is released:
// the CLI's provider may count the reset a little later than it said.
var LimitMargin = 30 * time.Second

// limits keeps the release timers of limited seats.
type limits struct {
	mu     sync.Mutex
	timers map[[2]string]*time.Timer
	// reported: limits the seat's CLI said itself (Codex's end of turn);
	// figures below the limit do not end them (they may predate it).
	reported map[[2]string]bool
	// after runs f after d (tests replace it).
	after func(d time.Duration, f func()) *time.Timer
}

func newLimits() *limits {
	return &limits{timers: map[[2]string]*time.Timer{}, reported: map[[2]string]bool{}, after: time.AfterFunc}
}

// atLimit is the reset time of the windows at their limit (the later one;
// zero when unknown) and whether any window is at its limit now. A window
// whose reset time has passed is over, whatever it said (the book keeps
// it with its age: a later report without windows must not limit again).
func atLimit(now time.Time, windows ...*wire.Window) (until time.Time, at bool) {
	for _, w := range windows {
		if w == nil || w.UsedPercentage < 100 {
			continue
		}
		t, err := time.Parse(time.RFC3339, w.ResetsAt)
		if err == nil && !t.After(now) {
			continue
		}
		at = true
		if err == nil && t.After(until) {
			until = t
		}
	}
	return until, at
}

// bookReset is when a limit the CLI reported without a reset time lifts,
// from the seat's figures in the book (the rule Codex's rollout gets,
// seat/codex_usage.go limitUntil): the latest reset of the windows at
// their limit, else the nearest reset to come; zero when none is known (an
// API-key Claude has no figures: the person releases it, u).
func bookReset(now time.Time, windows ...*wire.Window) time.Time {
	if until, at := atLimit(now, windows...); at && !until.IsZero() {
		return until
	}
	var next time.Time
	for _, w := range windows {
		if w == nil {
			continue
		}
		t, err := time.Parse(time.RFC3339, w.ResetsAt)
		if err == nil && t.After(now) && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	return next
}

// checkLimit reads a seat's figures after a usage report: a window at its
// limit limits the seat; every window below it ends a limit.
func (a *App) checkLimit(topic, account string) {
	u, ok := a.Usage(topic, account)
	if !ok || (u.FiveHour == nil && u.SevenDay == nil) {
		return
	}
	if until, at := atLimit(time.Now(), u.FiveHour, u.SevenDay); at {
		a.limit(topic, account, until)
		return
	}
	a.limits.mu.Lock()
	reported := a.limits.reported[[2]string{topic, account}]
	a.limits.mu.Unlock()
	if !reported {
		a.unlimit(topic, account)
	}
}

// limit holds the seat at its usage limit until until (zero: unknown) and
// tells the room, once per limit.
func (a *App) limit(topic, account string, until time.Time) {
	s, ok := a.seats.Seat(topic, account)
	if !ok || s.Activity == nil {
		return
	}
	if limited, was := s.Activity.Limited(); limited && was.Equal(until) {
		return
	}
	fresh := s.Activity.SetLimited(until)
	name := a.seats.CallName(s)
	a.limits.mu.Lock()
	key := [2]string{topic, account}
	if t := a.limits.timers[key]; t != nil {
		t.Stop()
		delete(a.limits.timers, key)
	}
	if !until.IsZero() {
		a.limits.timers[key] = a.limits.after(time.Until(until)+LimitMargin, func() { a.unlimit(topic, account) })
	}
	a.limits.mu.Unlock()
	if !fresh {
		return // the same limit with a new reset time: said once
	}
	msg := fmt.Sprintf("%s が利用上限で止まりました。解除予定は不明です（人が参加者欄の u で保留を解けます）", name)
	if !until.IsZero() {
		msg = fmt.Sprintf("%s が利用上限で止まりました。解除予定 %s", name, until.Local().Format("15:04"))
	}
	a.log.Info("seat limited", "topic", topic, "account", account, "until", until)
	if _, err := a.engine.AppNoticeAbout(topic, account, msg); err != nil {
		a.log.Warn("limit notice not posted", "topic", topic, "err", err)
	}
}

// unlimit ends a seat's usage limit: the room is told, the resume
// instruction goes first into its terminal, then the held posts.
func (a *App) unlimit(topic, account string) {
	a.limits.mu.Lock()
	key := [2]string{topic, account}
	if t := a.limits.timers[key]; t != nil {
		t.Stop()
		delete(a.limits.timers, key)
	}
	delete(a.limits.reported, key)
	a.limits.mu.Unlock()
	if a.unlimitAsleep(topic, account) {
		return // it slept at its limit: the resume wakes it first
	}
	s, ok := a.seats.Seat(topic, account)
	if !ok || s.Activity == nil {
		return
	}
	if limited, _ := s.Activity.Limited(); !limited {
		return
	}
	name := a.seats.CallName(s)
	// Queued first while the seat still holds, so it is typed before the
	// held posts the moment the hold ends.
	if _, err := a.engine.AppInstruct(topic, account, name, ResumeInstruction(name)); err != nil {
		a.log.Warn("resume instruction not posted", "topic", topic, "err", err)
	}
	if !s.Activity.Unlimit() {
		return
	}
	a.log.Info("seat unlimited", "topic", topic, "account", account)
	if _, err := a.engine.AppNoticeAbout(topic, account, fmt.Sprintf("%s の利用上限が解除されました", name)); err != nil {
		a.log.Warn("release notice not posted", "topic", topic, "err", err)
	}
}

// ResumeInstruction is what is typed once into a seat whose limit is over.
func ResumeInstruction(name string) string {
	return fmt.Sprintf("%s さん、利用上限が解除されました。上限で止まる前に進めていた作業を、止まったところから再開してください。", name)
}

// LimitReported is a seat's own word that it stopped at its usage limit
// (Codex's usage-limit end of turn, Claude's StopFailure rate_limit), with
// the reset time when known; without one, the book's (bookReset).
func (a *App) LimitReported(topic, account string, until time.Time) {
	if !until.IsZero() && !until.After(time.Now()) {
		until = time.Time{} // a reset already past says nothing of the next
	}
	if until.IsZero() {
		if u, ok := a.Usage(topic, account); ok {
			until = bookReset(time.Now(), u.FiveHour, u.SevenDay)
		}
	}
	a.limits.mu.Lock()
	a.limits.reported[[2]string{topic, account}] = true
	a.limits.mu.Unlock()
	a.limit(topic, account, until)
}

// seatUsage takes a seat's own report (Codex's rollout) into the book; a
// usage-limit end of turn limits the seat.
func (a *App) seatUsage(topic, account string, r wire.UsageReport) {
	a.engine.RecordUsage(topic, account, wire.UsageReport{Model: r.Model, Effort: r.Effort, FiveHour: r.FiveHour, SevenDay: r.SevenDay, Context: r.Context})
	if r.Limit != nil {
		a.LimitReported(topic, account, r.Limit.Until)
	}
}

package room

import (
	"fmt"
	"sync"
	"time"

	"pullcept/room/wire"
)

// Usage is one seat's latest figures, each with when it arrived. A figure
// never reported is nil or "" (never 0 %: spec 003 席が自分の利用上限を読む,
// 値が無い窓は「無い」と返す).
type Usage struct {
	Model, Effort string
	ModelAt       time.Time
	FiveHour      *wire.Window
	FiveHourAt    time.Time
	SevenDay      *wire.Window
	SevenDayAt    time.Time
	Context       *float64
	ContextAt     time.Time
	// ReceivedAt is when the latest report arrived.
	ReceivedAt time.Time
}

// Windows returns the result of a usage request: each figure with its
// received time (RFC 3339 UTC).
func (u Usage) Result() wire.UsageResult {
	var r wire.UsageResult
	stamp := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	if w := u.FiveHour; w != nil {
		c := *w
		c.ReceivedAt = stamp(u.FiveHourAt)
		r.FiveHour = &c
	}
	if w := u.SevenDay; w != nil {
		c := *w
		c.ReceivedAt = stamp(u.SevenDayAt)
		r.SevenDay = &c
	}
	if u.Context != nil {
		r.Context = &wire.ContextUse{UsedPercentage: *u.Context, ReceivedAt: stamp(u.ContextAt)}
	}
	if u.Model != "" || u.Effort != "" {
		r.Model, r.Effort, r.ModelReceivedAt = u.Model, u.Effort, stamp(u.ModelAt)
	}
	if !u.ReceivedAt.IsZero() {
		r.ReceivedAt = stamp(u.ReceivedAt)
	}
	return r
}

type usageKey struct{ topic, account string }

// UsageBook keeps the latest figures per (topic, account) (spec 003 "席が自分の
// 利用上限を読む"). Figures outlive the session and go with the topic.
type UsageBook struct {
	mu sync.Mutex
	m  map[usageKey]Usage
}

func newUsageBook() *UsageBook { return &UsageBook{m: map[usageKey]Usage{}} }

// Record stores a report received at t: each figure it carries replaces
// the one before and takes t as its time (the same value received again is
// received again: 受け取った時刻を足した).
func (b *UsageBook) Record(topic, account string, r wire.UsageReport, t time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	u := b.m[usageKey{topic, account}]
	if r.FiveHour != nil {
		w := *r.FiveHour
		w.ReceivedAt = ""
		u.FiveHour, u.FiveHourAt = &w, t
	}
	if r.SevenDay != nil {
		w := *r.SevenDay
		w.ReceivedAt = ""
		u.SevenDay, u.SevenDayAt = &w, t
	}
	if r.Context != nil {
		c := *r.Context
		u.Context, u.ContextAt = &c, t
	}
	if r.Model != "" || r.Effort != "" {
		if r.Model != "" {
			u.Model = r.Model
		}
		if r.Effort != "" {
			u.Effort = r.Effort
		}
		u.ModelAt = t
	}
	u.ReceivedAt = t
	b.m[usageKey{topic, account}] = u
}

// NewLaunch forgets what belonged to the seat's last launch — its context
// use, model and effort (spec 003 #385: context は新しい起動時に捨て) — and
// keeps the windows with their times. It says whether anything was dropped.
func (b *UsageBook) NewLaunch(topic, account string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := usageKey{topic, account}
	u, ok := b.m[k]
	if !ok || (u.Context == nil && u.Model == "" && u.Effort == "") {
		return false
	}
	u.Context, u.ContextAt = nil, time.Time{}
	u.Model, u.Effort, u.ModelAt = "", "", time.Time{}
	b.m[k] = u
	return true
}

// Get returns the figures of (topic, account), ok=false when none arrived.
func (b *UsageBook) Get(topic, account string) (Usage, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	u, ok := b.m[usageKey{topic, account}]
	return u, ok
}

func (b *UsageBook) dropTopic(topic string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for k := range b.m {
		if k.topic == topic {
			delete(b.m, k)
		}
	}
}

// RecordUsage stores a seat's report and tells subscribers.
func (e *Engine) RecordUsage(topic, account string, r wire.UsageReport) {
	if r.Empty() {
		return
	}
	e.usage.Record(topic, account, r, e.cfg.Now())
	e.broker.publish(Event{Kind: EventUsage, Topic: topic, Account: account})
}

// NewLaunch tells the book that the seat of account in topic launched
// again: its last launch's context use is dropped.
func (e *Engine) NewLaunch(topic, account string) {
	if e.usage.NewLaunch(topic, account) {
		e.broker.publish(Event{Kind: EventUsage, Topic: topic, Account: account})
	}
}

// UsageAnswer is a usage request's answer for connection id, without type
// and request_id: its seat's figures, none yet (no windows, no
// received_at), or why it has none (no room, no account).
func (e *Engine) UsageAnswer(id ConnID) wire.UsageResult {
	u, ok, err := e.UsageFor(id)
	switch {
	case err != nil:
		return wire.UsageResult{Error: err.Error()}
	case ok:
		return u.Result()
	}
	return wire.UsageResult{}
}

// UsageWithin is UsageAnswer waited for at most d: a post's answer carries
// it, read once the outcome is decided, and is not held longer for it
// (spec 003 #385: 追加の待ちは最大1.5秒). A read that cannot finish in time
// (a lock held elsewhere) answers an error; it ends on its own later.
func (e *Engine) UsageWithin(id ConnID, d time.Duration) wire.UsageResult {
	ch := make(chan wire.UsageResult, 1)
	go func() { ch <- e.UsageAnswer(id) }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case r := <-ch:
		return r
	case <-t.C:
		return wire.UsageResult{Error: fmt.Sprintf("the room could not read it within %v", d)}
	}
}

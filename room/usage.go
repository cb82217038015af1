package room

import (
	"sync"
	"time"

	"pullcept/room/wire"
)

// Usage is one seat's latest usage figures and when they arrived. A window
// never reported is nil.
type Usage struct {
	FiveHour   *wire.Window
	SevenDay   *wire.Window
	ReceivedAt time.Time
}

type usageKey struct{ topic, account string }

// UsageBook keeps the latest figures per (topic, account) (spec 003 "席が自分の
// 利用上限を読む"). Figures outlive the session and go with the topic.
type UsageBook struct {
	mu sync.Mutex
	m  map[usageKey]Usage
}

func newUsageBook() *UsageBook { return &UsageBook{m: map[usageKey]Usage{}} }

// Record stores figures received at t. A report without a window keeps the
// window previously received.
func (b *UsageBook) Record(topic, account string, five, seven *wire.Window, t time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	u := b.m[usageKey{topic, account}]
	if five != nil {
		u.FiveHour = five
	}
	if seven != nil {
		u.SevenDay = seven
	}
	u.ReceivedAt = t
	b.m[usageKey{topic, account}] = u
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

// RecordUsage stores a seat's figures and tells subscribers.
func (e *Engine) RecordUsage(topic, account string, five, seven *wire.Window) {
	e.usage.Record(topic, account, five, seven, e.cfg.Now())
	e.broker.publish(Event{Kind: EventUsage, Topic: topic, Account: account})
}

package app

// The run's one typed event stream. Every front end (each TUI, each control
// client) subscribes here, never to the engine or the seat manager
// directly. A subscriber that falls behind is not dropped: its pending
// events are discarded, it gets one EventResync (re-read what you show),
// and it keeps receiving (design.md: "one typed event stream (survives
// lag)"). The publisher never blocks.

import (
	"sync"

	"pullcept/room"
	"pullcept/seat"
)

// EventKind names what an Event reports.
type EventKind string

// Event kinds.
const (
	EventRoom   EventKind = "room"   // Room holds a room event (post, roster, log error, usage)
	EventSeat   EventKind = "seat"   // Seat holds a seat event (life or activity)
	EventNotice EventKind = "notice" // Notice is a sentence for the status line
	// EventResync: events were lost (the subscriber fell behind, or the
	// engine's stream did); re-read the state shown. Later events follow
	// as usual.
	EventResync EventKind = "resync"
	// EventNeedsYou: a seat's needs-you signal started or ended (Need).
	EventNeedsYou EventKind = "needs_you"
)

// Event is one thing that happened in the run.
type Event struct {
	Kind   EventKind
	Room   room.Event
	Seat   seat.Event
	Notice string
	Need   Need
	// Delivery is a post's delivery mark in a seat (EventDelivery).
	Delivery Delivery
	// List is a change of the needs-you list (EventNeedsList).
	List NeedsChange
}

// QueueLimit is how many events a subscriber may have pending before they
// are replaced by one EventResync.
const QueueLimit = 8192

// Subscription receives the run's events on C until Close.
type Subscription struct {
	C <-chan Event

	c      chan Event
	bus    *bus
	mu     sync.Mutex
	queue  []Event
	resync bool
	wake   chan struct{} // buffered 1
	done   chan struct{}
	closed bool
}

// Close ends the subscription; C is closed.
func (s *Subscription) Close() { s.bus.remove(s) }

type bus struct {
	mu   sync.Mutex
	subs map[*Subscription]struct{}
	wg   sync.WaitGroup
}

func newBus() *bus { return &bus{subs: map[*Subscription]struct{}{}} }

func (b *bus) subscribe() *Subscription {
	c := make(chan Event)
	s := &Subscription{C: c, c: c, bus: b, wake: make(chan struct{}, 1), done: make(chan struct{})}
	b.mu.Lock()
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	b.wg.Add(1)
	go func() { defer b.wg.Done(); s.pump() }()
	return s
}

func (b *bus) remove(s *Subscription) {
	b.mu.Lock()
	_, ok := b.subs[s]
	delete(b.subs, s)
	b.mu.Unlock()
	if ok {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		close(s.done)
	}
}

// publish queues ev for every subscriber; it never blocks.
func (b *bus) publish(ev Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		s.push(ev)
	}
}

// close ends every subscription and waits for their pumps.
func (b *bus) close() {
	b.mu.Lock()
	all := make([]*Subscription, 0, len(b.subs))
	for s := range b.subs {
		all = append(all, s)
	}
	b.mu.Unlock()
	for _, s := range all {
		s.Close()
	}
	b.wg.Wait()
}

func (s *Subscription) push(ev Event) {
	s.mu.Lock()
	switch {
	case s.closed:
	case ev.Kind == EventResync || len(s.queue) >= QueueLimit:
		s.queue, s.resync = s.queue[:0], true
	default:
		s.queue = append(s.queue, ev)
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// pump hands the queue to C in order, a resync first when events were lost.
func (s *Subscription) pump() {
	defer close(s.c)
	for {
		s.mu.Lock()
		var next Event
		have := false
		switch {
		case s.resync:
			next, have, s.resync = Event{Kind: EventResync}, true, false
		case len(s.queue) > 0:
			next, have = s.queue[0], true
			s.queue[0] = Event{}
			s.queue = s.queue[1:]
		}
		s.mu.Unlock()
		if !have {
			select {
			case <-s.wake:
				continue
			case <-s.done:
				return
			}
		}
		select {
		case s.c <- next:
		case <-s.done:
			return
		}
	}
}

// Events is Subscribe for a front end that takes a channel and a close
// function (the tui's Backend).
func (a *App) Events() (<-chan Event, func()) {
	s := a.Subscribe()
	return s.C, s.Close
}

// Announce puts a sentence on every screen's status line (the server
// tells the screens that another one failed).
func (a *App) Announce(notice string) { a.bus.publish(Event{Kind: EventNotice, Notice: notice}) }

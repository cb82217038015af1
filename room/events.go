package room

import (
	"sync"

	"pullcept/room/wire"
)

// EventKind names what an Event reports.
type EventKind string

// Event kinds.
const (
	EventPost     EventKind = "post"      // a delivered post
	EventRoster   EventKind = "roster"    // the participants of a room changed
	EventLogError EventKind = "log_error" // a log append or index write failed; the post was still delivered
	EventUsage    EventKind = "usage"     // a seat's usage figures arrived
	EventLagged   EventKind = "lagged"    // this subscriber fell behind and was dropped
	EventLoop     EventKind = "loop"      // a topic's agent posts reached the budget, were held, let go on or reset by the person (loop.go)
)

// Event is what the room tells its subscribers (the TUI, `pullcept serve`).
type Event struct {
	Kind         EventKind
	Topic        string
	Post         wire.Post     // EventPost
	Own          bool          // EventPost: said by the person at the screen
	Role         string        // EventPost: the role typed in the tag line
	Participants []Participant // EventRoster
	Err          string        // EventLogError: the reason
	Account      string        // EventUsage
	Loop         LoopState     // EventLoop
}

// Participant is one seat of a room's roster. Seats are keyed by
// connection, so two participants may share a name.
type Participant struct {
	Name     string `json:"name"`
	FullName string `json:"full_name,omitempty"` // the account's name when it differs from Name
	Hue      *int   `json:"hue,omitempty"`
	Account  string `json:"account,omitempty"`
	Person   bool   `json:"person,omitempty"`
	// Asleep: the seat's CLI sleeps (app/hibernate.go); an app-owned
	// placeholder keeps it addressable until it wakes.
	Asleep bool `json:"asleep,omitempty"`
}

// SubscriberBuffer is how many events a subscriber may have pending before
// it is dropped.
const SubscriberBuffer = 4096

// Subscription receives events on C until Close or until it falls behind,
// in which case it gets one EventLagged and C is closed.
//
// C carries pointers: the buffer is SubscriberBuffer slots, and an Event
// is a few hundred bytes (a whole post), which made each subscription 1 MB.
type Subscription struct {
	C      <-chan *Event
	c      chan *Event
	broker *broker
}

// Close stops the subscription.
func (s *Subscription) Close() { s.broker.remove(s) }

// broker fans events out without ever blocking the publisher (it publishes
// under room locks): a subscriber that falls behind is told once and dropped.
type broker struct {
	mu   sync.Mutex
	subs map[*Subscription]struct{}
}

func newBroker() *broker { return &broker{subs: map[*Subscription]struct{}{}} }

func (b *broker) subscribe() *Subscription {
	c := make(chan *Event, SubscriberBuffer+1)
	s := &Subscription{C: c, c: c, broker: b}
	b.mu.Lock()
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	return s
}

func (b *broker) remove(s *Subscription) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.subs[s]; ok {
		delete(b.subs, s)
		close(s.c)
	}
}

func (b *broker) publish(ev Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		if len(s.c) >= SubscriberBuffer {
			s.c <- &Event{Kind: EventLagged} // the one slot kept for this
			delete(b.subs, s)
			close(s.c)
			continue
		}
		e := ev // each its own copy: a subscriber may keep or change it
		s.c <- &e
	}
}

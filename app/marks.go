package app

// Delivery marks for the front ends (seat/marks.go decides them): each
// change is published as EventDelivery and kept, per topic, in memory
// while the server runs, for a screen that opens the topic later. A post
// its seat did not take as a prompt in time is told on the status line;
// nothing retypes it. Marks are not log fields: a topic reopened from its
// log (after a restart) shows none.

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"pullcept/seat"
)

// EventDelivery: a post's delivery mark in a seat changed (Delivery).
const EventDelivery EventKind = "delivery"

// Delivery is one post's mark in one seat.
type Delivery = seat.MarkEvent

// Mark is a delivery mark; the marks, as seat names them.
type Mark = seat.Mark

const (
	MarkHeld        = seat.MarkHeld
	MarkTyped       = seat.MarkTyped
	MarkReceived    = seat.MarkReceived
	MarkUnknown     = seat.MarkUnknown
	MarkNotReceived = seat.MarkNotReceived
)

// deliveryPosts bounds the posts whose marks a topic keeps (the oldest
// go first).
const deliveryPosts = 1000

// DeliveryPosts is deliveryPosts for a screen, which keeps as many.
const DeliveryPosts = deliveryPosts

// deliveries are the marks shown: topic → message id → account → mark.
type deliveries struct {
	mu     sync.Mutex
	topics map[string]*topicMarks
}

type topicMarks struct {
	order []string // message ids, oldest first
	marks map[string]map[string]Delivery
}

// delivered takes a mark from the seats (ManagerOptions.OnMark): kept,
// published, and a post not seen as a prompt is told.
func (a *App) delivered(ev Delivery) {
	d := &a.deliveries
	d.mu.Lock()
	if d.topics == nil {
		d.topics = map[string]*topicMarks{}
	}
	t := d.topics[ev.Topic]
	if t == nil {
		t = &topicMarks{marks: map[string]map[string]Delivery{}}
		d.topics[ev.Topic] = t
	}
	per := t.marks[ev.MessageID]
	if per == nil {
		per = map[string]Delivery{}
		t.marks[ev.MessageID] = per
		t.order = append(t.order, ev.MessageID)
		if len(t.order) > deliveryPosts {
			delete(t.marks, t.order[0])
			t.order = t.order[1:]
		}
	}
	per[ev.Account] = ev
	d.mu.Unlock()
	a.bus.publish(Event{Kind: EventDelivery, Delivery: ev})
	if ev.Mark == MarkNotReceived && ev.Why == seat.WhyUnseen {
		a.bus.publish(Event{Kind: EventNotice, Notice: fmt.Sprintf("%s did not take “%s” as a prompt within %s of being ready; it was not retyped (post it again if needed)",
			a.callName(ev.Account), ev.Preview, ev.Bound)})
	}
}

// callName is what the room calls an account now (its id when unknown).
func (a *App) callName(account string) string {
	if name, _, ok := a.seats.Names(account); ok && name != "" {
		return name
	}
	return account
}

// Deliveries answers the marks of a topic's posts: message id → the marks
// per seat, in account order. Empty for a topic reopened from its log.
func (a *App) Deliveries(topic string) map[string][]Delivery {
	d := &a.deliveries
	d.mu.Lock()
	defer d.mu.Unlock()
	t := d.topics[topic]
	if t == nil {
		return nil
	}
	out := make(map[string][]Delivery, len(t.marks))
	for id, per := range t.marks {
		list := make([]Delivery, 0, len(per))
		for _, m := range per {
			list = append(list, m)
		}
		slices.SortFunc(list, func(x, y Delivery) int { return strings.Compare(x.Account, y.Account) })
		out[id] = list
	}
	return out
}

// forgetDeliveries drops a deleted topic's marks.
func (a *App) forgetDeliveries(topic string) {
	a.deliveries.mu.Lock()
	delete(a.deliveries.topics, topic)
	a.deliveries.mu.Unlock()
}

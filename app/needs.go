package app

// Needs-you signals (issue "Seats know what their CLI is doing", point 6):
// what the app can tell on its own — a seat waits for the person (its
// activity), and an addressed seat ended its turn (Stop) without having
// posted since the post addressed to it was typed in (the top failure users
// report with agent teams). The third signal, a post addressed to the
// person while another topic is on screen or the room is scrolled up,
// depends on a screen and is the front end's (tui). How each is told is
// config.json's "notify" (seat.Notify).

import (
	"slices"
	"sync"

	"pullcept/room/wire"
	"pullcept/seat"
)

// Why a seat needs the person.
const (
	NeedPermission  = "permission"  // a permission prompt waits
	NeedQuestion    = "question"    // a question waits
	NeedElicitation = "elicitation" // an MCP elicitation waits
	NeedDialog      = "dialog"      // another dialog of the CLI waits for a choice
	NeedUnanswered  = "unanswered"  // it ended its turn without answering
)

// Need is one needs-you signal of a seat, or its end (On false).
type Need struct {
	Topic, Account, Name string
	Why                  string
	On                   bool
	// Post is the post left unanswered (NeedUnanswered).
	Post string
}

// Notify is how needs-you signals are told (config.json "notify").
type Notify = seat.Notify

// The ways of telling.
var (
	Rings   = seat.Rings
	Desktop = seat.Desktop
	Marks   = seat.Marks
)

type seatKey struct{ topic, account string }

// needs keeps the seats' current needs and the posts awaiting an answer.
type needs struct {
	mu       sync.Mutex
	current  map[seatKey]Need
	awaiting map[seatKey]string // message id typed in, not yet answered
}

func newNeeds() *needs {
	return &needs{current: map[seatKey]Need{}, awaiting: map[seatKey]string{}}
}

// typed notes a post typed into account's terminal: one addressed to it
// awaits an answer.
func (a *App) typed(topic, account string, p wire.Post) {
	name := account
	for _, acc := range a.seats.Accounts() {
		if acc.ID == account {
			name = acc.CallName()
		}
	}
	if !slices.Contains(p.To, name) {
		return
	}
	a.needs.mu.Lock()
	a.needs.awaiting[seatKey{topic, account}] = p.MessageID
	a.needs.mu.Unlock()
}

// noteRoom: a post by a seat's account answers what awaited it.
func (a *App) noteRoom(ev RoomEvent) {
	if ev.Kind != RoomPost || ev.Post.Account == "" {
		return
	}
	k := seatKey{ev.Topic, ev.Post.Account}
	a.needs.mu.Lock()
	delete(a.needs.awaiting, k)
	cur, had := a.needs.current[k]
	if had && cur.Why == NeedUnanswered {
		delete(a.needs.current, k)
	}
	a.needs.mu.Unlock()
	if had && cur.Why == NeedUnanswered {
		a.needChanged(Need{Topic: ev.Topic, Account: cur.Account, Name: cur.Name, Why: NeedUnanswered})
	}
}

// noteSeat turns a seat's activity into needs: a wait starts or ends one;
// a Stop with a post still awaiting an answer is an unanswered turn.
func (a *App) noteSeat(ev seat.Event) {
	k := seatKey{ev.Topic, ev.Account}
	if ev.Type != seat.EventActivity || ev.Activity == nil {
		if ev.State == seat.StateExited {
			a.needs.mu.Lock()
			_, had := a.needs.current[k]
			delete(a.needs.current, k)
			delete(a.needs.awaiting, k)
			a.needs.mu.Unlock()
			if had {
				a.needChanged(Need{Topic: ev.Topic, Account: ev.Account, Name: ev.Name})
			}
		}
		return
	}
	act := ev.Activity
	var publish []Need
	a.needs.mu.Lock()
	cur, had := a.needs.current[k]
	switch {
	case act.State == seat.ActWaiting:
		n := Need{Topic: ev.Topic, Account: ev.Account, Name: ev.Name, Why: act.Wait, On: true}
		if !had || cur != n {
			a.needs.current[k] = n
			publish = append(publish, n)
		}
	case had && cur.Why != NeedUnanswered:
		delete(a.needs.current, k)
		publish = append(publish, Need{Topic: ev.Topic, Account: ev.Account, Name: ev.Name, Why: cur.Why})
	}
	if act.Signal == "Stop" && act.State == seat.ActReady {
		if id, ok := a.needs.awaiting[k]; ok {
			delete(a.needs.awaiting, k)
			n := Need{Topic: ev.Topic, Account: ev.Account, Name: ev.Name, Why: NeedUnanswered, On: true, Post: id}
			a.needs.current[k] = n
			publish = append(publish, n)
		}
	}
	a.needs.mu.Unlock()
	for _, n := range publish {
		a.needChanged(n)
	}
}

// needChanged tells of a needs-you signal, and keeps the needs-you list
// (needslist.go) with it.
func (a *App) needChanged(n Need) {
	a.bus.publish(Event{Kind: EventNeedsYou, Need: n})
	a.noteNeedList(n)
}

// Needs lists a topic's current needs-you signals by account.
func (a *App) Needs(topic string) map[string]Need {
	a.needs.mu.Lock()
	defer a.needs.mu.Unlock()
	out := map[string]Need{}
	for k, n := range a.needs.current {
		if k.topic == topic {
			out[k.account] = n
		}
	}
	return out
}

// NeedsAny reports the topics with a current needs-you signal.
func (a *App) NeedsAny() map[string]bool {
	a.needs.mu.Lock()
	defer a.needs.mu.Unlock()
	out := map[string]bool{}
	for k := range a.needs.current {
		out[k.topic] = true
	}
	return out
}

// Notify is how needs-you signals are told.
func (a *App) Notify() Notify { return a.notify }

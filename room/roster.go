package room

import "time"

// Roster events are coalesced per room so that the work of a change is
// bounded: before, every join or leave published the whole participant
// list, and a burst of n joins made n lists of up to n entries (2,000 joins:
// 2,000 events, 2 million entries, 76 MB of JSON; 5,000 joins: 475 MB).
//
// The rule, per room, under the room's lock:
//   - a small room (at most rosterSmall participants) publishes on every
//     change, as before: the list is short;
//   - a bigger room publishes at once when the changes not yet published
//     are at least a rosterShare-th of the list (so each entry published is
//     paid for by rosterShare changes at most: a burst of joins publishes a
//     geometric series of lists, O(n) entries in all);
//   - otherwise the change is left pending, and one trailing event,
//     scheduled on the first pending change, publishes the list as it then
//     is, RosterEvery later (at most one pending event per room).
//
// Every roster event is published under the room's lock with the list as it
// is at that moment, so events come in the order of the changes and the
// latest roster event carries the room's current full list.

// RosterEvery is the longest a change of a big room's roster waits before a
// roster event carries it.
const RosterEvery = 100 * time.Millisecond

const (
	rosterSmall = 16 // participants up to which every change is published at once
	rosterShare = 4  // a bigger room publishes at once when changes ≥ len/rosterShare
)

// rosterState is a room's roster publication, guarded by Room.mu.
type rosterState struct {
	dirty     int  // changes since the last roster event
	scheduled bool // a trailing event is due
}

// rosterChangedLocked records one change of r's seats (r.mu held) and
// publishes the roster now or schedules it.
func (e *Engine) rosterChangedLocked(r *Room) {
	r.roster.dirty++
	if n := len(r.order); n <= rosterSmall || r.roster.dirty*rosterShare >= n {
		e.publishRosterLocked(r)
		return
	}
	if !r.roster.scheduled {
		r.roster.scheduled = true
		time.AfterFunc(RosterEvery, func() { e.flushRoster(r) })
	}
}

// flushRoster is the trailing event: it publishes what is still pending.
func (e *Engine) flushRoster(r *Room) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.roster.scheduled = false
	if r.roster.dirty > 0 && !r.dropped {
		e.publishRosterLocked(r)
	}
}

func (e *Engine) publishRosterLocked(r *Room) {
	r.roster.dirty = 0
	e.broker.publish(Event{Kind: EventRoster, Topic: r.topic, Participants: r.rosterLocked()})
}

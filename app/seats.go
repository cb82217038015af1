package app

import (
	"context"
	"fmt"

	"pullcept/seat"
)

// Account is a configured account.
type Account = seat.Account

// SeatInfo is one seat of a topic, for the front ends.
type SeatInfo struct {
	Account  string
	Name     string
	Kind     string
	State    string // starting, running, exited
	Activity seat.ActivitySnapshot
	// Held is how many posts its terminal holds, Hold why.
	Held int
	Hold string
	// Pane is its terminal; nil while starting.
	Pane *seat.Pane
}

// Accounts lists the accounts in config order.
func (a *App) Accounts() []Account { return a.seats.Accounts() }

// Seats lists a topic's seats, by account order.
func (a *App) Seats(topic string) []SeatInfo {
	var out []SeatInfo
	for _, s := range a.seats.Seats(topic) {
		held, why := a.typist.Held(topic, s.Account.ID)
		out = append(out, SeatInfo{Account: s.Account.ID, Name: s.Account.CallName(), Kind: string(s.Account.Kind),
			State: s.State(), Activity: s.Activity.Snapshot(), Held: held, Hold: why, Pane: s.Terminal()})
	}
	return out
}

// StartSeat launches account in topic (its room opened first).
func (a *App) StartSeat(ctx context.Context, topic, account string) (seat.Event, error) {
	if err := a.EnsureOpen(topic); err != nil {
		return seat.Event{}, err
	}
	return a.seats.Start(ctx, topic, account)
}

// StopSeat stops account's seat in topic and waits until it has ended.
func (a *App) StopSeat(topic, account, reason string) error {
	return a.seats.Stop(topic, account, reason)
}

// RestartSeat stops the seat (if running) and starts it again.
func (a *App) RestartSeat(ctx context.Context, topic, account string) (seat.Event, error) {
	if err := a.EnsureOpen(topic); err != nil {
		return seat.Event{}, err
	}
	return a.seats.Restart(ctx, topic, account)
}

// ReleaseSeat ends a seat's holds on the person's word.
func (a *App) ReleaseSeat(topic, account string) error { return a.seats.Release(topic, account) }

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

// SeatsChanged is signalled (coalesced) when a seat's state or a pane's
// screen changed: the screen redraws at its frame rate.
func (a *App) SeatsChanged() <-chan struct{} { return a.seats.Changed() }

// SeatEvent is a seat's life or activity event.
type SeatEvent = seat.Event

// SeatActivity is the Type of a seat's activity event.
const SeatActivity = seat.EventActivity

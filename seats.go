package main

// The seats of the app as the TUI sees them (tui.Seats): an adapter only;
// the rules live in app and seat.

import (
	"context"

	"pullcept/app"
	"pullcept/seat"
	"pullcept/tui"
)

// tuiSeats adapts the app's seats to the TUI.
type tuiSeats struct{ a *app.App }

func (t tuiSeats) Accounts() []tui.Account {
	var out []tui.Account
	for _, a := range t.a.Accounts() {
		out = append(out, tui.Account{ID: a.ID, Name: a.CallName(), Kind: string(a.Kind)})
	}
	return out
}

func (t tuiSeats) Seats(topic string) []tui.SeatInfo {
	var out []tui.SeatInfo
	for _, s := range t.a.Seats(topic) {
		info := tui.SeatInfo{Account: s.Account, Name: s.Name, Kind: s.Kind, State: s.State,
			Activity: s.Activity.State, Wait: s.Activity.Wait, Held: s.Held, Hold: s.Hold, Exit: s.Exit}
		if s.Pane != nil {
			info.Pane = tuiPane{s.Pane}
		}
		out = append(out, info)
	}
	return out
}

func (t tuiSeats) Start(topic, account string) error {
	_, err := t.a.StartSeat(context.Background(), topic, account)
	return err
}

func (t tuiSeats) Stop(topic, account string) error {
	return t.a.StopSeat(topic, account, "stopped by the person")
}

func (t tuiSeats) Restart(topic, account string) error {
	_, err := t.a.RestartSeat(context.Background(), topic, account)
	return err
}

func (t tuiSeats) Release(topic, account string) error { return t.a.ReleaseSeat(topic, account) }
func (t tuiSeats) Changed() <-chan struct{}            { return t.a.SeatsChanged() }

// tuiPane adds the application's input modes to a seat pane.
type tuiPane struct{ *seat.Pane }

func (p tuiPane) AppCursorKeys() bool { return p.Pane.Modes().CursorKeys }

// BracketedPaste says the application asked for pastes to be bracketed.
func (p tuiPane) BracketedPaste() bool { return p.Pane.Modes().BracketedPaste }

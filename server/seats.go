package server

// The seats of the app as one attached screen sees them (tui.Seats): an
// adapter; the rules live in app and seat. Pane sizes follow the most
// recently active client (tmux's window-size latest): each client's wish
// is kept, and the active client's is applied.

import (
	"context"
	"sync"
	"time"

	"pullcept/app"
	"pullcept/seat"
	"pullcept/tui"
)

// clientSeats adapts the app's seats to one client's screen.
type clientSeats struct {
	a       *app.App
	z       *sizes
	c       *client
	changed <-chan struct{}
}

func (t clientSeats) Accounts() []tui.Account {
	var out []tui.Account
	for _, a := range t.a.Accounts() {
		out = append(out, tui.Account{ID: a.ID, Name: a.CallName(), Kind: string(a.Kind)})
	}
	return out
}

func (t clientSeats) Seats(topic string) []tui.SeatInfo {
	var out []tui.SeatInfo
	for _, s := range t.a.Seats(topic) {
		info := tui.SeatInfo{Account: s.Account, Name: s.Name, Kind: s.Kind, State: s.State,
			Activity: s.Activity.State, Wait: s.Activity.Wait, Held: s.Held, Hold: s.Hold, Exit: s.Exit}
		if s.Pane != nil {
			info.Pane = clientPane{s.Pane, t.z, t.c}
		}
		out = append(out, info)
	}
	return out
}

func (t clientSeats) Start(topic, account string) error {
	_, err := t.a.StartSeat(context.Background(), topic, account)
	return err
}

func (t clientSeats) Stop(topic, account string) error {
	return t.a.StopSeat(topic, account, "stopped by the person")
}

func (t clientSeats) Restart(topic, account string) error {
	_, err := t.a.RestartSeat(context.Background(), topic, account)
	return err
}

func (t clientSeats) Release(topic, account string) error { return t.a.ReleaseSeat(topic, account) }
func (t clientSeats) Changed() <-chan struct{}            { return t.changed }

// clientPane is a seat's pane on one client's screen: its input modes, and
// its size asked through the sizes.
type clientPane struct {
	*seat.Pane
	z *sizes
	c *client
}

func (p clientPane) Resize(cols, rows int) error { return p.z.resize(p.c, p.Pane, cols, rows) }

// AppCursorKeys says the application asked for application cursor keys.
func (p clientPane) AppCursorKeys() bool { return p.Pane.Modes().CursorKeys }

// BracketedPaste says the application asked for pastes to be bracketed.
func (p clientPane) BracketedPaste() bool { return p.Pane.Modes().BracketedPaste }

// sizes arbitrates pane sizes between clients.
type sizes struct {
	mu     sync.Mutex
	active *client
	last   map[*client]time.Time
	want   map[*client]map[*seat.Pane][2]int
}

func newSizes() *sizes {
	return &sizes{last: map[*client]time.Time{}, want: map[*client]map[*seat.Pane][2]int{}}
}

// resize records c's wish for p and applies it when c is the active client.
func (z *sizes) resize(c *client, p *seat.Pane, cols, rows int) error {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.want[c] == nil {
		z.want[c] = map[*seat.Pane][2]int{}
	}
	z.want[c][p] = [2]int{cols, rows}
	if z.active == nil {
		z.active = c
	}
	if z.active != c {
		return nil
	}
	return p.Resize(cols, rows)
}

// touch marks c active now (its key, its attach, its resize); a client that
// becomes active applies its sizes.
func (z *sizes) touch(c *client) {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.last[c] = time.Now()
	if z.active == c {
		return
	}
	z.active = c
	z.apply(c)
}

func (z *sizes) apply(c *client) {
	for p, sz := range z.want[c] {
		_ = p.Resize(sz[0], sz[1])
	}
}

// drop forgets c; the most recently active other client takes over.
func (z *sizes) drop(c *client) {
	z.mu.Lock()
	defer z.mu.Unlock()
	delete(z.want, c)
	delete(z.last, c)
	if z.active != c {
		return
	}
	z.active = nil
	var at time.Time
	for o, t := range z.last {
		if z.active == nil || t.After(at) {
			z.active, at = o, t
		}
	}
	if z.active != nil {
		z.apply(z.active)
	}
}

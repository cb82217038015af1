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
	output  <-chan struct{}
	asleep  *sleepPanes // the placeholders of sleeping seats (sleeppane.go)
}

func (t clientSeats) Accounts() []tui.Account {
	var out []tui.Account
	for _, a := range t.a.Accounts() {
		out = append(out, tui.Account{ID: a.ID, Name: a.CallName(), FullName: a.Name, Nickname: a.Nickname, Kind: string(a.Kind)})
	}
	return out
}

func (t clientSeats) Seats(topic string) []tui.SeatInfo {
	var out []tui.SeatInfo
	var panes []*seat.Pane
	for _, s := range t.a.Seats(topic) {
		info := tui.SeatInfo{Account: s.Account, Name: s.Name, Kind: s.Kind, State: s.State,
			Activity: s.Activity.State, Wait: s.Activity.Wait, Failure: s.Activity.Failure, Held: s.Held, Hold: s.Hold, Skipped: s.Skipped, Exit: s.Exit,
			AsleepSince: s.AsleepSince}
		if s.State == app.StateAsleep && t.asleep != nil {
			info.Pane = t.asleep.get(t.a, t.ctx, topic, s)
		}
		if s.Pane != nil {
			panes = append(panes, s.Pane)
			info.Pane = clientPane{s.Pane, t.z, t.c}
		}
		out = append(out, info)
	}
	t.z.note(topic, panes)
	return out
}

// ctx carries the client's environment: a seat it starts runs with the
// person's PATH, locale and agent of that terminal.
func (t clientSeats) ctx() context.Context {
	return seat.WithEnv(context.Background(), personEnv(t.c.hello))
}

// ShowPanes says which seats' panes this screen shows now: a pane on a
// screen never sleeps.
func (t clientSeats) ShowPanes(topic string, accounts []string) {
	t.a.SetShown(t.c, topic, accounts)
}

func (t clientSeats) Start(topic, account string) error {
	_, err := t.a.StartSeat(t.ctx(), topic, account)
	return err
}

func (t clientSeats) Stop(topic, account string) error {
	return t.a.StopSeat(topic, account, "stopped by the person")
}

func (t clientSeats) Restart(topic, account string) error {
	_, err := t.a.RestartSeat(t.ctx(), topic, account)
	return err
}

func (t clientSeats) Release(topic, account string) (tui.ReleaseResult, error) {
	r, err := t.a.ReleaseSeat(topic, account)
	return releaseResult(r), err
}

func (t clientSeats) ClearUnsent(topic, account, unsent string) (tui.ReleaseResult, error) {
	r, err := t.a.ClearUnsentSeat(topic, account, unsent)
	return releaseResult(r), err
}

func releaseResult(r seat.ReleaseOutcome) tui.ReleaseResult {
	out := tui.ReleaseResult{Note: r.Note, Held: r.Held, Unsent: r.Unsent}
	if r.Unsent != "" {
		out.Shown = seat.QuoteUnsent(r.Unsent)
	}
	return out
}
func (t clientSeats) Changed() <-chan struct{} { return t.changed }
func (t clientSeats) Output() <-chan struct{}  { return t.output }

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

// sizes arbitrates pane sizes between clients: a pane takes the size
// wished by the most recently active client among those showing its topic
// (tmux's window-size latest is per window); the others draw it cropped or
// padded.
type sizes struct {
	mu      sync.Mutex
	last    map[*client]time.Time
	shown   map[*client]string                // the topic on each client's screen
	topic   map[*seat.Pane]string             // each pane's topic
	want    map[*seat.Pane]map[*client][2]int // each client's wish for a pane
	applied map[*seat.Pane][2]int             // the size last given to a pane
}

func newSizes() *sizes {
	return &sizes{last: map[*client]time.Time{}, shown: map[*client]string{}, topic: map[*seat.Pane]string{},
		want: map[*seat.Pane]map[*client][2]int{}, applied: map[*seat.Pane][2]int{}}
}

// note records the panes a topic has now; a pane the topic no longer has
// (its seat restarted or closed) is forgotten, emulator and all.
func (z *sizes) note(topic string, panes []*seat.Pane) {
	z.mu.Lock()
	defer z.mu.Unlock()
	now := make(map[*seat.Pane]bool, len(panes))
	for _, p := range panes {
		now[p] = true
		z.topic[p] = topic
	}
	for p, t := range z.topic {
		if t == topic && !now[p] {
			delete(z.topic, p)
			delete(z.want, p)
			delete(z.applied, p)
		}
	}
}

// resize records c's wish for p and settles p.
func (z *sizes) resize(c *client, p *seat.Pane, cols, rows int) error {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.want[p] == nil {
		z.want[p] = map[*client][2]int{}
	}
	z.want[p][c] = [2]int{cols, rows}
	if _, ok := z.last[c]; !ok {
		z.last[c] = time.Now()
	}
	return z.settle(p)
}

// settle gives p the wish of the most recently active client showing its
// topic (no such client: p keeps its size).
func (z *sizes) settle(p *seat.Pane) error {
	var best *client
	for c := range z.want[p] {
		if z.shown[c] != z.topic[p] {
			continue
		}
		if best == nil || z.last[c].After(z.last[best]) {
			best = c
		}
	}
	if best == nil {
		return nil
	}
	sz := z.want[p][best]
	if cur, ok := z.applied[p]; ok && cur == sz {
		return nil
	}
	z.applied[p] = sz
	return p.Resize(sz[0], sz[1])
}

// settleFor settles every pane c has a wish for.
func (z *sizes) settleFor(c *client) {
	for p, w := range z.want {
		if _, ok := w[c]; ok {
			_ = z.settle(p)
		}
	}
}

// touch marks c active now (its key, its attach, its resize).
func (z *sizes) touch(c *client) {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.last[c] = time.Now()
	z.settleFor(c)
}

// show records the topic on c's screen.
func (z *sizes) show(c *client, topic string) {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.shown[c] = topic
	z.settleFor(c)
}

// drop forgets c; the panes it sized go to the next client.
func (z *sizes) drop(c *client) {
	z.mu.Lock()
	defer z.mu.Unlock()
	delete(z.last, c)
	delete(z.shown, c)
	for p, w := range z.want {
		if _, ok := w[c]; !ok {
			continue
		}
		delete(w, c)
		if len(w) == 0 {
			delete(z.want, p) // nobody shows it: forget the pane
			delete(z.topic, p)
			delete(z.applied, p)
			continue
		}
		_ = z.settle(p)
	}
}

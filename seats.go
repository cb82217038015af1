package main

// Wiring of the seat manager to the room (typist, roles, roster), to the
// control mode and to the TUI. Adapters only: the rules live in seat/.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/charmbracelet/x/ansi"

	"pullcept/control"
	"pullcept/room"
	"pullcept/seat"
	"pullcept/tui"
)

// typer hands the room's deliveries to the seat typist.
type typer struct{ t *seat.Typist }

func (a typer) Type(d room.Delivery) { a.t.Deliver(d.Topic, d.Post, d.Role, d.Accounts) }

// seats is the run's seat manager with its adapters.
type seats struct {
	mgr     *seat.Manager
	typist  *seat.Typist
	notice  string // config notice and errors, for the status line
	notices chan string
	lines   chan any
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// loadAccounts reads config.json (or writes a first one from the CLIs on
// PATH) and says what happened.
func loadAccounts(configFile string) ([]seat.Account, string) {
	cfg, notice, errs := seat.LoadOrDetect(configFile, exec.LookPath)
	var msgs []string
	if notice != "" {
		msgs = append(msgs, notice)
	}
	for _, err := range errs {
		msgs = append(msgs, err.Error())
	}
	return cfg.Accounts, strings.Join(msgs, "; ")
}

// startSeats makes the manager once the socket is listening, and follows
// the rooms' rosters (a resumed session that joined is not a failed
// resume) and the seats' events.
func startSeats(ctx context.Context, c *core, accounts []seat.Account, typist *seat.Typist, notice string) (*seats, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this binary for the sidecar: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &seats{typist: typist, notice: notice, notices: make(chan string, 64), lines: make(chan any, 256), cancel: cancel}
	s.mgr = seat.NewManager(seat.ManagerOptions{Store: c.store, Typist: typist, RoomURL: c.sock.URL(), Token: c.sock.Token(),
		ExePath: exe, RuntimeDir: c.dirs.Runtime, Cols: 100, Rows: 30, Log: c.log}, accounts)
	c.sock.SetHooks(s.mgr)
	sub := c.engine.Subscribe()
	events := s.mgr.Subscribe()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer sub.Close()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-sub.C:
				if !ok {
					return
				}
				if ev.Kind == room.EventRoster {
					for _, p := range ev.Participants {
						if p.Account != "" {
							s.mgr.SawInRoster(ev.Topic, p.Account)
						}
					}
				}
			case ev := <-events:
				if ev.Type == seat.EventActivity {
					if ev.Activity != nil {
						c.log.Info("seat activity", "topic", ev.Topic, "account", ev.Account, "state", ev.Activity.State, "signal", ev.Activity.Signal, "hold", ev.Activity.Hold)
					}
				} else {
					c.log.Info("seat", "topic", ev.Topic, "account", ev.Account, "state", ev.State, "exit", ev.Exit, "error", ev.Error)
				}
				select {
				case s.lines <- seatLine(ev):
				default:
				}
				if n := seatNotice(ev); n != "" {
					select {
					case s.notices <- n:
					default:
					}
				}
			}
		}
	}()
	return s, nil
}

// seatLine is a seat event as a control-mode line: {"event":"seat",...}.
func seatLine(ev seat.Event) map[string]any {
	b, _ := json.Marshal(ev) // plain fields: cannot fail
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	m["event"] = "seat"
	if ev.Type == seat.EventActivity {
		m["event"] = "activity"
		delete(m, "type")
		delete(m, "state")
	}
	return m
}

// close stops every seat, then the followers.
func (s *seats) close() {
	s.mgr.Close()
	s.cancel()
	s.wg.Wait()
}

// seatNotice is the status line's sentence for a seat event.
func seatNotice(ev seat.Event) string {
	who := ev.Name
	switch {
	case ev.Error != "":
		return fmt.Sprintf("%s could not start: %s", who, ev.Error)
	case ev.State == seat.StateRunning && ev.ResumedFrom != "":
		return fmt.Sprintf("%s resumed session %s", who, ev.ResumedFrom)
	case ev.State == seat.StateRunning && ev.DroppedResume != "":
		return fmt.Sprintf("%s started fresh: the conversation to resume (%s) was not found, so this topic's resume record was dropped", who, ev.DroppedResume)
	case ev.State == seat.StateRunning && ev.Argv != nil:
		return fmt.Sprintf("%s started (new session)", who)
	case ev.State == seat.StateExited && ev.DroppedOnExit:
		return fmt.Sprintf("%s ended before joining the room (%s); the resume record %s was dropped", who, ev.Exit, ev.DroppedResume)
	case ev.State == seat.StateExited:
		return fmt.Sprintf("%s ended: %s", who, ev.Exit)
	}
	return ""
}

// Handle runs the control mode's seat commands.
func (s *seats) Handle(ctx context.Context, c control.Command) (any, error) {
	switch c.Cmd {
	case "start":
		return s.mgr.Start(ctx, c.Topic, c.Account)
	case "restart":
		return s.mgr.Restart(ctx, c.Topic, c.Account)
	case "stop":
		return map[string]bool{"stopped": true}, s.mgr.Stop(c.Topic, c.Account, "stopped from the control mode")
	case "seats":
		var out []map[string]any
		for _, st := range s.mgr.Seats(c.Topic) {
			held, why := s.typist.Held(c.Topic, st.Account.ID)
			out = append(out, map[string]any{"account": st.Account.ID, "state": st.State(), "activity": st.Activity.Snapshot(), "held": held, "hold": why})
		}
		return out, nil
	case "release":
		return map[string]bool{"released": true}, s.mgr.Release(c.Topic, c.Account)
	case "screen", "keys":
		st, ok := s.mgr.Seat(c.Topic, c.Account)
		var p *seat.Pane
		if ok {
			p = st.Terminal()
		}
		if p == nil {
			return nil, fmt.Errorf("%s has no running seat in topic %s", c.Account, c.Topic)
		}
		if c.Cmd == "keys" {
			_, err := p.Write([]byte(c.Keys))
			return map[string]bool{"written": true}, err
		}
		return map[string]any{"screen": ansi.Strip(p.Render()), "alt": p.AltScreen()}, nil
	}
	return nil, errors.New("unknown seat command")
}

// StopTopic stops a topic's seats before it is deleted.
func (s *seats) StopTopic(_ context.Context, topic string) error { return s.mgr.StopTopic(topic) }

// Events are the seat lines for the control mode.
func (s *seats) Events() <-chan any { return s.lines }

// tuiSeats adapts the manager to the TUI.
type tuiSeats struct{ s *seats }

func (t tuiSeats) Accounts() []tui.Account {
	var out []tui.Account
	for _, a := range t.s.mgr.Accounts() {
		out = append(out, tui.Account{ID: a.ID, Name: a.CallName(), Kind: string(a.Kind)})
	}
	return out
}

func (t tuiSeats) Seats(topic string) []tui.SeatInfo {
	var out []tui.SeatInfo
	for _, st := range t.s.mgr.Seats(topic) {
		snap := st.Activity.Snapshot()
		held, why := t.s.typist.Held(topic, st.Account.ID)
		info := tui.SeatInfo{Account: st.Account.ID, Name: st.Account.CallName(), Kind: string(st.Account.Kind), State: st.State(),
			Activity: snap.State, Wait: snap.Wait, Held: held, Hold: why}
		if p := st.Terminal(); p != nil {
			info.Pane = tuiPane{p}
		}
		out = append(out, info)
	}
	return out
}

func (t tuiSeats) Start(topic, account string) error {
	_, err := t.s.mgr.Start(context.Background(), topic, account)
	return err
}

func (t tuiSeats) Stop(topic, account string) error {
	return t.s.mgr.Stop(topic, account, "stopped by the person")
}

func (t tuiSeats) Restart(topic, account string) error {
	_, err := t.s.mgr.Restart(context.Background(), topic, account)
	return err
}

func (t tuiSeats) Release(topic, account string) error { return t.s.mgr.Release(topic, account) }

func (t tuiSeats) StopTopic(topic string) error { return t.s.mgr.StopTopic(topic) }
func (t tuiSeats) Changed() <-chan struct{}     { return t.s.mgr.Changed() }
func (t tuiSeats) Notices() <-chan string       { return t.s.notices }

// tuiPane adds the application's input modes to a seat pane.
type tuiPane struct{ *seat.Pane }

func (p tuiPane) AppCursorKeys() bool { return p.Pane.Modes().CursorKeys }

// BracketedPaste says the application asked for pastes to be bracketed.
func (p tuiPane) BracketedPaste() bool { return p.Pane.Modes().BracketedPaste }

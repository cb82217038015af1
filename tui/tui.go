// Package tui is Pullcept's terminal screen: one Bubble Tea model that shows
// the topic list, the room of the topic on screen, the terminal panes of
// that topic's seats, the participants, a status line and the input line.
//
// Components (room view, input editor, panes, dialogs) are plain structs
// that draw into a rectangle; the layout is plain data (layout.go). Keys go
// through one binding table (keys.go) that also feeds the help overlay and
// README.md. Background work never touches the model: the room's events and
// the seats' change signals are forwarded with Program.Send, slow work runs
// in tea.Cmds, and terminal input to panes goes through one ordered queue.
//
// Spec: 003 "宛先は本文の中の @ で指定する", "トピック", "床", "webhook の通知",
// "部屋のログ".
package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"pullcept/app"
	"pullcept/attach"
)

// Pane is one seat's terminal as the screen needs it: an emulator over the
// seat's PTY.
type Pane interface {
	// Write types p into the seat's terminal (its PTY input).
	Write(p []byte) (int, error)
	// Resize sets the terminal's size in cells (and the PTY's).
	Resize(cols, rows int) error
	// Render is the screen: exactly rows lines of cols cells joined by
	// "\n", with SGR attributes.
	Render() string
	// Cursor is the application's cursor on the screen.
	Cursor() (x, y int, visible bool)
	// ScrollbackLen is how many lines the scrollback holds.
	ScrollbackLen() int
	// RenderScrolled is Render with the view moved offset lines up into
	// the scrollback (0 is the live screen).
	RenderScrolled(offset int) string
}

// AppCursorKeys is optionally implemented by a Pane whose application asked
// for application cursor keys (DECCKM); arrows are then sent as SS3.
type AppCursorKeys interface {
	AppCursorKeys() bool
}

// BracketedPaste is optionally implemented by a Pane whose application
// asked for bracketed paste (mode 2004); a paste is then sent between
// ESC[200~ and ESC[201~.
type BracketedPaste interface {
	BracketedPaste() bool
}

// Account is a configured account a seat can be started for.
type Account struct {
	ID   string
	Name string // the calling name: the nickname, else FullName
	// FullName is the account's name; Nickname what it is called, if set.
	FullName, Nickname string
	// Kind is claude_code, codex, cli or mcp.
	Kind string
}

// Seat states as SeatInfo.State reports them.
const (
	StateStarting = "starting"
	StateRunning  = "running"
	StateExited   = "exited"
	StateAsleep   = "asleep" // app.StateAsleep
)

// PaneShower is optionally implemented by Seats: told which seats' panes
// the screen shows (a pane on a screen never sleeps).
type PaneShower interface {
	ShowPanes(topic string, accounts []string)
}

// SeatInfo is one seat of a topic.
type SeatInfo struct {
	Account string
	Name    string
	Kind    string
	// State is StateStarting, StateRunning, StateExited or another word the
	// seat manager uses (shown as it is).
	State string
	// Activity is what the seat's CLI is doing, from its hooks: starting,
	// ready, working, waiting, ended ("" when unknown); Wait is what a
	// waiting seat waits for (permission, question, elicitation).
	Activity, Wait string
	// Failure is the API error that ended the seat's last turn (Claude's
	// StopFailure: overloaded, server_error, …; "" when none).
	Failure string
	// Held is how many room posts the seat's terminal holds, Hold why;
	// Skipped how many its full queue did not take (they are in the room).
	Held    int
	Hold    string
	Skipped int
	// Exit is how an ended seat's process ended (its pane stays).
	Exit string
	// AsleepSince is when a sleeping seat (State StateAsleep) went to
	// sleep; its Pane is then a placeholder that wakes it on a key.
	AsleepSince time.Time
	// Pane is the seat's terminal; nil when it has none.
	Pane Pane
}

// Seats is what the screen needs of the seat manager.
type Seats interface {
	Accounts() []Account
	Seats(topic string) []SeatInfo
	Start(topic, account string) error
	Stop(topic, account string) error
	Restart(topic, account string) error
	// Release ends the hold of a seat on the person's word as far as its
	// kind lets it, and says what it did or why not.
	Release(topic, account string) (ReleaseResult, error)
	// ClearUnsent clears the unsent keys a Release reported (the person's
	// second word) so the held posts are typed.
	ClearUnsent(topic, account, unsent string) (ReleaseResult, error)
	// Changed is signalled when the seat list or a state changes, and
	// also when any pane has new output unless the Seats is an
	// OutputSeats. The screen coalesces it to its frame rate.
	Changed() <-chan struct{}
}

// ReleaseResult is what a release did (seat.ReleaseOutcome).
type ReleaseResult struct {
	// Note says it for the status line.
	Note string
	// Held is how many posts the seat held.
	Held int
	// Unsent, when set, is the person's unsent keys that hold the posts:
	// the screen asks before ClearUnsent; Shown is it quoted for a line.
	Unsent, Shown string
}

// OutputSeats is Seats that signals a pane's new output apart from
// Changed: the screen then redraws the panes without reading the seats
// again.
type OutputSeats interface {
	Output() <-chan struct{}
}

// Backend is the run the screen shows (*app.App): the screen calls no
// engine, store or seat manager itself.
type Backend interface {
	PersonName() string
	NewTopic() (string, error)
	EnsureOpen(topic string) error
	Roster(topic string) []app.Participant
	Page(topic string, limit int, before string) (app.Page, error)
	Topics() ([]app.Topic, error)
	Rename(topic, name string) error
	// SetNickname saves what the room calls an account ("" clears it) and
	// renames its running seats; it returns the calling name now.
	SetNickname(account, nickname string) (string, error)
	// Delete deletes a topic in the spec's order: its seats, its files,
	// its room.
	Delete(ctx context.Context, topic string) error
	Post(topic, content, lastSeen string) (app.Outcome, error)
	// Events is the run's event stream and the function that ends it.
	Events() (<-chan app.Event, func())
	// Notify is how needs-you signals are told.
	Notify() app.Notify
	// IsOpen reports whether a topic's room is open in this run.
	IsOpen(topic string) bool
	// Recorded lists the accounts the topic records sessions for that are
	// not running; Reopen starts them (resumed where possible);
	// ReopenSeats is the setting: auto, ask or off.
	Recorded(topic string) []string
	Reopen(ctx context.Context, topic string) ([]app.SeatEvent, []error)
	ReopenSeats() string
	// Usage is the figures account's seat in topic last reported (model,
	// effort, 5h and 7d windows, context use), each with its received time;
	// ok is false when none arrived. An app.RoomUsage event says they changed.
	Usage(topic, account string) (app.Usage, bool)
}

// Options configures Run.
type Options struct {
	// App is the run: rooms, topics, posts and the event stream.
	App Backend
	// Seats may be nil: the room works for the person alone.
	Seats Seats
	// Prefix is the prefix key, as Bubble Tea names it ("ctrl+b", the
	// default, "ctrl+a", ...).
	Prefix string
	// In and Out are the terminal's streams; nil means the process's own.
	In  io.Reader
	Out io.Writer
	// Width and Height give the size when Out is not a terminal that can
	// be asked (0 means ask).
	Width, Height int
	// Status is a first status line message (what starting said, ...).
	Status string
	// ConfigErrors are the config files' errors, one each: the status
	// line counts them and the notices (prefix ~) list them all.
	ConfigErrors []string
	// Location is the zone post times are shown in; nil means time.Local.
	Location *time.Location
	// FPS caps the frame rate; 0 means DefaultFPS.
	FPS int
	// Env is the terminal's environment (TERM, COLORTERM, NO_COLOR, ...,
	// and VISUAL/EDITOR for ctrl+g); nil means the process's own.
	Env []string
	// Server says the screen runs inside the pullcept server for one
	// attached terminal: prefix d detaches, quitting offers it, and the
	// process's signals are the server's, not this screen's.
	Server bool
	// Screen names this screen to the app: who answered a needs-you item
	// from where, which screen saw a post ("" = "terminal").
	Screen string
	// Topic is the topic to show first ("" = a new one).
	Topic string
	// OnShow is told the topic on screen each time it changes.
	OnShow func(topic string)
	// Clients counts the other terminals attached to the server (quitting
	// ends them too).
	Clients func() int
	// Started is given the program once made (the server sends it the
	// client's size changes).
	Started func(p *tea.Program)
	// Program makes the command that runs the person's program of a role
	// on the person's terminal (nil = this process's terminal); the
	// server's sends it to the client, which resolves the role.
	Program programFunc
}

// programFunc is Options.Program.
type programFunc = func(x attach.Exec) tea.ExecCommand

// ErrDetached is returned by Run when the person detached (prefix d): the
// sessions keep running.
var ErrDetached = errors.New("tui: detached")

// DefaultPrefix is the prefix key when Options.Prefix is empty.
const DefaultPrefix = "ctrl+b"

// DefaultFPS is the frame rate cap.
const DefaultFPS = 30

// ErrNoEngine is returned by Run without a Backend.
var ErrNoEngine = errors.New("tui: Options needs App")

// Run shows the screen until the person quits or ctx ends.
func Run(ctx context.Context, o Options) error {
	if o.App == nil {
		return ErrNoEngine
	}
	if o.FPS <= 0 {
		o.FPS = DefaultFPS
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	q := newQueue()
	m, err := newModel(o, q.do)
	if err != nil {
		return err
	}
	m.presize(o.Width, o.Height)
	events, unsubscribe := o.App.Events()
	m.subscribed = true

	// Frames on demand (third_party/bubbletea): a change is drawn at once
	// while the frame budget (two frames, refilled at FPS) has one left,
	// else when the next frame is earned; an idle screen is not woken.
	// Panics are the guard's (guard.go), not Bubble Tea's catcher's.
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithFPS(o.FPS), tea.WithOnDemandFrames(), tea.WithoutCatchPanics()}
	if o.In != nil {
		opts = append(opts, tea.WithInput(o.In))
	}
	if o.Out != nil {
		opts = append(opts, tea.WithOutput(o.Out))
	}
	if o.Width > 0 && o.Height > 0 {
		opts = append(opts, tea.WithWindowSize(o.Width, o.Height))
	}
	if o.Env != nil {
		// The terminal's own facts, not the writer's: the server draws
		// for a terminal it reaches through a socket or a passed file.
		opts = append(opts, tea.WithEnvironment(o.Env), tea.WithColorProfile(termProfile(o.Env)))
	}
	if o.Server {
		opts = append(opts, tea.WithoutSignalHandler())
	}
	g := &guard{m: m}
	opts = append(opts, tea.WithPanicHandler(func(r any, stack []byte) { g.failedAt(r, stack) }))
	p := tea.NewProgram(g, opts...)
	g.quit = p.Quit
	if o.Started != nil {
		o.Started(p)
	}

	var wg sync.WaitGroup
	wg.Go(g.protect(func() { q.run(ctx) }))
	wg.Go(g.protect(func() { forwardEvents(ctx, events, p.Send) }))
	if o.Seats != nil {
		var output <-chan struct{}
		if out, ok := o.Seats.(OutputSeats); ok {
			output = out.Output()
		}
		wg.Go(g.protect(func() { forwardChanges(ctx, o.Seats.Changed(), output, time.Second/time.Duration(o.FPS), p.Send) }))
	}
	err = runProgram(p, g)
	cancel()
	unsubscribe()
	wg.Wait()
	if m.draftFile != "" {
		os.Remove(m.draftFile)
	}
	if f := g.Fault(); f != nil {
		return f
	}
	// Killed because the caller's context ended: not an error. Any other
	// end (the terminal's reader failed) is one, never a quit.
	if errors.Is(err, tea.ErrProgramKilled) && parent.Err() != nil {
		return nil
	}
	if err != nil {
		return fmt.Errorf("tui: %w", err)
	}
	if m.detached {
		return ErrDetached
	}
	return nil
}

// runProgram runs p; a panic in Bubble Tea's own loop (outside the model,
// which the guard keeps) is the screen's fault too. The program is then
// killed, which gives the terminal back as its panic catcher did.
func runProgram(p *tea.Program, g *guard) (err error) {
	defer func() {
		if r := recover(); r != nil {
			g.failed(r)
			p.Kill()
			err = g.Fault()
		}
	}()
	_, err = p.Run()
	return err
}

// forwardEvents hands every event of the run to the program. Posts are
// final events: none is dropped here (a lag arrives as EventResync).
func forwardEvents(ctx context.Context, events <-chan app.Event, send func(tea.Msg)) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			send(appEventMsg{ev})
		}
	}
}

// forwardChanges turns the seats' change signals into messages at the
// frame rate, and none while nothing changes (no ticking): a state change
// (c) as seatsChangedMsg, a pane's output alone as paneOutputMsg; a state
// change waiting wins, since its message redraws the panes too. The rate
// is the renderer's budget (third_party/bubbletea, frameBurst): two
// messages back to back, then one per interval, so a pane's echo right
// after a lone state change is not held back by it.
func forwardChanges(ctx context.Context, c, output <-chan struct{}, frame time.Duration, send func(tea.Msg)) {
	if c == nil {
		return
	}
	var due time.Time // when the budget is whole again
	for {
		var msg tea.Msg = seatsChangedMsg{}
		select {
		case <-ctx.Done():
			return
		case _, ok := <-c:
			if !ok {
				return
			}
		case <-output:
			select {
			case <-c:
			default:
				msg = paneOutputMsg{}
			}
		}
		if _, ok := msg.(seatsChangedMsg); ok {
			select { // the output since is drawn by this message too
			case <-output:
			default:
			}
		}
		send(msg)
		if now := time.Now(); due.Before(now) {
			due = now
		}
		due = due.Add(frame)
		wait := time.Until(due.Add(-frame)) // a budget of two
		if wait <= 0 {
			continue
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// queue runs pane I/O (writes, resizes) in order, off the model's
// goroutine, without ever blocking Update.
type queue struct {
	mu    sync.Mutex
	jobs  []func()
	ready chan struct{}
}

func newQueue() *queue { return &queue{ready: make(chan struct{}, 1)} }

func (q *queue) do(f func()) {
	q.mu.Lock()
	first := len(q.jobs) == 0
	q.jobs = append(q.jobs, f)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
	if first {
		// Let the queue's goroutine (readied on this thread, next in line)
		// take the job now, before the caller goes on to draw a frame: a
		// key for a pane then reaches its PTY while the frame is drawn, not
		// after it, and its echo does not wait for the next one. The caller
		// does not wait for the job: one that blocks parks the queue alone.
		runtime.Gosched()
	}
}

func (q *queue) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-q.ready:
		}
		q.mu.Lock()
		jobs := q.jobs
		q.jobs = nil
		q.mu.Unlock()
		for _, f := range jobs {
			f()
		}
	}
}

// Package app is the application layer: one run of pullcept — the topic
// store, the room engine, the room socket, the typist and the seat manager
// — and every operation that combines them (topics, posts, seats), with
// one typed event stream (events.go). The front ends (tui, control) use
// only this package; main only wires.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"pullcept/dirs"
	"pullcept/room"
	"pullcept/room/socket"
	"pullcept/seat"
	"pullcept/topicstore"
)

// Options configure a run.
type Options struct {
	Dirs dirs.Dirs
	// PersonName is the person's name in the rooms.
	PersonName string
	// Accounts are the seats' accounts; nil means read (or first write)
	// config.json, whose notice and errors go to Notice.
	Accounts []seat.Account
	// ExePath is the pullcept binary the seats launch as their sidecar and
	// hooks; "" means os.Executable.
	ExePath string
	// StartPane starts a seat's process; nil means a real PTY (the seam for
	// tests, seat.ManagerOptions.StartPane).
	StartPane func(ctx context.Context, spec seat.PaneSpec) (*seat.Pane, error)
	// BaseEnv is the seats' base environment; nil means os.Environ().
	BaseEnv []string
	// Log is the app's log; nil means state/pullcept.log.
	Log *slog.Logger
	// Notify is how needs-you signals are told; nil means config.json's
	// (or the defaults, with Accounts given).
	Notify *Notify
	// ReopenSeats overrides config.json's "reopen_seats" ("" = the file's,
	// or auto).
	ReopenSeats string
	// MCP configures the local MCP servers of mcp-servers.json
	// (mcpservers.go); the zero value runs the file's.
	MCP MCPOptions
	// ReceiveBound is how long a typed post may go unseen as a prompt
	// before it is marked not received; zero means seat.ReceiveBound.
	ReceiveBound time.Duration
	// QueuePosts bounds each seat's typing queue; zero means
	// seat.MaxQueuedPosts (tests set a small one).
	QueuePosts int
	// Loop overrides config.json's loop budget (nil: the file's, or the
	// defaults with Accounts given).
	Loop *LoopRule
	// HibernateAfter overrides config.json's "hibernate_after" (0: the
	// file's; hibernate.go).
	HibernateAfter time.Duration
}

// App is one run. Its methods are safe for concurrent use.
type App struct {
	quiet       *quietRelease // the heap given back once the panes are quiet
	startupDrop *time.Timer   // start-up's pages unmapped (memory.go)
	dirs        dirs.Dirs
	log         *slog.Logger
	store       *topicstore.Store
	engine      *room.Engine
	sock        *socket.Server
	typist      *seat.Typist
	seats       *seat.Manager
	bus         *bus
	notice      string // what the start said, config errors aside
	// pushURL is config.json's "push_url" ("" = off).
	pushURL string

	// cfgMu guards the config files' errors as last read: config.json's
	// (and its accounts' missing folders) and mcp-servers.json's.
	cfgMu            sync.Mutex
	cfgErrs, mcpErrs []string

	notify Notify
	reopen string
	loop   LoopRule // the loop budget (loop.go)
	needs  *needs
	list   *needList // the needs-you list (needslist.go)
	limits *limits
	// ops are the sessions' operations on seats (sessionops.go); life
	// the seats' lifecycle locks they share with the person's (seats.go).
	ops  *sessionOps
	life lifecycle
	// mcp runs the local MCP servers (mcpservers.go).
	mcp *mcpState
	// deliveries are the posts' delivery marks shown (marks.go).
	deliveries deliveries
	// hib are the sleeping seats (hibernate.go).
	hib hibernation

	reloadMu sync.Mutex // one reload of config.json at a time
	watchMu  sync.Mutex
	watchers map[chan struct{}]chan struct{} // states → output (nil: not watched)

	closeLog func()
	unlock   func()
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	once     sync.Once
}

// Start opens the store, the engine, the room socket and the seat manager.
func Start(ctx context.Context, o Options) (*App, error) {
	if err := o.Dirs.Ensure(); err != nil {
		return nil, err
	}
	unlock, err := dirs.LockHome(o.Dirs.State)
	if err != nil {
		return nil, err
	}
	a := &App{dirs: o.Dirs, bus: newBus(), needs: newNeeds(), list: newNeedList(), limits: newLimits(), watchers: map[chan struct{}]chan struct{}{}, notify: seat.DefaultNotify, reopen: seat.ReopenAuto, unlock: unlock,
		loop: LoopRule{Budget: seat.DefaultAgentPostsPerPersonPost}}
	a.hib.sleepers, a.hib.shown = map[[2]string]*sleeper{}, map[any]map[[2]string]bool{}
	a.closeLog = func() {}
	a.log = o.Log
	if a.log == nil {
		f, err := os.OpenFile(filepath.Join(o.Dirs.State, "pullcept.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			unlock()
			return nil, fmt.Errorf("open log: %w", err)
		}
		a.log, a.closeLog = slog.New(slog.NewTextHandler(f, nil)), func() { f.Close() }
	}
	fail := func(err error) (*App, error) { a.closeLog(); a.unlock(); return nil, err }
	accounts := o.Accounts
	if accounts == nil {
		var cfg seat.Config
		var errs []string
		cfg, a.notice, errs = loadConfig(o.Dirs.ConfigFile())
		a.setConfigErrors(errs, nil)
		accounts, a.notify, a.reopen, a.loop = cfg.Accounts, cfg.Notify, cfg.ReopenSeats, loopRuleOf(cfg)
		a.pushURL = cfg.PushURL
		a.hib.after = cfg.HibernateAfter
	}
	if o.HibernateAfter > 0 {
		a.hib.after = o.HibernateAfter
	}
	if o.Loop != nil {
		a.loop = *o.Loop
	}
	if o.ReopenSeats != "" {
		a.reopen = o.ReopenSeats
	}
	if o.Notify != nil {
		a.notify = *o.Notify
	}
	exe := o.ExePath
	if exe == "" {
		p, err := os.Executable()
		if err != nil {
			return fail(fmt.Errorf("find this binary for the sidecar: %w", err))
		}
		exe = p
	}
	store, err := topicstore.Open(o.Dirs.Logs())
	if err != nil {
		return fail(err)
	}
	a.store = store
	store.OnSyncError(func(topic string, err error) {
		a.log.Error("a topic log could not be synced to the disk (its posts were delivered)", "topic", topic, "err", err)
	})
	if r := store.Recovered(); r != "" {
		// The index is an annotation of the folder: rebuilt, and said so.
		a.log.Warn("topic index recovered", "what", r)
		a.notice = strings.TrimPrefix(a.notice+"; "+r, "; ")
	}
	a.typist = seat.NewTypist(seat.TypistOptions{Log: a.log, OnTyped: a.typed, Names: a.accountNames, OnGap: a.queueGap, MaxPosts: o.QueuePosts})
	a.engine = room.New(room.Config{Log: store, Typer: a, AccountKind: a.accountKind, AccountNames: a.accountNames, PersonName: o.PersonName,
		Loop: func() LoopRule { return a.loop }})
	token, err := socket.NewToken()
	if err != nil {
		return fail(err)
	}
	a.sock, err = socket.Listen(a.engine, token, a.log)
	if err != nil {
		return fail(err)
	}
	a.log.Info("room socket listening", "addr", a.sock.Addr())
	a.quiet = newQuietRelease(releaseAfter, nil)
	a.seats = seat.NewManager(seat.ManagerOptions{Store: store, Typist: a.typist, RoomURL: a.sock.URL(), Token: token,
		ExePath: exe, RuntimeDir: o.Dirs.Runtime, Cols: 100, Rows: 30, Log: a.log, BaseEnv: o.BaseEnv, StartPane: o.StartPane,
		OnUsage: a.seatUsage, OnChange: a.fanChange, OnOutput: a.fanOutput, OnMark: a.delivered, ReceiveBound: o.ReceiveBound}, accounts)
	a.sock.SetHooks(hookAdapter{a})
	var opsNotice string
	a.ops, opsNotice = newSessionOps(a, filepath.Join(o.Dirs.Data, SessionOperationsFile))
	if opsNotice != "" {
		a.notice = strings.TrimPrefix(a.notice+"; "+opsNotice, "; ")
	}
	a.sock.SetOperations(opsAdapter{a})
	ctx, a.cancel = context.WithCancel(ctx)
	// Subscribed before Start returns: an event published by the first
	// operation must reach the stream.
	sub, seatEvents := a.engine.Subscribe(), a.seats.Subscribe()
	a.wg.Add(3)
	go func() { defer a.wg.Done(); a.follow(ctx, sub, seatEvents) }()
	go func() { defer a.wg.Done(); a.runHibernation(ctx) }()
	go func() { defer a.wg.Done(); a.quiet.run(ctx) }()
	a.startMCP(ctx, o)
	if o.Accounts == nil {
		a.watchConfig(ctx)
	}
	// The pages only start-up used go once it is over, output or not
	// (memory.go); the goroutines started here run on for a moment.
	dropExePages()
	a.startupDrop = time.AfterFunc(startupSettle, func() { dropExePages() })
	return a, nil
}

// Close stops every seat (their stop sequence), then the socket, the
// followers and the event stream.
func (a *App) Close() {
	a.once.Do(func() {
		a.startupDrop.Stop()
		a.ops.close() // before the seats: what has not finished is interrupted
		a.closeMCP()  // its last notices still reach the rooms and seats
		a.seats.Close()
		a.typist.Close()
		a.sock.Close()
		if err := a.store.Close(); err != nil { // syncs what is pending
			a.log.Error("closing the topic store", "err", err)
		}
		a.cancel()
		a.wg.Wait()
		a.bus.close()
		a.closeLog()
		a.unlock()
	})
}

// typer hands the room's deliveries to the typist.
type typer struct{ t *seat.Typist }

func (t typer) Type(d room.Delivery) {
	if d.LoopSeq > 0 {
		t.t.DeliverLoopHeld(d.Topic, d.Post, d.Role, d.Accounts, d.LoopSeq)
		return
	}
	if d.First {
		t.t.DeliverFirst(d.Topic, d.Post, d.Role, d.Accounts)
		return
	}
	t.t.Deliver(d.Topic, d.Post, d.Role, d.Accounts)
}

// ReleaseLoop types the posts held by the loop budget (room.LoopReleaser).
func (t typer) ReleaseLoop(topic string, upTo int) { t.t.ReleaseLoop(topic, upTo) }

func (a *App) accountKind(account string) (string, bool) {
	if a.seats == nil {
		return "", false
	}
	return a.seats.Kind(account)
}

// LoadConfig reads config.json (or writes a first one from the CLIs on
// PATH) and says what happened, for the status line.
func LoadConfig(configFile string) (seat.Config, string) {
	cfg, notice, errs := loadConfig(configFile)
	return cfg, strings.TrimPrefix(strings.Join(append([]string{notice}, errs...), "; "), "; ")
}

// loadConfig is LoadConfig with the file's errors (and its accounts'
// missing folders) apart, one a problem.
func loadConfig(configFile string) (seat.Config, string, []string) {
	cfg, notice, errs := seat.LoadOrDetect(configFile, exec.LookPath)
	var probs []string
	for _, err := range errs {
		probs = append(probs, err.Error())
	}
	return cfg, notice, append(probs, seat.MissingDirs(cfg.Accounts, "")...)
}

// setConfigErrors keeps config.json's errors (nil: unchanged) and
// mcp-servers.json's (nil: unchanged) as last read.
func (a *App) setConfigErrors(cfg, mcp []string) {
	a.cfgMu.Lock()
	defer a.cfgMu.Unlock()
	if cfg != nil {
		a.cfgErrs = cfg
	}
	if mcp != nil {
		a.mcpErrs = mcp
	}
}

// ConfigErrors are the config files' errors as last read, one a line:
// config.json's, then mcp-servers.json's. A screen lists them all
// (prefix ~) and counts them on its status line.
func (a *App) ConfigErrors() []string {
	a.cfgMu.Lock()
	defer a.cfgMu.Unlock()
	return append(slices.Clone(a.cfgErrs), a.mcpErrs...)
}

// follow forwards the engine's and the seats' events into the stream, tells
// the seat manager who appeared in a roster, and turns seat events into
// status-line notices. An engine subscription that lagged is renewed and
// every subscriber is told to resynchronise.
func (a *App) follow(ctx context.Context, sub *room.Subscription, seatEvents <-chan seat.Event) {
	defer func() { sub.Close() }()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-sub.C:
			if !ok || ev.Kind == room.EventLagged {
				a.log.Warn("the engine's event stream fell behind; subscribers resynchronise")
				sub.Close()
				sub = a.engine.Subscribe()
				a.bus.publish(Event{Kind: EventResync})
				continue
			}
			if ev.Kind == room.EventRoster {
				for _, p := range ev.Participants {
					if p.Account != "" && !p.Asleep { // a placeholder is no launch of the seat
						a.seats.SawInRoster(ev.Topic, p.Account)
						a.joinedAfterSleep(ev.Topic, p.Account)
					}
				}
			}
			a.noteMention(*ev) // before the screens hear of the post: their SeenPosts finds it
			a.bus.publish(Event{Kind: EventRoom, Room: *ev})
			a.noteRoom(*ev)
			if ev.Kind == room.EventUsage {
				a.checkLimit(ev.Topic, ev.Account)
			}
			if ev.Kind == room.EventLoop {
				a.noteLoop(ev.Loop)
			}
		case ev := <-seatEvents:
			if ev.State == seat.StateRunning && ev.Argv != nil {
				// A new launch: its context use starts again (#385).
				a.engine.NewLaunch(ev.Topic, ev.Account)
			}
			a.logSeat(ev)
			a.bus.publish(Event{Kind: EventSeat, Seat: ev})
			a.noteSeat(ev)
			a.noteSeatList(ev)
			if ev.State == seat.StateExited && ev.Type == "" {
				a.endedAfterWake(ev.Topic, ev.Account)
			}
			if ev.State == seat.StateExited && ev.Requested && a.Asleep(ev.Topic, ev.Account) {
				continue // its sleep is said once, by the app (hibernate.go)
			}
			if n := SeatNotice(ev); n != "" {
				a.bus.publish(Event{Kind: EventNotice, Notice: n})
			}
		}
	}
}

func (a *App) logSeat(ev seat.Event) {
	if ev.Type == seat.EventActivity {
		if ev.Activity != nil {
			a.log.Info("seat activity", "topic", ev.Topic, "account", ev.Account, "state", ev.Activity.State, "signal", ev.Activity.Signal, "hold", ev.Activity.Hold)
		}
		return
	}
	a.log.Info("seat", "topic", ev.Topic, "account", ev.Account, "state", ev.State, "exit", ev.Exit, "error", ev.Error)
}

// SeatNotice is the status line's sentence for a seat event ("" for none).
func SeatNotice(ev seat.Event) string {
	who := ev.Name
	switch {
	case ev.Type != "":
		return ""
	case ev.Error != "":
		return fmt.Sprintf("%s could not start: %s", who, ev.Error)
	case ev.State == seat.StateRunning && ev.ResumedFrom != "":
		return fmt.Sprintf("%s resumed session %s", who, ev.ResumedFrom)
	case ev.State == seat.StateRunning && ev.DroppedResume != "":
		return fmt.Sprintf("%s started fresh: the conversation to resume (%s) was not found, so this topic's resume record was dropped", who, ev.DroppedResume)
	case ev.State == seat.StateRunning && ev.Argv != nil:
		return fmt.Sprintf("%s started (new session)", who)
	case ev.State == seat.StateExited && ev.DroppedOnExit:
		return fmt.Sprintf("%s ended before its conversation loaded (%s); the resume record %s was dropped", who, ev.Exit, ev.DroppedResume)
	case ev.State == seat.StateExited:
		return fmt.Sprintf("%s ended: %s", who, ev.Exit)
	}
	return ""
}

// Subscribe returns a subscription to the run's events.
func (a *App) Subscribe() *Subscription { return a.bus.subscribe() }

// Notice is what loading the accounts said ("" when nothing).
func (a *App) Notice() string {
	return strings.TrimPrefix(strings.Join(append([]string{a.notice}, a.ConfigErrors()...), "; "), "; ")
}

// StartNotice is what starting said besides the config errors.
func (a *App) StartNotice() string { return a.notice }

// URL and Token are the room socket's address and secret.
func (a *App) URL() string   { return a.sock.URL() }
func (a *App) Token() string { return a.sock.Token() }

// PushURL is config.json's "push_url": where a new needs-you item is
// POSTed ("" = off, the default).
func (a *App) PushURL() string { return a.pushURL }

// PersonName is the person's name in the rooms.
func (a *App) PersonName() string { return a.engine.PersonName() }

// Store is the run's topic store, for the commands that print it
// (pullcept topics) while this run owns the home.
func (a *App) Store() *topicstore.Store { return a.store }

// ReloadAccounts reads config.json again (after `pullcept accounts`
// changed it through the server) and says what loading it said.
func (a *App) ReloadAccounts() string {
	n, _ := a.reloadAccounts()
	return n
}

// reloadAccounts is ReloadAccounts, also saying whether the accounts
// changed.
func (a *App) reloadAccounts() (string, bool) {
	a.reloadMu.Lock()
	defer a.reloadMu.Unlock()
	cfg, notice, errs := loadConfig(a.dirs.ConfigFile())
	a.setConfigErrors(append([]string{}, errs...), nil)
	changed := !reflect.DeepEqual(cfg.Accounts, a.seats.Accounts())
	msgs := a.setAccounts(cfg.Accounts)
	a.setHibernateAfter(cfg.HibernateAfter)
	if notice != "" {
		msgs = append(msgs, notice)
	}
	msgs = append(msgs, errs...)
	return strings.Join(msgs, "; "), changed
}

// Dirs are the run's folders.
func (a *App) Dirs() dirs.Dirs { return a.dirs }

// Log is the app's log.
func (a *App) Log() *slog.Logger { return a.log }

// ErrBadTopic reports a topic id that is missing, malformed or unknown.
var ErrBadTopic = errors.New("bad topic")

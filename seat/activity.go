package seat

// A seat's activity: one state per seat, decided from the signals its CLI
// sends (hooks) and the keys the person writes into its pane — never from
// reading the screen (spec 003 "アプリは端末へ書くが、端末の出力は読まない").
//
// The states: starting (launched, no start signal yet), ready, working (a
// turn, a tool or a subagent is running), waiting (a permission prompt, a
// question or an elicitation dialog waits for the person), ended. Each
// change carries the signal that decided it.
//
// The hold (spec "許可の画面で止まっている Claude Code の席には打たない",
// #346): nothing is typed into a seat while it waits for the person, nor
// while one of its tool calls is between PreToolUse and its end — a prompt
// can open at any moment of that span, and a post's letters or \r would
// answer it (Codex reads single letters as choices). The typist asks Begin
// before each post; a hook that can open a prompt (PreToolUse,
// PermissionRequest, Elicitation) first closes the gate, then waits for a
// post being typed to finish its \r before the CLI is let go on
// (WaitTyping), so a prompt never opens between a post's text and its \r.
//
// StopFailure (Claude: a turn ended by an API error) ends the turn like
// Stop and leaves its error as the seat's failure until the next turn; the
// manager limits the seat on a rate_limit one (docs/decisions.md "Claude's
// StopFailure").
//
// The reasons and their precedence are hold.go's (HoldReason). After the
// person answered a prompt, a kind with AnsweredToTurnEnd (Claude) holds
// until its turn ends, not only until the tool ends: a post typed into
// the ending turn was measured to go wrong (docs/decisions.md "When a held
// post is released").
//
// Claude fires no hook when the person declines a prompt. The person's keys
// in a waiting pane are answer keys (not unsent input): Esc ends the wait
// and, for a CLI where Esc interrupts the turn (Claude), the turn; any other
// answer key (Enter, a digit, a letter) marks the wait answered, and the
// hold lasts until the CLI says the tool ended or the turn moved on. A
// decline by number therefore keeps posts held until the next turn, Esc, or
// Release (docs/decisions.md).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Activity states.
const (
	ActStarting = "starting"
	ActReady    = "ready"
	ActWorking  = "working"
	ActWaiting  = "waiting"
	ActEnded    = "ended"
	// ActLimited: the CLI stopped at its usage limit; posts wait until the
	// limit is over (issue "Usage and limits").
	ActLimited = "limited"
)

// What a waiting seat waits for.
const (
	WaitPermission  = "permission"
	WaitQuestion    = "question"
	WaitElicitation = "elicitation"
	// WaitDialog: another dialog of the CLI waits for the person's choice
	// (Claude 2.1.332's Notification agent_needs_input, e.g. the auto
	// mode's notices).
	WaitDialog = "dialog"
)

// StopFailure's error that is a usage limit (Claude: an HTTP 429 after its
// retries); its other errors (overloaded, server_error, …) are shown as
// the seat's failure and hold nothing.
const StopFailureRateLimit = "rate_limit"

// Signals that are not hooks.
const (
	SignalLaunched   = "process started"
	SignalExited     = "process ended"
	SignalEsc        = "Esc in the pane"
	SignalAnswerKeys = "answer keys in the pane"
	SignalReleased   = "released by the person"
	SignalLimited    = "usage limit reached"
	SignalUnlimited  = "usage limit over"
	// SignalTurnAborted: the rollout says the interrupted turn was aborted.
	SignalTurnAborted = "interrupted turn aborted"
	// SignalWaking: a sleeping seat was woken; SignalJoined: it joined.
	SignalWaking = "woken from sleep"
	SignalJoined = "joined the room"
)

// HookEvent is what the activity reads of one hook call.
type HookEvent struct {
	Event            string `json:"hook_event_name"`
	ToolName         string `json:"tool_name"`
	ToolUseID        string `json:"tool_use_id"`
	Source           string `json:"source"`
	NotificationType string `json:"notification_type"`
	AgentID          string `json:"agent_id"`
	Reason           string `json:"reason"`
	SessionID        string `json:"session_id"`
	// Error, ErrorDetails: StopFailure's cause (rate_limit, overloaded,
	// server_error, …) and its text.
	Error        string `json:"error"`
	ErrorDetails string `json:"error_details"`
	// BackgroundTasks, SessionCrons: Stop's in-flight background work
	// (a backgrounded Bash, a monitor, an agent) and the session's
	// scheduled wake-ups (CronCreate, ScheduleWakeup, /loop) that will
	// start a turn by themselves (Claude 2.1.197 and 2.1.332).
	BackgroundTasks []json.RawMessage `json:"background_tasks"`
	SessionCrons    []json.RawMessage `json:"session_crons"`
}

// ErrHookBody reports a hook body that is not a JSON object or names
// another event than its path.
var ErrHookBody = errors.New("bad hook body")

// ParseHookEvent reads a hook call for event (from the path). The body is
// the CLI's hook JSON; an empty body is an event with no fields.
func ParseHookEvent(event string, body []byte) (HookEvent, error) {
	var ev HookEvent
	if len(body) > 0 {
		var probe any
		if err := json.Unmarshal(body, &probe); err != nil {
			return HookEvent{}, fmt.Errorf("%w: not JSON: %v", ErrHookBody, err)
		}
		if _, ok := probe.(map[string]any); !ok {
			return HookEvent{}, fmt.Errorf("%w: not a JSON object", ErrHookBody)
		}
		_ = json.Unmarshal(body, &ev) // fields of other types are left empty
	}
	if ev.Event != "" && ev.Event != event {
		return HookEvent{}, fmt.Errorf("%w: the body is %q, the path %q", ErrHookBody, ev.Event, event)
	}
	ev.Event = event
	return ev, nil
}

// ActivitySnapshot is a seat's activity at one moment.
type ActivitySnapshot struct {
	State  string `json:"state"`
	Signal string `json:"signal"`
	// Wait is what a waiting seat waits for.
	Wait string `json:"wait,omitempty"`
	// Tools is how many tool calls are running; Tool names the newest.
	Tools int    `json:"tools,omitempty"`
	Tool  string `json:"tool,omitempty"`
	// Hold is why nothing may be typed now ("" = typing is allowed), and
	// HoldKind its kind (hold.go).
	Hold     string   `json:"hold,omitempty"`
	HoldKind HoldKind `json:"hold_kind,omitempty"`
	// Loaded: a resumed conversation said it loaded (SessionStart resume).
	Loaded bool `json:"loaded,omitempty"`
	// Failure is the API error that ended the last turn (StopFailure's
	// error: overloaded, server_error, …), until the next turn starts.
	Failure string `json:"failure,omitempty"`
	// Background is the background work the CLI said (at its last turn's
	// end) is in flight or scheduled to start a turn: tasks plus crons.
	Background int `json:"background,omitempty"`
	// LimitedUntil is when a limited seat's limit ends (zero: unknown).
	LimitedUntil time.Time `json:"limited_until,omitzero"`
	Since        time.Time `json:"since"`
}

// ActivityOptions are a kind's manners that the activity needs.
type ActivityOptions struct {
	// ReportsStart: the CLI sends SessionStart at launch; until then the
	// seat is starting.
	ReportsStart bool
	// EscInterrupts: the person's Esc ends a wait and the turn (Claude).
	EscInterrupts bool
	// AbortReported: the CLI records when an interrupted turn has been
	// aborted (Codex's rollout turn_aborted, TurnAborted): the settle after
	// an interrupt lasts until then, at least SettleTime, at most SettleMax.
	AbortReported bool
	// AnsweredToTurnEnd: after the person answered a prompt, the hold
	// lasts until the turn ends (Stop), not only until the tool ends
	// (Claude: a post whose \r met the turn's end was measured to be sent
	// and left in the input box; docs/decisions.md "When a held post is
	// released").
	AnsweredToTurnEnd bool
	// TurnEndSettle: a post's \r is not written sooner than this after the
	// CLI said its turn ended (Stop): Claude 2.1.197 was measured to send a
	// post whose \r came 15 ms after Stop and to leave its text in the
	// input box, where the next post joined it.
	TurnEndSettle time.Duration
	// CLI names the CLI in hold reasons.
	CLI string
	Now func() time.Time
	// OnChange is called (outside the lock) after every change.
	OnChange func(ActivitySnapshot)
}

// Activity is one seat's activity. Its methods are safe for concurrent use.
type Activity struct {
	o ActivityOptions

	mu       sync.Mutex
	started  bool
	ended    bool
	inTurn   bool
	tools    map[string]bool
	anon     int // tool calls without an id
	agents   map[string]bool
	wait     string
	tool     string // the newest running tool's name
	answered bool
	// afterAnswer: an answered prompt's tool ended and AnsweredToTurnEnd
	// holds on until the turn ends.
	afterAnswer bool
	loaded      bool
	signal      string
	since       time.Time
	settle      time.Time     // an interrupted turn is still being wound down until then
	aborting    time.Time     // AbortReported: until then, or TurnAborted, the settle goes on
	limited     bool          // stopped at its usage limit
	waking      bool          // woken from sleep: held until it has joined and started, and WakeSettle after
	joined      bool          // its sidecar sits in the room
	wakeUntil   time.Time     // the waking hold's end, once joined and started
	until       time.Time     // when the limit ends (zero: unknown)
	stopped     time.Time     // the last Stop
	failure     string        // the last turn's StopFailure error
	background  int           // the last Stop's background tasks and crons
	typing      chan struct{} // non-nil while a post is being typed; closed at End
	changed     chan struct{} // buffered 1
	last        ActivitySnapshot

	// waitSeq numbers the waits opened: an answer given from elsewhere
	// than the pane (the needs-you list) is for one wait only.
	waitSeq uint64
}

// NewActivity makes a seat's activity, starting.
func NewActivity(o ActivityOptions) *Activity {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.CLI == "" {
		o.CLI = "the CLI"
	}
	a := &Activity{o: o, tools: map[string]bool{}, agents: map[string]bool{}, changed: make(chan struct{}, 1), signal: SignalLaunched, since: o.Now()}
	a.last = a.snapshotLocked()
	return a
}

// Launched records that the process runs: a kind that reports no start
// signal is ready now.
func (a *Activity) Launched() {
	a.update(func() string {
		if !a.o.ReportsStart {
			a.started = true
		}
		return SignalLaunched
	})
}

// HoldWaking is the waking hold's text (a delivery mark reads "held:
// waking").
const HoldWaking = "waking"

// Waking holds the seat's posts until Joined: a sleeping seat woken by a
// post addressed to it (docs/decisions.md "Sleeping seats").
func (a *Activity) Waking() {
	a.update(func() string { a.waking = true; return SignalWaking })
}

// WakeSettle is how long a woken seat's posts still wait once it has
// joined the room and its CLI said it started: a resumed Claude 2.1.197
// was measured to take its first typed prompt only ~4 s after its
// SessionStart, and a second post typed at once was not taken.
var WakeSettle = 2 * time.Second

// Joined records that the seat's sidecar sits in the room: a waking hold
// ends WakeSettle after it has also started.
func (a *Activity) Joined() {
	a.update(func() string {
		if a.joined {
			return ""
		}
		a.joined = true
		a.wakeReadyLocked()
		return SignalJoined
	})
}

// wakeReadyLocked starts the waking hold's settle once the seat has
// joined and started.
func (a *Activity) wakeReadyLocked() {
	if a.waking && a.joined && a.started && a.wakeUntil.IsZero() {
		a.wakeUntil = a.o.Now().Add(WakeSettle)
		a.wakeAfter(WakeSettle, "woken seat settled")
	}
}

// Exited records the end of the process.
func (a *Activity) Exited() {
	a.update(func() string { a.ended = true; a.clearLocked(); return SignalExited })
}

// Apply takes one hook event.
func (a *Activity) Apply(ev HookEvent) {
	a.update(func() string {
		switch ev.Event {
		case "SessionStart":
			a.started = true
			a.clearLocked()
			a.failure = ""
			if ev.Source == "resume" {
				a.loaded = true
			}
		case "UserPromptSubmit":
			// A prompt went in, so no dialog is open; after an answered
			// one, the tool it asked for is over (a decline by number
			// fires nothing else).
			if a.answered {
				a.clearLocked()
			}
			a.started, a.inTurn = true, true
			a.wait, a.answered, a.afterAnswer = "", false, false
			a.aborting = time.Time{} // a new turn: the interrupted one is over
			a.failure = ""
		case "PreToolUse":
			a.started, a.inTurn = true, true
			if roomTool(ev.ToolName) {
				return "" // the room's own tools are pre-approved: no prompt
			}
			a.tool = ev.ToolName
			if ev.ToolUseID != "" {
				a.tools[ev.ToolUseID] = true
			} else {
				a.anon++
			}
		case "PermissionRequest":
			a.started, a.inTurn = true, true
			a.wait, a.answered = WaitPermission, false
			if ev.ToolName == "AskUserQuestion" {
				a.wait = WaitQuestion
			}
		case "Notification":
			switch ev.NotificationType {
			case "permission_prompt":
				if a.wait == "" && !a.answered {
					a.wait = WaitPermission
				}
			case "worker_permission_prompt":
				// A teammate's permission prompt, shown in this pane.
				if a.wait == "" && !a.answered {
					a.wait = WaitPermission
				}
			case "elicitation_dialog", "elicitation_url_dialog":
				if a.wait == "" && !a.answered {
					a.wait = WaitElicitation
				}
			case "agent_needs_input":
				// Claude 2.1.332: a dialog in this pane waits for a
				// choice (no hook says when it closes: the person's
				// keys, or the next turn, end the wait).
				if a.wait == "" && !a.answered {
					a.wait = WaitDialog
				}
			default:
				return "" // idle_prompt and others change nothing
			}
		case "Elicitation":
			a.wait, a.answered = WaitElicitation, false
		case "ElicitationResult":
			if a.wait == WaitElicitation {
				a.wait = ""
			}
			a.answered = false
		case "PostToolUse", "PostToolUseFailure", "PermissionDenied":
			if roomTool(ev.ToolName) {
				return ""
			}
			a.endToolLocked(ev.ToolUseID)
			if a.answered && a.o.AnsweredToTurnEnd && a.inTurn {
				a.afterAnswer = true
			}
			a.wait, a.answered = "", false
		case "SubagentStart":
			if ev.AgentID != "" {
				a.agents[ev.AgentID] = true
			}
		case "SubagentStop":
			delete(a.agents, ev.AgentID)
		case "Stop", "StopFailure":
			a.clearLocked()
			a.aborting = time.Time{}
			a.stopped = a.o.Now()
			a.failure = ""
			a.background = len(ev.BackgroundTasks) + len(ev.SessionCrons)
			if ev.Event == "StopFailure" {
				a.failure = failureName(ev.Error)
			}
		case "Interrupt":
			a.clearLocked()
			a.settleLocked()
		case "SessionEnd":
			a.clearLocked()
			a.ended = true
		default:
			return ""
		}
		return ev.Event
	})
}

// failureName is a StopFailure error as it is shown: one of Claude's
// names (lower case, digits, _), else "unknown" (the text reaches screens).
func failureName(e string) string {
	if e == "" || len(e) > 40 || strings.Trim(e, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
		return "unknown"
	}
	return e
}

func (a *Activity) endToolLocked(id string) {
	switch {
	case id != "" && a.tools[id]:
		delete(a.tools, id)
	case a.anon > 0:
		a.anon--
	case id == "" && len(a.tools) > 0 && a.anon == 0:
		// An end without an id (a CLI that gives none): the oldest is
		// unknown, so one of them ends.
		for k := range a.tools {
			delete(a.tools, k)
			break
		}
	}
}

// clearLocked ends the turn: no tool, no wait, no subagent.
func (a *Activity) clearLocked() {
	a.inTurn = false
	a.tools = map[string]bool{}
	a.anon = 0
	a.agents = map[string]bool{}
	a.wait, a.answered = "", false
	a.afterAnswer = false
}

// PersonKeys takes the keys the person wrote into the seat's pane. It
// reports whether they were answer keys for a waiting prompt (and so not
// unsent input for the tracker).
func (a *Activity) PersonKeys(b []byte) (answer bool) {
	a.mu.Lock()
	waiting := a.wait != ""
	working := len(a.tools) > 0 || a.anon > 0 || a.inTurn || a.afterAnswer
	a.mu.Unlock()
	esc := len(b) == 1 && b[0] == 0x1b
	switch {
	case esc && waiting:
		a.update(func() string {
			if a.o.EscInterrupts {
				a.clearLocked()
				a.settleLocked()
			} else {
				a.wait, a.answered = "", true
			}
			return SignalEsc
		})
		return true
	case esc && working && a.o.EscInterrupts:
		a.update(func() string { a.clearLocked(); a.settleLocked(); return SignalEsc })
		return false
	case waiting && isAnswerKey(b):
		a.update(func() string { a.wait, a.answered = "", true; return SignalAnswerKeys })
		return true
	}
	return waiting // moving in the dialog (arrows) is not unsent input either
}

// roomTool reports whether a hook's tool is one of the room's own (the
// sidecar's), which every launch registers as allowed without asking
// (Claude: --allowedTools; Codex: default_tools_approval_mode "approve"), so
// it never opens a prompt and holds nothing. Claude names them
// mcp__pullcept__<tool>; Codex likewise.
func roomTool(name string) bool {
	return strings.HasPrefix(name, ClaudeToolName(MCPServerName, ""))
}

// isAnswerKey: a write holding Enter, or one printable character (a
// choice's digit or letter).
func isAnswerKey(b []byte) bool {
	if bytes.IndexByte(b, '\r') >= 0 {
		return true
	}
	return len(b) == 1 && b[0] >= 0x20 && b[0] < 0x7f
}

// Release ends, on the person's word, what holds the seat's posts and a
// release may end (HoldKind.Release): an answered prompt, a tool, a settle,
// a usage limit. A prompt still open is not ended: it answers the reason
// that was in force and changes nothing (a post's letters would answer the
// prompt).
func (a *Activity) Release() (was HoldReason) {
	a.update(func() string {
		was = a.holdLocked()
		if was.Kind.Release() == ReleaseRefused {
			return ""
		}
		a.clearLocked()
		a.settle, a.aborting = time.Time{}, time.Time{}
		a.limited, a.until = false, time.Time{}
		return SignalReleased
	})
	return was
}

// SetLimited holds the seat: its CLI stopped at its usage limit, which ends
// at until (zero: unknown). It says whether the seat was not limited yet.
func (a *Activity) SetLimited(until time.Time) (fresh bool) {
	a.update(func() string {
		if a.ended || (a.limited && a.until.Equal(until)) {
			return ""
		}
		fresh = !a.limited
		a.limited, a.until = true, until
		return SignalLimited
	})
	return fresh
}

// Unlimit ends a usage limit; it says whether the seat was limited.
func (a *Activity) Unlimit() (was bool) {
	a.update(func() string {
		if !a.limited {
			return ""
		}
		was = true
		a.limited, a.until = false, time.Time{}
		return SignalUnlimited
	})
	return was
}

// Limited says whether the seat is held at its usage limit, and until when.
func (a *Activity) Limited() (bool, time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.limited, a.until
}

// Begin asks to type a post now: ok is false (with the reason) while the
// seat holds. After ok, End must follow once the post's \r is written.
func (a *Activity) Begin() (ok bool, why HoldReason) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if why := a.holdLocked(); why.Held() {
		return false, why
	}
	a.typing = make(chan struct{})
	return true, HoldReason{}
}

// Hold is why the seat holds its posts now (the zero reason: it does not).
func (a *Activity) Hold() HoldReason {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.holdLocked()
}

// SubmitWait is how long a post's \r must still wait after the CLI's turn
// ended (TurnEndSettle).
func (a *Activity) SubmitWait() time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stopped.IsZero() {
		return 0
	}
	return max(0, a.o.TurnEndSettle-a.o.Now().Sub(a.stopped))
}

// End says the post begun is typed.
func (a *Activity) End() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.typing != nil {
		close(a.typing)
		a.typing = nil
	}
}

// WaitTyping waits until no post is being typed (or ctx ends).
func (a *Activity) WaitTyping(ctx context.Context) error {
	a.mu.Lock()
	c := a.typing
	a.mu.Unlock()
	if c == nil {
		return nil
	}
	select {
	case <-c:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// OpenWait is the wait open now ("" for none) and its number: a later
// wait, even of the same kind, has another.
func (a *Activity) OpenWait() (seq uint64, wait string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.wait == "" {
		return 0, ""
	}
	return a.waitSeq, a.wait
}

// SignalAnsweredElsewhere: the person answered the prompt from the
// needs-you list, through the CLI's hook.
const SignalAnsweredElsewhere = "answered from the needs-you list"

// AnswerWait marks wait seq answered (from outside the pane: the CLI's hook
// decided it), as answer keys in the pane do. It reports false, changing
// nothing, when that wait is no longer open.
func (a *Activity) AnswerWait(seq uint64) (ok bool) {
	a.update(func() string {
		if a.wait == "" || a.waitSeq != seq {
			return ""
		}
		ok = true
		a.wait, a.answered = "", true
		return SignalAnsweredElsewhere
	})
	return ok
}

// Changed is signalled (coalesced) after every change.
func (a *Activity) Changed() <-chan struct{} { return a.changed }

// Snapshot is the activity now.
func (a *Activity) Snapshot() ActivitySnapshot {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.snapshotLocked()
}

// ResumeLoaded reports whether the CLI said a resumed conversation loaded.
func (a *Activity) ResumeLoaded() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.loaded
}

// SettleTime is how long the hold lasts after a turn was interrupted: Codex
// fires Interrupt "right before an interrupted turn is aborted", and a post
// typed in that span was measured to be sent and also put back into its
// composer, so it went twice. Claude's Esc gets the same margin. Codex
// (AbortReported) is held on until its rollout says the turn was aborted:
// under load (CI's full suite) that took more than SettleTime, and a held
// post typed after it went back into the composer in front of the next one.
// SettleMax bounds that wait when the rollout never says it.
var (
	SettleTime = time.Second
	SettleMax  = 10 * time.Second
)

// settleLocked starts the settle span and wakes the typist when it ends.
func (a *Activity) settleLocked() {
	now := a.o.Now()
	a.settle = now.Add(SettleTime)
	a.wakeAfter(SettleTime, "interrupted turn wound down")
	if a.o.AbortReported {
		a.aborting = now.Add(SettleMax)
		a.wakeAfter(SettleMax, "interrupted turn not reported aborted; going on")
	}
}

// wakeAfter wakes the typist after d, and reports signal if the hold
// changed by then.
func (a *Activity) wakeAfter(d time.Duration, signal string) {
	time.AfterFunc(d, func() {
		notifyChan(a.changed)
		a.update(func() string {
			if a.last.Hold != a.holdLocked().Text {
				return signal
			}
			return ""
		})
	})
}

// TurnAborted takes the CLI's record that an interrupted turn has been
// aborted (AbortReported): the settle ends, SettleTime after the interrupt
// at the earliest.
func (a *Activity) TurnAborted() {
	a.update(func() string {
		if a.aborting.IsZero() {
			return ""
		}
		a.aborting = time.Time{}
		if a.last.Hold != a.holdLocked().Text {
			return SignalTurnAborted
		}
		return ""
	})
}

// holdLocked is the CLI's reason to hold, in the precedence of hold.go
// (limit, prompt, tool); the typist adds unsent keys.
func (a *Activity) holdLocked() HoldReason {
	n := len(a.tools) + a.anon
	switch {
	case a.ended:
		return HoldReason{}
	case a.limited && a.until.IsZero():
		return HoldReason{HoldByLimit, "stopped at its usage limit (until unknown)"}
	case a.limited:
		return HoldReason{HoldByLimit, "stopped at its usage limit until " + a.until.Local().Format("15:04")}
	case a.wait == WaitPermission:
		return HoldReason{HoldByPrompt, "waiting for your permission"}
	case a.wait == WaitQuestion:
		return HoldReason{HoldByPrompt, "waiting for your answer"}
	case a.wait == WaitElicitation:
		return HoldReason{HoldByPrompt, "waiting for your input"}
	case a.wait == WaitDialog:
		return HoldReason{HoldByPrompt, "waiting for your choice in a dialog"}
	case a.waking && (a.wakeUntil.IsZero() || a.o.Now().Before(a.wakeUntil)):
		return HoldReason{HoldByWaking, HoldWaking}
	case a.o.Now().Before(a.settle) || a.o.Now().Before(a.aborting):
		return HoldReason{HoldByTool, a.o.CLI + " is ending the interrupted turn"}
	case a.answered && n > 0:
		return HoldReason{HoldByTool, "you answered a prompt; waiting for " + a.o.CLI + " to go on (Esc in the pane releases)"}
	case a.afterAnswer:
		return HoldReason{HoldByTool, "you answered a prompt; waiting for " + a.o.CLI + " to end its turn (Esc in the pane releases)"}
	case n > 0:
		return HoldReason{HoldByTool, "a tool is running"}
	}
	return HoldReason{}
}

func (a *Activity) stateLocked() string {
	switch {
	case a.ended:
		return ActEnded
	case a.limited:
		return ActLimited
	case a.wait != "":
		return ActWaiting
	case !a.started:
		return ActStarting
	case a.inTurn || len(a.tools)+a.anon > 0 || len(a.agents) > 0:
		return ActWorking
	}
	return ActReady
}

func (a *Activity) snapshotLocked() ActivitySnapshot {
	tool := ""
	if len(a.tools)+a.anon > 0 {
		tool = a.tool
	}
	hold := a.holdLocked()
	return ActivitySnapshot{State: a.stateLocked(), Signal: a.signal, Wait: a.wait, Tools: len(a.tools) + a.anon, Tool: tool,
		Hold: hold.Text, HoldKind: hold.Kind, Loaded: a.loaded, Failure: a.failure, Background: a.background, Since: a.since, LimitedUntil: a.until}
}

// update applies f (which returns the deciding signal, "" for no change)
// and tells of a change.
func (a *Activity) update(f func() string) {
	snap, changed := func() (ActivitySnapshot, bool) {
		a.mu.Lock()
		defer a.mu.Unlock() // f may fail: no lock is left held
		was := a.wait
		sig := f()
		if a.wait != "" && a.wait != was {
			a.waitSeq++
		}
		a.wakeReadyLocked() // a woken seat that has now joined and started
		if sig == "" {
			return ActivitySnapshot{}, false
		}
		snap := a.snapshotLocked()
		if snap.State != a.last.State || snap.Hold != a.last.Hold || snap.Wait != a.last.Wait || snap.Tools != a.last.Tools || snap.Loaded != a.last.Loaded || snap.Failure != a.last.Failure || snap.Background != a.last.Background {
			a.signal, a.since = sig, a.o.Now()
			snap.Signal, snap.Since = sig, a.since
		} else {
			snap.Signal, snap.Since = a.signal, a.since
		}
		changed := snap != a.last
		a.last = snap
		return snap, changed
	}()
	if changed {
		notifyChan(a.changed)
		if a.o.OnChange != nil {
			a.o.OnChange(snap)
		}
	}
}

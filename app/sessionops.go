package app

// Session operations (issue 18; spec 003 AI からのセッション操作, #415 #417
// #421 #424): a running seat of this app asks, through its sidecar, to
// start, stop or restart a seat — its own or another's — with no prompt to
// the person. Who asks is the launch whose operation capability the
// connection showed at its handshake (room/socket/sessionops.go); hello
// grants nothing.
//
// Every request is saved to session-operations.json (the data folder)
// before anything runs — each change as one line appended to the journal
// beside it, folded into the file at start, at the end and whenever the
// journal has as many lines as the file has records — and a worker of its
// own, not the connection, carries it out. One requester (a seat: account
// and topic) gets a burst of opBurst new operations, then one every
// opEvery; past that, a request is refused and nothing recorded or run.
// The same operation_id with the same request from the same requester
// (account and topic: a seat that restarted itself asks again from its new
// launch) answers the same record and never runs twice; the same id with
// anything else is refused. Operations on one seat go through the seat's
// lifecycle lock, which the person's start and stop take too (seats.go),
// and check the current PTY under it. A restart checks, before it stops
// anything, that the running conversation can be resumed (its id, the
// topic's record, the resume line, the transcript) and then starts only a
// resume: never a new conversation in its place. Each finished operation is
// told once, by names, as an app notice in the requester's room; a failure
// also on the status line. Operations the app did not finish (it ended, or
// was killed) are interrupted at the end and at the next start, and never
// run again. docs/decisions.md "Session operations".

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"pullcept/room/socket"
	"pullcept/room/wire"
	"pullcept/safefile"
	"pullcept/seat"
	"pullcept/topicstore"
)

// SessionOperationsFile is the record of every session operation, in the
// data folder. Deleting it forgets which operation ids were used.
const SessionOperationsFile = "session-operations.json"

// SessionOperationsJournal, beside the file, holds the records changed
// since the file was last written whole, one JSON record a line, the
// newest line of an id winning (issue 32: writing the whole file at every
// step cost 75 ms a step after 1,000 records). It is folded into the file
// at start, at the end, and when it has as many lines as the file has
// records (at least journalMin), so a step's write does not grow with the
// history (the fold's cost, spread over the steps since the last, does
// not either).
const SessionOperationsJournal = "session-operations.journal"

const journalMin = 256

// The bound on one requester's new operations (issue 32: none, so a seat
// could make thousands): a burst of opBurst, then one every opEvery. The
// spec's use — a seat restarting itself or a few others — stays far below.
const (
	opBurst = 10
	opEvery = 6 * time.Second
)

// opsFile is the file's shape.
type opsFile struct {
	Version    int                  `json:"version"`
	Operations []wire.SessionRecord `json:"operations"`
}

// Reasons of operations that did not finish.
const (
	reasonInterruptedAtStart = "pullcept ended before this operation finished; it is not run again (list_account_sessions shows the seats as they are)"
	reasonInterruptedAtClose = "pullcept was ending before this operation finished; it is not run again (list_account_sessions shows the seats as they are)"
)

// ErrOperation reports a session operation that was not accepted.
var ErrOperation = errors.New("session operation not accepted")

// sessionOps keeps the operations of a run.
type sessionOps struct {
	a    *App
	path string
	now  func() time.Time
	// write saves the file, appendLine the journal (tests make them fail).
	write      func(path string, data []byte) error
	appendLine func(path string, line []byte) error
	journal    string

	mu        sync.Mutex
	recs      map[string]*wire.SessionRecord
	order     []string
	journaled int // lines in the journal
	budget    map[wire.SessionLaunch]*opBudget
	done      map[string]chan struct{} // closed when the record is final
	closing   bool

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// newSessionOps reads the file and interrupts what the last run left
// unfinished. notice is what the status line should say ("" for nothing).
func newSessionOps(a *App, path string) (o *sessionOps, notice string) {
	o = &sessionOps{a: a, path: path, now: time.Now, write: writeFileAtomic, appendLine: appendSynced,
		journal: filepath.Join(filepath.Dir(path), SessionOperationsJournal),
		recs:    map[string]*wire.SessionRecord{}, done: map[string]chan struct{}{}, budget: map[wire.SessionLaunch]*opBudget{}}
	o.ctx, o.cancel = context.WithCancel(context.Background())
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		data = nil
	case err != nil:
		a.log.Error("session operations: the record could not be read", "path", path, "err", err)
		return o, fmt.Sprintf("%s could not be read (%v): earlier operation ids are not known", path, err)
	}
	var f opsFile
	if data == nil {
		// no file yet: only the journal, if any
	} else if err := json.Unmarshal(data, &f); err != nil {
		aside := fmt.Sprintf("%s.unreadable-%s", path, o.now().UTC().Format("20060102T150405Z"))
		rerr := os.Rename(path, aside)
		a.log.Error("session operations: the record is not readable JSON; set aside", "path", path, "aside", aside, "err", err, "rename_err", rerr)
		return o, fmt.Sprintf("%s was not readable and was set aside as %s: earlier operation ids are not known", path, filepath.Base(aside))
	}
	for i := range f.Operations {
		r := f.Operations[i]
		if r.OperationID == "" || o.recs[r.OperationID] != nil {
			continue
		}
		o.recs[r.OperationID] = &r
		o.order = append(o.order, r.OperationID)
	}
	replayed := o.replayJournal()
	changed := 0
	for _, id := range o.order {
		if r := o.recs[id]; !wire.OpFinal(r.State) {
			r.State, r.Error, r.UpdatedAt = wire.OpInterrupted, reasonInterruptedAtStart, o.stamp()
			changed++
		}
	}
	if changed > 0 {
		a.log.Warn("session operations left unfinished by the last run were interrupted", "count", changed)
	}
	if changed > 0 || replayed {
		if err := o.compactLocked(); err != nil {
			a.log.Error("session operations: the record could not be saved", "err", err)
			return o, fmt.Sprintf("session operations: %d unfinished operation(s) interrupted, but %s could not be saved: %v", changed, path, err)
		}
	}
	return o, ""
}

// replayJournal applies the journal's records over the file's (the newest
// line of an id wins); a line that is not a record (the torn last line of
// a crash) is skipped. It says whether there was a journal.
func (o *sessionOps) replayJournal() bool {
	data, err := os.ReadFile(o.journal)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			o.a.log.Error("session operations: the journal could not be read", "path", o.journal, "err", err)
		}
		return false
	}
	bad := 0
	for _, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var r wire.SessionRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.OperationID == "" {
			bad++
			continue
		}
		if o.recs[r.OperationID] == nil {
			o.order = append(o.order, r.OperationID)
		}
		o.recs[r.OperationID] = &r
	}
	if bad > 0 {
		o.a.log.Warn("session operations: journal lines that are not records were skipped", "path", o.journal, "count", bad)
	}
	return true
}

func (o *sessionOps) stamp() string { return o.now().UTC().Format(time.RFC3339Nano) }

// saveLocked saves the record id has now (o.mu held): one line appended
// to the journal, then the fold when the journal is as long as the file.
// A fold that fails is logged and tried again at the next step: the
// journal still holds every change.
func (o *sessionOps) saveLocked(id string) error {
	r := *o.recs[id]
	r.ProcessRunning, r.RoomConnected = nil, nil
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := o.appendLine(o.journal, append(line, '\n')); err != nil {
		return err
	}
	o.journaled++
	if o.journaled >= max(journalMin, len(o.order)) {
		if err := o.compactLocked(); err != nil {
			o.a.log.Error("session operations: the journal could not be folded into the record", "err", err)
		}
	}
	return nil
}

// compactLocked writes every record to the file whole, then empties the
// journal (o.mu held). A crash between the two replays the journal over a
// file that already holds it: the same records.
func (o *sessionOps) compactLocked() error {
	f := opsFile{Version: 1, Operations: make([]wire.SessionRecord, 0, len(o.order))}
	for _, id := range o.order {
		r := *o.recs[id]
		r.ProcessRunning, r.RoomConnected = nil, nil
		f.Operations = append(f.Operations, r)
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := o.write(o.path, append(data, '\n')); err != nil {
		return err
	}
	if err := os.Remove(o.journal); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	o.journaled = 0
	return nil
}

// writeFileAtomic writes data to path whole or not at all (0600).
func writeFileAtomic(path string, data []byte) error { return safefile.Replace(path, data) }

// appendSynced appends line to path (0600) and syncs it, and the folder
// when the file is new. A write that fails is cut off again, so the next
// line does not join a torn one.
func appendSynced(path string, line []byte) error {
	_, statErr := os.Lstat(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	var size int64
	if fi, serr := f.Stat(); serr == nil {
		size = fi.Size()
	}
	_, err = f.Write(line)
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		_ = f.Truncate(size)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && statErr != nil {
		if d, derr := os.Open(filepath.Dir(path)); derr == nil {
			err = d.Sync()
			d.Close()
		}
	}
	return err
}

// opBudget is one requester's token bucket.
type opBudget struct {
	tokens float64
	at     time.Time
}

// takeLocked spends one of by's operations, or says how long until one is
// there (o.mu held).
func (o *sessionOps) takeLocked(by wire.SessionLaunch) (ok bool, wait time.Duration) {
	key := wire.SessionLaunch{AccountID: by.AccountID, TopicID: by.TopicID}
	now := o.now()
	b := o.budget[key]
	if b == nil {
		b = &opBudget{tokens: opBurst, at: now}
		o.budget[key] = b
	}
	if d := now.Sub(b.at); d > 0 {
		b.tokens = min(opBurst, b.tokens+float64(d)/float64(opEvery))
	}
	b.at = now
	if b.tokens < 1 {
		return false, time.Duration((1 - b.tokens) * float64(opEvery))
	}
	b.tokens--
	return true, 0
}

// normalise trims the request's fields and checks its shape: the rules a
// caller can fix in the request itself. What depends on the seats (an
// unknown account, a PTY that changed) is the operation's failure instead.
func normalise(op wire.SessionOperation) (wire.SessionOperation, error) {
	op.OperationID = strings.TrimSpace(op.OperationID)
	op.Action = strings.ToLower(strings.TrimSpace(op.Action))
	op.AccountID = strings.TrimSpace(op.AccountID)
	op.TopicID = strings.TrimSpace(op.TopicID)
	op.Mode = strings.ToLower(strings.TrimSpace(op.Mode))
	op.ExpectedPtyID = strings.TrimSpace(op.ExpectedPtyID)
	bad := func(format string, args ...any) (wire.SessionOperation, error) {
		return op, fmt.Errorf("%w: "+format+"; nothing was run", append([]any{ErrOperation}, args...)...)
	}
	switch {
	case op.OperationID == "":
		return bad("operation_id is missing: choose a unique id of your own (and reuse it to ask again)")
	case len(op.OperationID) > wire.MaxOperationIDLen || strings.IndexFunc(op.OperationID, func(r rune) bool { return !unicode.IsPrint(r) || unicode.IsSpace(r) }) >= 0:
		return bad("operation_id must be at most %d printable characters without spaces", wire.MaxOperationIDLen)
	case op.AccountID == "":
		return bad("account_id is missing")
	case len(op.AccountID) > wire.MaxAccountIDLen:
		return bad("account_id is over %d bytes", wire.MaxAccountIDLen)
	case op.TopicID == "":
		return bad("topic_id is missing")
	case len(op.TopicID) > topicstore.MaxIDLen:
		return bad("topic_id is over %d bytes", topicstore.MaxIDLen)
	case len(op.ExpectedPtyID) > wire.MaxOperationIDLen:
		return bad("expected_pty_id is over %d bytes", wire.MaxOperationIDLen)
	}
	switch op.Action {
	case wire.ActionStart:
		if op.Mode != wire.ModeFresh && op.Mode != wire.ModeResume {
			return bad(`start needs mode "fresh" (a new conversation) or "resume" (the topic's recorded one)`)
		}
		if op.ExpectedPtyID != "" {
			return bad("start takes no expected_pty_id (the seat is not running)")
		}
	case wire.ActionStop:
		if op.Mode != "" {
			return bad("stop takes no mode")
		}
	case wire.ActionRestart:
		if op.Mode != "" {
			return bad("restart takes no mode: it always resumes the running conversation")
		}
		if op.ExpectedPtyID == "" {
			return bad("restart needs expected_pty_id: the target's current pty_id from list_account_sessions")
		}
	case "":
		return bad(`action is missing: "start", "stop" or "restart"`)
	default:
		return bad(`action %q is not one of "start", "stop", "restart"`, wire.Cut(op.Action, 32))
	}
	return op, nil
}

// Control accepts an operation of caller's (or answers the record of the
// same request asked again).
func (o *sessionOps) Control(caller seat.LaunchRef, req wire.SessionOperation) (wire.SessionRecord, error) {
	op, err := normalise(req)
	if err != nil {
		return wire.SessionRecord{}, err
	}
	by := wire.SessionLaunch{AccountID: caller.Account, TopicID: caller.Topic, PtyID: caller.PtyID}
	o.mu.Lock()
	if r := o.recs[op.OperationID]; r != nil {
		rec := *r
		o.mu.Unlock()
		switch {
		case rec.RequestedBy.AccountID != by.AccountID || rec.RequestedBy.TopicID != by.TopicID:
			return wire.SessionRecord{}, fmt.Errorf("%w: operation_id %q was already used by another requester; choose a new id", ErrOperation, op.OperationID)
		case rec.SessionOperation != op:
			return wire.SessionRecord{}, fmt.Errorf("%w: operation_id %q was already used for a different request; choose a new id for a new request (account_session_status shows the earlier one)", ErrOperation, op.OperationID)
		}
		return o.view(rec), nil
	}
	if o.closing {
		o.mu.Unlock()
		return wire.SessionRecord{}, fmt.Errorf("%w: pullcept is ending; nothing was accepted", ErrOperation)
	}
	if ok, wait := o.takeLocked(by); !ok {
		o.mu.Unlock()
		o.a.log.Warn("session operation refused: over the requester's bound", "operation", op.OperationID, "by", by.AccountID, "topic", by.TopicID)
		return wire.SessionRecord{}, fmt.Errorf("%w: too many session operations from this seat (at most %d at once, then one every %s); nothing was run or recorded: ask again in %s, with the same operation_id",
			ErrOperation, opBurst, opEvery, wait.Round(time.Second)+time.Second)
	}
	now := o.stamp()
	rec := &wire.SessionRecord{SessionOperation: op, RequestedBy: by, State: wire.OpAccepted, AcceptedAt: now, UpdatedAt: now}
	o.recs[op.OperationID] = rec
	o.order = append(o.order, op.OperationID)
	if err := o.saveLocked(op.OperationID); err != nil {
		o.budget[wire.SessionLaunch{AccountID: by.AccountID, TopicID: by.TopicID}].tokens++ // nothing ran
		delete(o.recs, op.OperationID)
		o.order = o.order[:len(o.order)-1]
		o.mu.Unlock()
		o.a.log.Error("session operation not accepted: the record could not be saved", "operation", op.OperationID, "err", err)
		return wire.SessionRecord{}, fmt.Errorf("%w: the record could not be saved (%v); nothing was run", ErrOperation, err)
	}
	o.done[op.OperationID] = make(chan struct{})
	o.wg.Add(1)
	out := *rec
	o.mu.Unlock()
	o.a.log.Info("session operation accepted", "operation", op.OperationID, "action", op.Action, "account", op.AccountID, "topic", op.TopicID, "by", by.AccountID)
	go o.run(op.OperationID)
	return out, nil
}

// Status is the record of an operation (anyone's), with the live checks.
func (o *sessionOps) Status(id string) (wire.SessionRecord, error) {
	id = strings.TrimSpace(id)
	o.mu.Lock()
	r := o.recs[id]
	var rec wire.SessionRecord
	if r != nil {
		rec = *r
	}
	o.mu.Unlock()
	if r == nil {
		return wire.SessionRecord{}, fmt.Errorf("no session operation has operation_id %q", wire.Cut(id, wire.MaxOperationIDLen))
	}
	return o.view(rec), nil
}

// Wait returns the record once it is final, or as it is when ctx ends or
// the operations close.
func (o *sessionOps) Wait(ctx context.Context, id string) (wire.SessionRecord, error) {
	o.mu.Lock()
	done := o.done[id]
	o.mu.Unlock()
	if done != nil {
		select {
		case <-done:
		case <-ctx.Done():
		case <-o.ctx.Done():
		}
	}
	return o.Status(id)
}

// view adds the live checks of the launch the operation started.
func (o *sessionOps) view(rec wire.SessionRecord) wire.SessionRecord {
	if rec.State == wire.OpProcessStarted && rec.PtyID != "" {
		running, connected := o.a.launchLive(rec.TopicID, rec.AccountID, rec.PtyID)
		rec.ProcessRunning, rec.RoomConnected = &running, &connected
	}
	return rec
}

// launchLive says whether the launch pty of account in topic still runs
// under this app's PTY, and whether a connection of that launch (its
// capability and generation) is seated in its room.
func (a *App) launchLive(topic, account, pty string) (running, connected bool) {
	s, ok := a.seats.Seat(topic, account)
	if !ok || s.PtyID != pty {
		return false, false
	}
	running = s.State() != seat.StateExited
	connected = running && a.sock.LaunchConnected(socket.Launch{Topic: topic, Account: account, Generation: s.Generation, PtyID: s.PtyID})
	return running, connected
}

// update changes a record and saves; a record already final is left.
func (o *sessionOps) update(id string, f func(r *wire.SessionRecord)) (wire.SessionRecord, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	r := o.recs[id]
	if r == nil || wire.OpFinal(r.State) {
		return wire.SessionRecord{}, false
	}
	f(r)
	r.UpdatedAt = o.stamp()
	if err := o.saveLocked(id); err != nil {
		o.a.log.Error("session operation: the record could not be saved", "operation", id, "state", r.State, "err", err)
		o.a.bus.publish(Event{Kind: EventNotice, Notice: fmt.Sprintf("session operation %s is %s, but %s could not be saved: %v", id, r.State, SessionOperationsFile, err)})
	}
	if wire.OpFinal(r.State) {
		if d := o.done[id]; d != nil {
			close(d)
			delete(o.done, id)
		}
	}
	return *r, true
}

// outcome is how an operation ended.
type outcome struct {
	state, reason          string
	pty, stopped, launched string
}

// run carries out one operation: the seat's lifecycle lock, then the
// action, then the record and the notice.
func (o *sessionOps) run(id string) {
	defer o.wg.Done()
	o.mu.Lock()
	rec := *o.recs[id]
	o.mu.Unlock()
	unlock, err := o.a.life.lock(o.ctx, rec.TopicID, rec.AccountID)
	if err != nil {
		o.finish(id, outcome{state: wire.OpInterrupted, reason: reasonInterruptedAtClose})
		return
	}
	defer unlock()
	if o.ctx.Err() != nil {
		o.finish(id, outcome{state: wire.OpInterrupted, reason: reasonInterruptedAtClose})
		return
	}
	o.update(id, func(r *wire.SessionRecord) { r.State = wire.OpRunning })
	o.finish(id, o.execute(rec))
}

// finish records the outcome and tells the requester's room (and, for a
// failure, the status line).
func (o *sessionOps) finish(id string, out outcome) {
	rec, ok := o.update(id, func(r *wire.SessionRecord) {
		r.State, r.Error, r.PtyID, r.StoppedPtyID, r.Launched = out.state, out.reason, out.pty, out.stopped, out.launched
	})
	if !ok {
		return
	}
	o.a.log.Info("session operation finished", "operation", id, "state", rec.State, "reason", rec.Error)
	if rec.State == wire.OpInterrupted {
		return // not finished: nothing to tell but the record
	}
	text := SessionNoticeText(rec, o.a.accountNames, o.a.topicName)
	if _, err := o.a.engine.AppNotice(rec.RequestedBy.TopicID, text); err != nil {
		o.a.log.Warn("session operation notice not posted", "operation", id, "topic", rec.RequestedBy.TopicID, "err", err)
	}
	if rec.State == wire.OpFailed {
		first, _, _ := strings.Cut(text, "\n")
		o.a.bus.publish(Event{Kind: EventNotice, Notice: first + ": " + scrubIDs(rec.Error)})
	}
}

// execute runs the action under the seat's lock.
func (o *sessionOps) execute(rec wire.SessionRecord) outcome {
	a := o.a
	topic, account := rec.TopicID, rec.AccountID
	fail := func(format string, args ...any) outcome {
		return outcome{state: wire.OpFailed, reason: fmt.Sprintf(format, args...)}
	}
	acc, ok := a.account(account)
	switch {
	case account == wire.RoleAdmin || strings.EqualFold(account, a.engine.PersonName()):
		return fail("the person is not a session: only they start and stop themselves")
	case !ok:
		return fail("no configured account has this account_id (list_account_sessions lists them)")
	case !acc.Kind.Launchable():
		return fail("this account is a local MCP server, not a session: it is never started or stopped")
	case !topicstore.ValidID(topic):
		return fail("no such topic")
	}
	if a.Asleep(topic, account) { // hibernate.go: start and restart wake it, stop ends its sleep
		switch rec.Action {
		case wire.ActionStop:
			a.endSleep(topic, account)
			return outcome{state: wire.OpStopped}
		case wire.ActionStart:
			mode := seat.LaunchFresh
			if rec.Mode == wire.ModeResume {
				mode = seat.LaunchResume
			}
			return o.start(topic, account, mode, "")
		case wire.ActionRestart:
			return o.start(topic, account, seat.LaunchResume, "")
		}
	}
	cur, running := a.seats.Seat(topic, account)
	running = running && cur.State() != seat.StateExited
	stopReason := "stopped by a session operation (" + rec.OperationID + ")"
	switch rec.Action {
	case wire.ActionStart:
		if running {
			return fail("the seat is already running in this topic (pty_id %s): stop or restart it instead", cur.PtyID)
		}
		if err := a.EnsureOpen(topic); err != nil {
			return fail("no such topic")
		}
		mode := seat.LaunchFresh
		if rec.Mode == wire.ModeResume {
			mode = seat.LaunchResume
		}
		return o.start(topic, account, mode, "")
	case wire.ActionStop:
		if !running {
			return fail("the seat is not running in this topic")
		}
		if rec.ExpectedPtyID != "" && cur.PtyID != rec.ExpectedPtyID {
			return fail("the seat's current pty_id is not expected_pty_id: it was restarted or replaced since; read list_account_sessions again")
		}
		if err := a.seats.Stop(topic, account, stopReason); err != nil {
			return fail("stop: %v", err)
		}
		return outcome{state: wire.OpStopped, stopped: cur.PtyID}
	case wire.ActionRestart:
		if !running {
			return fail("the seat is not running in this topic; nothing was stopped (start it instead)")
		}
		if cur.PtyID != rec.ExpectedPtyID {
			return fail("the seat's current pty_id is not expected_pty_id: it was restarted or replaced since; nothing was stopped (read list_account_sessions again)")
		}
		if _, err := a.seats.ResumeCheck(topic, account); err != nil {
			return fail("not restarted, the seat keeps running: %v", err)
		}
		if err := a.seats.Stop(topic, account, "restart: "+stopReason); err != nil {
			return fail("stop: %v", err)
		}
		if o.ctx.Err() != nil {
			return outcome{state: wire.OpInterrupted, reason: "the seat was stopped; pullcept was ending before it started again", stopped: cur.PtyID}
		}
		return o.start(topic, account, seat.LaunchResume, cur.PtyID)
	}
	return fail("unknown action")
}

// start launches the seat (the lock held) and says how it went.
func (o *sessionOps) start(topic, account, mode, stopped string) outcome {
	var ev seat.Event
	var err error
	if o.a.Asleep(topic, account) {
		ev, err = o.a.wakeLocked(context.Background(), topic, account, seat.StartOptions{Mode: mode})
	} else {
		ev, err = o.a.seats.StartMode(context.Background(), topic, account, mode)
	}
	dropExePages() // as StartSeat
	if err != nil {
		why := err.Error()
		if stopped != "" {
			why = "the seat was stopped, but its conversation did not start again (no new conversation was started instead): " + why
		}
		return outcome{state: wire.OpFailed, reason: why, stopped: stopped}
	}
	out := outcome{state: wire.OpProcessStarted, stopped: stopped, launched: wire.ModeFresh}
	if ev.ResumedFrom != "" {
		out.launched = wire.ModeResume
	}
	if s, ok := o.a.seats.Seat(topic, account); ok {
		out.pty = s.PtyID
	}
	return out
}

// close interrupts what has not finished and waits for the workers: no
// new operation is accepted, a worker waiting for a seat's lock gives up,
// and one in the middle of a stop finishes it.
func (o *sessionOps) close() {
	o.mu.Lock()
	o.closing = true
	o.mu.Unlock()
	o.cancel()
	o.wg.Wait()
	o.mu.Lock()
	var open []string
	for _, id := range o.order {
		if !wire.OpFinal(o.recs[id].State) {
			open = append(open, id)
		}
	}
	o.mu.Unlock()
	for _, id := range open {
		o.finish(id, outcome{state: wire.OpInterrupted, reason: reasonInterruptedAtClose})
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.journaled > 0 {
		if err := o.compactLocked(); err != nil {
			o.a.log.Error("session operations: the journal could not be folded into the record", "err", err)
		}
	}
}

// List is the accounts, the open topics and their seats, for caller.
func (o *sessionOps) List(caller seat.LaunchRef) wire.SessionList {
	a := o.a
	out := wire.SessionList{You: wire.SessionLaunch{AccountID: caller.Account, TopicID: caller.Topic, PtyID: caller.PtyID},
		Accounts: []wire.SessionAccount{}, Topics: []wire.SessionTopic{}}
	for _, acc := range a.seats.Accounts() {
		sa := wire.SessionAccount{AccountID: acc.ID, Name: acc.CallName(), Kind: string(acc.Kind), Startable: acc.Kind.Launchable()}
		if acc.Name != sa.Name {
			sa.FullName = acc.Name
		}
		out.Accounts = append(out.Accounts, sa)
	}
	topics := a.engine.Topics()
	seen := map[string]bool{}
	for _, t := range topics {
		seen[t] = true
	}
	for _, s := range a.seats.All() { // a seat keeps its topic open
		if !seen[s.Topic] {
			seen[s.Topic] = true
			topics = append(topics, s.Topic)
		}
	}
	for _, t := range topics {
		st := wire.SessionTopic{TopicID: t, Name: a.topicName(t), Sessions: []wire.SessionSeat{}}
		for _, s := range a.seats.Seats(t) {
			running, connected := a.launchLive(t, s.Account.ID, s.PtyID)
			st.Sessions = append(st.Sessions, wire.SessionSeat{AccountID: s.Account.ID, Name: a.seats.CallName(s), PtyID: s.PtyID,
				State: s.State(), ProcessRunning: running, RoomConnected: connected})
		}
		for _, s := range a.sleepingSeats(t) { // no process, no launch: start wakes it
			st.Sessions = append(st.Sessions, wire.SessionSeat{AccountID: s.Account, Name: s.Name, State: StateAsleep})
		}
		out.Topics = append(out.Topics, st)
	}
	return out
}

// topicName is a topic's name ("" when it has none).
func (a *App) topicName(topic string) string {
	t, err := a.store.Get(topic)
	if err != nil {
		return ""
	}
	return t.Name
}

// Names in the notices.
const (
	SelfName    = "自分"
	UnknownName = "不明なアカウント"
)

var opVerbs = map[string]string{wire.ActionStart: "起動", wire.ActionStop: "停止", wire.ActionRestart: "再起動"}

// SessionNoticeText is the app notice of a finished operation (#421,
// #424): who did what to whom and how it went, by names — the requester's
// calling name, the target's, 「自分」 when they are one account (by id),
// 「不明なアカウント」 for an account not configured — then 「理由: …」 for
// a failure and 「operation_id: …」 last. The target's topic is named when
// it is not the requester's. No topic, account or PTY id is in the text
// (a reason's ids are cut out); room.NoReply is added by the room.
func SessionNoticeText(rec wire.SessionRecord, names func(account string) (name, full string, ok bool), topicName func(string) string) string {
	name := func(account string) string {
		if n, _, ok := names(account); ok && n != "" {
			return n
		}
		return UnknownName
	}
	who := name(rec.RequestedBy.AccountID)
	target := name(rec.AccountID)
	if rec.AccountID == rec.RequestedBy.AccountID {
		target = SelfName
	}
	if rec.TopicID != rec.RequestedBy.TopicID {
		t := topicName(rec.TopicID)
		if t == "" {
			t = "名前の無いトピック"
		}
		target = joinJP("「"+scrubIDs(t)+"」の", target)
	}
	verb := opVerbs[rec.Action]
	if verb == "" {
		verb = "操作"
	}
	result := "成功"
	if rec.State == wire.OpFailed {
		result = "失敗"
	}
	var b strings.Builder
	b.WriteString(joinJP(who, "が", target, "を"+verb+"しました（"+result+"）"))
	if rec.State == wire.OpFailed && rec.Error != "" {
		b.WriteString("\n理由: " + scrubIDs(wire.OneLine(rec.Error)))
	}
	b.WriteString("\noperation_id: " + rec.OperationID)
	return b.String()
}

// joinJP joins the pieces of a Japanese sentence, with a space where a
// piece meets a name written in Latin letters (「Lin が Lay を」, 「Lin が自分
// を」).
func joinJP(parts ...string) string {
	var b strings.Builder
	for i, p := range parts {
		if p == "" {
			continue
		}
		if i > 0 && b.Len() > 0 {
			last, _ := utf8.DecodeLastRuneInString(b.String())
			first, _ := utf8.DecodeRuneInString(p)
			if !wideRune(last) || !wideRune(first) {
				b.WriteByte(' ')
			}
		}
		b.WriteString(p)
	}
	return b.String()
}

// wideRune: a character of Japanese text (kana, kanji, full-width forms and
// punctuation), which takes no space beside another.
func wideRune(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) || (r >= 0x3000 && r <= 0x303f) || (r >= 0xff00 && r <= 0xffef)
}

// uuidRE matches a UUID (topic ids, PTY ids, session ids). It is compiled
// on first use: compiled at package level it was 70 of this package's 72
// allocations at every start of every subcommand (docs/performance.md
// "Start-up").
var uuidRE = lazyRegexp{expr: `(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`}

// lazyRegexp is a regexp compiled the first time it is used.
type lazyRegexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}

func (l *lazyRegexp) MatchString(s string) bool { return l.get().MatchString(s) }

func (l *lazyRegexp) ReplaceAllString(src, repl string) string {
	return l.get().ReplaceAllString(src, repl)
}

// scrubIDs cuts the UUIDs out of a text for the room: the ids are in the
// record (account_session_status).
func scrubIDs(s string) string {
	return uuidRE.ReplaceAllString(s, "…")
}

// opsAdapter is the app's session operations as the room socket takes
// them.
type opsAdapter struct{ a *App }

func toRef(l socket.Launch) seat.LaunchRef {
	return seat.LaunchRef{Topic: l.Topic, Account: l.Account, Generation: l.Generation, PtyID: l.PtyID}
}

func (o opsAdapter) LaunchOf(capability string) (socket.Launch, bool) {
	l, ok := o.a.seats.LaunchOf(capability)
	return socket.Launch{Topic: l.Topic, Account: l.Account, Generation: l.Generation, PtyID: l.PtyID}, ok
}

func (o opsAdapter) Alive(l socket.Launch) bool { return o.a.seats.Alive(toRef(l)) }

func (o opsAdapter) List(caller socket.Launch) (wire.SessionList, error) {
	return o.a.ops.List(toRef(caller)), nil
}

func (o opsAdapter) Status(_ socket.Launch, id string) (wire.SessionRecord, error) {
	return o.a.ops.Status(id)
}

func (o opsAdapter) Control(caller socket.Launch, op wire.SessionOperation) (wire.SessionRecord, error) {
	return o.a.ops.Control(toRef(caller), op)
}

func (o opsAdapter) Wait(ctx context.Context, id string) (wire.SessionRecord, error) {
	return o.a.ops.Wait(ctx, id)
}

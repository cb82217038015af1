package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"pullcept/dirs"
	"pullcept/room"
	"pullcept/room/socket"
	"pullcept/room/wire"
	"pullcept/seat"
)

// capabilityOf is the operation capability the i-th launch got in its
// environment.
func capabilityOf(t *testing.T, st *fakeStarter, i int) string {
	t.Helper()
	st.mu.Lock()
	defer st.mu.Unlock()
	if i >= len(st.specs) {
		t.Fatalf("launch %d never happened (%d launches)", i, len(st.specs))
	}
	for _, kv := range st.specs[i].Env {
		if v, ok := strings.CutPrefix(kv, seat.EnvOperationCapability+"="); ok && v != "" {
			return v
		}
	}
	t.Fatalf("launch %d has no %s in its environment", i, seat.EnvOperationCapability)
	return ""
}

func launches(st *fakeStarter) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.specs)
}

// opsConn is a sidecar-like connection: the token, maybe a capability.
type opsConn struct {
	t  *testing.T
	c  *websocket.Conn
	id int
}

// dialOps connects (with capability, when given) and says hello.
func dialOps(t *testing.T, a *App, capability, topic, account, name string) *opsConn {
	t.Helper()
	h := http.Header{"Authorization": {"Bearer " + a.Token()}}
	if capability != "" {
		h.Set(socket.CapabilityHeader, capability)
	}
	c, resp, err := websocket.DefaultDialer.Dial(a.URL(), h)
	if err != nil {
		code := 0
		if resp != nil {
			code = resp.StatusCode
		}
		t.Fatalf("dial: %v (%d)", err, code)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.WriteJSON(wire.Hello{Type: wire.TypeHello, Protocol: wire.ProtocolVersion, Name: name, Room: topic, AccountID: account}); err != nil {
		t.Fatal(err)
	}
	return &opsConn{t: t, c: c}
}

// ask sends a session frame and reads up to its session_result.
func (o *opsConn) ask(frame map[string]any) wire.SessionResult {
	o.t.Helper()
	o.id++
	rid := fmt.Sprint("r", o.id)
	frame["request_id"] = rid
	if err := o.c.WriteJSON(frame); err != nil {
		o.t.Fatal(err)
	}
	o.c.SetReadDeadline(time.Now().Add(20 * time.Second))
	for {
		_, data, err := o.c.ReadMessage()
		if err != nil {
			o.t.Fatalf("no session_result for %s: %v", rid, err)
		}
		typ, v, err := wire.Decode(data)
		if err != nil {
			o.t.Fatal(err)
		}
		if r, ok := v.(*wire.SessionResult); ok && typ == wire.TypeSessionResult && r.RequestID == rid {
			return *r
		}
	}
}

func (o *opsConn) list() (wire.SessionList, error) {
	o.t.Helper()
	r := o.ask(map[string]any{"type": wire.TypeSessionList})
	if r.Error != "" {
		return wire.SessionList{}, errors.New(r.Error)
	}
	var l wire.SessionList
	if err := json.Unmarshal(r.Result, &l); err != nil {
		o.t.Fatal(err)
	}
	return l, nil
}

func (o *opsConn) control(op wire.SessionOperation) (wire.SessionRecord, error) {
	o.t.Helper()
	return o.record(o.ask(map[string]any{"type": wire.TypeSessionControl, "operation": op}))
}

func (o *opsConn) status(id string) (wire.SessionRecord, error) {
	o.t.Helper()
	return o.record(o.ask(map[string]any{"type": wire.TypeSessionStatus, "operation_id": id}))
}

func (o *opsConn) record(r wire.SessionResult) (wire.SessionRecord, error) {
	o.t.Helper()
	if r.Error != "" {
		return wire.SessionRecord{}, errors.New(r.Error)
	}
	var rec wire.SessionRecord
	if err := json.Unmarshal(r.Result, &rec); err != nil {
		o.t.Fatal(err)
	}
	return rec, nil
}

// final waits for an operation's final record.
func final(t *testing.T, a *App, id string) wire.SessionRecord {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rec, err := a.ops.Wait(ctx, id)
	if err != nil || !wire.OpFinal(rec.State) {
		t.Fatalf("operation %s did not finish: %+v %v", id, rec, err)
	}
	return rec
}

// appNotice waits for the app notice that ends with operation_id id.
func appNotice(t *testing.T, sub *Subscription, id string) RoomEvent {
	t.Helper()
	for {
		ev := next(t, sub)
		if ev.Kind == EventRoom && ev.Room.Kind == RoomPost && strings.HasSuffix(ev.Room.Post.Content, "\noperation_id: "+id) {
			return ev.Room
		}
	}
}

func pty(t *testing.T, a *App, topic, account string) string {
	t.Helper()
	s, ok := a.seats.Seat(topic, account)
	if !ok || s.State() == seat.StateExited {
		t.Fatalf("%s is not running in %s", account, topic)
	}
	return s.PtyID
}

// opsAccounts: Lin and Lay resume their conversations (a cli account's
// record is its conversation); Bob never learns an id; Nor has no resume
// line; gh is a local MCP server.
func opsAccounts() []seat.Account {
	return []seat.Account{
		{ID: "lin", Name: "Lin", Kind: seat.KindCLI, Command: "lin-cli --session {session_id}", Resume: "lin-cli --resume {session_id}"},
		{ID: "lay", Name: "Lay", Kind: seat.KindCLI, Command: "lay-cli --session {session_id}", Resume: "lay-cli --resume {session_id}"},
		{ID: "bob", Name: "Bob", Kind: seat.KindCLI, Command: "bob-cli", Resume: "bob-cli --resume {session_id}"},
		{ID: "nor", Name: "Nor", Kind: seat.KindCLI, Command: "nor-cli --session {session_id}"},
		{ID: "gh", Name: "GitHub", Kind: seat.KindMCP},
	}
}

type opsFixture struct {
	a     *App
	st    *fakeStarter
	sub   *Subscription
	topic string
}

func newOpsFixture(t *testing.T) *opsFixture {
	t.Helper()
	st := &fakeStarter{argv: []string{"/bin/sh", "-c", "echo up; sleep 60"}}
	a := newApp(t, opsAccounts(), st)
	sub := a.Subscribe()
	t.Cleanup(sub.Close)
	topic, err := a.NewTopic()
	if err != nil {
		t.Fatal(err)
	}
	return &opsFixture{a: a, st: st, sub: sub, topic: topic}
}

// start starts account as the person does and returns its launch index.
func (f *opsFixture) start(t *testing.T, account string) int {
	t.Helper()
	n := launches(f.st)
	if _, err := f.a.StartSeat(context.Background(), f.topic, account); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSessionOpsCapability: only a connection that showed a running
// launch's capability at its handshake may ask. A forged hello (the right
// account and room, no capability) gets nothing; a wrong capability is
// refused at the handshake; a second connection with the capability (a
// child of the CLI) asks as that launch whatever its hello claims; the
// connection of a launch that ended is refused, and so is a new handshake
// with its capability.
func TestSessionOpsCapability(t *testing.T) {
	t.Parallel()
	f := newOpsFixture(t)
	linCap := capabilityOf(t, f.st, f.start(t, "lin"))
	f.start(t, "lay")

	forged := dialOps(t, f.a, "", f.topic, "lin", "Lin")
	if _, err := forged.list(); err == nil || !strings.Contains(err.Error(), "no operation capability") {
		t.Fatalf("a forged hello listed the sessions: %v", err)
	}
	if _, err := forged.control(wire.SessionOperation{OperationID: "forged-1", Action: "stop", AccountID: "lay", TopicID: f.topic}); err == nil {
		t.Fatal("a forged hello stopped a seat")
	}
	if _, err := f.a.ops.Status("forged-1"); err == nil {
		t.Fatal("a refused request left a record")
	}

	h := http.Header{"Authorization": {"Bearer " + f.a.Token()}, socket.CapabilityHeader: {"not-a-capability"}}
	if _, resp, err := websocket.DefaultDialer.Dial(f.a.URL(), h); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a wrong capability was not refused at the handshake: %v", err)
	}

	lin := dialOps(t, f.a, linCap, f.topic, "lin", "Lin")
	l, err := lin.list()
	if err != nil {
		t.Fatal(err)
	}
	if l.You.AccountID != "lin" || l.You.TopicID != f.topic || l.You.PtyID != pty(t, f.a, f.topic, "lin") {
		t.Fatalf("you = %+v", l.You)
	}
	// A second socket with the same capability, claiming to be Lay: it
	// asks as Lin's launch.
	second := dialOps(t, f.a, linCap, f.topic, "lay", "Lay")
	rec, err := second.control(wire.SessionOperation{OperationID: "second-1", Action: "stop", AccountID: "nor", TopicID: f.topic})
	if err != nil {
		t.Fatal(err)
	}
	if rec.RequestedBy.AccountID != "lin" {
		t.Fatalf("the requester came from hello: %+v", rec.RequestedBy)
	}

	if err := f.a.StopSeat(f.topic, "lin", "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := lin.list(); err == nil || !strings.Contains(err.Error(), "has ended") {
		t.Fatalf("the ended launch's connection still asks: %v", err)
	}
	if _, resp, err := websocket.DefaultDialer.Dial(f.a.URL(), http.Header{"Authorization": {"Bearer " + f.a.Token()}, socket.CapabilityHeader: {linCap}}); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("an ended launch's capability was taken at a handshake: %v", err)
	}
}

// TestSessionOpsSecretNotShown: the capability is in the CLI's environment
// only: not in argv, the MCP registration file, the list, the record or
// the app's log.
func TestSessionOpsSecretNotShown(t *testing.T) {
	t.Parallel()
	f := newOpsFixture(t)
	i := f.start(t, "lin")
	capability := capabilityOf(t, f.st, i)
	f.st.mu.Lock()
	spec := f.st.specs[i]
	f.st.mu.Unlock()
	if strings.Contains(strings.Join(spec.Argv, " "), capability) {
		t.Fatalf("the capability is in argv: %q", spec.Argv)
	}
	var reg string
	for _, kv := range spec.Env {
		if v, ok := strings.CutPrefix(kv, seat.EnvMCPConfig+"="); ok {
			reg = v
		}
	}
	data, err := os.ReadFile(reg)
	if err != nil {
		t.Fatalf("the registration file: %v", err)
	}
	if strings.Contains(string(data), capability) {
		t.Fatal("the capability is in the MCP registration file")
	}
	c := dialOps(t, f.a, capability, f.topic, "lin", "Lin")
	r := c.ask(map[string]any{"type": wire.TypeSessionList})
	if r.Error != "" || strings.Contains(string(r.Result), capability) {
		t.Fatalf("the list: %s %s", r.Result, r.Error)
	}
	rec, err := c.control(wire.SessionOperation{OperationID: "show-1", Action: "start", Mode: "fresh", AccountID: "lay", TopicID: f.topic})
	if err != nil {
		t.Fatal(err)
	}
	final(t, f.a, rec.OperationID)
	f.a.Close()
	for _, p := range []string{filepath.Join(f.a.dirs.State, "pullcept.log"), filepath.Join(f.a.dirs.Data, SessionOperationsFile)} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), capability) {
			t.Fatalf("the capability is in %s", p)
		}
	}
}

// TestSessionOpsRestartOther: Lin restarts Lay: Lay's conversation is
// resumed in a new PTY, the record says so with the live checks, the room
// gets one notice by names, and asking again with the same id returns the
// same record without a second run.
func TestSessionOpsRestartOther(t *testing.T) {
	t.Parallel()
	f := newOpsFixture(t)
	linCap := capabilityOf(t, f.st, f.start(t, "lin"))
	f.start(t, "lay")
	layPty := pty(t, f.a, f.topic, "lay")
	lin := dialOps(t, f.a, linCap, f.topic, "lin", "Lin")

	l, err := lin.list()
	if err != nil {
		t.Fatal(err)
	}
	var listed string
	for _, tp := range l.Topics {
		for _, s := range tp.Sessions {
			if tp.TopicID == f.topic && s.AccountID == "lay" {
				listed = s.PtyID
			}
		}
	}
	if listed != layPty || len(l.Accounts) != 5 || l.Accounts[4].Startable {
		t.Fatalf("the list: %+v", l)
	}
	op := wire.SessionOperation{OperationID: "restart-lay-01", Action: "restart", AccountID: "lay", TopicID: f.topic, ExpectedPtyID: layPty}
	rec, err := lin.control(op)
	if err != nil {
		t.Fatal(err)
	}
	if rec.State != wire.OpProcessStarted || rec.Launched != wire.ModeResume || rec.StoppedPtyID != layPty || rec.PtyID == "" || rec.PtyID == layPty {
		t.Fatalf("the record: %+v", rec)
	}
	if rec.ProcessRunning == nil || !*rec.ProcessRunning || rec.RoomConnected == nil || *rec.RoomConnected {
		t.Fatalf("live checks: running %v, connected %v (no sidecar of the new launch yet)", rec.ProcessRunning, rec.RoomConnected)
	}
	f.st.mu.Lock()
	last := f.st.specs[len(f.st.specs)-1]
	f.st.mu.Unlock()
	if last.Argv[0] != "lay-cli" || last.Argv[1] != "--resume" {
		t.Fatalf("the restart did not resume: %q", last.Argv)
	}
	n := appNotice(t, f.sub, "restart-lay-01")
	if want := "Lin が Lay を再起動しました（成功）" + room.NoReply + "\noperation_id: restart-lay-01"; n.Post.Content != want {
		t.Fatalf("the notice = %q, want %q", n.Post.Content, want)
	}
	if n.Role != wire.RoleApp || n.Post.Speaker != room.AppName || !n.Post.FromApp {
		t.Fatalf("the notice came as %q from %q (from_app %v)", n.Role, n.Post.Speaker, n.Post.FromApp)
	}

	// The new launch's sidecar connects with its own capability: now
	// room_connected (by its launch, not its name).
	newCap := capabilityOf(t, f.st, launches(f.st)-1)
	dialOps(t, f.a, newCap, f.topic, "lay", "Lay")
	for {
		if ev := next(t, f.sub); ev.Kind == EventRoom && ev.Room.Kind == RoomRoster && len(ev.Room.Participants) == 3 {
			break
		}
	}
	again, err := lin.control(op)
	if err != nil {
		t.Fatal(err)
	}
	if again.PtyID != rec.PtyID || again.AcceptedAt != rec.AcceptedAt || again.RoomConnected == nil || !*again.RoomConnected {
		t.Fatalf("asked again: %+v", again)
	}
	if got := launches(f.st); got != 3 {
		t.Fatalf("%d launches: the retry ran again", got)
	}
	// Anyone with a capability may read it.
	layConn := dialOps(t, f.a, newCap, f.topic, "lay", "Lay")
	if st, err := layConn.status("restart-lay-01"); err != nil || st.PtyID != rec.PtyID {
		t.Fatalf("status: %+v %v", st, err)
	}
	// The same id for something else, or by someone else, is refused.
	other := op
	other.ExpectedPtyID = rec.PtyID
	if _, err := lin.control(other); err == nil || !strings.Contains(err.Error(), "different request") {
		t.Fatalf("another request under the id: %v", err)
	}
	if _, err := layConn.control(op); err == nil || !strings.Contains(err.Error(), "another requester") {
		t.Fatalf("another requester under the id: %v", err)
	}
	if got := launches(f.st); got != 3 {
		t.Fatalf("%d launches after the refusals", got)
	}
}

// TestSessionOpsRestartRefused: a restart that could not resume leaves the
// target running, in the same PTY: no id known, no resume line, a PTY that
// is not the expected one, the person as target, a local MCP server.
func TestSessionOpsRestartRefused(t *testing.T) {
	t.Parallel()
	f := newOpsFixture(t)
	linCap := capabilityOf(t, f.st, f.start(t, "lin"))
	f.start(t, "bob")
	f.start(t, "nor")
	lin := dialOps(t, f.a, linCap, f.topic, "lin", "Lin")
	before := launches(f.st)
	for _, c := range []struct {
		account, expected, want string
	}{
		{"bob", pty(t, f.a, f.topic, "bob"), "conversation id is not known"},
		{"nor", pty(t, f.a, f.topic, "nor"), "no resume line"},
		{"lin", "not-the-pty", "not expected_pty_id"},
		{"Master", "x", "the person is not a session"},
		{"gh", "x", "local MCP server"},
	} {
		var was string
		if s, ok := f.a.seats.Seat(f.topic, c.account); ok {
			was = s.PtyID
		}
		id := "refused-" + c.account
		rec, err := lin.control(wire.SessionOperation{OperationID: id, Action: "restart", AccountID: c.account, TopicID: f.topic, ExpectedPtyID: c.expected})
		if err != nil {
			t.Fatal(err)
		}
		if rec.State != wire.OpFailed || !strings.Contains(rec.Error, c.want) || rec.StoppedPtyID != "" {
			t.Fatalf("%s: %+v", c.account, rec)
		}
		if was != "" && pty(t, f.a, f.topic, c.account) != was {
			t.Fatalf("%s was restarted anyway", c.account)
		}
		// The room's notice and the status line's, in either order.
		var post, status string
		for post == "" || status == "" {
			switch ev := next(t, f.sub); {
			case ev.Kind == EventRoom && ev.Room.Kind == RoomPost && strings.HasSuffix(ev.Room.Post.Content, "\noperation_id: "+id):
				post = ev.Room.Post.Content
			case ev.Kind == EventNotice && strings.Contains(ev.Notice, "（失敗）") && strings.Contains(ev.Notice, c.want):
				status = ev.Notice
			}
		}
		if !strings.Contains(post, "を再起動しました（失敗）"+room.NoReply+"\n理由: ") {
			t.Fatalf("the failure notice: %q", post)
		}
	}
	if got := launches(f.st); got != before {
		t.Fatalf("%d launches during refused restarts", got-before)
	}
}

// TestSessionOpsTranscriptMissing: a Claude seat whose transcript is gone
// is not restarted (no silent fresh start) and keeps running.
func TestSessionOpsTranscriptMissing(t *testing.T) {
	t.Parallel()
	cfg := t.TempDir()
	st := &fakeStarter{argv: []string{"/bin/sh", "-c", "echo up; sleep 60"}}
	accounts := append(opsAccounts(), seat.Account{ID: "cla", Name: "Cla", Kind: seat.KindClaudeCode, Dir: t.TempDir(), Env: map[string]string{"CLAUDE_CONFIG_DIR": cfg}})
	a := newApp(t, accounts, st)
	f := &opsFixture{a: a, st: st, sub: a.Subscribe(), topic: ""}
	t.Cleanup(f.sub.Close)
	f.topic, _ = a.NewTopic()
	linCap := capabilityOf(t, st, f.start(t, "lin"))
	f.start(t, "cla")
	was := pty(t, a, f.topic, "cla")
	lin := dialOps(t, a, linCap, f.topic, "lin", "Lin")
	rec, err := lin.control(wire.SessionOperation{OperationID: "cla-1", Action: "restart", AccountID: "cla", TopicID: f.topic, ExpectedPtyID: was})
	if err != nil {
		t.Fatal(err)
	}
	if rec.State != wire.OpFailed || !strings.Contains(rec.Error, "transcript was not found") || pty(t, a, f.topic, "cla") != was || launches(st) != 2 {
		t.Fatalf("%+v (launches %d)", rec, launches(st))
	}
	// A start with mode resume refuses the same way, and starts nothing.
	if err := a.StopSeat(f.topic, "cla", "test"); err != nil {
		t.Fatal(err)
	}
	rec, err = lin.control(wire.SessionOperation{OperationID: "cla-2", Action: "start", Mode: "resume", AccountID: "cla", TopicID: f.topic})
	if err != nil {
		t.Fatal(err)
	}
	if rec.State != wire.OpFailed || !strings.Contains(rec.Error, "no transcript") || launches(st) != 2 {
		t.Fatalf("%+v (launches %d)", rec, launches(st))
	}
	if t2, _ := a.TopicByID(f.topic); t2.Sessions["cla"] == "" {
		t.Fatal("a refused resume dropped the record")
	}
}

// TestSessionOpsConflictWithPerson: an operation waits for the seat's
// lifecycle lock while the person's start holds it, then judges the seat
// as the person left it.
func TestSessionOpsConflictWithPerson(t *testing.T) {
	t.Parallel()
	f := newOpsFixture(t)
	linCap := capabilityOf(t, f.st, f.start(t, "lin"))
	lin := dialOps(t, f.a, linCap, f.topic, "lin", "Lin")

	unlock, err := f.a.life.lock(context.Background(), f.topic, "lay") // the person's start, in progress
	if err != nil {
		t.Fatal(err)
	}
	rec, err := f.a.ops.Control(seat.LaunchRef{Topic: f.topic, Account: "lin"}, wire.SessionOperation{OperationID: "start-lay", Action: "start", Mode: "fresh", AccountID: "lay", TopicID: f.topic})
	if err != nil || rec.State != wire.OpAccepted {
		t.Fatalf("%+v %v", rec, err)
	}
	if st, _ := lin.status("start-lay"); st.State != wire.OpAccepted || launches(f.st) != 1 {
		t.Fatalf("the operation ran under the person's lock: %+v", st)
	}
	if _, err := f.a.seats.Start(context.Background(), f.topic, "lay"); err != nil {
		t.Fatal(err)
	}
	person := pty(t, f.a, f.topic, "lay")
	unlock()
	rec = final(t, f.a, "start-lay")
	if rec.State != wire.OpFailed || !strings.Contains(rec.Error, "already running") || pty(t, f.a, f.topic, "lay") != person {
		t.Fatalf("%+v", rec)
	}

	// Two restarts of one PTY under different ids: one restarts, the
	// other finds the PTY changed.
	ops := []wire.SessionOperation{
		{OperationID: "r-a", Action: "restart", AccountID: "lay", TopicID: f.topic, ExpectedPtyID: person},
		{OperationID: "r-b", Action: "restart", AccountID: "lay", TopicID: f.topic, ExpectedPtyID: person},
	}
	for _, op := range ops {
		if _, err := f.a.ops.Control(seat.LaunchRef{Topic: f.topic, Account: "lin"}, op); err != nil {
			t.Fatal(err)
		}
	}
	a, b := final(t, f.a, "r-a"), final(t, f.a, "r-b")
	states := map[string]int{a.State: 1}
	states[b.State]++
	if states[wire.OpProcessStarted] != 1 || states[wire.OpFailed] != 1 {
		t.Fatalf("two restarts of one PTY: %+v / %+v", a, b)
	}
}

// TestSessionOpsInterrupted: what a run left unfinished is interrupted at
// the next start and never run; what is unfinished at Close is interrupted
// too.
func TestSessionOpsInterrupted(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	f := opsFile{Version: 1, Operations: []wire.SessionRecord{
		{SessionOperation: wire.SessionOperation{OperationID: "left-1", Action: "start", Mode: "fresh", AccountID: "lay", TopicID: "t1"}, RequestedBy: wire.SessionLaunch{AccountID: "lin", TopicID: "t1"}, State: wire.OpRunning},
		{SessionOperation: wire.SessionOperation{OperationID: "left-2", Action: "stop", AccountID: "lay", TopicID: "t1"}, RequestedBy: wire.SessionLaunch{AccountID: "lin", TopicID: "t1"}, State: wire.OpAccepted},
		{SessionOperation: wire.SessionOperation{OperationID: "done-1", Action: "stop", AccountID: "lay", TopicID: "t1"}, RequestedBy: wire.SessionLaunch{AccountID: "lin", TopicID: "t1"}, State: wire.OpStopped},
	}}
	data, _ := json.Marshal(f)
	if err := os.WriteFile(filepath.Join(home, SessionOperationsFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
	st := &fakeStarter{argv: []string{"/bin/sh", "-c", "sleep 60"}}
	a := startAt(t, home, st)
	for id, want := range map[string]string{"left-1": wire.OpInterrupted, "left-2": wire.OpInterrupted, "done-1": wire.OpStopped} {
		rec, err := a.ops.Status(id)
		if err != nil || rec.State != want {
			t.Fatalf("%s: %+v %v", id, rec, err)
		}
	}
	if launches(st) != 0 {
		t.Fatal("an interrupted operation was run")
	}
	// Asked again with the same id, it stays interrupted.
	rec, err := a.ops.Control(seat.LaunchRef{Topic: "t1", Account: "lin"}, f.Operations[0].SessionOperation)
	if err != nil || rec.State != wire.OpInterrupted || launches(st) != 0 {
		t.Fatalf("%+v %v", rec, err)
	}

	// At Close: an operation still waiting for its seat is interrupted.
	topic, _ := a.NewTopic()
	unlock, _ := a.life.lock(context.Background(), topic, "lay")
	if _, err := a.ops.Control(seat.LaunchRef{Topic: topic, Account: "lin"}, wire.SessionOperation{OperationID: "at-close", Action: "start", Mode: "fresh", AccountID: "lay", TopicID: topic}); err != nil {
		t.Fatal(err)
	}
	a.Close()
	unlock()
	b := startAt(t, home, st)
	if rec, err := b.ops.Status("at-close"); err != nil || rec.State != wire.OpInterrupted || launches(st) != 0 {
		t.Fatalf("%+v %v", rec, err)
	}
}

func startAt(t *testing.T, home string, st *fakeStarter) *App {
	t.Helper()
	d, err := dirs.Resolve(func(k string) string { return map[string]string{"PULLCEPT_HOME": home}[k] })
	if err != nil {
		t.Fatal(err)
	}
	a, err := Start(context.Background(), Options{Dirs: d, PersonName: "Master", Accounts: opsAccounts(), ExePath: "/bin/false", StartPane: st.start})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

// TestSessionOpsSaveFirst: a request whose record cannot be saved is not
// accepted and runs nothing.
func TestSessionOpsSaveFirst(t *testing.T) {
	t.Parallel()
	f := newOpsFixture(t)
	f.a.ops.mu.Lock()
	f.a.ops.write = func(string, []byte) error { return errors.New("disk full") }
	f.a.ops.appendLine = func(string, []byte) error { return errors.New("disk full") }
	f.a.ops.mu.Unlock()
	_, err := f.a.ops.Control(seat.LaunchRef{Topic: f.topic, Account: "lin"}, wire.SessionOperation{OperationID: "unsaved", Action: "start", Mode: "fresh", AccountID: "lay", TopicID: f.topic})
	if err == nil || !strings.Contains(err.Error(), "could not be saved") {
		t.Fatalf("%v", err)
	}
	if _, err := f.a.ops.Status("unsaved"); err == nil || launches(f.st) != 0 {
		t.Fatal("an unsaved request was kept or run")
	}
}

// TestSessionOpsRequestShape: the request rules a caller can fix are
// refused with no record.
func TestSessionOpsRequestShape(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		op   wire.SessionOperation
		want string
	}{
		{wire.SessionOperation{Action: "stop", AccountID: "a", TopicID: "t"}, "operation_id is missing"},
		{wire.SessionOperation{OperationID: "has space", Action: "stop", AccountID: "a", TopicID: "t"}, "printable"},
		{wire.SessionOperation{OperationID: "x", Action: "start", AccountID: "a", TopicID: "t"}, "start needs mode"},
		{wire.SessionOperation{OperationID: "x", Action: "restart", AccountID: "a", TopicID: "t"}, "needs expected_pty_id"},
		{wire.SessionOperation{OperationID: "x", Action: "restart", Mode: "fresh", AccountID: "a", TopicID: "t", ExpectedPtyID: "p"}, "takes no mode"},
		{wire.SessionOperation{OperationID: "x", Action: "stop", Mode: "fresh", AccountID: "a", TopicID: "t"}, "stop takes no mode"},
		{wire.SessionOperation{OperationID: "x", Action: "kill", AccountID: "a", TopicID: "t"}, "is not one of"},
		{wire.SessionOperation{OperationID: "x", Action: "stop", TopicID: "t"}, "account_id is missing"},
	} {
		if _, err := normalise(c.op); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.op, err, c.want)
		}
	}
}

// TestSessionNoticeText: the notice by names (#421, #424).
func TestSessionNoticeText(t *testing.T) {
	t.Parallel()
	names := func(account string) (string, string, bool) {
		n, ok := map[string]string{"lin": "Lin", "lay": "Luna"}[account]
		return n, "", ok
	}
	topics := func(string) string { return "設計の相談" }
	rec := func(action, account, topic, state, reason string) wire.SessionRecord {
		return wire.SessionRecord{SessionOperation: wire.SessionOperation{OperationID: "op-1", Action: action, AccountID: account, TopicID: topic},
			RequestedBy: wire.SessionLaunch{AccountID: "lin", TopicID: "t1", PtyID: "0193e3a4-5b6c-7d8e-9f00-112233445566"}, State: state, Error: reason}
	}
	for _, c := range []struct {
		rec  wire.SessionRecord
		want string
	}{
		{rec("restart", "lay", "t1", wire.OpProcessStarted, ""), "Lin が Luna を再起動しました（成功）\noperation_id: op-1"},
		{rec("restart", "lin", "t1", wire.OpProcessStarted, ""), "Lin が自分を再起動しました（成功）\noperation_id: op-1"},
		{rec("stop", "zed", "t1", wire.OpFailed, "no configured account has this account_id"), "Lin が不明なアカウントを停止しました（失敗）\n理由: no configured account has this account_id\noperation_id: op-1"},
		{rec("start", "lay", "t2", wire.OpFailed, "launch lay in topic 0193e3a4-5b6c-7d8e-9f00-112233445566: boom"), "Lin が「設計の相談」の Luna を起動しました（失敗）\n理由: launch lay in topic …: boom\noperation_id: op-1"},
		{rec("stop", "lay", "t1", wire.OpStopped, ""), "Lin が Luna を停止しました（成功）\noperation_id: op-1"},
	} {
		if got := SessionNoticeText(c.rec, names, topics); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
		if uuidRE.MatchString(SessionNoticeText(c.rec, names, topics)) {
			t.Errorf("a UUID in the notice: %q", c.want)
		}
	}
	// Through the room, the mark is added once, at the end of the first
	// line.
	if got := room.AppNoticeText("a\noperation_id: x"); got != "a"+room.NoReply+"\noperation_id: x" {
		t.Errorf("room.AppNoticeText = %q", got)
	}
}

// testClock is a clock the test moves.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) get() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// TestSessionOpsBoundPerRequester: one requester gets opBurst new
// operations at once, then one every opEvery; past that a request is an
// error with nothing recorded or run, while another requester and a
// request asked again with its id are not held back. Every operation that
// ran posts its one app notice, the refused none. Before: no bound.
func TestSessionOpsBoundPerRequester(t *testing.T) {
	t.Parallel()
	f := newOpsFixture(t)
	clock := &testClock{now: time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)}
	f.a.ops.mu.Lock()
	f.a.ops.now = clock.get
	f.a.ops.mu.Unlock()
	lin := seat.LaunchRef{Topic: f.topic, Account: "lin"}
	stop := func(id string) wire.SessionOperation {
		return wire.SessionOperation{OperationID: id, Action: "stop", AccountID: "lay", TopicID: f.topic}
	}
	ran := 0
	run := func(by seat.LaunchRef, id string) {
		t.Helper()
		if _, err := f.a.ops.Control(by, stop(id)); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		final(t, f.a, id)
		appNotice(t, f.sub, id)
		ran++
	}
	refused := func(id string) {
		t.Helper()
		_, err := f.a.ops.Control(lin, stop(id))
		if err == nil || !errors.Is(err, ErrOperation) || !strings.Contains(err.Error(), "too many session operations") {
			t.Fatalf("%s over the bound: %v", id, err)
		}
		if _, err := f.a.ops.Status(id); err == nil {
			t.Fatalf("%s over the bound was recorded", id)
		}
	}
	for i := 0; i < opBurst; i++ {
		run(lin, fmt.Sprint("burst-", i))
	}
	refused("over")
	if rec, err := f.a.ops.Control(lin, stop("burst-0")); err != nil || rec.OperationID != "burst-0" {
		t.Fatalf("the same request asked again: %+v %v", rec, err)
	}
	run(seat.LaunchRef{Topic: f.topic, Account: "lay"}, "another-requester")
	clock.add(opEvery)
	run(lin, "after-a-while")
	refused("over-again")

	page, err := f.a.Page(f.topic, 200, "")
	if err != nil {
		t.Fatal(err)
	}
	notices := 0
	for _, p := range page.Posts {
		if strings.Contains(p.Content, "\noperation_id: ") {
			notices++
		}
		if strings.Contains(p.Content, "operation_id: over") {
			t.Errorf("a refused request posted: %q", p.Content)
		}
	}
	if notices != ran || launches(f.st) != 0 {
		t.Errorf("%d notices for %d operations run (%d launches)", notices, ran, launches(f.st))
	}
}

// opsHistory writes a record file of n finished operations.
func opsHistory(t testing.TB, home string, n int) {
	t.Helper()
	f := opsFile{Version: 1}
	for i := 0; i < n; i++ {
		f.Operations = append(f.Operations, wire.SessionRecord{
			SessionOperation: wire.SessionOperation{OperationID: fmt.Sprint("old-", i), Action: "stop", AccountID: "lay", TopicID: "01JB0000000000000000000000"},
			RequestedBy:      wire.SessionLaunch{AccountID: "lin", TopicID: "01JB0000000000000000000000"},
			State:            wire.OpFailed, Error: "the seat is not running in this topic",
			AcceptedAt: "2026-12-04T09:00:00Z", UpdatedAt: "2026-12-04T09:00:01Z"})
	}
	data, _ := json.MarshalIndent(f, "", "  ")
	if err := os.WriteFile(filepath.Join(home, SessionOperationsFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestSessionOpsStepWrite: with 1,000 records kept, an operation's steps
// (accepted, running, failed) write a few records' bytes, not the file;
// the file stays the whole record — folded at the end and at the next
// start, a journal left by a crash (its last line torn) included. Before:
// each step rewrote every record (75 ms a step after 1,000).
func TestSessionOpsStepWrite(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	opsHistory(t, home, 1000)
	whole, _ := os.ReadFile(filepath.Join(home, SessionOperationsFile))
	st := &fakeStarter{argv: []string{"/bin/sh", "-c", "sleep 60"}}
	a := startAt(t, home, st)
	topic, _ := a.NewTopic()
	var mu sync.Mutex
	written := 0
	a.ops.mu.Lock()
	write := a.ops.write
	a.ops.write = func(path string, data []byte) error {
		mu.Lock()
		written += len(data)
		mu.Unlock()
		return write(path, data)
	}
	a.ops.mu.Unlock()
	journal := filepath.Join(home, "session-operations.journal")
	before := int64(0)
	if fi, err := os.Stat(journal); err == nil {
		before = fi.Size()
	}
	if _, err := a.ops.Control(seat.LaunchRef{Topic: topic, Account: "lin"}, wire.SessionOperation{OperationID: "new-1", Action: "stop", AccountID: "lay", TopicID: topic}); err != nil {
		t.Fatal(err)
	}
	final(t, a, "new-1")
	grew := int64(0)
	if fi, err := os.Stat(journal); err == nil {
		grew = fi.Size() - before
	}
	mu.Lock()
	cost := int64(written) + grew
	mu.Unlock()
	if cost > 8<<10 {
		t.Errorf("one operation's three steps wrote %d bytes with 1,000 records kept (the file is %d bytes)", cost, len(whole))
	}

	// The end folds the journal into the file.
	a.Close()
	if _, err := os.Stat(journal); !os.IsNotExist(err) {
		t.Errorf("the journal is left after the end: %v", err)
	}
	var f opsFile
	data, _ := os.ReadFile(filepath.Join(home, SessionOperationsFile))
	if err := json.Unmarshal(data, &f); err != nil || len(f.Operations) != 1001 || f.Operations[1000].OperationID != "new-1" || f.Operations[1000].State != wire.OpFailed {
		t.Fatalf("the record after the end: %d operations, %v", len(f.Operations), err)
	}

	// A crash's journal: a changed record, a new one, a torn last line.
	changed := f.Operations[5]
	changed.State, changed.Error = wire.OpInterrupted, "changed in the journal"
	added := f.Operations[1000]
	added.OperationID, added.State = "journal-only", wire.OpRunning
	var lines []byte
	for _, r := range []wire.SessionRecord{changed, added} {
		b, _ := json.Marshal(r)
		lines = append(append(lines, b...), '\n')
	}
	lines = append(lines, `{"operation_id":"torn","act`...)
	if err := os.WriteFile(journal, lines, 0o600); err != nil {
		t.Fatal(err)
	}
	b := startAt(t, home, st)
	if rec, err := b.ops.Status(changed.OperationID); err != nil || rec.Error != "changed in the journal" {
		t.Errorf("a journal's change: %+v %v", rec, err)
	}
	if rec, err := b.ops.Status("journal-only"); err != nil || rec.State != wire.OpInterrupted {
		t.Errorf("a journal's unfinished record: %+v %v", rec, err)
	}
	if _, err := os.Stat(journal); !os.IsNotExist(err) {
		t.Errorf("the journal is left after the start folded it: %v", err)
	}
	data, _ = os.ReadFile(filepath.Join(home, SessionOperationsFile))
	if err := json.Unmarshal(data, &f); err != nil || len(f.Operations) != 1002 {
		t.Errorf("the record after a start with a journal: %d operations, %v", len(f.Operations), err)
	}
}

// BenchmarkSessionOpsStep is one step's save (a record's change) with 10
// and with 1,000 records kept: the same cost (before: 75 ms at 1,000).
func BenchmarkSessionOpsStep(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprint(n, "-records"), func(b *testing.B) {
			home := b.TempDir()
			opsHistory(b, home, n)
			a := &App{log: slog.New(slog.DiscardHandler), bus: newBus()}
			o, notice := newSessionOps(a, filepath.Join(home, SessionOperationsFile))
			if notice != "" {
				b.Fatal(notice)
			}
			id := "bench"
			o.mu.Lock()
			o.recs[id] = &wire.SessionRecord{SessionOperation: wire.SessionOperation{OperationID: id, Action: "stop", AccountID: "lay", TopicID: "t"}, State: wire.OpAccepted}
			o.order = append(o.order, id)
			o.mu.Unlock()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				o.update(id, func(r *wire.SessionRecord) { r.State = wire.OpRunning })
			}
			b.StopTimer()
			b.Logf("%d records: %v a step", n, b.Elapsed()/time.Duration(b.N))
		})
	}
}

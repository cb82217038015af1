package sidecar_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"pullcept/room/socket"
	"pullcept/room/wire"
	"pullcept/sidecar"
)

// fakeOps answers as the app would for one launch: Lin, capability
// "cap-lin". An operation id starting with "slow" never finishes.
type fakeOps struct {
	topic string
	mu    sync.Mutex
	asked []wire.SessionOperation
	stop  chan struct{}
}

func (f *fakeOps) LaunchOf(c string) (socket.Launch, bool) {
	return socket.Launch{Topic: f.topic, Account: "lin", Generation: 1, PtyID: "pty-lin"}, c == "cap-lin"
}
func (f *fakeOps) Alive(socket.Launch) bool { return true }
func (f *fakeOps) List(c socket.Launch) (wire.SessionList, error) {
	return wire.SessionList{You: wire.SessionLaunch{AccountID: c.Account, TopicID: c.Topic, PtyID: c.PtyID},
		Accounts: []wire.SessionAccount{{AccountID: "lay", Name: "Lay", Kind: "codex", Startable: true}}}, nil
}
func (f *fakeOps) Status(_ socket.Launch, id string) (wire.SessionRecord, error) {
	return wire.SessionRecord{SessionOperation: wire.SessionOperation{OperationID: id}, State: wire.OpStopped}, nil
}
func (f *fakeOps) Control(_ socket.Launch, op wire.SessionOperation) (wire.SessionRecord, error) {
	f.mu.Lock()
	f.asked = append(f.asked, op)
	f.mu.Unlock()
	return wire.SessionRecord{SessionOperation: op, State: wire.OpAccepted}, nil
}
func (f *fakeOps) Wait(ctx context.Context, id string) (wire.SessionRecord, error) {
	if strings.HasPrefix(id, "slow") {
		select {
		case <-f.stop:
		case <-ctx.Done():
		}
		return wire.SessionRecord{SessionOperation: wire.SessionOperation{OperationID: id}, State: wire.OpRunning}, nil
	}
	return wire.SessionRecord{SessionOperation: wire.SessionOperation{OperationID: id, Action: "stop"}, State: wire.OpStopped, StoppedPtyID: "pty-lay"}, nil
}

func jsonOf(t *testing.T, text string) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("not one JSON object: %q", text)
	}
	return v
}

// TestSessionTools: the three tools answer one JSON object each with the
// room's field names; the capability goes in the handshake (a sidecar
// without one sends nothing); a control whose answer does not come in
// time is "not_confirmed", never cancelled.
func TestSessionTools(t *testing.T) {
	t.Parallel()
	if sidecar.CapabilityHeader != socket.CapabilityHeader {
		t.Fatalf("the header names differ: %q, %q", sidecar.CapabilityHeader, socket.CapabilityHeader)
	}
	h := newRoom(t, "topic-o")
	ops := &fakeOps{topic: "topic-o", stop: make(chan struct{})}
	t.Cleanup(func() { close(ops.stop) })
	h.srv.SetOperations(ops)

	none := h.join("Kay", "topic-o")
	text, isErr := none.call(t, sidecar.ToolControlSession, map[string]any{"operation_id": "x", "action": "stop", "account_id": "lay", "topic_id": "topic-o"})
	if v := jsonOf(t, text); !isErr || !strings.Contains(v["error"].(string), sidecar.EnvOperationCapability) {
		t.Fatalf("without a capability: %v %q", isErr, text)
	}

	lin := h.join("Lin", "topic-o", sidecar.EnvOperationCapability, "cap-lin")
	text, isErr = lin.call(t, sidecar.ToolListSessions, nil)
	if v := jsonOf(t, text); isErr || v["you"].(map[string]any)["pty_id"] != "pty-lin" || v["accounts"].([]any)[0].(map[string]any)["account_id"] != "lay" {
		t.Fatalf("list: %v %q", isErr, text)
	}
	text, isErr = lin.call(t, sidecar.ToolControlSession, map[string]any{"operation_id": "stop-lay-1", "action": "stop", "account_id": "lay", "topic_id": "topic-o", "expected_pty_id": "pty-lay"})
	if v := jsonOf(t, text); isErr || v["state"] != wire.OpStopped || v["stopped_pty_id"] != "pty-lay" {
		t.Fatalf("control: %v %q", isErr, text)
	}
	ops.mu.Lock()
	asked := ops.asked
	ops.mu.Unlock()
	if len(asked) != 1 || asked[0] != (wire.SessionOperation{OperationID: "stop-lay-1", Action: "stop", AccountID: "lay", TopicID: "topic-o", ExpectedPtyID: "pty-lay"}) {
		t.Fatalf("the room was asked %+v", asked)
	}
	text, isErr = lin.call(t, sidecar.ToolSessionStatus, map[string]any{"operation_id": "stop-lay-1"})
	if v := jsonOf(t, text); isErr || v["operation_id"] != "stop-lay-1" || v["state"] != wire.OpStopped {
		t.Fatalf("status: %v %q", isErr, text)
	}

	// The room's answer does not come within the sidecar's wait.
	quick := h.sidecar(h.env("Lin", "topic-o", sidecar.EnvOperationCapability, "cap-lin"), sidecar.Options{AnswerTimeout: 300 * time.Millisecond})
	text, isErr = quick.call(t, sidecar.ToolControlSession, map[string]any{"operation_id": "slow-1", "action": "stop", "account_id": "lay", "topic_id": "topic-o"})
	if v := jsonOf(t, text); !isErr || v["state"] != sidecar.StateNotConfirmed || v["operation_id"] != "slow-1" || !strings.Contains(v["error"].(string), "not cancelled") {
		t.Fatalf("not confirmed: %v %q", isErr, text)
	}
}

package socket

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"pullcept/room/wire"
)

// fakeOps is one running launch ("lin", generation 7) whose capability is
// "cap-lin"; Control answers accepted and finishes when released.
type fakeOps struct {
	topic   string
	mu      sync.Mutex
	alive   bool
	callers []Launch
	release chan struct{}
}

func (f *fakeOps) LaunchOf(c string) (Launch, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c != "cap-lin" || !f.alive {
		return Launch{}, false
	}
	return Launch{Topic: f.topic, Account: "lin", Generation: 7, PtyID: "pty-7"}, true
}

func (f *fakeOps) Alive(l Launch) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.alive && l.Generation == 7
}

func (f *fakeOps) List(c Launch) (wire.SessionList, error) {
	return wire.SessionList{You: wire.SessionLaunch{AccountID: c.Account, TopicID: c.Topic, PtyID: c.PtyID}}, nil
}

func (f *fakeOps) Status(_ Launch, id string) (wire.SessionRecord, error) {
	return wire.SessionRecord{SessionOperation: wire.SessionOperation{OperationID: id}, State: wire.OpStopped}, nil
}

func (f *fakeOps) Control(c Launch, op wire.SessionOperation) (wire.SessionRecord, error) {
	f.mu.Lock()
	f.callers = append(f.callers, c)
	f.mu.Unlock()
	return wire.SessionRecord{SessionOperation: op, State: wire.OpAccepted}, nil
}

func (f *fakeOps) Wait(ctx context.Context, id string) (wire.SessionRecord, error) {
	select {
	case <-f.release:
		return wire.SessionRecord{SessionOperation: wire.SessionOperation{OperationID: id}, State: wire.OpStopped}, nil
	case <-ctx.Done():
		return wire.SessionRecord{SessionOperation: wire.SessionOperation{OperationID: id}, State: wire.OpRunning}, nil
	}
}

func sessionAsk(t *testing.T, c *websocket.Conn, frame map[string]any) wire.SessionResult {
	t.Helper()
	if err := c.WriteJSON(frame); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		_, data, err := c.ReadMessage()
		if err != nil {
			t.Fatalf("no session_result: %v", err)
		}
		if _, v, _ := wire.Decode(data); v != nil {
			if r, ok := v.(*wire.SessionResult); ok && r.RequestID == frame["request_id"] {
				return *r
			}
		}
	}
}

// TestSessionFramesCapability: the capability is checked at the handshake
// (403 for one of no running launch), a connection without one is refused
// every session frame whatever its hello said, the caller is the
// capability's launch, a launch that ended is refused on its open
// connection, and a control's answer follows when the operation ends.
func TestSessionFramesCapability(t *testing.T) {
	t.Parallel()
	v := newEnv(t)
	ops := &fakeOps{topic: v.topic, alive: true, release: make(chan struct{})}
	v.srv.SetOperations(ops)
	dialCap := func(capability string) (*websocket.Conn, *http.Response, error) {
		h := http.Header{"Authorization": {"Bearer " + v.srv.Token()}, CapabilityHeader: {capability}}
		c, resp, err := websocket.DefaultDialer.Dial(v.srv.URL(), h)
		if c != nil {
			t.Cleanup(func() { c.Close() })
		}
		return c, resp, err
	}
	if _, resp, err := dialCap("cap-other"); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a capability of no launch was taken: %v", err)
	}

	forged := v.hello(t, "Lin", v.topic) // the token, no capability
	if r := sessionAsk(t, forged, map[string]any{"type": wire.TypeSessionList, "request_id": "f1"}); !strings.Contains(r.Error, "no operation capability") {
		t.Fatalf("forged hello: %+v", r)
	}

	c, _, err := dialCap("cap-lin")
	if err != nil {
		t.Fatal(err)
	}
	c.WriteJSON(wire.Hello{Type: wire.TypeHello, Protocol: wire.ProtocolVersion, Name: "Lay", Room: v.topic, AccountID: "lay"})
	r := sessionAsk(t, c, map[string]any{"type": wire.TypeSessionList, "request_id": "l1"})
	var list wire.SessionList
	if r.Error != "" || json.Unmarshal(r.Result, &list) != nil || list.You.AccountID != "lin" {
		t.Fatalf("list: %+v", r)
	}
	if !v.srv.LaunchConnected(Launch{Topic: v.topic, Account: "lin", Generation: 7}) || v.srv.LaunchConnected(Launch{Topic: v.topic, Account: "lin", Generation: 8}) {
		t.Fatal("room_connected is not matched by the launch's generation")
	}

	// The answer to a control follows the operation's end.
	if err := c.WriteJSON(map[string]any{"type": wire.TypeSessionControl, "request_id": "c1", "operation": map[string]any{"operation_id": "op", "action": "stop"}}); err != nil {
		t.Fatal(err)
	}
	close(ops.release)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		_, data, err := c.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		if _, f, _ := wire.Decode(data); f != nil {
			if res, ok := f.(*wire.SessionResult); ok && res.RequestID == "c1" {
				var rec wire.SessionRecord
				if json.Unmarshal(res.Result, &rec) != nil || rec.State != wire.OpStopped {
					t.Fatalf("control answer %s", res.Result)
				}
				break
			}
		}
	}
	ops.mu.Lock()
	caller := ops.callers[0]
	ops.mu.Unlock()
	if caller.Account != "lin" || caller.Generation != 7 {
		t.Fatalf("caller %+v", caller)
	}

	ops.mu.Lock()
	ops.alive = false
	ops.mu.Unlock()
	if r := sessionAsk(t, c, map[string]any{"type": wire.TypeSessionStatus, "request_id": "s1", "operation_id": "op"}); !strings.Contains(r.Error, "has ended") {
		t.Fatalf("ended launch: %+v", r)
	}
	if _, resp, err := dialCap("cap-lin"); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("an ended launch's capability was taken: %v", err)
	}
}

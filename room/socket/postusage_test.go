package socket

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"pullcept/room/wire"
)

// A post's answer carries the seat's usage (protocol 12, spec 003 #385),
// read after the outcome, in every outcome: delivered, refused by the
// floor (missed as before) and not judged; as a usage request answers it,
// without type and request_id.
func TestPostResultCarriesTheSeatsUsage(t *testing.T) {
	t.Parallel()
	v := newEnv(t)
	seat := func(name, account string) *websocket.Conn {
		c, _, err := v.dial(t, v.srv.Token())
		if err != nil {
			t.Fatal(err)
		}
		send(t, c, wire.Hello{Type: wire.TypeHello, Protocol: wire.ProtocolVersion, Name: name, Room: v.topic, AccountID: account})
		if typ, _ := recv(t, c); typ != wire.TypeIdentity {
			t.Fatalf("hello as %s: %s", name, typ)
		}
		return c
	}
	lin, bob := seat("Lin", "acc-lin"), seat("Bob", "")
	post := func(c *websocket.Conn, id, content, lastSeen string) (wire.PostResult, map[string]any) {
		t.Helper()
		send(t, c, wire.PostFrame{Type: wire.TypePost, MessageID: id, Content: content, LastSeen: lastSeen})
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, data, err := c.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		var r wire.PostResult
		var raw map[string]any
		if json.Unmarshal(data, &r) != nil || json.Unmarshal(data, &raw) != nil || r.Type != wire.TypePostResult {
			t.Fatalf("answer to %s: %s", id, data)
		}
		u, _ := raw["usage"].(map[string]any)
		return r, u
	}

	r, u := post(lin, "m1", "hello", "")
	if !r.Delivered || r.Usage == nil || r.Usage.Error != "" || len(u) != 0 {
		t.Fatalf("delivered, nothing received yet: %+v usage %v", r, u)
	}
	v.e.RecordUsage(v.topic, "acc-lin", wire.UsageReport{FiveHour: &wire.Window{UsedPercentage: 85, ResetsAt: "2026-10-10T10:05:00Z"}})
	if r, _ := post(bob, "m2", "hi Lin", "m1"); !r.Delivered || r.Usage == nil || !strings.Contains(r.Usage.Error, "no account") {
		t.Fatalf("an account-less seat's answer: %+v", r)
	}
	r, u = post(lin, "m3", "late", "m1") // m2 came meanwhile: the floor refuses
	if r.Delivered || len(r.Missed) != 1 || r.Missed[0].MessageID != "m2" || r.Error != "" {
		t.Fatalf("refused: %+v", r)
	}
	if r.Usage == nil || r.Usage.FiveHour == nil || r.Usage.FiveHour.UsedPercentage != 85 || r.Usage.FiveHour.ReceivedAt == "" || r.Usage.ReceivedAt == "" {
		t.Fatalf("the refusal's usage: %+v", r.Usage)
	}
	if _, ok := u["type"]; ok || u["request_id"] != nil {
		t.Fatalf("usage with a frame's keys: %v", u)
	}
	if r, _ := post(lin, "m4", " ", "m2"); r.Error == "" || r.Usage == nil || r.Usage.FiveHour == nil {
		t.Fatalf("not judged (empty body), usage still read: %+v", r)
	}
}

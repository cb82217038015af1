package socket

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"pullcept/room/wire"
)

// TestTokenHolderCannotLockOutASeat (issue 32, finding 5): a holder of the
// room token that opens the socket's whole limit of WebSockets, and goes on
// opening more, does not keep a seat's sidecar (its launch's capability)
// nor its hook calls out; the seat's WebSocket is never the one closed to
// make room, and the socket stays within its limit. On the socket before
// this (every WebSocket "in use", so new connections waited), the seat's
// handshake timed out.
func TestTokenHolderCannotLockOutASeat(t *testing.T) {
	t.Parallel()
	lim := defaultLimits
	if fdLimit() < 4*lim.maxConns+300 {
		t.Skipf("descriptor limit %d too low", fdLimit())
	}
	sink, log := newLogSink()
	v := newEnvWith(t, lim, log)
	v.srv.SetOperations(&fakeOps{topic: v.topic, alive: true})
	v.srv.SetHooks(&fakeHooks{secrets: map[string]string{v.topic + "/acc": "s1"}})
	d := websocket.Dialer{HandshakeTimeout: 5 * time.Second}
	token := http.Header{"Authorization": {"Bearer " + v.srv.Token()}}
	var held []*websocket.Conn
	t.Cleanup(func() {
		for _, c := range held {
			c.Close()
		}
	})
	hold := func(n int) {
		t.Helper()
		for range n {
			c, _, err := d.Dial(v.srv.URL(), token)
			if err != nil {
				t.Fatalf("token holder's connection %d: %v", len(held), err)
			}
			held = append(held, c)
		}
	}
	hold(lim.maxConns)

	seat := func() *websocket.Conn {
		t.Helper()
		h := http.Header{"Authorization": {"Bearer " + v.srv.Token()}, CapabilityHeader: {"cap-lin"}}
		c, _, err := d.Dial(v.srv.URL(), h)
		if err != nil {
			t.Fatalf("the seat's sidecar behind %d token connections: %v", len(held), err)
		}
		t.Cleanup(func() { c.Close() })
		send(t, c, wire.Hello{Type: wire.TypeHello, Protocol: wire.ProtocolVersion, Name: "Lin", Room: v.topic, AccountID: "lin"})
		if typ, _ := recv(t, c); typ != wire.TypeIdentity {
			t.Fatalf("the seat's hello: %s", typ)
		}
		return c
	}
	c := seat()
	sink.await(t, "no seat's")

	hold(lim.maxConns) // and more: the seat's WebSocket stays
	send(t, c, wire.PostFrame{Type: wire.TypePost, MessageID: "m1", Content: "still seated"})
	if _, r := recv(t, c); !r.(*wire.PostResult).Delivered {
		t.Fatalf("post: %+v", r)
	}
	req, _ := http.NewRequest("POST", "http://"+v.srv.Addr()+"/hooks/status/"+v.topic+"/acc", strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer s1")
	cl := &http.Client{Timeout: 5 * time.Second}
	resp, err := cl.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("a hook call behind the token connections: %v %v", resp, err)
	}
	resp.Body.Close()
	if got := v.srv.ln.count(); got > lim.maxConns {
		t.Errorf("%d connections open, the limit is %d", got, lim.maxConns)
	}
}

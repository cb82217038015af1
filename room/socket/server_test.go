package socket

// The socket's HTTP server and WebSocket handshake (net/http and
// gorilla/websocket under ServeHTTP, serveWS): raw requests for what no
// client library sends, kept as tests of behaviour, net/http's client and
// gorilla/websocket's for what real clients do.

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"pullcept/room/wire"
)

// readFrame reads one frame the server wrote: final, unmasked and short
// (RFC 6455 5.2; what the tests below get).
func readFrame(t *testing.T, br *bufio.Reader) (op byte, payload []byte) {
	t.Helper()
	var h [2]byte
	if _, err := io.ReadFull(br, h[:]); err != nil {
		t.Fatal(err)
	}
	n := int(h[1])
	if h[0]&0xf0 != 0x80 || n > 126 {
		t.Fatalf("not a final unmasked frame of under 64 KiB: % x", h)
	}
	if n == 126 {
		var b [2]byte
		if _, err := io.ReadFull(br, b[:]); err != nil {
			t.Fatal(err)
		}
		n = int(binary.BigEndian.Uint16(b[:]))
	}
	payload = make([]byte, n)
	if _, err := io.ReadFull(br, payload); err != nil {
		t.Fatal(err)
	}
	return h[0] & 0x0f, payload
}

// hookCall is a whole HTTP/1.1 hook request for path (after /hooks/) in
// the topic, from the account acc with its secret, with an empty JSON body.
func hookCall(v *env, path string) string {
	return "POST /hooks/" + path + "/" + v.topic + "/acc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s1\r\nContent-Length: 2\r\n\r\n{}"
}

// exchange writes req on a new raw connection and reads one answer.
func exchange(t *testing.T, v *env, req string) (*http.Response, net.Conn, *bufio.Reader) {
	t.Helper()
	c := rawConn(t, v)
	go io.WriteString(c, req) // a long request may not fit the socket's buffer
	br := bufio.NewReader(c)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("%.60q: %v", req, err)
	}
	return resp, c, br
}

// Requests that are not HTTP/1.x, or that this server does not take, are
// refused with the status net/http gave them, Connection: close, and the
// end of the connection.
func TestMalformedRequestsRefused(t *testing.T) {
	t.Parallel()
	v := newEnv(t)
	for _, tc := range []struct {
		name, req string
		code      int
	}{
		{"not HTTP", "SSH-2.0-OpenSSH_9.6\r\n\r\n", 400},
		{"no version", "GET /room\r\n\r\n", 400},
		{"a space in the target", "GET /ro om HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"a method that is not a token", "G(T /room HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"a relative target", "GET room HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"HTTP/2", "GET /room HTTP/2.0\r\nHost: x\r\n\r\n", 505},
		{"HTTP/1.1 without Host", "GET /room HTTP/1.1\r\n\r\n", 400},
		{"two Hosts", "GET /room HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", 400},
		// net/http unfolds it (RFC 9112 5.2): then the token is missing.
		{"a folded header line", "GET /room HTTP/1.1\r\nHost: x\r\nX-A: b\r\n c\r\n\r\n", 401},
		{"a NUL in a value", "GET /room HTTP/1.1\r\nHost: x\r\nX-A: b\x00c\r\n\r\n", 400},
		{"a space before the colon", "GET /room HTTP/1.1\r\nHost : x\r\n\r\n", 400},
		{"a bad Content-Length", "POST /hooks/status/t/a HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400},
		{"differing Content-Lengths", "POST /hooks/status/t/a HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n{}", 400},
		// net/http reads it as chunked (RFC 9112 6.3); this room runs no
		// seats, and the body that never comes does not hold the connection.
		{"Content-Length and chunked", "POST /hooks/status/t/a HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n", 404},
		{"another transfer coding", "POST /hooks/status/t/a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501},
		{"an unknown Expect", "POST /hooks/status/t/a HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n{}", 417},
		// 64 KiB, and the 4 KiB net/http allows over MaxHeaderBytes.
		{"a header over 68 KiB", "GET /room HTTP/1.1\r\nHost: x\r\nX-A: " + strings.Repeat("a", 68<<10) + "\r\n\r\n", 431},
		{"a request line over 64 KiB", "GET /" + strings.Repeat("a", 70<<10) + " HTTP/1.1\r\n\r\n", 431},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			resp, c, br := exchange(t, v, tc.req)
			io.Copy(io.Discard, resp.Body)
			if resp.StatusCode != tc.code || !resp.Close {
				t.Errorf("%d (close %v), want %d and Connection: close", resp.StatusCode, resp.Close, tc.code)
			}
			awaitEnd(t, c, br, 2*time.Second)
		})
	}
}

// A HEAD refused gets its status and no body.
func TestHeadRefusalHasNoBody(t *testing.T) {
	t.Parallel()
	v := newEnv(t)
	c := rawConn(t, v)
	io.WriteString(c, "HEAD /room HTTP/1.1\r\nHost: x\r\n\r\n")
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	all, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	head, body, _ := strings.Cut(string(all), "\r\n\r\n")
	if !strings.HasPrefix(head, "HTTP/1.1 401 Unauthorized\r\n") || body != "" {
		t.Fatalf("answer %q", all)
	}
}

// WebSocket handshakes that are not RFC 6455's get 400, as gorilla's
// upgrader answered them; a wrong version says which one is spoken.
func TestBadHandshakesRefused(t *testing.T) {
	t.Parallel()
	v := newEnv(t)
	const key = "dGhlIHNhbXBsZSBub25jZQ=="
	good := map[string]string{"Upgrade": "websocket", "Connection": "keep-alive, Upgrade", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": key}
	for _, tc := range []struct {
		name, field, value, want string
	}{
		{"no Upgrade", "Upgrade", "", "'websocket' token not found"},
		{"no upgrade in Connection", "Connection", "keep-alive", "'upgrade' token not found"},
		{"version 8", "Sec-WebSocket-Version", "8", "13 not found"},
		{"no key", "Sec-WebSocket-Key", "", "Sec-WebSocket-Key"},
		{"a key of 15 bytes", "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ", "Sec-WebSocket-Key"},
		{"a key that is not base64", "Sec-WebSocket-Key", "!!!!!!!!!!!!!!!!!!!!!!==", "Sec-WebSocket-Key"},
	} {
		req := "GET /room HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + v.srv.Token() + "\r\n"
		for name, value := range good {
			if name == tc.field {
				value = tc.value
			}
			if value != "" {
				req += name + ": " + value + "\r\n"
			}
		}
		resp, c, br := exchange(t, v, req+"\r\n")
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 400 || !resp.Close || !strings.Contains(string(body), tc.want) {
			t.Errorf("%s: %d (close %v) %q, want 400 with %q", tc.name, resp.StatusCode, resp.Close, body, tc.want)
		}
		if tc.field == "Sec-WebSocket-Version" && resp.Header.Get("Sec-WebSocket-Version") != "13" {
			t.Errorf("%s: the refusal does not say version 13: %v", tc.name, resp.Header)
		}
		awaitEnd(t, c, br, 2*time.Second)
	}
}

// rawUpgrade does a WebSocket handshake by hand (extra is written right
// after it, in the same write) and returns the connection past the 101.
func rawUpgrade(t *testing.T, v *env, extra []byte) (net.Conn, *bufio.Reader) {
	t.Helper()
	c := rawConn(t, v)
	req := "GET /room HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + v.srv.Token() + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
	c.Write(append([]byte(req), extra...))
	br := bufio.NewReader(c)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 101 || resp.Header.Get("Sec-WebSocket-Accept") != "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" || !strings.EqualFold(resp.Header.Get("Upgrade"), "websocket") {
		t.Fatalf("handshake answer %d %v", resp.StatusCode, resp.Header)
	}
	return c, br
}

// maskedText is a client's text frame (short), masked.
func maskedText(p []byte) []byte {
	key := [4]byte{0x37, 0xfa, 0x21, 0x3d}
	var b []byte
	if len(p) <= 125 {
		b = []byte{0x81, 0x80 | byte(len(p))}
	} else {
		b = binary.BigEndian.AppendUint16([]byte{0x81, 0x80 | 126}, uint16(len(p)))
	}
	b = append(b, key[:]...)
	for i, c := range p {
		b = append(b, c^key[i%4])
	}
	return b
}

// RFC 6455 5.1: a client's frame must be masked; an unmasked one closes
// the connection with 1002.
func TestUnmaskedClientFrameClosed1002(t *testing.T) {
	t.Parallel()
	v := newEnv(t)
	c, br := rawUpgrade(t, v, nil)
	c.Write([]byte{0x81, 2, 'h', 'i'})
	op, p := readFrame(t, br)
	if op != 0x8 || len(p) < 2 || binary.BigEndian.Uint16(p) != 1002 {
		t.Fatalf("answer: opcode %d % x, want close 1002", op, p)
	}
	awaitEnd(t, c, br, 2*time.Second)
}

// A frame sent with the handshake, before the 101 came, ends the
// connection unanswered and seats nothing (RFC 6455 4.1: a client waits for
// the answer; gorilla's upgrader refuses what it cannot tell apart from a
// smuggled request).
func TestFrameBeforeTheHandshakeAnswerEndsTheConnection(t *testing.T) {
	t.Parallel()
	v := newEnv(t)
	sub := v.e.Subscribe()
	defer sub.Close()
	hello, _ := json.Marshal(wire.Hello{Type: wire.TypeHello, Protocol: wire.ProtocolVersion, Name: "Lin", Room: v.topic})
	c := rawConn(t, v)
	req := "GET /room HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + v.srv.Token() + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
	c.Write(append([]byte(req), maskedText(hello)...))
	awaitEnd(t, c, c, 5*time.Second)
	if got := v.e.Roster(v.topic); len(got) != 1 {
		t.Fatalf("roster %+v: the early hello was seated", got)
	}
}

// gorilla/websocket's client: a round trip, a ping it sends answered with
// its data, and its close answered with the same code.
func TestGorillaClientRoundTrip(t *testing.T) {
	t.Parallel()
	v := newEnv(t)
	c := v.join(t, "Lin", v.topic)
	pong := make(chan string, 1)
	c.SetPongHandler(func(data string) error { pong <- data; return nil })
	if err := c.WriteControl(websocket.PingMessage, []byte("there?"), time.Now().Add(5*time.Second)); err != nil {
		t.Fatal(err)
	}
	send(t, c, wire.PostFrame{Type: wire.TypePost, MessageID: "m1", Content: strings.Repeat("ü", 40000)}) // a 64-bit length
	if _, r := recv(t, c); !r.(*wire.PostResult).Delivered {
		t.Fatalf("post: %+v", r)
	}
	select { // the pong came while the answer was read
	case p := <-pong:
		if p != "there?" {
			t.Fatalf("pong %q", p)
		}
	default:
		t.Fatal("no pong before the answer")
	}
	c.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(4001, "bye"))
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, _, err := c.ReadMessage(); !websocket.IsCloseError(err, 4001) {
		t.Fatalf("after its close the client read %v, want the echo of 4001", err)
	}
}

// recordHooks takes every hook call with secret "s1", keeping its body;
// with a gate, Activity says on entered that it waits, waits for the gate
// to close and says on ended how its wait ended.
type recordHooks struct {
	mu      sync.Mutex
	bodies  []string
	gate    chan struct{}
	entered chan struct{}
	ended   chan error
}

func gatedHooks() *recordHooks {
	return &recordHooks{gate: make(chan struct{}), entered: make(chan struct{}, 4), ended: make(chan error, 4)}
}

// awaitEntered waits until an Activity call waits at the gate.
func (h *recordHooks) awaitEntered(t *testing.T) {
	t.Helper()
	select {
	case <-h.entered:
	case <-time.After(5 * time.Second):
		t.Fatal("no hook call reached the barrier")
	}
}

func (h *recordHooks) CheckHook(topic, account, secret string) error {
	if secret != "s1" {
		return errors.New("not this seat's secret")
	}
	return nil
}

func (h *recordHooks) Activity(ctx context.Context, topic, account, event string, body []byte) error {
	h.mu.Lock()
	h.bodies = append(h.bodies, string(body))
	h.mu.Unlock()
	if h.gate == nil {
		return nil
	}
	h.entered <- struct{}{}
	var err error
	select {
	case <-ctx.Done():
		err = ctx.Err()
	case <-h.gate:
	}
	h.ended <- err
	return err
}

func (h *recordHooks) got() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.bodies...)
}

// A chunked body (chunk extensions, a trailer) is reassembled, the
// connection is kept and the next request on it is read from the right
// place; "Expect: 100-continue" is answered before the body is sent; a
// chunked body over 256 KiB is 413.
func TestChunkedAndContinuedHookBodies(t *testing.T) {
	t.Parallel()
	v := newEnv(t)
	hooks := &recordHooks{}
	v.srv.SetHooks(hooks)
	path := "/hooks/activity/Stop/" + v.topic + "/acc"
	c := rawConn(t, v)
	br := bufio.NewReader(c)
	c.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(c, "POST "+path+" HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s1\r\nTransfer-Encoding: chunked\r\n\r\n"+
		"4;name=value\r\n{\"a\"\r\n3\r\n:12\r\nA\r\n3456789012\r\n1\r\n}\r\n0\r\nX-Trailer: yes\r\n\r\n")
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 || resp.Close {
		t.Fatalf("chunked: %v %v", resp, err)
	}
	io.Copy(io.Discard, resp.Body)

	io.WriteString(c, "POST "+path+" HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s1\r\nExpect: 100-continue\r\nContent-Length: 7\r\n\r\n")
	line, err := br.ReadString('\n')
	if err != nil || line != "HTTP/1.1 100 Continue\r\n" {
		t.Fatalf("the answer to Expect: %q %v", line, err)
	}
	if blank, _ := br.ReadString('\n'); blank != "\r\n" {
		t.Fatalf("after 100 Continue: %q", blank)
	}
	io.WriteString(c, `{"b":2}`)
	resp, err = http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 || resp.Close {
		t.Fatalf("continued: %v %v", resp, err)
	}
	body, _ := io.ReadAll(resp.Body)
	if string(body) != "{}" || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("answer %q %v", body, resp.Header)
	}
	if got := hooks.got(); len(got) != 2 || got[0] != `{"a":123456789012}` || got[1] != `{"b":2}` {
		t.Fatalf("bodies %q", got)
	}

	big := fmt.Sprintf("%x\r\n%s\r\n", 200<<10, strings.Repeat("a", 200<<10))
	resp, c2, br2 := exchange(t, v, "POST "+path+" HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s1\r\nTransfer-Encoding: chunked\r\n\r\n"+big+big+"0\r\n\r\n")
	if resp.StatusCode != 413 || !resp.Close {
		t.Fatalf("a chunked body of 400 KiB: %d close %v", resp.StatusCode, resp.Close)
	}
	awaitEnd(t, c2, br2, 2*time.Second)
}

// net/http's client (as Node's agent and Claude Code's hooks do) sends two
// hook calls on one connection; HTTP/1.0 keeps it only if asked.
func TestKeepAliveReuse(t *testing.T) {
	t.Parallel()
	v := newEnv(t)
	v.srv.SetHooks(&recordHooks{})
	var dials atomic.Int32
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	for i := range 2 {
		req, _ := http.NewRequest("POST", "http://"+v.srv.Addr()+"/hooks/status/"+v.topic+"/acc", strings.NewReader(`{"model":{"id":"m"}}`))
		req.Header.Set("Authorization", "Bearer s1")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != "{}" {
			t.Fatalf("call %d: %d %q", i, resp.StatusCode, body)
		}
	}
	if n := dials.Load(); n != 1 {
		t.Fatalf("two calls took %d connections", n)
	}

	call := "POST /hooks/status/" + v.topic + "/acc HTTP/1.0\r\nAuthorization: Bearer s1\r\nContent-Length: 2\r\n"
	resp, c, br := exchange(t, v, call+"Connection: keep-alive\r\n\r\n{}")
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != 200 || resp.Close || resp.Proto != "HTTP/1.0" {
		t.Fatalf("HTTP/1.0 with keep-alive: %d %s close %v", resp.StatusCode, resp.Proto, resp.Close)
	}
	io.WriteString(c, call+"\r\n{}")
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 || !resp.Close {
		t.Fatalf("HTTP/1.0 without keep-alive: %v %v", resp, err)
	}
	io.Copy(io.Discard, resp.Body)
	awaitEnd(t, c, br, 2*time.Second)
}

// The header timeout runs from the accept and, on a kept connection, from
// the next request's first byte, not from the last answer: a connection
// idle for longer than it is still served, and one that then dribbles its
// header is cut.
func TestHeaderTimeoutFromTheFirstByte(t *testing.T) {
	t.Parallel()
	lim := defaultLimits
	lim.readHeader, lim.idle = 200*time.Millisecond, 10*time.Second
	v := newEnvWith(t, lim, nil)
	v.srv.SetHooks(&recordHooks{})
	call := hookCall(v, "status")
	c := rawConn(t, v)
	br := bufio.NewReader(c)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	for i := range 2 {
		if i == 1 {
			time.Sleep(3 * lim.readHeader) // idle: the time under test, not a wait for an event
		}
		io.WriteString(c, call)
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("call %d: %v %v", i, resp, err)
		}
		io.Copy(io.Discard, resp.Body)
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		io.WriteString(c, "POST /hooks/status/t/a HTTP/1.1\r\n")
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				if _, err := io.WriteString(c, "X"); err != nil {
					return
				}
			}
		}
	}()
	start := time.Now()
	awaitEnd(t, c, br, 3*time.Second)
	if took := time.Since(start); took < lim.readHeader/2 {
		t.Fatalf("cut after %v, before the header timeout", took)
	}
}

// A hook answer waiting for the barrier ends when its client goes away.
func TestHookWaitEndsWhenTheClientGoes(t *testing.T) {
	t.Parallel()
	v := newEnv(t)
	hooks := gatedHooks()
	v.srv.SetHooks(hooks)
	c := rawConn(t, v)
	io.WriteString(c, hookCall(v, "activity/PreToolUse"))
	hooks.awaitEntered(t)
	c.Close()
	select {
	case err := <-hooks.ended:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the wait ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the wait went on after the client left")
	}
}

// Close lets an answer in flight finish (and closes its connection after
// it), closes an idle keep-alive connection and a WebSocket, and waits for
// every connection.
func TestCloseFinishesAnswersInFlight(t *testing.T) {
	t.Parallel()
	v := newEnv(t)
	hooks := gatedHooks()
	v.srv.SetHooks(hooks)
	ws := v.join(t, "Lin", v.topic)

	idle := rawConn(t, v)
	ibr := bufio.NewReader(idle)
	io.WriteString(idle, hookCall(v, "status"))
	idle.SetReadDeadline(time.Now().Add(5 * time.Second))
	if resp, err := http.ReadResponse(ibr, nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("status call: %v %v", resp, err)
	}

	busy := rawConn(t, v)
	bbr := bufio.NewReader(busy)
	io.WriteString(busy, hookCall(v, "activity/PreToolUse"))
	hooks.awaitEntered(t) // the status call does not wait
	closed := make(chan error, 1)
	go func() { closed <- v.srv.Close() }()
	awaitEnd(t, idle, ibr, 2*time.Second) // at once, while the busy call waits
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) with an answer in flight", err)
	default:
	}
	close(hooks.gate)
	busy.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bbr, nil)
	if err != nil || resp.StatusCode != 200 || !resp.Close {
		t.Fatalf("the answer in flight: %v %v", resp, err)
	}
	awaitEnd(t, busy, bbr, 2*time.Second)
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return")
	}
	ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, _, err := ws.ReadMessage(); err == nil {
		t.Fatal("the WebSocket survived Close")
	}
	if n := v.srv.ln.count(); n != 0 {
		t.Fatalf("%d connections open after Close", n)
	}
}

// An answer still waiting after the shutdown's wait has its context
// ended and its connection closed; Close says the wait ran out.
func TestCloseGivesUpAfterItsWait(t *testing.T) {
	t.Parallel()
	v := newEnv(t)
	hooks := gatedHooks()
	v.srv.SetHooks(hooks)
	c := rawConn(t, v)
	io.WriteString(c, hookCall(v, "activity/PreToolUse"))
	hooks.awaitEntered(t)
	start := time.Now()
	if err := v.srv.Close(); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close: %v", err)
	}
	if took := time.Since(start); took < shutdownWait || took > shutdownWait+2*time.Second {
		t.Fatalf("Close took %v, its wait is %v", took, shutdownWait)
	}
	if err := <-hooks.ended; !errors.Is(err, context.Canceled) {
		t.Fatalf("the waiting answer ended with %v", err)
	}
	awaitEnd(t, c, c, 2*time.Second)
}

// FuzzServeConn: whatever a client sends, the server neither panics nor
// holds the connection past its timeouts once the client has said all.
func FuzzServeConn(f *testing.F) {
	lim := defaultLimits
	lim.readHeader, lim.idle, lim.hookBody, lim.wsPing, lim.wsRead = 300*time.Millisecond, 300*time.Millisecond, 300*time.Millisecond, 100*time.Millisecond, 300*time.Millisecond
	v := newEnvWith(f, lim, nil)
	v.srv.SetHooks(&recordHooks{})
	hook := "POST /hooks/activity/Stop/" + v.topic + "/acc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s1\r\n"
	hello, _ := json.Marshal(wire.Hello{Type: wire.TypeHello, Protocol: wire.ProtocolVersion, Name: "F", Room: v.topic})
	for _, s := range []string{
		hook + "Content-Length: 2\r\n\r\n{}" + hook + "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
		hook + "Expect: 100-continue\r\nContent-Length: 5\r\n\r\n{\"a\":",
		"GET /room HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + v.srv.Token() + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n" + string(maskedText(hello)) + "\x81\x05hello",
		"GET /room HTTP/1.0\n\n",
		"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := net.Dial("tcp", v.srv.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		go func() {
			c.Write(data)
			c.(*net.TCPConn).CloseWrite()
		}()
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err = io.Copy(io.Discard, c)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("the server held the connection for 5 s after %q", data)
		}
	})
}

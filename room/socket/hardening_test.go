package socket

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	stdlog "log"
	"log/slog"
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

// logSink is a slog handler that keeps every record and tells waiters when
// one whose message contains a given text arrives.
type logSink struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	text    slog.Handler
	waiters []sinkWaiter
}

type sinkWaiter struct {
	sub string
	ch  chan string
}

func newLogSink() (*logSink, *slog.Logger) {
	s := &logSink{}
	s.text = slog.NewTextHandler(&s.buf, nil)
	return s, slog.New(s)
}

func (s *logSink) Enabled(context.Context, slog.Level) bool { return true }
func (s *logSink) WithAttrs([]slog.Attr) slog.Handler       { return s }
func (s *logSink) WithGroup(string) slog.Handler            { return s }

func (s *logSink) Handle(ctx context.Context, r slog.Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	start := s.buf.Len()
	s.text.Handle(ctx, r)
	line := s.buf.String()[start:]
	kept := s.waiters[:0]
	for _, w := range s.waiters {
		if strings.Contains(line, w.sub) {
			w.ch <- line
		} else {
			kept = append(kept, w)
		}
	}
	s.waiters = kept
	return nil
}

// await returns the first line (already logged or still to come) that
// contains sub.
func (s *logSink) await(t *testing.T, sub string) string {
	t.Helper()
	ch := make(chan string, 1)
	s.mu.Lock()
	for _, line := range strings.SplitAfter(s.buf.String(), "\n") {
		if strings.Contains(line, sub) {
			s.mu.Unlock()
			return line
		}
	}
	s.waiters = append(s.waiters, sinkWaiter{sub, ch})
	s.mu.Unlock()
	select {
	case line := <-ch:
		return line
	case <-time.After(5 * time.Second):
		t.Fatalf("no log line %q; the log:\n%s", sub, s.String())
		return ""
	}
}

func (s *logSink) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// rawConn opens a plain TCP connection to the socket.
func rawConn(t *testing.T, v *env) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", v.srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// awaitEnd reads c until the server ends it; it fails the test if that
// takes more than within.
func awaitEnd(t *testing.T, c net.Conn, r io.Reader, within time.Duration) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(within))
	_, err := io.Copy(io.Discard, r)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the server kept the connection open for %v", within)
	}
	// nil is EOF; a reset is an end too (the client had sent more)
}

func TestListen(t *testing.T) {
	t.Parallel()
	if _, err := Listen(nil, "", nil); err == nil {
		t.Fatal("an empty token was taken")
	}
	v := newEnv(t)
	s, err := Listen(v.e, "tok", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.HasPrefix(s.URL(), "ws://127.0.0.1:") || s.lim != defaultLimits {
		t.Fatalf("url %s, limits %+v", s.URL(), s.lim)
	}
}

// TestRefusalClosesTheConnection: every refused request gets its answer
// and then the end of the connection, though the client asked for
// keep-alive; accepted hook calls keep theirs.
func TestRefusalClosesTheConnection(t *testing.T) {
	t.Parallel()
	v := newEnv(t)
	v.srv.SetHooks(&fakeHooks{secrets: map[string]string{v.topic + "/acc": "s1"}})
	status := "/hooks/status/" + v.topic + "/acc"
	big := strings.Repeat("a", maxHookBody+1)
	for _, tc := range []struct {
		name, req string
		code      int
	}{
		{"no token", "GET /room HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n", 401},
		{"a wrong token", "GET /room HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer nope\r\n\r\n", 401},
		{"another path", "GET /other HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + v.srv.Token() + "\r\n\r\n", 404},
		{"not a WebSocket handshake", "GET /room HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + v.srv.Token() + "\r\n\r\n", 400},
		{"a hook without its secret", "POST " + status + " HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}", 403},
		{"an unknown hook", "POST /hooks/nope HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}", 404},
		{"a hook body over the limit", "POST " + status + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s1\r\nContent-Length: " + fmt.Sprint(len(big)) + "\r\n\r\n" + big, 413},
		{"a malformed request", "GET /room HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n", 400},
	} {
		c := rawConn(t, v)
		go io.WriteString(c, tc.req) // the big body may not fit the socket's buffer
		br := bufio.NewReader(c)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.code || !resp.Close {
			t.Errorf("%s: %d (close %v), want %d and Connection: close", tc.name, resp.StatusCode, resp.Close, tc.code)
		}
		awaitEnd(t, c, br, 2*time.Second)
	}

	// An accepted hook call keeps the connection (Claude Code's hooks use
	// keep-alive): three calls on one.
	c := rawConn(t, v)
	br := bufio.NewReader(c)
	for i := range 3 {
		io.WriteString(c, "POST "+status+" HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\nAuthorization: Bearer s1\r\nContent-Length: 2\r\n\r\n{}")
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("call %d on one connection: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != 200 || resp.Close {
			t.Fatalf("call %d: %d, close %v", i, resp.StatusCode, resp.Close)
		}
	}
}

// TestTimeoutsFreeConnections: a connection that sends nothing, one that
// dribbles its header, a keep-alive one left idle and a hook call whose
// body never ends are all closed by the server.
func TestTimeoutsFreeConnections(t *testing.T) {
	t.Parallel()
	lim := defaultLimits
	lim.readHeader, lim.idle, lim.hookBody = 300*time.Millisecond, 300*time.Millisecond, 300*time.Millisecond
	v := newEnvWith(t, lim, nil)
	v.srv.SetHooks(&fakeHooks{secrets: map[string]string{v.topic + "/acc": "s1"}})

	silent := rawConn(t, v)

	dribble := rawConn(t, v)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		io.WriteString(dribble, "GET /room HTTP/1.1\r\n")
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if _, err := io.WriteString(dribble, "X"); err != nil {
					return
				}
			}
		}
	}()

	idle := rawConn(t, v)
	io.WriteString(idle, hookCall(v, "status"))
	ibr := bufio.NewReader(idle)
	resp, err := http.ReadResponse(ibr, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("hook: %v %v", resp, err)
	}
	io.Copy(io.Discard, resp.Body)

	short := rawConn(t, v)
	io.WriteString(short, "POST /hooks/status/"+v.topic+"/acc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s1\r\nContent-Length: 10\r\n\r\n{}")

	var wg sync.WaitGroup
	for _, c := range []struct {
		c net.Conn
		r io.Reader
	}{{silent, silent}, {dribble, dribble}, {idle, ibr}, {short, short}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			awaitEnd(t, c.c, c.r, 3*time.Second)
		}()
	}
	wg.Wait()
}

// TestIdleJunkDoesNotLockOutASidecar: thousands of connections that never
// send a request (the default timeouts are far from over) do not stop a
// real sidecar from connecting and saying hello, nor a hook call; the
// socket holds no more than its limit of them and says so in the log.
func TestIdleJunkDoesNotLockOutASidecar(t *testing.T) {
	t.Parallel()
	n := min(2000, (fdLimit()-300)/4) // the client's and the server's ends, with room for the other tests
	if n < 300 {
		t.Skipf("descriptor limit %d too low", fdLimit())
	}
	sink, log := newLogSink()
	lim := defaultLimits
	lim.maxConns = 256
	v := newEnvWith(t, lim, log)
	v.srv.SetHooks(&fakeHooks{secrets: map[string]string{v.topic + "/acc": "s1"}})
	sub := v.e.Subscribe()
	defer sub.Close()
	junk := make([]net.Conn, 0, n)
	t.Cleanup(func() {
		for _, c := range junk {
			c.Close()
		}
	})
	for range n {
		c, err := net.Dial("tcp", v.srv.Addr())
		if err != nil {
			t.Fatalf("junk connection %d: %v", len(junk), err)
		}
		junk = append(junk, c)
	}
	sink.await(t, "connection limit")

	start := time.Now()
	c := v.join(t, "Lin", v.topic)
	waitRoster(t, sub, 2)
	send(t, c, wire.PostFrame{Type: wire.TypePost, MessageID: "m1", Content: "through the junk"})
	if _, r := recv(t, c); !r.(*wire.PostResult).Delivered {
		t.Fatalf("post: %+v", r)
	}
	req, _ := http.NewRequest("POST", "http://"+v.srv.Addr()+"/hooks/status/"+v.topic+"/acc", strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer s1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("hook through the junk: %v %v", resp, err)
	}
	resp.Body.Close()
	if el := time.Since(start); el > lim.readHeader {
		t.Errorf("the sidecar took %v: it waited for the junk to time out", el)
	}
	if got := v.srv.ln.count(); got > lim.maxConns+1 {
		t.Errorf("%d connections open, the limit is %d", got, lim.maxConns)
	}
}

// TestBusyLimitWaits: when every connection is in use (here two seats'
// WebSockets, never closed for room), a new one waits, and is served as
// soon as one closes.
func TestBusyLimitWaits(t *testing.T) {
	t.Parallel()
	sink, log := newLogSink()
	lim := defaultLimits
	lim.maxConns = 2
	v := newEnvWith(t, lim, log)
	v.srv.SetOperations(&fakeOps{topic: v.topic, alive: true})
	sub := v.e.Subscribe()
	defer sub.Close()
	a := v.joinSeat(t, "A", "cap-lin")
	v.joinSeat(t, "B", "cap-lin")
	waitRoster(t, sub, 3)
	got := make(chan error, 1)
	go func() {
		d := websocket.Dialer{HandshakeTimeout: 10 * time.Second}
		h := http.Header{"Authorization": {"Bearer " + v.srv.Token()}, CapabilityHeader: {"cap-lin"}}
		c, _, err := d.Dial(v.srv.URL(), h)
		if err == nil {
			c.Close()
		}
		got <- err
	}()
	sink.await(t, "every connection in use")
	a.Close()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiting connection was not served after one closed")
	}
}

// TestWebSocketKeepalive: a peer that reads (and so answers pings) stays
// connected through many read deadlines without sending a frame; a peer
// that stops reading is closed.
func TestWebSocketKeepalive(t *testing.T) {
	t.Parallel()
	lim := defaultLimits
	lim.wsPing, lim.wsRead = 20*time.Millisecond, 300*time.Millisecond
	v := newEnvWith(t, lim, nil)
	sub := v.e.Subscribe()
	defer sub.Close()

	live := v.join(t, "Live", v.topic)
	var pings atomic.Int32
	enough := make(chan struct{})
	live.SetPingHandler(func(data string) error {
		if pings.Add(1) == 25 { // 500 ms of silence from the client's side
			close(enough)
		}
		return live.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(time.Second))
	})
	frames := make(chan []byte, 4)
	go func() {
		defer close(frames)
		for {
			_, data, err := live.ReadMessage()
			if err != nil {
				return
			}
			frames <- data
		}
	}()
	waitRoster(t, sub, 2)

	v.join(t, "Frozen", v.topic) // says hello, then never reads
	waitRoster(t, sub, 3)
	waitRoster(t, sub, 2) // one was closed: which is checked below

	select {
	case <-enough:
	case <-time.After(5 * time.Second):
		t.Fatalf("only %d pings", pings.Load())
	}
	send(t, live, wire.PostFrame{Type: wire.TypePost, MessageID: "m1", Content: "still here"})
	select {
	case data, ok := <-frames:
		if !ok || !strings.Contains(string(data), `"delivered":true`) {
			t.Fatalf("the live connection: %q %v", data, ok)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no answer on the live connection")
	}
	if got := v.e.Roster(v.topic); len(got) != 2 || (got[0].Name != "Live" && got[1].Name != "Live") {
		t.Fatalf("roster %+v", got)
	}
}

// flakyListener fails its first Accept with a temporary error, as
// accept(2) does when the descriptors run out.
type flakyListener struct {
	net.Listener
	failed atomic.Bool
}

type tempErr struct{ msg string }

func (e tempErr) Error() string   { return e.msg }
func (e tempErr) Timeout() bool   { return false }
func (e tempErr) Temporary() bool { return true }

func (l *flakyListener) Accept() (net.Conn, error) {
	if !l.failed.Swap(true) {
		return nil, tempErr{"accept4: too many open files\n" + strings.Repeat("é", 1000)}
	}
	return l.Listener.Accept()
}

// TestAcceptErrorsGoToTheAppLog: an accept error reaches the app's log,
// cut short, the server goes on, and nothing reaches the standard logger
// (stderr, the TUI's screen). Not parallel: it swaps the standard logger's
// output.
func TestAcceptErrorsGoToTheAppLog(t *testing.T) {
	var std bytes.Buffer
	stdlog.SetOutput(&std)
	defer stdlog.SetOutput(stdlogOutput)
	sink, log := newLogSink()
	v := newEnv(t) // for an engine
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := serve(v.e, "tok", log, &flakyListener{Listener: ln}, defaultLimits)
	defer s.Close()
	line := sink.await(t, "Accept error")
	if !strings.Contains(line, "accept4: too many open files") || !strings.Contains(line, "more bytes") || len(line) > 2*maxLogLine {
		t.Fatalf("line: %q", line)
	}
	// the server goes on after the error
	if _, resp, _ := websocket.DefaultDialer.Dial(s.URL(), nil); resp == nil || resp.StatusCode != 401 {
		t.Fatalf("after the accept error: %v", resp)
	}
	if std.Len() != 0 {
		t.Fatalf("the standard logger got %q", std.String())
	}
}

var stdlogOutput = stdlog.Writer()

// slowHooks answers an activity call after wait (the barrier), or with
// the request context's error if that ends first.
type slowHooks struct {
	fakeHooks
	wait time.Duration
}

func (h *slowHooks) Activity(ctx context.Context, topic, account, event string, body []byte) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(h.wait):
		return h.fakeHooks.Activity(ctx, topic, account, event, body)
	}
}

// TestSlowHookAnswerOutlivesTheBodyDeadline: the body's read deadline
// ends with the body; a hook answer that waits longer still comes.
func TestSlowHookAnswerOutlivesTheBodyDeadline(t *testing.T) {
	t.Parallel()
	lim := defaultLimits
	lim.hookBody = 50 * time.Millisecond
	v := newEnvWith(t, lim, nil)
	v.srv.SetHooks(&slowHooks{fakeHooks: fakeHooks{secrets: map[string]string{v.topic + "/acc": "s1"}}, wait: 300 * time.Millisecond})
	req, _ := http.NewRequest("POST", "http://"+v.srv.Addr()+"/hooks/activity/PreToolUse/"+v.topic+"/acc", strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer s1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
}

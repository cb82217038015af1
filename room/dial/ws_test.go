package dial

// The client against gorilla/websocket's server (the library the room
// socket runs on) behind net/http/httptest.

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// gorillaServer serves one handler per WebSocket on an httptest server and
// returns its ws:// address. The handler's headers are the request's.
func gorillaServer(t *testing.T, up websocket.Upgrader, handle func(c *websocket.Conn, h http.Header)) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		handle(c, r.Header)
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http") + "/room"
}

func dialT(t *testing.T, url string, header ...[2]string) *Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d := Dialer{Header: header, HandshakeTimeout: 10 * time.Second}
	c, err := d.Dial(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetReadDeadline(time.Now().Add(10 * time.Second)) // a hung test fails instead
	return c
}

func readText(t *testing.T, c *Conn) string {
	t.Helper()
	typ, data, err := c.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	if typ != TextMessage {
		t.Fatalf("message type %d, want text", typ)
	}
	return string(data)
}

// Text both ways, the extra header fields on the wire, and a message the
// server sends with its 101 (it may share the header's read).
func TestTextBothWays(t *testing.T) {
	t.Parallel()
	headers := make(chan http.Header, 1)
	url := gorillaServer(t, websocket.Upgrader{}, func(c *websocket.Conn, h http.Header) {
		headers <- h
		c.WriteMessage(websocket.TextMessage, []byte("welcome"))
		for {
			typ, data, err := c.ReadMessage()
			if err != nil {
				return
			}
			c.WriteMessage(typ, append([]byte("echo:"), data...))
		}
	})
	c := dialT(t, url, [2]string{"Authorization", "Bearer tok"}, [2]string{"X-Pullcept-Operation-Capability", "cap-1"})
	h := <-headers
	if h.Get("Authorization") != "Bearer tok" || h.Get("X-Pullcept-Operation-Capability") != "cap-1" {
		t.Fatalf("the server saw header %v", h)
	}
	if got := readText(t, c); got != "welcome" {
		t.Fatalf("first message %q", got)
	}
	for _, msg := range []string{"hello", "", "日本語 ✓", strings.Repeat("x", 70000)} { // 7-bit, 16-bit and 64-bit lengths
		if err := c.WriteMessage(TextMessage, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		if got := readText(t, c); got != "echo:"+msg {
			t.Fatalf("echo of a %d-byte message: %d bytes %.40q", len(msg), len(got), got)
		}
	}
	if err := c.WriteMessage(PingMessage, nil); err == nil {
		t.Fatal("WriteMessage took a ping")
	}
}

// gorilla writes a message larger than its write buffer as several frames
// (its NextWriter flushes a non-final frame whenever the buffer fills).
func TestFragmentedMessageReassembled(t *testing.T) {
	t.Parallel()
	want := bytes.Repeat([]byte("0123456789abcdef"), 8192) // 128 KiB
	url := gorillaServer(t, websocket.Upgrader{WriteBufferSize: 1024}, func(c *websocket.Conn, _ http.Header) {
		w, err := c.NextWriter(websocket.BinaryMessage)
		if err != nil {
			return
		}
		for i := 0; i < len(want); i += 1000 {
			w.Write(want[i:min(i+1000, len(want))])
		}
		w.Close()
		c.ReadMessage() // until the client goes
	})
	c := dialT(t, url)
	c.SetReadLimit(int64(len(want)))
	typ, got, err := c.ReadMessage()
	if err != nil || typ != BinaryMessage || !bytes.Equal(got, want) {
		t.Fatalf("type %d, %d bytes (want %d), err %v", typ, len(got), len(want), err)
	}
}

// A ping from the server is answered with a pong carrying its data while
// the client reads: the server sends its message only once the pong came.
func TestServerPingAnswered(t *testing.T) {
	t.Parallel()
	pongs := make(chan string, 1)
	got := make(chan string, 1)
	url := gorillaServer(t, websocket.Upgrader{}, func(c *websocket.Conn, _ http.Header) {
		c.SetPongHandler(func(data string) error {
			pongs <- data
			return nil
		})
		done := make(chan struct{})
		defer func() { <-done }()
		go func() { // the pong handler runs in the server's reads
			defer close(done)
			for {
				if _, _, err := c.ReadMessage(); err != nil {
					return
				}
			}
		}()
		c.WriteControl(websocket.PingMessage, []byte("are you there"), time.Now().Add(5*time.Second))
		select {
		case p := <-pongs:
			got <- p
		case <-time.After(10 * time.Second):
			got <- "(no pong in 10 s)"
		}
		c.WriteMessage(websocket.TextMessage, []byte("after the ping"))
	})
	c := dialT(t, url)
	if msg := readText(t, c); msg != "after the ping" {
		t.Fatalf("message %q", msg)
	}
	if p := <-got; p != "are you there" {
		t.Fatalf("pong data %q", p)
	}
}

// The server's close frame ends the reads with its code and reason, and
// the client answers it with the same code.
func TestServerCloseAnswered(t *testing.T) {
	t.Parallel()
	echoed := make(chan error, 1)
	url := gorillaServer(t, websocket.Upgrader{}, func(c *websocket.Conn, _ http.Header) {
		c.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(4000, "room closing"))
		_, _, err := c.ReadMessage()
		echoed <- err
	})
	c := dialT(t, url)
	_, _, err := c.ReadMessage()
	var ce *CloseError
	if !errors.As(err, &ce) || ce.Code != 4000 || ce.Text != "room closing" {
		t.Fatalf("read after the server's close: %v", err)
	}
	if _, _, again := c.ReadMessage(); again != err {
		t.Fatalf("the next read returned %v, not the same error", again)
	}
	if err := <-echoed; !websocket.IsCloseError(err, 4000) {
		t.Fatalf("the server read %v, want the client's close 4000", err)
	}
	if err := c.WriteMessage(TextMessage, []byte("late")); !errors.Is(err, ErrCloseSent) {
		t.Fatalf("a write after the close: %v", err)
	}
}

// A message over the read limit fails the read with ErrReadLimit and
// closes with 1009; a message at the limit is read.
func TestReadLimitExceeded(t *testing.T) {
	t.Parallel()
	closed := make(chan error, 1)
	url := gorillaServer(t, websocket.Upgrader{}, func(c *websocket.Conn, _ http.Header) {
		c.WriteMessage(websocket.TextMessage, bytes.Repeat([]byte("a"), 100))
		c.WriteMessage(websocket.TextMessage, bytes.Repeat([]byte("b"), 101))
		_, _, err := c.ReadMessage()
		closed <- err
	})
	c := dialT(t, url)
	c.SetReadLimit(100)
	if got := readText(t, c); len(got) != 100 {
		t.Fatalf("a message at the limit: %d bytes", len(got))
	}
	_, _, err := c.ReadMessage()
	if !errors.Is(err, ErrReadLimit) || !strings.Contains(err.Error(), "the limit is 100") {
		t.Fatalf("a message over the limit: %v", err)
	}
	if err := <-closed; !websocket.IsCloseError(err, websocket.CloseMessageTooBig) {
		t.Fatalf("the server read %v, want close 1009", err)
	}
}

// A refusal is a *StatusError with the status and the body's start: the
// sidecar tells a refused token from any other answer by it.
func TestRefusalStatusReadable(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer right" {
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		http.Error(w, "not found", http.StatusNotFound)
	}))
	t.Cleanup(srv.Close)
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/room"
	for _, tc := range []struct {
		token  string
		code   int
		status string
		body   string
	}{
		{"wrong", 401, "401 Unauthorized", "missing or wrong bearer token\n"},
		{"right", 404, "404 Not Found", "not found\n"},
	} {
		d := Dialer{Header: [][2]string{{"Authorization", "Bearer " + tc.token}}}
		c, err := d.Dial(context.Background(), url)
		var se *StatusError
		if c != nil || !errors.As(err, &se) {
			t.Fatalf("token %q: conn %v, err %v", tc.token, c, err)
		}
		if se.StatusCode != tc.code || se.Status != tc.status || string(se.Body) != tc.body || se.URL != url {
			t.Fatalf("token %q: %+v", tc.token, se)
		}
		if !strings.Contains(err.Error(), tc.status) {
			t.Fatalf("the error %q does not say the status", err)
		}
	}
}

// Deadlines: a read past its deadline fails as a timeout; a write past
// the write deadline fails and writes nothing after.
func TestDeadlines(t *testing.T) {
	t.Parallel()
	got := make(chan string, 4)
	url := gorillaServer(t, websocket.Upgrader{}, func(c *websocket.Conn, _ http.Header) {
		for {
			_, data, err := c.ReadMessage()
			if err != nil {
				close(got)
				return
			}
			got <- string(data)
		}
	})
	c := dialT(t, url)
	c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	_, _, err := c.ReadMessage()
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("a read past its deadline: %v", err)
	}

	if err := c.WriteMessage(TextMessage, []byte("in time")); err != nil {
		t.Fatal(err)
	}
	c.SetWriteDeadline(time.Now().Add(-time.Second))
	if err := c.WriteMessage(TextMessage, []byte("too late")); !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("a write past its deadline: %v", err)
	}
	c.SetWriteDeadline(time.Time{})
	if err := c.WriteMessage(TextMessage, []byte("after")); err == nil {
		t.Fatal("a write after a failed one went through: the stream may hold half a frame")
	}
	if err := c.WriteControl(PingMessage, nil, time.Now().Add(-time.Second)); err == nil {
		t.Fatal("a ping after a failed write went through")
	}
	c.Close()
	var msgs []string
	for m := range got {
		msgs = append(msgs, m)
	}
	if len(msgs) != 1 || msgs[0] != "in time" {
		t.Fatalf("the server got %q", msgs)
	}
}

// Close sends close 1000 and ends a read in progress.
func TestCloseSendsCloseAndEndsRead(t *testing.T) {
	t.Parallel()
	closed := make(chan error, 1)
	url := gorillaServer(t, websocket.Upgrader{}, func(c *websocket.Conn, _ http.Header) {
		_, _, err := c.ReadMessage()
		closed <- err
	})
	c := dialT(t, url)
	read := make(chan error, 1)
	go func() {
		_, _, err := c.ReadMessage()
		read <- err
	}()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-closed; !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
		t.Fatalf("the server read %v, want close 1000", err)
	}
	if err := <-read; !errors.Is(err, os.ErrClosed) {
		t.Fatalf("the read in progress returned %v", err)
	}
}

// The handshake is bounded by HandshakeTimeout and by ctx: a server that
// accepts and never answers does not hold Dial.
func TestHandshakeBounded(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan net.Conn, 4)
	exited := make(chan struct{})
	t.Cleanup(func() {
		ln.Close()
		<-exited
		close(accepted)
		for c := range accepted {
			c.Close()
		}
	})
	go func() {
		defer close(exited)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c // silent until the test ends
		}
	}()
	url := "ws://" + ln.Addr().String() + "/room"

	d := Dialer{HandshakeTimeout: 100 * time.Millisecond}
	start := time.Now()
	if _, err := d.Dial(context.Background(), url); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("handshake timeout: %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("the handshake timeout of 100ms took %v", took)
	}
	first := <-accepted
	defer first.Close()

	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := (&Dialer{}).Dial(ctx, url)
		errc <- err
	}()
	second := <-accepted // the client waits for the answer now
	defer second.Close()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("handshake after cancel: %v", err)
	}
}

func TestDialRefusesOtherAddresses(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"wss://127.0.0.1:1/room", "http://127.0.0.1:1/room", "ws:///room", "ws://u:p@127.0.0.1:1/", "::"} {
		if _, err := (&Dialer{}).Dial(context.Background(), u); err == nil {
			t.Errorf("%s: dialed", u)
		}
	}
	_, err := (&Dialer{Header: [][2]string{{"X-Evil", "a\r\nInjected: yes"}}}).Dial(context.Background(), gorillaServer(t, websocket.Upgrader{}, func(*websocket.Conn, http.Header) {}))
	if err == nil || !strings.Contains(err.Error(), "line break") {
		t.Fatalf("a header value with CRLF: %v", err)
	}
}

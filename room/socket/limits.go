package socket

// The socket's guards against connections that hold descriptors without
// using them: timeouts for every connection, a bound on how many are open at
// once, and net/http's own error lines routed to the app log. See
// docs/decisions.md, "Room socket hardening".

import (
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"pullcept/room/wire"
)

// limits are the socket's timeouts and bounds. Listen uses defaultLimits;
// tests shorten them.
type limits struct {
	// readHeader bounds the wait for a request's header, from the
	// connection's first byte (or its accept) to the blank line: a
	// connection that sends nothing or dribbles its header is closed.
	readHeader time.Duration
	// idle bounds a keep-alive connection's wait for its next request.
	idle time.Duration
	// hookBody bounds the read of an accepted hook call's body.
	hookBody time.Duration
	// maxConns bounds the open connections (WebSockets included).
	maxConns int
	// wsPing is how often the room pings a WebSocket; wsRead is how long a
	// WebSocket may stay silent (no frame, no pong, no ping) before it is
	// closed. Zero wsRead: no read deadline, no pings.
	wsPing, wsRead time.Duration
}

var defaultLimits = limits{
	readHeader: 5 * time.Second,
	idle:       90 * time.Second,
	hookBody:   10 * time.Second,
	maxConns:   512,
	wsPing:     30 * time.Second,
	wsRead:     90 * time.Second,
}

// maxHeaderBytes bounds a request's header (net/http's default is 1 MB).
const maxHeaderBytes = 64 << 10

// wsWriteTimeout bounds one WebSocket write (frame, ping or pong).
const wsWriteTimeout = 10 * time.Second

// limitLogEvery bounds the lines about the connection limit: one per
// interval, each saying how many times it was hit since the last.
const limitLogEvery = 10 * time.Second

// connLimiter is the socket's listener. It keeps at most max connections
// open: when one more is accepted, the oldest connection that has not yet
// sent a whole request header is closed to make room (only junk stays in
// that state for long: a real client sends its header at once); when every
// connection is busy (a request being answered, a WebSocket, a keep-alive
// connection between requests), accepting waits until one closes.
type connLimiter struct {
	net.Listener
	max int
	log *slog.Logger

	mu     sync.Mutex
	cond   *sync.Cond
	open   map[*trackedConn]struct{}
	seq    uint64
	closed bool

	evictLog, waitLog everyLog
}

func newConnLimiter(ln net.Listener, max int, log *slog.Logger) *connLimiter {
	l := &connLimiter{Listener: ln, max: max, log: log, open: map[*trackedConn]struct{}{}}
	l.cond = sync.NewCond(&l.mu)
	return l
}

// trackedConn is a connection the limiter counts until it is closed.
type trackedConn struct {
	net.Conn
	l     *connLimiter
	seq   uint64
	state http.ConnState // guarded by l.mu
	once  sync.Once
}

// Close closes the connection and frees its place.
func (c *trackedConn) Close() error {
	c.once.Do(func() { c.l.release(c) })
	return c.Conn.Close()
}

// net/http half-closes a connection it ends after an answer if it can.
var _ interface{ CloseWrite() error } = (*trackedConn)(nil)

// CloseWrite half-closes the connection. net/http calls it after an answer
// with "Connection: close", so the client sees the end at once rather than
// after the server's linger.
func (c *trackedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func (l *connLimiter) Accept() (net.Conn, error) {
	nc, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.seq++
	c := &trackedConn{Conn: nc, l: l, seq: l.seq, state: http.StateNew}
	l.open[c] = struct{}{}
	for len(l.open) > l.max && !l.closed {
		if v := l.oldestSilentLocked(c); v != nil {
			l.mu.Unlock()
			if n, ok := l.evictLog.hit(time.Now(), limitLogEvery); ok {
				l.log.Warn("room socket at its connection limit: closing the oldest connections that sent no request", "limit", l.max, "closed_since_last_line", n)
			}
			v.Close()
			l.mu.Lock()
			continue
		}
		if n, ok := l.waitLog.hit(time.Now(), limitLogEvery); ok {
			l.log.Warn("room socket at its connection limit with every connection in use: new connections wait", "limit", l.max, "waits_since_last_line", n)
		}
		l.cond.Wait()
	}
	closed := l.closed
	l.mu.Unlock()
	if closed {
		c.Close()
		return nil, net.ErrClosed
	}
	return c, nil
}

// oldestSilentLocked is the oldest connection other than except that has
// not yet sent a whole request header.
func (l *connLimiter) oldestSilentLocked(except *trackedConn) *trackedConn {
	var v *trackedConn
	for c := range l.open {
		if c != except && c.state == http.StateNew && (v == nil || c.seq < v.seq) {
			v = c
		}
	}
	return v
}

func (l *connLimiter) release(c *trackedConn) {
	l.mu.Lock()
	delete(l.open, c)
	l.mu.Unlock()
	l.cond.Broadcast()
}

// connState is the http.Server's ConnState hook: net/http leaves StateNew
// only when a whole request header has been read.
func (l *connLimiter) connState(nc net.Conn, st http.ConnState) {
	c, ok := nc.(*trackedConn)
	if !ok {
		return
	}
	l.mu.Lock()
	c.state = st
	l.mu.Unlock()
}

// Close stops accepting; a connection waiting for its place is closed.
func (l *connLimiter) Close() error {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.cond.Broadcast()
	return l.Listener.Close()
}

// count is how many connections are open.
func (l *connLimiter) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.open)
}

// everyLog lets a repeated log line through at most once per interval.
type everyLog struct {
	mu   sync.Mutex
	n    int
	last time.Time
}

// hit counts one occurrence; ok says the line is due, n how many occurred
// since the last line (this one included).
func (e *everyLog) hit(now time.Time, every time.Duration) (n int, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.n++
	if !e.last.IsZero() && now.Sub(e.last) < every {
		return 0, false
	}
	n, e.n, e.last = e.n, 0, now
	return n, true
}

// maxLogLine bounds a line of net/http's that goes to the app log: its text
// can carry what a client sent.
const maxLogLine = 512

// httpErrorLog takes net/http's error lines (http.Server.ErrorLog) to the
// app's log, so none reaches stderr, which is the TUI's screen.
type httpErrorLog struct{ log *slog.Logger }

// Write takes one line: the log.Logger writes each message whole.
func (h httpErrorLog) Write(p []byte) (int, error) {
	h.log.Warn("room socket: http server", "line", wire.Cut(strings.TrimRight(string(p), "\n"), maxLogLine))
	return len(p), nil
}

package socket

// The socket's guards against connections that hold descriptors without
// using them: timeouts for every connection (net/http's settings), a bound
// on how many are open at once with room kept for the seats' own
// connections (a listener of ours), and net/http's error lines routed to
// the app log. See docs/decisions.md, "Room socket hardening" and "Room for
// the seats' connections".

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
	// connection's accept (or a kept connection's next first byte) to the
	// blank line: a connection that sends nothing or dribbles its header
	// is closed.
	readHeader time.Duration
	// idle bounds a keep-alive connection's wait for its next request.
	idle time.Duration
	// hookBody bounds the read of an accepted hook call's body.
	hookBody time.Duration
	// maxConns bounds the open connections (WebSockets included).
	maxConns int
	// seatRoom of them are kept for the seats' own connections: the
	// WebSockets that prove no launch (the room token alone) are at most
	// maxConns-seatRoom.
	seatRoom int
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
	seatRoom:   64,
	wsPing:     30 * time.Second,
	wsRead:     90 * time.Second,
}

// maxHeaderBytes bounds a request's start line and header (net/http's
// default is 1 MB; it allows 4 KiB over this).
const maxHeaderBytes = 64 << 10

// wsWriteTimeout bounds one WebSocket write (frame, ping or pong) and the
// handshake's answer.
const wsWriteTimeout = 10 * time.Second

// limitLogEvery bounds the lines about the connection limit: one per
// interval, each saying how many times it was hit since the last.
const limitLogEvery = 10 * time.Second

// connLimiter is the socket's listener: it keeps at most max connections
// open. When one more is accepted it makes room by closing, first found
// first:
//
//  1. the oldest connection that has not yet sent a whole request header
//     (only junk stays in that state for long: a real client sends its
//     header at once);
//  2. the keep-alive connection idle the longest (its client dials again);
//  3. the WebSocket that proved no launch (no seat's) and has been silent
//     the longest.
//
// A seat's WebSocket (it proved its launch's capability), a request being
// answered and a hook call's connection while it is in use are never closed
// for room: when nothing else is left, accepting waits until one closes.
// And WebSockets that are no seat's may hold at most max-seatRoom places
// (makeRoomForOther): the rest stay free for new connections, so a seat's
// sidecar is never the oldest connection without a header among a handful.
type connLimiter struct {
	net.Listener
	max, seatRoom int
	log           *slog.Logger

	mu     sync.Mutex
	cond   *sync.Cond // a place freed, a state changed, the limiter closed
	open   map[*trackedConn]struct{}
	seq    uint64
	closed bool

	evictLog, waitLog, otherLog everyLog
}

func newConnLimiter(ln net.Listener, lim limits, log *slog.Logger) *connLimiter {
	l := &connLimiter{Listener: ln, max: lim.maxConns, seatRoom: min(lim.seatRoom, lim.maxConns-1), log: log, open: map[*trackedConn]struct{}{}}
	l.cond = sync.NewCond(&l.mu)
	return l
}

// trackedConn is a connection the limiter counts until it is closed.
type trackedConn struct {
	net.Conn
	l   *connLimiter
	seq uint64
	// Guarded by l.mu: net/http's state (StateHijacked: a WebSocket),
	// whether the connection proved a launch, and when it was last used
	// (its state changed, or a WebSocket frame arrived).
	state http.ConnState
	seat  bool
	last  time.Time
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
	c := &trackedConn{Conn: nc, l: l, seq: l.seq, state: http.StateNew, last: time.Now()}
	l.open[c] = struct{}{}
	for len(l.open) > l.max && !l.closed {
		if v, why := l.victimLocked(c); v != nil {
			l.mu.Unlock()
			if n, ok := l.evictLog.hit(time.Now(), limitLogEvery); ok {
				l.log.Warn("room socket at its connection limit: closing "+why, "limit", l.max, "closed_since_last_line", n)
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

// victimLocked is the connection to close to make room for except (nil:
// none may be), and what it is for the log.
func (l *connLimiter) victimLocked(except *trackedConn) (*trackedConn, string) {
	var silent, idle, other *trackedConn
	for c := range l.open {
		switch {
		case c == except:
		case c.state == http.StateNew:
			if silent == nil || c.seq < silent.seq {
				silent = c
			}
		case c.state == http.StateIdle:
			if idle == nil || c.last.Before(idle.last) {
				idle = c
			}
		case c.state == http.StateHijacked && !c.seat:
			if other == nil || c.last.Before(other.last) {
				other = c
			}
		}
	}
	switch {
	case silent != nil:
		return silent, "the oldest connections that sent no request"
	case idle != nil:
		return idle, "the keep-alive connections idle the longest"
	case other != nil:
		return other, "the WebSockets that are no seat's, silent the longest"
	}
	return nil, ""
}

// makeRoomForOther is called before c becomes a WebSocket that proved no
// launch: if such WebSockets already hold max-seatRoom places, the one
// silent the longest is closed.
func (l *connLimiter) makeRoomForOther(c *trackedConn) {
	if c == nil {
		return
	}
	l.mu.Lock()
	n := 0
	var v *trackedConn
	for o := range l.open {
		if o != c && o.state == http.StateHijacked && !o.seat {
			n++
			if v == nil || o.last.Before(v.last) {
				v = o
			}
		}
	}
	l.mu.Unlock()
	if n < l.max-l.seatRoom || v == nil {
		return
	}
	if k, ok := l.otherLog.hit(time.Now(), limitLogEvery); ok {
		l.log.Warn("room socket: the WebSockets that are no seat's hold their share of the connections; closing the one silent the longest", "share", l.max-l.seatRoom, "closed_since_last_line", k)
	}
	v.Close()
}

// markSeat records that c proved a launch of the app (a capability or a
// hook secret): it is never closed for room while in use.
func (l *connLimiter) markSeat(c *trackedConn) {
	if c == nil {
		return
	}
	l.mu.Lock()
	c.seat = true
	l.mu.Unlock()
}

// touch records that c is in use now (a WebSocket frame arrived).
func (l *connLimiter) touch(c *trackedConn) {
	if c == nil {
		return
	}
	l.mu.Lock()
	c.last = time.Now()
	l.mu.Unlock()
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
	if !ok || st == http.StateClosed {
		return // Close has released it
	}
	l.mu.Lock()
	c.state, c.last = st, time.Now()
	l.mu.Unlock()
	l.cond.Broadcast()
}

// closeAll closes every open connection.
func (l *connLimiter) closeAll() {
	l.mu.Lock()
	cs := make([]*trackedConn, 0, len(l.open))
	for c := range l.open {
		cs = append(cs, c)
	}
	l.mu.Unlock()
	for _, c := range cs {
		c.Close()
	}
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

// httpErrorLog takes net/http's error lines (http.Server.ErrorLog: accept
// errors, retried after a pause doubling from 5 ms to 1 s, among them) to
// the app's log, so none reaches stderr, which is the TUI's screen: at most
// one line per limitLogEvery, with how many there were since.
type httpErrorLog struct {
	log   *slog.Logger
	every *everyLog
}

// Write takes one line: the log.Logger writes each message whole.
func (h httpErrorLog) Write(p []byte) (int, error) {
	if n, ok := h.every.hit(time.Now(), limitLogEvery); ok {
		h.log.Warn("room socket: http server", "line", wire.Cut(strings.TrimRight(string(p), "\n"), maxLogLine), "lines_since_last", n)
	}
	return len(p), nil
}

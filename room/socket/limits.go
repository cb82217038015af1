package socket

// The socket's guards against connections that hold descriptors without
// using them: timeouts for every connection, a bound on how many are open at
// once, and the shutdown's wait. See docs/decisions.md, "Room socket
// hardening".

import (
	"log/slog"
	"net"
	"sync"
	"time"
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

	mu       sync.Mutex
	cond     *sync.Cond // a place freed, a state changed, the limiter closed
	open     map[*trackedConn]struct{}
	seq      uint64
	closed   bool
	draining bool // the server shuts down: no connection becomes idle

	evictLog, waitLog everyLog
}

func newConnLimiter(ln net.Listener, max int, log *slog.Logger) *connLimiter {
	l := &connLimiter{Listener: ln, max: max, log: log, open: map[*trackedConn]struct{}{}}
	l.cond = sync.NewCond(&l.mu)
	return l
}

// connState is where a connection is in its life, for the limiter and the
// shutdown.
type connState uint8

const (
	// stateNew: accepted, its first request's header not yet whole (the
	// only state the limiter closes a connection in to make room).
	stateNew connState = iota
	// stateActive: a request read and being answered (or, after keep-alive,
	// the next one's first bytes arrived).
	stateActive
	// stateIdle: keep-alive, waiting for the next request.
	stateIdle
	// stateUpgraded: a WebSocket.
	stateUpgraded
)

// trackedConn is a connection the limiter counts until it is closed.
type trackedConn struct {
	net.Conn
	l     *connLimiter
	seq   uint64
	state connState // guarded by l.mu
	once  sync.Once
}

// Close closes the connection and frees its place.
func (c *trackedConn) Close() error {
	c.once.Do(func() { c.l.release(c) })
	return c.Conn.Close()
}

// CloseWrite half-closes the connection: after an answer with
// "Connection: close" the client sees the end at once, while what it still
// sends is read and dropped (see linger).
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
	c := &trackedConn{Conn: nc, l: l, seq: l.seq, state: stateNew}
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
		if c != except && c.state == stateNew && (v == nil || c.seq < v.seq) {
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

// setState moves c to st. While the server shuts down a connection may
// not become idle: false says to close it instead.
func (l *connLimiter) setState(c *trackedConn, st connState) bool {
	l.mu.Lock()
	ok := !(l.draining && st == stateIdle)
	if ok {
		c.state = st
	}
	l.mu.Unlock()
	l.cond.Broadcast() // awaitQuiet
	return ok
}

// drain starts the shutdown: no connection may become idle from now on,
// and those idle now are closed.
func (l *connLimiter) drain() {
	l.mu.Lock()
	l.draining = true // from now on setState refuses idle
	l.mu.Unlock()
	l.closeIf(func(c *trackedConn) bool { return c.state == stateIdle })
}

// closeIf closes the open connections that pick chooses (it is called
// with l.mu held; the closes come after).
func (l *connLimiter) closeIf(pick func(*trackedConn) bool) {
	l.mu.Lock()
	var cs []*trackedConn
	for c := range l.open {
		if pick(c) {
			cs = append(cs, c)
		}
	}
	l.mu.Unlock()
	for _, c := range cs {
		c.Close()
	}
}

// isDraining says whether the shutdown has begun.
func (l *connLimiter) isDraining() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.draining
}

// awaitQuiet waits until no connection is new or answering a request
// (WebSockets do not count), at most until deadline; false: the deadline
// came first.
func (l *connLimiter) awaitQuiet(deadline time.Time) bool {
	wake := time.AfterFunc(time.Until(deadline), func() {
		l.mu.Lock() // the waiter is in Wait or has yet to look at the clock
		l.mu.Unlock()
		l.cond.Broadcast()
	})
	defer wake.Stop()
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		busy := false
		for c := range l.open {
			if c.state == stateNew || c.state == stateActive {
				busy = true
				break
			}
		}
		if !busy {
			return true
		}
		if !time.Now().Before(deadline) {
			return false
		}
		l.cond.Wait()
	}
}

// closeAll closes every open connection.
func (l *connLimiter) closeAll() { l.closeIf(func(*trackedConn) bool { return true }) }

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

// maxLogLine bounds a text of the listener's that goes to the app log (an
// accept error).
const maxLogLine = 512

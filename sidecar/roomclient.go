package sidecar

// The room client: one WebSocket to the room socket, kept up for the life of
// the sidecar. Every (re)connection starts with hello, so the room seats the
// connection before any other frame. Requests are correlated by id — posts by
// message_id, history and usage by request_id — never by arrival order; a
// connection that drops fails every request still waiting, since no answer
// can come on a new connection.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"pullcept/room/wire"
)

// Errors of a room request.
var (
	// ErrNotConnected: the frame was not sent, nothing reached the room.
	ErrNotConnected = errors.New("not connected to the room")
	// ErrDropped: the frame was sent but the connection dropped before the
	// answer; the room may or may not have acted on it.
	ErrDropped = errors.New("the connection to the room dropped before it answered")
	// ErrNoAnswer: the frame was sent and no answer came in time.
	ErrNoAnswer = errors.New("the room did not answer in time")
)

// Defaults of the client's timings.
const (
	DefaultReconnectMin  = 200 * time.Millisecond
	DefaultReconnectMax  = 10 * time.Second
	DefaultConnectWait   = 5 * time.Second
	DefaultAnswerTimeout = 15 * time.Second
	pingInterval         = 30 * time.Second
	writeTimeout         = 10 * time.Second
	handshakeTimeout     = 10 * time.Second
	// maxRoomFrame bounds a frame from the room. Its largest is a history
	// page, wire.HistoryMax posts of room.MaxContentBytes (256 KiB) each:
	// 50 MiB, 300 MiB if JSON escaping made every byte six. The bound is
	// above that, so no page the room can send is refused, and still stops
	// a runaway frame before it takes the machine's memory.
	maxRoomFrame = 512 << 20
	// statusUnauthorized is HTTP's 401: the room refused the token.
	statusUnauthorized = 401
)

type answer struct {
	v   any // *wire.PostResult, *wire.HistoryResult, *wire.UsageResult
	err error
}

type roomClient struct {
	url    string
	token  string
	hello  wire.Hello
	log    *slog.Logger
	min    time.Duration
	max    time.Duration
	wait   time.Duration // how long a request waits for a connection
	answer time.Duration // how long a request waits for its answer
	ping   time.Duration // how often the client pings the room: pingInterval

	mu      sync.Mutex
	conn    *websocket.Conn // nil while disconnected
	up      chan struct{}   // closed while connected
	lastErr string          // why the last connection failed or ended
	roomErr string          // the last error frame the room sent without an id
	// seated: an identity frame came on this connection; refused: the
	// error frame that answered its hello instead (another protocol, a
	// full room), "" for none.
	seated  bool
	refused string
	pending map[string]chan answer
	onConn  func(up bool)
	// onIdentity, if set, takes each identity frame (the names the room
	// calls the seat by). It must not block long.
	onIdentity func(wire.Identity)
	// capability is the launch's operation capability, shown in the
	// handshake only (sessionops.go); "" for none.
	capability string

	writeMu sync.Mutex
}

func newRoomClient(cfg Config, log *slog.Logger, min, max, wait, ans time.Duration) *roomClient {
	return &roomClient{
		url:     wsURL(cfg.URL),
		token:   cfg.Token,
		hello:   wire.Hello{Type: wire.TypeHello, Protocol: wire.ProtocolVersion, Name: cfg.Name, FullName: fullName(cfg), Room: cfg.Room, Hue: cfg.Hue, AccountID: cfg.AccountID},
		log:     log,
		min:     min,
		max:     max,
		wait:    wait,
		answer:  ans,
		ping:    pingInterval,
		up:      make(chan struct{}),
		pending: map[string]chan answer{},
	}
}

// fullName is the hello's full_name: omitted when it is the name.
func fullName(cfg Config) string {
	if cfg.FullName == cfg.Name {
		return ""
	}
	return cfg.FullName
}

// wsURL accepts an http(s) address for the socket too.
func wsURL(raw string) string {
	if rest, ok := strings.CutPrefix(raw, "http://"); ok {
		return "ws://" + rest
	}
	if rest, ok := strings.CutPrefix(raw, "https://"); ok {
		return "wss://" + rest
	}
	return raw
}

// run keeps a connection up until ctx ends, reconnecting with backoff.
func (c *roomClient) run(ctx context.Context) {
	delay := c.min
	for ctx.Err() == nil {
		conn, err := c.dial(ctx)
		if err != nil {
			c.setErr(err.Error())
			c.log.Warn("room connection failed", "url", c.url, "err", err, "retry_in", delay)
		} else {
			began := time.Now()
			c.serve(ctx, conn)
			if time.Since(began) > c.max {
				delay = c.min // it held a while: a fresh failure, not a flapping one
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
		delay = min(delay*2, c.max)
	}
}

func (c *roomClient) dial(ctx context.Context) (*websocket.Conn, error) {
	h := http.Header{"Authorization": {"Bearer " + c.token}}
	if c.capability != "" {
		h.Set(CapabilityHeader, c.capability)
	}
	// No proxy: the room listens on loopback.
	d := websocket.Dialer{HandshakeTimeout: handshakeTimeout}
	conn, resp, err := d.DialContext(ctx, c.url, h)
	if err != nil {
		if resp != nil { // the room answered, and not with 101
			resp.Body.Close()
			if resp.StatusCode == statusUnauthorized {
				return nil, fmt.Errorf("the room refused the token (%s)", resp.Status)
			}
			return nil, fmt.Errorf("%s: %s", c.url, resp.Status)
		}
		return nil, err
	}
	conn.SetReadLimit(maxRoomFrame)
	if err := c.write(conn, c.hello); err != nil {
		conn.Close()
		return nil, fmt.Errorf("send hello: %w", err)
	}
	return conn, nil
}

// serve reads the connection until it ends, then fails what is pending.
//
// conn's reads are this goroutine's; its writes (requests, the pings
// below) each hold writeMu over the deadline and the frame.
func (c *roomClient) serve(ctx context.Context, conn *websocket.Conn) {
	c.mu.Lock()
	c.conn = conn
	c.lastErr = ""
	c.roomErr = ""
	c.seated, c.refused = false, ""
	close(c.up)
	c.mu.Unlock()
	if c.onConn != nil {
		c.onConn(true)
	}
	c.log.Info("connected to the room", "url", c.url, "room", c.hello.Room, "name", c.hello.Name)

	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // closes the connection when ctx ends; pings meanwhile
		defer wg.Done()
		t := time.NewTicker(c.ping)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				conn.Close()
				return
			case <-done:
				return
			case <-t.C:
				c.writeMu.Lock()
				err := conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(writeTimeout))
				c.writeMu.Unlock()
				if err != nil {
					conn.Close()
					return
				}
			}
		}
	}()

	var why error
	for {
		_, data, err := conn.ReadMessage()
		if err != nil {
			why = err
			break
		}
		c.dispatch(data)
	}
	close(done)
	wg.Wait()
	conn.Close()

	c.mu.Lock()
	c.conn = nil
	c.up = make(chan struct{})
	if ctx.Err() == nil {
		c.lastErr = "connection lost: " + why.Error()
	}
	pending := c.pending
	c.pending = map[string]chan answer{}
	c.mu.Unlock()
	for _, ch := range pending {
		ch <- answer{err: ErrDropped}
	}
	if c.onConn != nil {
		c.onConn(false)
	}
	if ctx.Err() == nil {
		c.log.Warn("room connection lost; reconnecting", "err", why)
	}
}

// dispatch hands one frame to the request waiting for it.
func (c *roomClient) dispatch(data []byte) {
	typ, v, err := wire.Decode(data)
	if err != nil {
		c.log.Warn("unreadable frame from the room", "err", err)
		return
	}
	var key string
	switch f := v.(type) {
	case *wire.PostResult:
		key = postKey(f.MessageID)
	case *wire.HistoryResult:
		key = reqKey(f.RequestID)
	case *wire.UsageResult:
		key = reqKey(f.RequestID)
	case *wire.SessionResult:
		key = reqKey(f.RequestID)
	case *wire.Identity:
		c.mu.Lock()
		c.seated = true
		c.mu.Unlock()
		if c.onIdentity != nil {
			c.onIdentity(*f)
		}
		return
	case *wire.ErrorFrame:
		switch {
		case f.MessageID != "":
			key = postKey(f.MessageID)
		case f.RequestID != "":
			key = reqKey(f.RequestID)
		default:
			c.mu.Lock()
			c.roomErr = f.Error
			if !c.seated {
				c.refused = f.Error
			}
			c.mu.Unlock()
			c.log.Warn("the room reported an error", "err", f.Error)
			return
		}
		c.deliver(key, answer{err: fmt.Errorf("the room answered: %s", f.Error)})
		return
	default:
		_ = typ // unknown and unexpected frames are ignored
		return
	}
	c.deliver(key, answer{v: v})
}

func (c *roomClient) deliver(key string, a answer) {
	c.mu.Lock()
	ch, ok := c.pending[key]
	delete(c.pending, key)
	c.mu.Unlock()
	if ok {
		ch <- a // buffered, one answer per key
	}
}

func postKey(id string) string { return "post:" + id }
func reqKey(id string) string  { return "req:" + id }

func (c *roomClient) setErr(s string) {
	c.mu.Lock()
	c.lastErr = s
	c.mu.Unlock()
}

// helloRefused is why the room refused this connection's hello, "" when
// it did not (or seated it since).
func (c *roomClient) helloRefused() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seated {
		return ""
	}
	return c.refused
}

// status describes the connection for error messages.
func (c *roomClient) status() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var parts []string
	if c.conn == nil {
		parts = append(parts, "disconnected, reconnecting")
		if c.lastErr != "" {
			parts = append(parts, "last error: "+c.lastErr)
		}
	}
	if c.roomErr != "" {
		parts = append(parts, "the room said: "+c.roomErr)
	}
	return strings.Join(parts, "; ")
}

func (c *roomClient) write(conn *websocket.Conn, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	conn.SetWriteDeadline(time.Now().Add(writeTimeout))
	return conn.WriteMessage(websocket.TextMessage, data)
}

// connected waits up to the client's wait for a live connection.
func (c *roomClient) connected(ctx context.Context) *websocket.Conn {
	c.mu.Lock()
	conn, up := c.conn, c.up
	c.mu.Unlock()
	if conn != nil {
		return conn
	}
	t := time.NewTimer(c.wait)
	defer t.Stop()
	select {
	case <-up:
	case <-t.C:
	case <-ctx.Done():
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conn
}

// request sends frame and waits for the answer filed under key.
func (c *roomClient) request(ctx context.Context, key string, frame any) (any, error) {
	data, err := json.Marshal(frame)
	if err != nil {
		return nil, err
	}
	if len(data) > wire.MaxFrameBytes {
		return nil, fmt.Errorf("too large for the room: the frame is %d bytes, the limit is %d; nothing was sent", len(data), wire.MaxFrameBytes)
	}
	conn := c.connected(ctx)
	if conn == nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w (%s)", ErrNotConnected, c.status())
	}
	ch := make(chan answer, 1)
	c.mu.Lock()
	if c.conn != conn { // dropped meanwhile
		c.mu.Unlock()
		return nil, fmt.Errorf("%w (%s)", ErrNotConnected, c.status())
	}
	c.pending[key] = ch
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		if c.pending[key] == ch {
			delete(c.pending, key)
		}
		c.mu.Unlock()
	}

	c.writeMu.Lock()
	conn.SetWriteDeadline(time.Now().Add(writeTimeout))
	err = conn.WriteMessage(websocket.TextMessage, data)
	c.writeMu.Unlock()
	if err != nil {
		forget()
		conn.Close() // the reader notices and reconnects
		return nil, fmt.Errorf("%w (sending failed: %v)", ErrNotConnected, err)
	}

	t := time.NewTimer(c.answer)
	defer t.Stop()
	select {
	case a := <-ch:
		return a.v, a.err
	case <-t.C:
		forget()
		if s := c.status(); s != "" {
			return nil, fmt.Errorf("%w (%s)", ErrNoAnswer, s)
		}
		return nil, ErrNoAnswer
	case <-ctx.Done():
		forget()
		return nil, ctx.Err()
	}
}

// Package socket is the room socket: a loopback HTTP/1.1 server that
// upgrades authenticated GETs to the room's WebSocket protocol and answers
// the sessions' status and activity hooks (POST) on the same port. It runs
// on pullcept/room/wsconn (the frames and the HTTP heads its clients in
// pullcept/room/dial share), not on net/http: the server binary's memory
// counts every package it links (docs/decisions.md, "Room socket
// hardening").
//
// Spec: 003 "部屋プロトコル（アプリ ⇔ サイドカー）".
package socket

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"pullcept/room"
	"pullcept/room/wire"
	"pullcept/room/wsconn"
)

// Path is where the WebSocket is served.
const Path = "/room"

// maxHookBody bounds a hook's POST body.
const maxHookBody = 256 << 10

// shutdownWait is how long Close waits for the answers in flight (and
// connections that have not sent their request yet) before it closes them.
const shutdownWait = 2 * time.Second

// Server is a running room socket.
type Server struct {
	engine *room.Engine
	token  string
	ln     *connLimiter
	log    *slog.Logger
	lim    limits

	// ctx ends when Close gives up waiting: the hook answers still
	// waiting end with it. stopping is closed when Close begins.
	ctx       context.Context
	cancel    context.CancelFunc
	stopping  chan struct{}
	closeOnce sync.Once
	closeErr  error

	acceptLog everyLog

	wg    sync.WaitGroup
	mu    sync.Mutex
	peers map[room.ConnID]func(any) error // each connection's send, for pushed frames
	hooks Hooks
	// ops takes session operations; launches is the launch each
	// connection proved at its handshake (sessionops.go).
	ops      Operations
	launches map[room.ConnID]Launch

	refusedHooks, refusedOther everyLog
	refusedHellos              [helloKinds]everyLog
}

// NewToken makes a fresh random token (one per run).
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("room token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// Listen starts the socket on 127.0.0.1 with an OS-chosen port.
func Listen(e *room.Engine, token string, log *slog.Logger) (*Server, error) {
	if token == "" {
		return nil, errors.New("room socket: empty token")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("room socket: %w", err)
	}
	return serve(e, token, log, ln, defaultLimits), nil
}

// serve runs the socket on ln with the given limits.
func serve(e *room.Engine, token string, log *slog.Logger, ln net.Listener, lim limits) *Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cl := newConnLimiter(ln, lim.maxConns, log)
	s := &Server{engine: e, token: token, ln: cl, log: log, lim: lim, peers: map[room.ConnID]func(any) error{}, stopping: make(chan struct{})}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.acceptLoop()
	}()
	return s
}

// acceptLoop serves each accepted connection on its own goroutine until
// the listener closes. A temporary accept error (descriptors run out) is
// logged, at most once per limitLogEvery, and retried after a pause that
// doubles from 5 ms to 1 s, as net/http's did.
func (s *Server) acceptLoop() {
	var pause time.Duration
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			select {
			case <-s.stopping:
				return
			default:
			}
			if te, ok := err.(interface{ Temporary() bool }); !ok || !te.Temporary() || errors.Is(err, net.ErrClosed) {
				s.log.Error("room socket stopped", "err", err)
				return
			}
			pause = min(max(2*pause, 5*time.Millisecond), time.Second)
			if n, ok := s.acceptLog.hit(time.Now(), limitLogEvery); ok {
				s.log.Warn("room socket: accept failed, retrying", "err", wire.Cut(err.Error(), maxLogLine), "retry_in", pause, "failed_since_last_line", n)
			}
			select {
			case <-s.stopping:
				return
			case <-time.After(pause):
			}
			continue
		}
		pause = 0
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.serveConn(nc.(*trackedConn))
		}()
	}
}

// URL is the WebSocket address sidecars connect to.
func (s *Server) URL() string { return "ws://" + s.ln.Addr().String() + Path }

// Addr is the listening address.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Token is the run's bearer token.
func (s *Server) Token() string { return s.token }

// Close stops listening and shuts down: idle keep-alive connections are
// closed at once; answers in flight (and connections that have not sent
// their request yet) get shutdownWait to finish, each then closing its
// connection; whatever is left after that is closed, WebSockets included,
// and Close waits for every connection's goroutine. The error says the
// wait ran out (context.DeadlineExceeded), as http.Server.Shutdown's did.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		close(s.stopping)
		s.ln.Close()
		s.ln.drain()
		if !s.ln.awaitQuiet(time.Now().Add(shutdownWait)) {
			s.closeErr = context.DeadlineExceeded
		}
		s.cancel() // a hook answer still waiting ends
		s.ln.closeAll()
	})
	s.wg.Wait()
	return s.closeErr
}

func (s *Server) authorized(h wsconn.Header) bool {
	got := h.Get("authorization")
	want := "Bearer " + s.token
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// route refuses anything without the right secret, before any frame: the
// room token for the WebSocket, the seat's own hook secret for a hook.
// false: close the connection.
func (s *Server) route(c *conn, r *request) bool {
	switch {
	case r.Method == "POST" && strings.HasPrefix(r.path, "/hooks/"):
		return s.serveHook(c, r)
	case !s.authorized(r.Header):
		s.logRefused(&s.refusedOther, "request refused", 401, r.Method+" "+r.path+": missing or wrong bearer token")
		return c.refuse(r.RequestHead, 401, "missing or wrong bearer token")
	case r.Method == "GET" && r.path == Path:
		return s.serveWS(c, r)
	default:
		return c.refuse(r.RequestHead, 404, "not found")
	}
}

// Hooks is what the socket needs to take a seat's hook calls (the seat
// manager): each launch has its own secret, and a call is accepted only for
// its own seat.
type Hooks interface {
	// CheckHook says whether secret is the hook secret of account's seat in
	// topic (an error naming why not).
	CheckHook(topic, account, secret string) error
	// Activity takes an activity event; it may wait briefly (a post being
	// typed finishes first). A body it cannot read is an error.
	Activity(ctx context.Context, topic, account, event string, body []byte) error
}

// SetHooks wires the seats' hooks (before any seat starts).
func (s *Server) SetHooks(h Hooks) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hooks = h
}

// hookLogEvery bounds the log of refused hook calls: one line per interval.
const hookLogEvery = 10 * time.Second

// serveHook answers POST /hooks/status/<topic>/<account> and
// /hooks/activity/<event>/<topic>/<account> with {}, keeping the
// connection if the client asks to. Refused calls get a 4xx, change
// nothing, close the connection, and are logged at most once per
// hookLogEvery. false: close the connection.
func (s *Server) serveHook(c *conn, r *request) bool {
	s.mu.Lock()
	hooks := s.hooks
	s.mu.Unlock()
	deny := func(code int, msg string) bool {
		s.logRefused(&s.refusedHooks, "hook call refused", code, msg)
		return c.refuse(r.RequestHead, code, msg)
	}
	parts := strings.Split(strings.TrimPrefix(r.path, "/hooks/"), "/")
	var event, topic, account string
	switch {
	case len(parts) == 3 && parts[0] == "status" && parts[1] != "" && parts[2] != "":
		topic, account = parts[1], parts[2]
	case len(parts) == 4 && parts[0] == "activity" && parts[1] != "" && parts[2] != "" && parts[3] != "":
		event, topic, account = parts[1], parts[2], parts[3]
	default:
		return deny(404, "unknown hook: want /hooks/status/<topic>/<account> or /hooks/activity/<event>/<topic>/<account>")
	}
	if hooks == nil {
		return deny(404, "this room runs no seats")
	}
	secret, _ := strings.CutPrefix(r.Header.Get("authorization"), "Bearer ")
	if err := hooks.CheckHook(topic, account, secret); err != nil {
		return deny(403, "hook refused: "+err.Error())
	}
	const tooLarge = "hook body unreadable or over 256 KiB"
	if r.length > maxHookBody {
		return deny(413, tooLarge) // said at once: not one byte of it is read
	}
	if c.continue100(r) != nil {
		return false
	}
	// For the body only: the answer may wait for the barrier.
	c.deadline(s.lim.hookBody)
	body, err := c.readBody(r, maxHookBody+1)
	c.tc.SetReadDeadline(time.Time{})
	if err != nil || len(body) > maxHookBody {
		return deny(413, tooLarge)
	}
	if event == "" {
		s.engine.RecordUsage(topic, account, parseStatus(body))
	} else {
		ctx, stop := c.watchPeer()
		err := hooks.Activity(ctx, topic, account, event, body)
		stop()
		if err != nil {
			return deny(400, "hook not taken: "+err.Error())
		}
	}
	keep := keepAlive(r) && !s.ln.isDraining()
	fields := [][2]string{{"Content-Type", "application/json"}}
	switch {
	case !keep:
		fields = append(fields, [2]string{"Connection", "close"})
	case r.Minor == 0:
		fields = append(fields, [2]string{"Connection", "keep-alive"})
	}
	if c.answer(r.Minor, 200, r.Method, fields, "{}") != nil {
		return false
	}
	if !keep {
		c.linger()
	}
	return keep
}

// logRefused logs a refused request, at most one line per hookLogEvery
// for each kind (with how many were refused since), its text cut short: the
// fields come from outside.
func (s *Server) logRefused(every *everyLog, what string, code int, msg string) {
	n, ok := every.hit(time.Now(), hookLogEvery)
	if !ok {
		return
	}
	s.log.Warn(what, "status", code, "reason", wire.Cut(msg, wire.MaxLogText), "refused_since_last_line", n)
}

// maxErrorText bounds an error frame's text (the room's own messages are
// short; this is a backstop for one that quotes what a peer sent).
const maxErrorText = 1024

// Kinds of refused hello, each logged at most once per hookLogEvery.
const (
	helloNoRoom = iota
	helloRoomFull
	helloTooLong
	helloPersonsName
	helloOther
	helloKinds
)

var helloKindNames = [helloKinds]string{"no room", "room full", "name or account_id too long", "the person's name", "other"}

// logHelloRefused logs a hello the room did not seat: at most one line per
// hookLogEvery for each kind of refusal, with how many were refused since,
// every field the peer chose cut to wire.MaxLogText bytes.
func (s *Server) logHelloRefused(h *wire.Hello, err error) {
	kind := helloOther
	switch {
	case errors.Is(err, room.ErrNoRoom):
		kind = helloNoRoom
	case errors.Is(err, room.ErrRoomFull):
		kind = helloRoomFull
	case errors.Is(err, room.ErrNameTooLong), errors.Is(err, room.ErrAccountTooLong):
		kind = helloTooLong
	case errors.Is(err, room.ErrPersonsName):
		kind = helloPersonsName
	}
	n, ok := s.refusedHellos[kind].hit(time.Now(), hookLogEvery)
	if !ok {
		return
	}
	s.log.Warn("hello not seated", "kind", helloKindNames[kind],
		"name", wire.Cut(h.Name, wire.MaxLogText), "room", wire.Cut(h.Room, wire.MaxLogText),
		"account", wire.Cut(h.AccountID, wire.MaxLogText), "err", wire.Cut(err.Error(), wire.MaxLogText),
		"refused_since_last_line", n)
}

// parseStatus reads a Claude Code status line payload: the model
// ({"model":{"display_name","id"}}), the effort ({"effort":{"level"}}), the
// context use ({"context_window":{"used_percentage"}}) and the rate limits
// ({"rate_limits":{"five_hour":{"used_percentage":N,"resets_at":T},
// "seven_day":{...}}}, only in subscription sessions; resets_at unix
// seconds or a string). What is absent stays absent.
func parseStatus(body []byte) room.UsageReport {
	var v struct {
		Model struct {
			DisplayName string `json:"display_name"`
			ID          string `json:"id"`
		} `json:"model"`
		Effort struct {
			Level string `json:"level"`
		} `json:"effort"`
		ContextWindow struct {
			UsedPercentage *float64 `json:"used_percentage"`
		} `json:"context_window"`
		RateLimits map[string]struct {
			UsedPercentage *float64        `json:"used_percentage"`
			ResetsAt       json.RawMessage `json:"resets_at"`
		} `json:"rate_limits"`
	}
	if json.Unmarshal(body, &v) != nil {
		return room.UsageReport{}
	}
	conv := func(key string) *wire.Window {
		w, ok := v.RateLimits[key]
		if !ok || w.UsedPercentage == nil || !sanePercent(*w.UsedPercentage) {
			return nil
		}
		out := &wire.Window{UsedPercentage: *w.UsedPercentage}
		raw := bytes.TrimSpace(w.ResetsAt)
		if n, err := strconv.ParseFloat(string(raw), 64); err == nil {
			out.ResetsAt = time.Unix(int64(n), 0).UTC().Format(time.RFC3339)
		} else {
			var str string
			if json.Unmarshal(raw, &str) == nil {
				out.ResetsAt = wire.Cut(wire.OneLine(str), 64)
			}
		}
		return out
	}
	r := room.UsageReport{FiveHour: conv("five_hour"), SevenDay: conv("seven_day")}
	name := v.Model.DisplayName
	if name == "" {
		name = v.Model.ID
	}
	r.Model = wire.Cut(wire.OneLine(name), 64)
	r.Effort = wire.Cut(wire.OneLine(v.Effort.Level), 32)
	if p := v.ContextWindow.UsedPercentage; p != nil && sanePercent(*p) {
		c := *p
		r.Context = &c
	}
	return r
}

// sanePercent refuses what no CLI reports (NaN, negative, absurd).
func sanePercent(p float64) bool { return p >= 0 && p <= 1000 }

// serveWS checks a WebSocket handshake (RFC 6455, 4.2.1), answers it with
// 101 and runs the connection; a handshake refused gets 403 (a
// capability of no running launch) or 400 (not a WebSocket handshake, as
// gorilla/websocket's upgrader answered). false: close the connection.
func (s *Server) serveWS(c *conn, r *request) bool {
	launch, ok := s.handshakeLaunch(r.Header.Get(strings.ToLower(CapabilityHeader)))
	if !ok {
		// The value is never logged.
		s.logRefused(&s.refusedOther, "request refused", 403, "GET "+Path+": an operation capability of no running launch")
		return c.refuse(r.RequestHead, 403, "operation capability refused: it belongs to no running launch of this app")
	}
	const bad = "not a WebSocket handshake: "
	key := r.Header.Get("sec-websocket-key")
	switch {
	case !r.Header.HasToken("connection", "upgrade"):
		return c.refuse(r.RequestHead, 400, bad+"'upgrade' token not found in 'Connection' header")
	case !r.Header.HasToken("upgrade", "websocket"):
		return c.refuse(r.RequestHead, 400, bad+"'websocket' token not found in 'Upgrade' header")
	case !r.Header.HasToken("sec-websocket-version", "13"):
		return c.refuse(r.RequestHead, 400, "unsupported WebSocket version: 13 not found in 'Sec-WebSocket-Version' header", [2]string{"Sec-WebSocket-Version", "13"})
	case len(r.Header["sec-websocket-key"]) != 1 || !wsconn.ValidKey(key):
		return c.refuse(r.RequestHead, 400, bad+"'Sec-WebSocket-Key' must be the base64 of 16 bytes")
	case r.hasBody():
		return c.refuse(r.RequestHead, 400, bad+"a handshake has no body")
	}
	c.tc.SetWriteDeadline(time.Now().Add(wsWriteTimeout))
	if _, err := c.tc.Write([]byte("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + wsconn.AcceptKey(key) + "\r\n\r\n")); err != nil {
		return false
	}
	s.ln.setState(c.tc, stateUpgraded)
	ws := wsconn.New(c.tc, c.br, wsconn.Server) // frames sent with the handshake are in c.br
	s.run(ws, launch)
	return false
}

// run reads frames until the connection ends. Frames are handled in order;
// a frame the room cannot take gets an error frame and the connection is
// kept.
//
// Keepalive: the room pings every wsPing, and a connection that sends
// nothing at all (no frame, pong or ping) for wsRead while the room waits
// for it is closed. A live peer answers pings by itself (every WebSocket
// library does while it reads; the sidecar always reads, and pings too), so
// only a dead or frozen peer is cut, never a quiet one.
func (s *Server) run(c *wsconn.Conn, launch *Launch) {
	defer c.Close()
	c.SetReadLimit(wire.MaxFrameBytes) // a longer frame is read to its end and dropped, see below
	c.SetReplyTimeout(wsWriteTimeout)  // the pongs
	id := s.engine.NewConn()
	defer s.engine.Leave(id)
	s.bindLaunch(id, launch)
	defer s.unbindLaunch(id)
	var wmu sync.Mutex // answers and pushed frames (identity) share the writer
	send := func(v any) error {
		wmu.Lock()
		defer wmu.Unlock()
		data, err := json.Marshal(v)
		if err != nil {
			return err
		}
		c.SetWriteDeadline(time.Now().Add(wsWriteTimeout))
		return c.WriteMessage(wsconn.TextMessage, data)
	}
	s.mu.Lock()
	s.peers[id] = send
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.peers, id)
		s.mu.Unlock()
	}()
	alive := func() {}
	if s.lim.wsRead > 0 {
		alive = func() { c.SetReadDeadline(time.Now().Add(s.lim.wsRead)) }
		c.SetPingPongHandler(alive) // the Conn answers a ping with its pong by itself
		done := make(chan struct{})
		defer close(done)
		go s.ping(c, done)
	}
	for {
		alive() // from now: the time spent answering the last frame is not the peer's
		kind, data, size, err := c.ReadMessageOrSkip()
		if err != nil {
			return
		}
		if kind != wsconn.TextMessage {
			if send(wire.ErrorFrame{Type: wire.TypeError, Error: "binary frames are not part of the protocol; send JSON text"}) != nil {
				return
			}
			continue
		}
		if data == nil { // over the limit, dropped
			msg := fmt.Sprintf("frame too large: %d bytes, the limit is %d; nothing was done", size, wire.MaxFrameBytes)
			if send(wire.ErrorFrame{Type: wire.TypeError, Error: msg}) != nil {
				return
			}
			continue
		}
		switch reply := s.handle(id, data); reply.(type) {
		case nil:
		case helloSeated:
			s.TellIdentity(id)
		default:
			if send(reply) != nil {
				return
			}
		}
	}
}

// ping pings c every wsPing until done; a ping that cannot be written
// closes the connection.
func (s *Server) ping(c *wsconn.Conn, done <-chan struct{}) {
	t := time.NewTicker(s.lim.wsPing)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			if err := c.WriteControl(wsconn.PingMessage, nil, time.Now().Add(wsWriteTimeout)); err != nil {
				c.Close()
				return
			}
		}
	}
}

// helloSeated is handle's answer to a hello that seated the connection:
// nothing is sent for it, then the identity frame follows.
type helloSeated struct{}

// TellIdentity sends each connection the names it is seated under now (an
// identity frame): after its hello, and after its account was renamed
// (room.Engine.Rename). A connection that is gone or unseated is skipped.
func (s *Server) TellIdentity(ids ...room.ConnID) {
	for _, id := range ids {
		s.mu.Lock()
		send := s.peers[id]
		s.mu.Unlock()
		if send == nil {
			continue
		}
		if f, ok := s.engine.Identity(id); ok {
			_ = send(f) // a failed write ends that connection's reader
		}
	}
}

// handle turns one frame into its answer (nil for none).
func (s *Server) handle(id room.ConnID, data []byte) any {
	typ, v, err := wire.Decode(data)
	if err != nil {
		return wire.ErrorFrame{Type: wire.TypeError, Error: err.Error()}
	}
	switch f := v.(type) {
	case *wire.Hello:
		if f.Protocol != wire.ProtocolVersion {
			// Sidecar and room ship in one binary; a mismatch means a
			// stale registration, and the frames may not be understood.
			return wire.ErrorFrame{Type: wire.TypeError, Error: fmt.Sprintf("protocol %d is not spoken here: this room speaks %d (restart the CLI so it launches this pullcept's sidecar)", f.Protocol, wire.ProtocolVersion)}
		}
		if err := s.engine.Hello(id, *f); err != nil {
			s.logHelloRefused(f, err)
			return wire.ErrorFrame{Type: wire.TypeError, Error: wire.Cut(err.Error(), maxErrorText)}
		}
		return helloSeated{}
	case *wire.PostFrame:
		o, err := s.engine.PostFromConn(id, *f)
		return PostResult(f.MessageID, o, err)
	case *wire.HistoryFrame:
		posts, more, err := s.engine.History(id, f.Limit, f.Before)
		if err != nil {
			return wire.HistoryResult{Type: wire.TypeHistoryResult, RequestID: f.RequestID, Error: wire.Cut(err.Error(), maxErrorText)}
		}
		return wire.HistoryResult{Type: wire.TypeHistoryResult, RequestID: f.RequestID, Posts: posts, HasMore: more}
	case *wire.UsageFrame:
		u, ok, err := s.engine.UsageFor(id)
		res := wire.UsageResult{Type: wire.TypeUsageResult, RequestID: f.RequestID}
		switch {
		case err != nil:
			res.Error = err.Error()
		case ok:
			r := u.Result()
			r.Type, r.RequestID = res.Type, res.RequestID
			res = r
		}
		return res
	case *wire.SessionListFrame, *wire.SessionStatusFrame, *wire.SessionControlFrame:
		return s.handleSession(id, f)
	case nil:
		_ = typ // unknown types are ignored so the room can grow frames
		return nil
	default:
		return wire.ErrorFrame{Type: wire.TypeError, Error: fmt.Sprintf("frame type %q is not sent to the room", wire.Cut(typ, 64))}
	}
}

// PostResult turns a deliver outcome into the post_result for message id.
func PostResult(id string, o room.Outcome, err error) wire.PostResult {
	r := wire.PostResult{Type: wire.TypePostResult, MessageID: id}
	switch {
	case err != nil:
		r.Error = err.Error()
	case o.Delivered:
		r.Delivered, r.MessageID = true, o.Post.MessageID
	default:
		r.Missed = o.Missed
	}
	return r
}

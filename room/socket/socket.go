// Package socket is the room socket: a loopback net/http server that
// upgrades authenticated GETs to the room's WebSocket protocol
// (gorilla/websocket) and answers the sessions' status and activity hooks
// (POST) on the same port. Its limits are docs/decisions.md's "Room socket
// hardening" and "Room for the seats' connections".
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
	"io"
	stdlog "log"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"

	"pullcept/room"
	"pullcept/room/wire"
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
	http   *http.Server
	up     websocket.Upgrader
	log    *slog.Logger
	lim    limits

	// ctx is every request's base context: it ends when Close gives up
	// waiting, and the hook answers still waiting end with it.
	ctx       context.Context
	cancel    context.CancelFunc
	closeOnce sync.Once
	closeErr  error

	wg      sync.WaitGroup // Serve and the WebSockets' goroutines
	mu      sync.Mutex
	closing bool                            // no WebSocket starts once set
	conns   map[*websocket.Conn]struct{}    // the WebSockets, closed by Close
	peers   map[room.ConnID]func(any) error // each connection's send, for pushed frames
	hooks   Hooks
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

// connKey finds the accepted connection of a request (its context).
type connKey struct{}

// serve runs the socket on ln with the given limits.
func serve(e *room.Engine, token string, log *slog.Logger, ln net.Listener, lim limits) *Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cl := newConnLimiter(ln, lim, log)
	s := &Server{engine: e, token: token, ln: cl, log: log, lim: lim, conns: map[*websocket.Conn]struct{}{}, peers: map[room.ConnID]func(any) error{}}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.up = websocket.Upgrader{
		CheckOrigin:      loopbackOrigin,
		HandshakeTimeout: wsWriteTimeout,
		Error:            s.handshakeRefused,
	}
	// No ReadTimeout or WriteTimeout: they would outlive the upgrade and
	// cut a WebSocket that is hours old (it has its own deadlines, see
	// run), and a hook's answer may wait for the barrier.
	s.http = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: lim.readHeader,
		IdleTimeout:       lim.idle,
		MaxHeaderBytes:    maxHeaderBytes,
		ConnState:         cl.connState,
		ErrorLog:          stdlog.New(httpErrorLog{log, &everyLog{}}, "", 0),
		BaseContext:       func(net.Listener) context.Context { return s.ctx },
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, c)
		},
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := s.http.Serve(cl); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("room socket stopped", "err", err)
		}
	}()
	return s
}

// URL is the WebSocket address sidecars connect to.
func (s *Server) URL() string { return "ws://" + s.ln.Addr().String() + Path }

// Addr is the listening address.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Token is the run's bearer token.
func (s *Server) Token() string { return s.token }

// Close is http.Server.Shutdown with a shutdownWait: it stops listening,
// closes idle keep-alive connections at once, lets answers in flight (and
// connections that have not sent their request yet) finish, each then
// closing its connection; whatever is left after the wait is closed,
// WebSockets included, and Close waits for the WebSockets' goroutines. The
// error says the wait ran out (context.DeadlineExceeded).
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownWait)
		defer cancel()
		s.closeErr = s.http.Shutdown(ctx)
		s.cancel() // a hook answer still waiting ends
		s.http.Close()
		s.ln.closeAll()
		s.mu.Lock()
		s.closing = true
		for c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
	})
	s.wg.Wait()
	return s.closeErr
}

func (s *Server) authorized(r *http.Request) bool {
	got := r.Header.Get("Authorization")
	want := "Bearer " + s.token
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// ServeHTTP refuses anything without the right secret, before any body is
// read or any frame: the room token for the WebSocket, the seat's own hook
// secret for a hook.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/hooks/"):
		s.serveHook(w, r)
	case !s.authorized(r):
		s.logRefused(&s.refusedOther, "request refused", http.StatusUnauthorized, r.Method+" "+r.URL.Path+": missing or wrong bearer token")
		refuse(w, http.StatusUnauthorized, "missing or wrong bearer token")
	case r.Method == http.MethodGet && r.URL.Path == Path:
		s.serveWS(w, r)
	default:
		refuse(w, http.StatusNotFound, "not found")
	}
}

// refuse answers a refused request and closes its connection after the
// answer ("Connection: close"): a client that is refused has no business
// keeping a connection, and held ones exhausted the descriptors once.
// net/http half-closes it and drops what the client still sends for a
// moment, so an unread request does not turn the close into a reset.
func refuse(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Connection", "close")
	http.Error(w, msg, code)
	// net/http reads up to 256 KiB of an unread body before it closes,
	// without a deadline: bound it, as the linger before the close.
	http.NewResponseController(w).SetReadDeadline(time.Now().Add(lingerWait))
}

// lingerWait bounds how long the rest of a refused request is read (and
// dropped) before its connection is closed.
const lingerWait = 500 * time.Millisecond

// trackedOf is the accepted connection a request came on (nil in a test
// that calls a handler directly).
func trackedOf(r *http.Request) *trackedConn {
	c, _ := r.Context().Value(connKey{}).(*trackedConn)
	return c
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

// HookReplier is a Hooks that answers some hook calls with more than {}:
// a PermissionRequest decision the person gave from the needs-you list
// (app/needslist.go). HookReply runs after Activity took the call and may
// wait for the person until ctx ends (the CLI closed the call: the prompt
// was answered in its pane); nil means {}.
type HookReplier interface {
	HookReply(ctx context.Context, topic, account, event string, body []byte) []byte
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
// connection if the client asks to. The path and the secret are checked
// before a byte of the body is read (net/http sends "100 Continue" only
// when the body is first read). Refused calls get a 4xx, change nothing,
// close the connection, and are logged at most once per hookLogEvery.
func (s *Server) serveHook(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	hooks := s.hooks
	s.mu.Unlock()
	deny := func(code int, msg string) {
		s.logRefused(&s.refusedHooks, "hook call refused", code, msg)
		refuse(w, code, msg)
	}
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/hooks/"), "/")
	var event, topic, account string
	switch {
	case len(parts) == 3 && parts[0] == "status" && parts[1] != "" && parts[2] != "":
		topic, account = parts[1], parts[2]
	case len(parts) == 4 && parts[0] == "activity" && parts[1] != "" && parts[2] != "" && parts[3] != "":
		event, topic, account = parts[1], parts[2], parts[3]
	default:
		deny(http.StatusNotFound, "unknown hook: want /hooks/status/<topic>/<account> or /hooks/activity/<event>/<topic>/<account>")
		return
	}
	if hooks == nil {
		deny(http.StatusNotFound, "this room runs no seats")
		return
	}
	secret, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if err := hooks.CheckHook(topic, account, secret); err != nil {
		deny(http.StatusForbidden, "hook refused: "+err.Error())
		return
	}
	s.ln.markSeat(trackedOf(r)) // a launch's own secret: this connection is a seat's
	const tooLarge = "hook body unreadable or over 256 KiB"
	if r.ContentLength > maxHookBody {
		deny(http.StatusRequestEntityTooLarge, tooLarge) // said at once: not one byte of it is read
		return
	}
	rc := http.NewResponseController(w)
	if s.lim.hookBody > 0 {
		// For the body only: cleared below, so it does not end the
		// request's context while the answer waits for the barrier.
		rc.SetReadDeadline(time.Now().Add(s.lim.hookBody))
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxHookBody))
	if err != nil {
		deny(http.StatusRequestEntityTooLarge, tooLarge)
		return
	}
	rc.SetReadDeadline(time.Time{})
	if event == "" {
		s.engine.RecordUsage(topic, account, parseStatus(body))
	} else if err := hooks.Activity(r.Context(), topic, account, event, body); err != nil {
		deny(http.StatusBadRequest, "hook not taken: "+err.Error())
		return
	}
	reply := []byte("{}")
	if hr, ok := hooks.(HookReplier); ok && event != "" {
		if b := hr.HookReply(r.Context(), topic, account, event, body); b != nil {
			reply = b
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(reply)
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
func parseStatus(body []byte) wire.UsageReport {
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
		return wire.UsageReport{}
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
	r := wire.UsageReport{FiveHour: conv("five_hour"), SevenDay: conv("seven_day")}
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

// loopbackOrigin lets a handshake through that names no origin (every
// client but a browser) or a loopback one: a web page elsewhere has no
// business on the room's port, token or not.
func loopbackOrigin(r *http.Request) bool {
	origin := r.Header["Origin"]
	if len(origin) == 0 {
		return true
	}
	u, err := url.Parse(origin[0])
	if err != nil {
		return false
	}
	switch h := u.Hostname(); h {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

// handshakeRefused answers a request that is not a WebSocket handshake
// (gorilla's reason), closing its connection; a wrong version says which
// one is spoken.
func (s *Server) handshakeRefused(w http.ResponseWriter, r *http.Request, code int, reason error) {
	if code == http.StatusBadRequest && strings.Contains(reason.Error(), "version") {
		w.Header().Set("Sec-WebSocket-Version", "13")
	}
	refuse(w, code, reason.Error())
}

// serveWS checks the launch a handshake proves (its capability), upgrades
// it (gorilla's Upgrader checks the rest of RFC 6455 4.2.1: 400 for a
// request that is not a handshake) and runs the connection.
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	launch, ok := s.handshakeLaunch(r.Header.Get(CapabilityHeader))
	if !ok {
		// The value is never logged.
		s.logRefused(&s.refusedOther, "request refused", http.StatusForbidden, "GET "+Path+": an operation capability of no running launch")
		refuse(w, http.StatusForbidden, "operation capability refused: it belongs to no running launch of this app")
		return
	}
	if r.ContentLength != 0 {
		refuse(w, http.StatusBadRequest, "not a WebSocket handshake: a handshake has no body")
		return
	}
	tc := trackedOf(r)
	switch {
	case launch != nil:
		s.ln.markSeat(tc) // a launch's own capability: a seat's sidecar
	case websocket.IsWebSocketUpgrade(r):
		s.ln.makeRoomForOther(tc)
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		refuse(w, http.StatusServiceUnavailable, "the room socket is closing")
		return
	}
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()
	c, err := s.up.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader has answered
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		c.Close()
		return
	}
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	s.run(c, tc, launch)
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
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
func (s *Server) run(c *websocket.Conn, tc *trackedConn, launch *Launch) {
	defer c.Close()
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
		return c.WriteMessage(websocket.TextMessage, data)
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
		c.SetPongHandler(func(string) error { alive(); return nil })
		c.SetPingHandler(func(data string) error {
			alive()
			err := c.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(wsWriteTimeout))
			var ne net.Error
			if errors.Is(err, websocket.ErrCloseSent) || (errors.As(err, &ne) && ne.Timeout()) {
				return nil
			}
			return err
		})
		done := make(chan struct{})
		defer close(done)
		go s.ping(c, done)
	}
	for {
		alive() // from now: the time spent answering the last frame is not the peer's
		kind, rd, err := c.NextReader()
		if err != nil {
			return
		}
		s.ln.touch(tc) // a frame: this connection is in use
		if kind != websocket.TextMessage {
			io.Copy(io.Discard, rd)
			if send(wire.ErrorFrame{Type: wire.TypeError, Error: "binary frames are not part of the protocol; send JSON text"}) != nil {
				return
			}
			continue
		}
		// A longer message is read to its end and dropped, the connection
		// kept: the bound is on what is held, not on what is sent.
		data, err := io.ReadAll(io.LimitReader(rd, wire.MaxFrameBytes+1))
		if err != nil {
			return
		}
		if len(data) > wire.MaxFrameBytes {
			n, err := io.Copy(io.Discard, rd)
			if err != nil {
				return
			}
			msg := fmt.Sprintf("frame too large: %d bytes, the limit is %d; nothing was done", int64(len(data))+n, wire.MaxFrameBytes)
			if send(wire.ErrorFrame{Type: wire.TypeError, Error: msg}) != nil {
				return
			}
			continue
		}
		if !utf8.Valid(data) { // RFC 6455 8.1: fail the connection
			wmu.Lock()
			c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseInvalidFramePayloadData, "text frame is not UTF-8"), time.Now().Add(wsWriteTimeout))
			wmu.Unlock()
			return
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
func (s *Server) ping(c *websocket.Conn, done <-chan struct{}) {
	t := time.NewTicker(s.lim.wsPing)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			if err := c.WriteControl(websocket.PingMessage, nil, time.Now().Add(wsWriteTimeout)); err != nil {
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
		r := PostResult(f.MessageID, o, err)
		// The seat's usage rides on the answer, read after the outcome
		// (spec 003 #385), so say_to_room needs no second round trip.
		u := s.engine.UsageWithin(id, wire.UsageWait)
		r.Usage = &u
		return r
	case *wire.HistoryFrame:
		posts, more, err := s.engine.History(id, f.Limit, f.Before)
		if err != nil {
			return wire.HistoryResult{Type: wire.TypeHistoryResult, RequestID: f.RequestID, Error: wire.Cut(err.Error(), maxErrorText)}
		}
		return wire.HistoryResult{Type: wire.TypeHistoryResult, RequestID: f.RequestID, Posts: posts, HasMore: more}
	case *wire.UsageFrame:
		res := s.engine.UsageAnswer(id)
		res.Type, res.RequestID = wire.TypeUsageResult, f.RequestID
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
		r.Delivered, r.MessageID, r.LoopHeld = true, o.Post.MessageID, o.LoopHeld
	default:
		r.Missed = o.Missed
	}
	return r
}

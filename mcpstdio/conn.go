package mcpstdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"pullcept/jsontext"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
)

// conn is one client's connection (one Serve).
type conn struct {
	s      *Server
	w      io.Writer
	ctx    context.Context // ends with the connection; every call's parent
	cancel context.CancelCauseFunc

	wmu    sync.Mutex
	closed bool // under wmu: Serve returned or a write failed; nothing more is written

	initialized atomic.Bool   // initialize answered: tool changes are told
	changed     chan struct{} // a list_changed to send; one deep, so changes coalesce

	mu      sync.Mutex
	closing bool             // under mu: Serve is ending, no new call starts
	calls   map[string]*call // in flight, by their id as sent
	wg      sync.WaitGroup   // the calls' goroutines
}

// call is one tools/call in flight.
type call struct {
	cancel    context.CancelFunc
	cancelled atomic.Bool // by the client's notifications/cancelled: no answer is sent
}

// Serve reads requests from r and writes answers to w until r ends (nil),
// ctx ends (ctx's error) or a write to w fails (that error). Calls still
// running then are cancelled and waited for; what they answer is still
// written if w takes it. Serve returns without waiting for a Read blocked
// on r: whatever that Read brings is dropped. One Server can serve several
// connections at once; each is told of tool changes.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	c := &conn{s: s, w: w, ctx: ctx, cancel: cancel, changed: make(chan struct{}, 1), calls: map[string]*call{}}
	s.mu.Lock()
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
	}()

	read := make(chan error, 1)
	go func() { read <- c.readLoop(r) }()
	notifierDone := make(chan struct{})
	go func() {
		defer close(notifierDone)
		c.notifier()
	}()

	var err error
	select {
	case err = <-read:
	case <-ctx.Done():
	}
	if ctx.Err() != nil {
		err = context.Cause(ctx) // the caller's end, or a failed write
	}
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	cancel(nil) // every call's context, and the notifier's
	c.wg.Wait()
	<-notifierDone
	c.wmu.Lock()
	c.closed = true
	c.wmu.Unlock()
	return err
}

// readLoop reads and handles lines until r ends.
func (c *conn) readLoop(r io.Reader) error {
	br := bufio.NewReader(r) // 4 KiB: a longer line is gathered in buf
	var buf []byte
	for {
		line, over, err := readLine(br, &buf, MaxLineBytes)
		if c.ctx.Err() != nil {
			return nil // Serve is ending: nothing more is read
		}
		switch {
		case over != nil:
			c.s.log.Warn("mcp: a message longer than the limit was skipped", "limit", MaxLineBytes)
			c.fail(over.id(), CodeInvalidRequest, fmt.Sprintf("Invalid Request: the message is longer than %d bytes; it was not read", MaxLineBytes))
		case len(line) > 0:
			c.handle(line)
		}
		if cap(buf) > 1<<20 {
			buf = nil // one big message does not keep its buffer
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("mcpstdio: reading from the client: %w", err)
		}
	}
}

// overlong is what is kept of a line past its limit: its start and its
// end, where a message's id may be found.
type overlong struct{ head, tail []byte }

const (
	keepHead = 64 << 10
	keepTail = 256
)

// readLine reads one line, without its newline, into *buf (reused). A line
// past limit bytes is read to its end but not kept (at most limit bytes of
// it are held at any time): over says so. The server's reader and the
// client's both read with it, each with its own limit.
func readLine(br *bufio.Reader, buf *[]byte, limit int) (line []byte, over *overlong, err error) {
	b := (*buf)[:0]
	for {
		frag, e := br.ReadSlice('\n')
		if over != nil {
			over.tail = lastBytes(append(over.tail, frag...), keepTail)
		} else if len(b)+len(frag) > limit+1 { // +1: the newline
			over = &overlong{
				head: append([]byte(nil), b[:min(len(b), keepHead)]...), // b is nearly limit long here
				tail: lastBytes(append(append([]byte(nil), b[max(0, len(b)-keepTail):]...), frag...), keepTail),
			}
			b = b[:0]
		} else {
			b = append(b, frag...)
		}
		if e == bufio.ErrBufferFull {
			continue
		}
		*buf = b
		if over != nil {
			over.tail = bytes.TrimRight(over.tail, "\r\n")
			return nil, over, e
		}
		b = bytes.TrimSuffix(b, []byte("\n"))
		if len(b) > limit { // the last line, without a newline
			return nil, &overlong{head: append([]byte(nil), b[:min(len(b), keepHead)]...), tail: append([]byte(nil), b[max(0, len(b)-keepTail):]...)}, e
		}
		return b, nil, e
	}
}

func lastBytes(b []byte, n int) []byte {
	if len(b) > n {
		return append(b[:0], b[len(b)-n:]...)
	}
	return b
}

// id finds the request's id in what was kept of an overlong line: as the
// first members of the object (the order mcp-go's and most clients' structs
// write), or as its last member (the TypeScript SDK's order); nil when
// neither holds it.
func (o *overlong) id() json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(o.head))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			break
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			break
		}
		if key == "id" {
			if validID(v) {
				return v
			}
			return nil
		}
	}
	// `"id": <value> }` at the very end.
	t := bytes.TrimRight(o.tail, " \t\r")
	if !bytes.HasSuffix(t, []byte("}")) {
		return nil
	}
	t = t[:len(t)-1]
	i := bytes.LastIndex(t, []byte(`"id"`))
	if i < 0 {
		return nil
	}
	if before := bytes.TrimRight(t[:i], " \t"); len(before) == 0 || (before[len(before)-1] != ',' && before[len(before)-1] != '{') {
		return nil
	}
	rest := bytes.TrimLeft(t[i+len(`"id"`):], " \t")
	if len(rest) == 0 || rest[0] != ':' {
		return nil
	}
	v := bytes.TrimSpace(rest[1:])
	if !validID(v) || !json.Valid(v) {
		return nil
	}
	return append(json.RawMessage(nil), v...)
}

// message is any JSON-RPC message: its members as sent (raw JSON, nil when
// absent), pointing into the line.
type message struct {
	JSONRPC, ID, Method, Params, Result, Error []byte
}

// readMessage splits a line (valid JSON, an object) into its members.
func readMessage(line []byte) message {
	var m message
	members(line, func(k, v []byte) bool {
		key, _ := unquote(k)
		switch key { // a member twice: the last, as encoding/json has it
		case "jsonrpc":
			m.JSONRPC = v
		case "id":
			m.ID = v
		case "method":
			m.Method = v
		case "params":
			m.Params = v
		case "result":
			m.Result = v
		case "error":
			m.Error = v
		}
		return true
	})
	return m
}

// validID: a JSON-RPC id MCP allows, a string or a number (not null).
func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	switch c := id[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return true
	}
	return false
}

// handle answers one line.
func (c *conn) handle(line []byte) {
	var id json.RawMessage // once known, a panic below is answered under it
	defer func() {
		if p := recover(); p != nil {
			c.s.log.Error("mcp: panic while handling a message", "panic", p, "stack", string(debug.Stack()))
			if id != nil {
				c.fail(id, CodeInternalError, fmt.Sprintf("internal error: %v", p))
			}
		}
	}()
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if !json.Valid(line) {
		c.s.log.Warn("mcp: a line that is not JSON")
		c.fail(nil, CodeParseError, "Parse error")
		return
	}
	if line[0] != '{' {
		c.fail(nil, CodeInvalidRequest, "Invalid Request: a message must be a JSON object")
		return
	}
	m := readMessage(line)
	method, isString := unquote(m.Method)
	version, _ := unquote(m.JSONRPC)
	switch {
	case m.Method == nil && (m.Result != nil || m.Error != nil):
		return // an answer to a request this server never sends
	case m.ID == nil && m.Method != nil: // a notification: never answered
		if isString && version == "2.0" {
			c.notification(method, m.Params)
		} else {
			c.s.log.Warn("mcp: a malformed notification was dropped")
		}
		return
	case m.ID == nil:
		c.fail(nil, CodeInvalidRequest, "Invalid Request: no method")
		return
	case !validID(m.ID):
		c.fail(nil, CodeInvalidRequest, "Invalid Request: id must be a string or a number")
		return
	}
	id = append(json.RawMessage(nil), m.ID...) // the line's buffer is reused; a call keeps its id
	switch {
	case version != "2.0":
		c.fail(id, CodeInvalidRequest, "Invalid JSON-RPC version")
	case m.Method == nil:
		c.fail(id, CodeInvalidRequest, "Invalid Request: no method")
	case !isString || method == "":
		c.fail(id, CodeInvalidRequest, "Invalid Request: method must be a non-empty string")
	default:
		c.request(id, method, m.Params)
	}
}

// request answers one request (a tools/call on its own goroutine).
func (c *conn) request(id json.RawMessage, method string, params json.RawMessage) {
	switch method {
	case "initialize":
		c.initialize(id, params)
	case "ping":
		c.reply(id, []byte("{}"))
	case "tools/list":
		c.list(id, params)
	case "tools/call":
		c.call(id, params)
	default:
		if capability := unsupported(method); capability != "" {
			c.fail(id, CodeMethodNotFound, capability+" not supported")
		} else {
			c.fail(id, CodeMethodNotFound, "Method "+method+" not found")
		}
	}
}

// paramsObject is params when they are an object, nil when absent or
// null; bad says they are neither.
func paramsObject(params []byte) (obj []byte, bad bool) {
	if len(params) == 0 || string(params) == "null" {
		return nil, false
	}
	return params, params[0] != '{'
}

// stringParam is params' member name as a string; absent or null is "".
func stringParam(params []byte, name string) (string, error) {
	v := member(params, name)
	if v == nil || string(v) == "null" {
		return "", nil
	}
	s, ok := unquote(v)
	if !ok {
		return "", fmt.Errorf("%s must be a string", name)
	}
	return s, nil
}

func (c *conn) initialize(id, params json.RawMessage) {
	params, bad := paramsObject(params)
	if bad {
		c.fail(id, CodeInvalidParams, "Invalid params: params must be an object")
		return
	}
	asked, err := stringParam(params, "protocolVersion")
	if err != nil {
		c.fail(id, CodeInvalidParams, "Invalid params: "+err.Error())
		return
	}
	// Written out, not marshalled (scan.go says why): this is the answer
	// the CLI waits for at start-up.
	b := make([]byte, 0, 128+len(c.s.info.Instructions)*11/10)
	b = append(b, `{"protocolVersion":`...)
	b = jsontext.AppendString(b, negotiate(asked))
	b = append(b, `,"capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":`...)
	b = jsontext.AppendString(b, c.s.info.Name)
	b = append(b, `,"version":`...)
	b = jsontext.AppendString(b, c.s.info.Version)
	b = append(b, '}')
	if c.s.info.Instructions != "" {
		b = append(b, `,"instructions":`...)
		b = jsontext.AppendString(b, c.s.info.Instructions)
	}
	b = append(b, '}')
	if c.reply(id, b) == nil {
		c.initialized.Store(true)
	}
}

func (c *conn) list(id, params json.RawMessage) {
	params, bad := paramsObject(params)
	if bad {
		c.fail(id, CodeInvalidParams, "Invalid params: params must be an object")
		return
	}
	cursor, err := stringParam(params, "cursor")
	if err != nil {
		c.fail(id, CodeInvalidParams, "Invalid params: "+err.Error())
		return
	}
	if cursor != "" {
		c.fail(id, CodeInvalidParams, "Invalid params: invalid cursor (tools/list is one page, it hands out no cursor)")
		return
	}
	b, err := c.s.toolList()
	if err != nil {
		c.fail(id, CodeInternalError, "the tool list could not be written: "+err.Error())
		return
	}
	c.reply(id, b)
}

func (c *conn) call(id, params json.RawMessage) {
	params, bad := paramsObject(params)
	if bad {
		c.fail(id, CodeInvalidParams, "Invalid params: params must be an object")
		return
	}
	name, err := stringParam(params, "name")
	if err != nil {
		c.fail(id, CodeInvalidParams, "Invalid params: "+err.Error())
		return
	}
	args := json.RawMessage(member(params, "arguments"))
	if string(args) == "null" {
		args = nil
	}
	if args != nil && args[0] != '{' {
		c.fail(id, CodeInvalidParams, "Invalid params: arguments must be an object")
		return
	}
	args = append(json.RawMessage(nil), args...) // the handler outlives the line's buffer
	if len(args) == 0 {
		args = nil
	}
	t, ok := c.s.tool(name)
	if !ok {
		c.fail(id, CodeInvalidParams, fmt.Sprintf("tool '%s' not found: tool not found", name))
		return
	}
	key := string(id)
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return
	}
	if _, dup := c.calls[key]; dup {
		c.mu.Unlock()
		c.fail(id, CodeInvalidRequest, "Invalid Request: a call with this id is still running")
		return
	}
	ctx, cancel := context.WithCancel(c.ctx)
	cl := &call{cancel: cancel}
	c.calls[key] = cl
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		res, err := run(ctx, c.s, t, &Request{Name: name, Arguments: args})
		c.mu.Lock()
		delete(c.calls, key)
		c.mu.Unlock()
		cancel()
		switch {
		case cl.cancelled.Load():
			// The client cancelled it: it expects no answer.
		case err != nil:
			c.fail(id, CodeInternalError, err.Error())
		case res == nil:
			c.fail(id, CodeInternalError, fmt.Sprintf("tool '%s' handler returned no result", t.Name))
		default:
			c.reply(id, resultJSON(res))
		}
	}()
}

// run calls the handler; a panic becomes its error (mcp-go's WithRecovery).
func run(ctx context.Context, s *Server, t Tool, req *Request) (res *Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("mcp: a tool handler panicked", "tool", t.Name, "panic", p, "stack", string(debug.Stack()))
			res, err = nil, fmt.Errorf("panic recovered in %s tool handler: %v", t.Name, p)
		}
	}()
	return t.Handler(ctx, req)
}

func resultJSON(r *Result) []byte {
	n := 32
	for _, t := range r.Content {
		n += len(t) + 32
	}
	b := make([]byte, 0, n)
	b = append(b, `{"content":[`...)
	for i, t := range r.Content {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":"text","text":`...)
		b = jsontext.AppendString(b, t)
		b = append(b, '}')
	}
	b = append(b, ']')
	if r.IsError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, '}')
}

// notification takes a notification.
func (c *conn) notification(method string, params json.RawMessage) {
	if method != "notifications/cancelled" {
		return // notifications/initialized and the rest: nothing to do
	}
	params, bad := paramsObject(params)
	requestID := member(params, "requestId")
	if bad || !validID(requestID) {
		return
	}
	c.mu.Lock()
	cl := c.calls[string(requestID)]
	c.mu.Unlock()
	if cl != nil {
		cl.cancelled.Store(true)
		cl.cancel()
	}
}

// toolsChanged queues a list_changed if initialize was answered.
func (c *conn) toolsChanged() {
	if !c.initialized.Load() {
		return
	}
	select {
	case c.changed <- struct{}{}:
	default: // one is queued already
	}
}

// notifier writes the queued list_changed notifications, off SetTools'
// goroutine: a client slow to read never holds up whoever changed the tools.
func (c *conn) notifier() {
	for {
		select {
		case <-c.changed:
			c.write([]byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` + "\n"))
		case <-c.ctx.Done():
			return
		}
	}
}

func (c *conn) reply(id, result []byte) error { return c.write(resultLine(id, result)) }

// fail answers with an error; a nil id is null.
func (c *conn) fail(id json.RawMessage, code int, msg string) error {
	return c.write(errorLine(id, code, msg))
}

// resultLine is the answer to request id with result (JSON), a whole line.
// The server's answers and the client's (to a server's ping) are written
// with it.
func resultLine(id, result []byte) []byte {
	b := make([]byte, 0, len(result)+len(id)+32)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	return append(b, "}\n"...)
}

// errorLine is an error answer to request id (nil: null), a whole line.
func errorLine(id json.RawMessage, code int, msg string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b := make([]byte, 0, len(msg)+len(id)+64)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, `,"message":`...)
	b = jsontext.AppendString(b, msg)
	return append(b, "}}\n"...)
}

// write writes one message; writes never interleave. A failed write ends
// the connection.
func (c *conn) write(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.closed {
		return errClosed
	}
	if _, err := c.w.Write(b); err != nil {
		c.closed = true
		err = fmt.Errorf("%w: %v", errWrite, err)
		c.cancel(err)
		return err
	}
	return nil
}

var errClosed = errors.New("mcpstdio: the connection is closed")

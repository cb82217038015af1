package mcpstdio

// The client side: what the app needs to run a local MCP server over its
// stdio (package mcpserv), read with the server's line reader and envelope
// rules (readLine, readMessage, validID, paramsObject) and answering with
// the same line builders.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"pullcept/jsontext"
)

// ClientMaxLineBytes bounds one message the client reads. What a client
// reads is what its server stores: the webhook bridge's get_event answers
// with a whole GitHub webhook payload as text (its JSON escaped once more
// inside a JSON string). The payloads whose body the app reads (comments,
// issues, pull requests, reviews: a body is at most 65,536 characters) are
// tens of kilobytes, so 16 MiB is far beyond any real answer while it still
// bounds what a server that never writes a newline can make the app hold.
// A longer line is skipped, and the call it answers (its id at the line's
// start or end) fails at once rather than at its deadline.
const ClientMaxLineBytes = 16 << 20

// Errors a call ends with when the connection is gone.
var (
	// ErrClientClosed: Close was called.
	ErrClientClosed = errors.New("mcpstdio: the client was closed")
	// ErrServerEnded: the server's output ended (the process ended, or
	// closed its stdout).
	ErrServerEnded = errors.New("mcpstdio: the server's output ended")
)

// RPCError is a JSON-RPC error answer.
type RPCError struct {
	Code    int
	Message string
	Data    json.RawMessage // nil when absent
}

func (e *RPCError) Error() string {
	return fmt.Sprintf("%s (JSON-RPC error %d)", e.Message, e.Code)
}

// Notification is one notification from the server.
type Notification struct {
	Method string
	// Params is the params object, decoded as encoding/json decodes into
	// any (numbers are float64); nil when there were none.
	Params map[string]any
}

// ClientOptions configure a Client.
type ClientOptions struct {
	// Notify receives every notification, in the order read. It runs on the
	// read loop, which also delivers the answers: it must not block (nor
	// wait for a call's answer).
	Notify func(Notification)
	// Skipped is told, on the read loop, why a line was not taken (not
	// JSON, not JSON-RPC, too long, an answer to a request never sent, an
	// error the server reported about no request); it must not block.
	Skipped func(reason string)
}

// Implementation names a client or a server (clientInfo, serverInfo).
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// InitializeParams is what initialize asks.
type InitializeParams struct {
	// ProtocolVersion is the version asked for; "" is the newest of
	// ProtocolVersions.
	ProtocolVersion string
	ClientInfo      Implementation
}

// InitializeResult is the server's answer to initialize.
type InitializeResult struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ServerCapabilities `json:"capabilities"`
	ServerInfo      Implementation     `json:"serverInfo"`
	Instructions    string             `json:"instructions"`
}

// ServerCapabilities are the capabilities the client looks at.
type ServerCapabilities struct {
	// Experimental are the experimental capabilities by name (for example
	// "claude/channel"), each as sent.
	Experimental map[string]json.RawMessage `json:"experimental"`
	// Tools is nil when the server declared no tools.
	Tools *struct {
		ListChanged bool `json:"listChanged"`
	} `json:"tools"`
}

// Client is an MCP client on a server's stdio: newline-delimited JSON-RPC
// 2.0 read from the server's stdout and written to its stdin. It declares
// no client capabilities; it answers the server's ping, and any other
// request from the server with -32601. Requests have numeric ids. Safe for
// concurrent use.
type Client struct {
	w       io.WriteCloser
	notify  func(Notification)
	skipped func(string)

	mu      sync.Mutex
	lastID  int64 // the last id sent
	pending map[int64]chan answer
	err     error // once set: the pending calls failed with it, later ones fail with it

	wmu   sync.Mutex
	queue [][]byte // lines to write, in order
	wstop bool     // under wmu: closed or a write failed; nothing more is written
	wake  chan struct{}

	closeOnce sync.Once
	closed    chan struct{}
	done      chan struct{}
}

type answer struct {
	result json.RawMessage
	err    error
}

// NewClient starts a client reading the server's output from r and writing
// to its input w, which Close closes. r is read until it ends; the caller
// closes it if it must end sooner (a Read blocked on it is not
// interrupted).
func NewClient(r io.Reader, w io.WriteCloser, o ClientOptions) *Client {
	c := &Client{
		w: w, notify: o.Notify, skipped: o.Skipped,
		pending: map[int64]chan answer{},
		wake:    make(chan struct{}, 1),
		closed:  make(chan struct{}),
		done:    make(chan struct{}),
	}
	go c.readLoop(r)
	go c.writer()
	return c
}

// Done is closed when the read loop has ended: the server's output ended
// or could not be read (or a line arrived after Close). Every notification
// read before that was handed to Notify before Done is closed.
func (c *Client) Done() <-chan struct{} { return c.done }

// Close closes the server's input (w), fails the calls waiting with
// ErrClientClosed and stops handing over notifications. Later calls fail
// with the error the connection ended with. Close can be called more than
// once; only the first closes w and returns its error.
func (c *Client) Close() error {
	err := error(nil)
	c.closeOnce.Do(func() {
		close(c.closed)
		c.wmu.Lock()
		c.wstop, c.queue = true, nil
		c.wmu.Unlock()
		c.fail(ErrClientClosed)
		err = c.w.Close() // also ends a Write blocked on a server that does not read
	})
	return err
}

// Initialize sends initialize and, once answered with a protocol version
// this package speaks (ProtocolVersions), notifications/initialized. The
// initialize request is never cancelled (the spec forbids it): when ctx
// ends the call returns ctx's error, and the answer, if it comes, is
// ignored.
func (c *Client) Initialize(ctx context.Context, p InitializeParams) (*InitializeResult, error) {
	v := p.ProtocolVersion
	if v == "" {
		v = ProtocolVersions[0]
	}
	b := []byte(`{"protocolVersion":`)
	b = jsontext.AppendString(b, v)
	b = append(b, `,"capabilities":{},"clientInfo":{"name":`...)
	b = jsontext.AppendString(b, p.ClientInfo.Name)
	b = append(b, `,"version":`...)
	b = jsontext.AppendString(b, p.ClientInfo.Version)
	b = append(b, "}}"...)
	raw, err := c.call(ctx, "initialize", b, false)
	if err != nil {
		return nil, err
	}
	var res InitializeResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("mcpstdio: the answer to initialize does not read: %w", err)
	}
	if !slices.Contains(ProtocolVersions, res.ProtocolVersion) {
		return nil, fmt.Errorf("mcpstdio: the server answered protocol version %q, which this client does not speak (%s)", res.ProtocolVersion, strings.Join(ProtocolVersions, ", "))
	}
	if err := c.send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")); err != nil {
		return nil, err
	}
	return &res, nil
}

// CallTool calls tool name with args (nil: none). The result's Content are
// its text blocks, in order; blocks of other types are left out. A tool
// that failed is a result with IsError, not an error.
func (c *Client) CallTool(ctx context.Context, name string, args map[string]any) (*Result, error) {
	b := []byte(`{"name":`)
	b = jsontext.AppendString(b, name)
	if args != nil {
		a, err := json.Marshal(args)
		if err != nil {
			return nil, fmt.Errorf("mcpstdio: the arguments of %s: %w", name, err)
		}
		b = append(b, `,"arguments":`...)
		b = append(b, a...)
	}
	b = append(b, '}')
	raw, err := c.call(ctx, "tools/call", b, true)
	if err != nil {
		return nil, err
	}
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("mcpstdio: the answer to tools/call %s does not read: %w", name, err)
	}
	out := &Result{IsError: res.IsError}
	for _, block := range res.Content {
		if block.Type == "text" {
			out.Content = append(out.Content, block.Text)
		}
	}
	return out, nil
}

// call sends request method with params (JSON; nil: none) and waits for
// its answer. When ctx ends first it returns ctx's error at once and, if
// cancellable, tells the server with notifications/cancelled; a late
// answer is dropped.
func (c *Client) call(ctx context.Context, method string, params []byte, cancellable bool) (json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ch := make(chan answer, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return nil, err
	}
	c.lastID++
	id := c.lastID
	c.pending[id] = ch
	c.mu.Unlock()

	b := make([]byte, 0, len(params)+len(method)+64)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":`...)
	b = jsontext.AppendString(b, method)
	if params != nil {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	b = append(b, "}\n"...)
	_ = c.send(b) // when it cannot be written, the call was failed with the reason

	select {
	case a := <-ch:
		return a.result, a.err
	case <-ctx.Done():
	}
	c.mu.Lock()
	_, waiting := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if !waiting { // answered (or failed) meanwhile
		a := <-ch
		return a.result, a.err
	}
	if cancellable {
		n := []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`)
		n = strconv.AppendInt(n, id, 10)
		n = append(n, `,"reason":`...)
		n = jsontext.AppendString(n, ctx.Err().Error())
		n = append(n, "}}\n"...)
		_ = c.send(n)
	}
	return nil, ctx.Err()
}

// fail ends every call waiting, and every later one, with err (the first
// error sticks).
func (c *Client) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
	}
	for id, ch := range c.pending {
		ch <- answer{err: c.err}
		delete(c.pending, id)
	}
}

// send queues one line (a whole message, its newline included) for the
// writer: it never blocks, and lines are written whole and in order.
func (c *Client) send(line []byte) error {
	c.wmu.Lock()
	if c.wstop {
		c.wmu.Unlock()
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.err != nil {
			return c.err
		}
		return ErrClientClosed
	}
	c.queue = append(c.queue, line)
	c.wmu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return nil
}

// writer writes the queued lines until Close, a failed write or the end
// of the server's output (then nothing written could be answered).
func (c *Client) writer() {
	for {
		select {
		case <-c.wake:
		case <-c.closed:
			return
		case <-c.done:
			return
		}
		for {
			c.wmu.Lock()
			if c.wstop || len(c.queue) == 0 {
				c.wmu.Unlock()
				break
			}
			line := c.queue[0]
			c.queue[0] = nil
			c.queue = c.queue[1:]
			c.wmu.Unlock()
			if _, err := c.w.Write(line); err != nil {
				c.wmu.Lock()
				c.wstop, c.queue = true, nil
				c.wmu.Unlock()
				c.fail(fmt.Errorf("mcpstdio: writing to the server: %w", err))
				return
			}
		}
	}
}

// readLoop reads the server's lines until its output ends.
func (c *Client) readLoop(r io.Reader) {
	defer close(c.done)
	br := bufio.NewReader(r) // 4 KiB: a longer line is gathered in buf
	var buf []byte
	for {
		line, over, err := readLine(br, &buf, ClientMaxLineBytes)
		select {
		case <-c.closed:
			return // nothing is handed over after Close; the calls were failed
		default:
		}
		switch {
		case over != nil:
			c.overlong(over)
		case len(line) > 0:
			c.handle(line)
		}
		if cap(buf) > 1<<20 {
			buf = nil // one big message does not keep its buffer
		}
		if err == io.EOF {
			c.fail(ErrServerEnded)
			return
		}
		if err != nil {
			c.fail(fmt.Errorf("mcpstdio: reading from the server: %w", err))
			return
		}
	}
}

func (c *Client) skip(format string, args ...any) {
	if c.skipped != nil {
		c.skipped(fmt.Sprintf(format, args...))
	}
}

// excerpt is the start of a line, quoted, for a skip's reason.
func excerpt(b []byte) string {
	const n = 120
	s := strings.ToValidUTF8(string(b[:min(len(b), n)]), "\uFFFD")
	if len(b) > n {
		s += "…"
	}
	return strconv.Quote(s)
}

// overlong skips a line past ClientMaxLineBytes; the call it answers, when
// its id is found, fails now.
func (c *Client) overlong(o *overlong) {
	msg := fmt.Sprintf("a message longer than %d bytes was skipped", ClientMaxLineBytes)
	if ch, ok := c.takePending(o.id()); ok {
		ch <- answer{err: fmt.Errorf("mcpstdio: the answer is longer than %d bytes; it was not read", ClientMaxLineBytes)}
		msg += " (the answer to a call, which failed)"
	}
	c.skip("%s", msg)
}

// takePending removes the call waiting for the answer with id (raw JSON)
// and returns its channel.
func (c *Client) takePending(rawID []byte) (chan answer, bool) {
	n, err := strconv.ParseInt(string(rawID), 10, 64)
	if err != nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ch, ok := c.pending[n]
	delete(c.pending, n)
	return ch, ok
}

// sent reports whether rawID is an id this client has used.
func (c *Client) sent(rawID []byte) bool {
	n, err := strconv.ParseInt(string(rawID), 10, 64)
	if err != nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return n >= 1 && n <= c.lastID
}

// handle takes one line from the server.
func (c *Client) handle(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if !json.Valid(line) {
		c.skip("a line that is not JSON was skipped: %s", excerpt(line))
		return
	}
	m := readMessage(line) // nothing when line is not an object
	if version, _ := unquote(m.JSONRPC); line[0] != '{' || version != "2.0" {
		c.skip("a message that is not JSON-RPC 2.0 was skipped: %s", excerpt(line))
		return
	}
	if m.Method != nil {
		method, ok := unquote(m.Method)
		switch {
		case !ok || method == "":
			c.skip("a message whose method is not a string was skipped: %s", excerpt(line))
		case m.ID == nil:
			c.notification(method, m.Params, line)
		case !validID(m.ID):
			c.skip("a request whose id is neither a string nor a number was skipped: %s", excerpt(line))
		case method == "ping":
			_ = c.send(resultLine(m.ID, []byte("{}")))
		default:
			_ = c.send(errorLine(m.ID, CodeMethodNotFound, "Method "+method+" not found"))
		}
		return
	}
	if m.ID == nil || (m.Result == nil) == (m.Error == nil) {
		c.skip("a message that is neither a request, a notification nor an answer was skipped: %s", excerpt(line))
		return
	}
	var a answer
	if m.Error != nil {
		var e struct {
			Code    *int            `json:"code"`
			Message *string         `json:"message"`
			Data    json.RawMessage `json:"data"`
		}
		if json.Unmarshal(m.Error, &e) != nil || e.Code == nil || e.Message == nil {
			a.err = fmt.Errorf("mcpstdio: the server answered a malformed error: %s", excerpt(m.Error))
		} else {
			a.err = &RPCError{Code: *e.Code, Message: *e.Message, Data: e.Data}
		}
	} else {
		a.result = bytes.Clone(m.Result) // the line's buffer is reused
	}
	ch, ok := c.takePending(m.ID)
	switch {
	case ok:
		ch <- a
	case string(m.ID) == "null" && a.err != nil:
		c.skip("the server reported an error about no request: %v", a.err)
	case !c.sent(m.ID):
		c.skip("an answer to a request never sent was skipped: %s", excerpt(line))
	}
	// else: a late answer to a call that ended (cancelled, or failed):
	// dropped, as expected.
}

// notification hands one notification over.
func (c *Client) notification(method string, params, line []byte) {
	obj, bad := paramsObject(params)
	if bad {
		c.skip("a notification whose params are not an object was skipped: %s", excerpt(line))
		return
	}
	n := Notification{Method: method}
	if obj != nil {
		_ = json.Unmarshal(obj, &n.Params) // valid JSON, an object
	}
	if c.notify != nil {
		c.notify(n)
	}
}

package mcpstdio

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// server is a scripted MCP server on pipes to one Client: the test writes
// its lines and reads what the client wrote.
type server struct {
	t     *testing.T
	c     *Client
	out   *io.PipeWriter // the server's stdout: what the client reads
	lines chan string    // what the client wrote to the server's stdin
	notes chan Notification
	skips chan string
}

func newServer(t *testing.T) *server {
	t.Helper()
	outR, outW := io.Pipe()
	inR, inW := io.Pipe()
	s := &server{t: t, out: outW, lines: make(chan string, 1024), notes: make(chan Notification, 1024), skips: make(chan string, 1024)}
	s.c = NewClient(outR, inW, ClientOptions{
		Notify:  func(n Notification) { s.notes <- n },
		Skipped: func(why string) { s.skips <- why },
	})
	go func() {
		sc := bufio.NewScanner(inR)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	t.Cleanup(func() {
		s.c.Close()
		outW.Close()
	})
	return s
}

// send writes one line as the server.
func (s *server) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.out, line+"\n"); err != nil {
		s.t.Fatalf("writing %.100q: %v", line, err)
	}
}

// next is the next message the client wrote, decoded (its id a
// json.Number).
func (s *server) next() map[string]any {
	s.t.Helper()
	select {
	case line, ok := <-s.lines:
		if !ok {
			s.t.Fatal("the client's output ended")
		}
		d := json.NewDecoder(strings.NewReader(line))
		d.UseNumber()
		var m map[string]any
		if err := d.Decode(&m); err != nil || d.More() {
			s.t.Fatalf("the client wrote a line that is not one JSON object: %q", line)
		}
		if m["jsonrpc"] != "2.0" {
			s.t.Fatalf("the client wrote a message without jsonrpc 2.0: %q", line)
		}
		return m
	case <-time.After(waitLimit):
		s.t.Fatal("no message from the client")
		return nil
	}
}

// request is the next message, which must be a request for method; its id
// (as JSON) and params.
func (s *server) request(method string) (string, map[string]any) {
	s.t.Helper()
	m := s.next()
	id, ok := m["id"].(json.Number)
	if m["method"] != method || !ok {
		s.t.Fatalf("want a %s request with a numeric id, got %v", method, m)
	}
	params, _ := m["params"].(map[string]any)
	return id.String(), params
}

// ping sends a ping and expects its answer next: every line sent before it
// was read (and handled) by then.
func (s *server) ping(id string) {
	s.t.Helper()
	s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
	m := s.next()
	if fmt.Sprint(m["id"]) != strings.Trim(id, `"`) || m["result"] == nil || len(m["result"].(map[string]any)) != 0 {
		s.t.Fatalf("want the empty answer to ping %s, got %v", id, m)
	}
}

// noSkips checks nothing was skipped so far.
func (s *server) noSkips() {
	s.t.Helper()
	select {
	case why := <-s.skips:
		s.t.Fatalf("skipped: %s", why)
	default:
	}
}

func (s *server) skipped(text string) {
	s.t.Helper()
	select {
	case why := <-s.skips:
		if !strings.Contains(why, text) {
			s.t.Fatalf("skipped %q, want it to say %q", why, text)
		}
	case <-time.After(waitLimit):
		s.t.Fatalf("nothing skipped, want %q", text)
	}
}

type callResult struct {
	res *Result
	err error
}

// callTool runs CallTool on its own goroutine.
func (s *server) callTool(ctx context.Context, name string, args map[string]any) <-chan callResult {
	ch := make(chan callResult, 1)
	go func() {
		res, err := s.c.CallTool(ctx, name, args)
		ch <- callResult{res, err}
	}()
	return ch
}

func wait[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLimit):
		t.Fatal("the call did not return")
		var zero T
		return zero
	}
}

func TestClientInitializeAndCallTool(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	type initResult struct {
		res *InitializeResult
		err error
	}
	done := make(chan initResult, 1)
	go func() {
		res, err := s.c.Initialize(context.Background(), InitializeParams{ClientInfo: Implementation{Name: "pullcept", Version: "1.2"}})
		done <- initResult{res, err}
	}()
	id, params := s.request("initialize")
	info, _ := params["clientInfo"].(map[string]any)
	if params["protocolVersion"] != ProtocolVersions[0] || info["name"] != "pullcept" || info["version"] != "1.2" || fmt.Sprint(params["capabilities"]) != "map[]" {
		t.Fatalf("initialize params: %v", params)
	}
	// A push before the handshake is done is handed over (the bridge
	// does not wait for it).
	s.send(`{"jsonrpc":"2.0","method":"notifications/claude/channel","params":{"content":"hi","meta":{"message_id":"ev-1"}}}`)
	s.send(`{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"experimental":{"claude/channel":{}}},"serverInfo":{"name":"bridge","version":"0.9"},"instructions":"read me"}}`)
	r := wait(t, done)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.res.ProtocolVersion != "2025-06-18" || r.res.ServerInfo != (Implementation{"bridge", "0.9"}) || r.res.Instructions != "read me" ||
		r.res.Capabilities.Tools == nil || string(r.res.Capabilities.Experimental["claude/channel"]) != "{}" {
		t.Fatalf("result: %+v", r.res)
	}
	if m := s.next(); m["method"] != "notifications/initialized" || m["id"] != nil {
		t.Fatalf("after initialize: %v", m)
	}
	n := wait(t, s.notes)
	meta, _ := n.Params["meta"].(map[string]any)
	if n.Method != "notifications/claude/channel" || n.Params["content"] != "hi" || meta["message_id"] != "ev-1" {
		t.Fatalf("notification: %+v", n)
	}

	call := s.callTool(context.Background(), "get_event", map[string]any{"event_id": "ev-1"})
	id2, params := s.request("tools/call")
	if id2 == id {
		t.Fatalf("id %s used twice", id)
	}
	args, _ := params["arguments"].(map[string]any)
	if params["name"] != "get_event" || args["event_id"] != "ev-1" || len(args) != 1 {
		t.Fatalf("tools/call params: %v", params)
	}
	s.send(`{"id":` + id2 + `,"result":{"content":[{"type":"text","text":"a"},{"type":"image","data":"AA==","mimeType":"image/png"},{"type":"text","text":"b"}],"isError":true},"jsonrpc":"2.0"}`)
	c := wait(t, call)
	if c.err != nil || !c.res.IsError || strings.Join(c.res.Content, "|") != "a|b" {
		t.Fatalf("CallTool: %+v %v", c.res, c.err)
	}
	// No arguments: none sent.
	call = s.callTool(context.Background(), "list_pending_events", nil)
	id3, params := s.request("tools/call")
	if _, has := params["arguments"]; has || params["name"] != "list_pending_events" {
		t.Fatalf("tools/call params: %v", params)
	}
	s.send(`{"jsonrpc":"2.0","id":` + id3 + `,"result":{"content":[]}}`)
	if c := wait(t, call); c.err != nil || c.res.IsError || len(c.res.Content) != 0 {
		t.Fatalf("CallTool: %+v %v", c.res, c.err)
	}
	s.noSkips()
}

func TestClientInitializeRefusesAnUnknownVersion(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	done := make(chan error, 1)
	go func() {
		_, err := s.c.Initialize(context.Background(), InitializeParams{ProtocolVersion: "2025-03-26"})
		done <- err
	}()
	id, params := s.request("initialize")
	if params["protocolVersion"] != "2025-03-26" {
		t.Fatalf("params: %v", params)
	}
	s.send(`{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":"1999-01-01","capabilities":{},"serverInfo":{"name":"old","version":"1"}}}`)
	if err := wait(t, done); err == nil || !strings.Contains(err.Error(), `"1999-01-01"`) {
		t.Fatalf("Initialize: %v", err)
	}
	// No notifications/initialized: the next line is the ping's answer.
	s.ping(`"p"`)
}

func TestClientAnswersPingAndRefusesOtherRequests(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.ping(`"p1"`)
	s.ping(`12345678901234567890`)
	s.send(`{"jsonrpc":"2.0","id":7,"method":"roots/list"}`)
	m := s.next()
	e, _ := m["error"].(map[string]any)
	if fmt.Sprint(m["id"]) != "7" || fmt.Sprint(e["code"]) != "-32601" || e["message"] != "Method roots/list not found" || m["result"] != nil {
		t.Fatalf("roots/list: %v", m)
	}
	s.send(`{"jsonrpc":"2.0","id":"s","method":"sampling/createMessage","params":{"messages":[]}}`)
	if m := s.next(); m["id"] != "s" || m["error"] == nil {
		t.Fatalf("sampling: %v", m)
	}
	s.noSkips()
}

func TestClientCancelledCall(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	call := s.callTool(ctx, "slow", map[string]any{"n": 1})
	id, _ := s.request("tools/call")
	cancel()
	if c := wait(t, call); !errors.Is(c.err, context.Canceled) || c.res != nil {
		t.Fatalf("cancelled CallTool: %+v %v", c.res, c.err)
	}
	m := s.next()
	params, _ := m["params"].(map[string]any)
	if m["method"] != "notifications/cancelled" || m["id"] != nil || fmt.Sprint(params["requestId"]) != id || params["reason"] != context.Canceled.Error() {
		t.Fatalf("after the cancel: %v", m)
	}
	// Its late answer is dropped quietly; the next call is answered.
	s.send(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"late"}]}}`)
	call = s.callTool(context.Background(), "fast", nil)
	id2, _ := s.request("tools/call")
	s.send(`{"jsonrpc":"2.0","id":` + id2 + `,"result":{"content":[{"type":"text","text":"on time"}]}}`)
	if c := wait(t, call); c.err != nil || c.res.Content[0] != "on time" {
		t.Fatalf("CallTool: %+v %v", c.res, c.err)
	}
	s.noSkips()

	// A deadline: the same, with its error.
	ctx, cancel = context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	call = s.callTool(ctx, "slow", nil)
	id3, _ := s.request("tools/call")
	if c := wait(t, call); !errors.Is(c.err, context.DeadlineExceeded) {
		t.Fatalf("CallTool past its deadline: %v", c.err)
	}
	if m := s.next(); m["method"] != "notifications/cancelled" || fmt.Sprint(m["params"].(map[string]any)["requestId"]) != id3 {
		t.Fatalf("after the deadline: %v", m)
	}
	// A context already ended sends nothing.
	if _, err := s.c.CallTool(ctx, "x", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatal(err)
	}
	s.ping("99")
}

// initialize is never cancelled (the spec forbids it), though the call
// returns when its context ends.
func TestClientInitializeIsNotCancelled(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.c.Initialize(ctx, InitializeParams{})
		done <- err
	}()
	id, _ := s.request("initialize")
	cancel()
	if err := wait(t, done); !errors.Is(err, context.Canceled) {
		t.Fatalf("Initialize: %v", err)
	}
	s.send(`{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`)
	s.ping("1") // the next line: no notifications/cancelled, no notifications/initialized
	s.noSkips()
}

func TestClientErrorAnswers(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	call := s.callTool(context.Background(), "nope", nil)
	id, _ := s.request("tools/call")
	s.send(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32602,"message":"tool 'nope' not found: tool not found","data":{"x":1}}}`)
	c := wait(t, call)
	var rpc *RPCError
	if !errors.As(c.err, &rpc) || rpc.Code != CodeInvalidParams || rpc.Message != "tool 'nope' not found: tool not found" || string(rpc.Data) != `{"x":1}` {
		t.Fatalf("CallTool: %+v %v", c.res, c.err)
	}
	if !strings.Contains(c.err.Error(), "-32602") || !strings.Contains(c.err.Error(), "tool not found") {
		t.Fatalf("error text: %v", c.err)
	}
	// A malformed error member still ends the call, with an error.
	for _, e := range []string{`"boom"`, `{"message":"no code"}`, `{"code":"x","message":"m"}`} {
		call = s.callTool(context.Background(), "t", nil)
		id, _ = s.request("tools/call")
		s.send(`{"jsonrpc":"2.0","id":` + id + `,"error":` + e + `}`)
		c = wait(t, call)
		if c.err == nil || errors.As(c.err, &rpc) || !strings.Contains(c.err.Error(), "malformed error") {
			t.Fatalf("error %s: %v", e, c.err)
		}
	}
	// A result that is not a tool result.
	call = s.callTool(context.Background(), "t", nil)
	id, _ = s.request("tools/call")
	s.send(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":"text"}}`)
	if c := wait(t, call); c.err == nil || !strings.Contains(c.err.Error(), "does not read") {
		t.Fatalf("a bad result: %v", c.err)
	}
	// An error about no request is told, and nothing breaks.
	s.send(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
	s.skipped("Parse error")
	s.ping("1")
}

func TestClientSkipsWhatIsNotJSONRPC(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	call := s.callTool(context.Background(), "t", nil)
	id, _ := s.request("tools/call")
	for _, tc := range []struct{ line, says string }{
		{"[github-webhook-mcp] a log line on stdout", "not JSON"},
		{`{"jsonrpc":"2.0","id":` + id + `,"result":`, "not JSON"}, // cut short
		{`[{"jsonrpc":"2.0","method":"x"}]`, "not JSON-RPC 2.0"},
		{`"a string"`, "not JSON-RPC 2.0"},
		{`{"id":` + id + `,"result":{}}`, "not JSON-RPC 2.0"},
		{`{"jsonrpc":"1.0","id":` + id + `,"result":{}}`, "not JSON-RPC 2.0"},
		{`{"jsonrpc":"2.0","method":5}`, "method is not a string"},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, "neither a string nor a number"},
		{`{"jsonrpc":"2.0","method":"notifications/x","params":[1]}`, "params are not an object"},
		{`{"jsonrpc":"2.0","id":` + id + `}`, "neither a request, a notification nor an answer"},
		{`{"jsonrpc":"2.0","id":` + id + `,"result":{},"error":{"code":1,"message":"m"}}`, "neither a request"},
		{`{"jsonrpc":"2.0","id":9999,"result":{}}`, "never sent"},
		{`{"jsonrpc":"2.0","id":"` + id + `","result":{}}`, "never sent"}, // a string is not the number sent
		{"\xff\xfe{", "not JSON"},
	} {
		s.send(tc.line)
		s.skipped(tc.says)
	}
	s.send("")
	s.send("   \r")
	s.ping("1")
	s.noSkips()
	// The call waiting through all that is still answered.
	s.send(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"ok"}]}}`)
	if c := wait(t, call); c.err != nil || c.res.Content[0] != "ok" {
		t.Fatalf("CallTool: %+v %v", c.res, c.err)
	}
	if len(s.notes) != 0 {
		t.Fatalf("a skipped line was handed over: %+v", <-s.notes)
	}
}

func TestClientOverlongLineIsDroppedAndTheNextRead(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pad := strings.Repeat("x", ClientMaxLineBytes+10)
	s.send(`{"jsonrpc":"2.0","method":"notifications/claude/channel","params":{"content":"` + pad + `"}}`)
	s.skipped(fmt.Sprintf("longer than %d bytes", ClientMaxLineBytes))
	s.send(`{"jsonrpc":"2.0","method":"notifications/claude/channel","params":{"content":"next"}}`)
	if n := wait(t, s.notes); n.Params["content"] != "next" {
		t.Fatalf("after an overlong line: %+v", n)
	}
	// An overlong answer fails its call at once, its id first (mcp-go's
	// order) or last (the TypeScript SDK's).
	for _, idLast := range []bool{false, true} {
		call := s.callTool(context.Background(), "get_event", nil)
		id, _ := s.request("tools/call")
		result := `"result":{"content":[{"type":"text","text":"` + pad + `"}]}`
		if idLast {
			s.send(`{` + result + `,"jsonrpc":"2.0","id":` + id + `}`)
		} else {
			s.send(`{"jsonrpc":"2.0","id":` + id + `,` + result + `}`)
		}
		if c := wait(t, call); c.err == nil || !strings.Contains(c.err.Error(), "longer than") {
			t.Fatalf("an overlong answer (id last %v): %+v %v", idLast, c.res, c.err)
		}
		s.skipped("the answer to a call")
	}
	s.ping("1")
	s.noSkips()
}

// The end of the server's output fails every call waiting and every later
// one; every notification before it was handed over by Done.
func TestClientEOFFailsCalls(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	a := s.callTool(context.Background(), "a", nil)
	b := s.callTool(context.Background(), "b", nil)
	s.request("tools/call")
	s.request("tools/call")
	for i := range 50 {
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/claude/channel","params":{"content":"%d"}}`, i))
	}
	// The last line has no newline: it is read all the same.
	io.WriteString(s.out, `{"jsonrpc":"2.0","method":"notifications/claude/channel","params":{"content":"last"}}`)
	s.out.Close()
	for _, ch := range []<-chan callResult{a, b} {
		if c := wait(t, ch); !errors.Is(c.err, ErrServerEnded) {
			t.Fatalf("a call waiting at EOF: %v", c.err)
		}
	}
	wait(t, s.c.Done())
	if len(s.notes) != 51 {
		t.Fatalf("%d notifications handed over by Done, want 51", len(s.notes))
	}
	if _, err := s.c.CallTool(context.Background(), "c", nil); !errors.Is(err, ErrServerEnded) {
		t.Fatalf("a call after EOF: %v", err)
	}
	if _, err := s.c.Initialize(context.Background(), InitializeParams{}); !errors.Is(err, ErrServerEnded) {
		t.Fatalf("initialize after EOF: %v", err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestClientReadErrorFailsCalls(t *testing.T) {
	t.Parallel()
	_, w := io.Pipe()
	c := NewClient(errReader{}, w, ClientOptions{})
	defer c.Close()
	wait(t, c.Done())
	if _, err := c.CallTool(context.Background(), "x", nil); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("a call after a read error: %v", err)
	}
}

func TestClientClose(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	call := s.callTool(context.Background(), "a", nil)
	id, _ := s.request("tools/call")
	if err := s.c.Close(); err != nil {
		t.Fatal(err)
	}
	if c := wait(t, call); !errors.Is(c.err, ErrClientClosed) {
		t.Fatalf("a call waiting at Close: %v", c.err)
	}
	select {
	case line, ok := <-s.lines:
		if ok {
			t.Fatalf("after Close the client wrote %q", line)
		}
	case <-time.After(waitLimit):
		t.Fatal("Close did not close the server's input")
	}
	if err := s.c.Close(); err != nil {
		t.Fatalf("Close again: %v", err)
	}
	if _, err := s.c.CallTool(context.Background(), "b", nil); !errors.Is(err, ErrClientClosed) {
		t.Fatalf("a call after Close: %v", err)
	}
	// What the server writes now is not handed over; the loop ends.
	s.send(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[]}}`)
	wait(t, s.c.Done())
	s.noSkips()
}

// A server that does not read its input holds no call up past its context,
// and Close ends the write blocked on it.
func TestClientCallDoesNotWaitForABlockedWrite(t *testing.T) {
	t.Parallel()
	outR, outW := io.Pipe()
	defer outW.Close()
	_, inW := io.Pipe() // nobody reads: every write blocks
	c := NewClient(outR, inW, ClientOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := c.CallTool(ctx, "x", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("CallTool: %v", err)
	}
	c.Close()
	if _, err := c.CallTool(context.Background(), "x", nil); !errors.Is(err, ErrClientClosed) {
		t.Fatalf("after Close: %v", err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }
func (failWriter) Close() error              { return nil }

// A failed write fails the calls; notifications are still read.
func TestClientWriteErrorFailsCalls(t *testing.T) {
	t.Parallel()
	outR, outW := io.Pipe()
	defer outW.Close()
	notes := make(chan Notification, 1)
	c := NewClient(outR, failWriter{}, ClientOptions{Notify: func(n Notification) { notes <- n }})
	defer c.Close()
	if _, err := c.CallTool(context.Background(), "x", nil); err == nil || !strings.Contains(err.Error(), "writing to the server: broken pipe") {
		t.Fatalf("CallTool: %v", err)
	}
	if _, err := c.CallTool(context.Background(), "y", nil); err == nil || !strings.Contains(err.Error(), "broken pipe") {
		t.Fatalf("a later CallTool: %v", err)
	}
	io.WriteString(outW, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"}}`+"\n")
	if n := wait(t, notes); n.Method != "notifications/message" || n.Params["level"] != "info" {
		t.Fatalf("notification: %+v", n)
	}
}

// Calls at once: each gets its own answer, answered in any order, and
// every line the client writes is one whole message.
func TestClientConcurrentCalls(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	const n = 64
	big := strings.Repeat("y", 100<<10) // more than a pipe takes at once
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			arg := fmt.Sprintf("%d-%s", i, big[:i*1000])
			res, err := s.c.CallTool(context.Background(), "echo", map[string]any{"text": arg})
			switch {
			case err != nil:
				errs <- err
			case len(res.Content) != 1 || res.Content[0] != "echo: "+arg:
				errs <- fmt.Errorf("call %d got %.40q", i, res.Content)
			}
		})
	}
	reqs := map[string]string{}
	for range n {
		id, params := s.request("tools/call")
		if _, dup := reqs[id]; dup {
			t.Fatalf("id %s twice", id)
		}
		reqs[id] = params["arguments"].(map[string]any)["text"].(string)
	}
	// Answered in reverse order of ids, each on a goroutine of its own.
	var answer sync.Mutex
	for id, text := range reqs {
		wg.Go(func() {
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.Number(id), "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "echo: " + text}}}})
			answer.Lock()
			defer answer.Unlock()
			s.send(string(b))
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	s.noSkips()
}

// The client against this package's server: the two sides agree.
func TestClientAgainstServer(t *testing.T) {
	t.Parallel()
	srv := New(Info{Name: "srv", Version: "3"})
	started := make(chan struct{})
	mustSet(t, srv, echoTool("echo"), Tool{Name: "wait", Handler: func(ctx context.Context, _ *Request) (*Result, error) {
		close(started)
		<-ctx.Done() // until cancelled
		return TextResult("cancelled"), nil
	}})
	cR, sW := io.Pipe()
	sR, cW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, sR, sW); sW.Close() }()
	notes := make(chan Notification, 8)
	c := NewClient(cR, cW, ClientOptions{Notify: func(n Notification) { notes <- n }, Skipped: func(why string) { t.Errorf("skipped: %s", why) }})
	res, err := c.Initialize(ctx, InitializeParams{ClientInfo: Implementation{Name: "t", Version: "0"}})
	if err != nil || res.ServerInfo.Name != "srv" || res.ProtocolVersion != ProtocolVersions[0] || res.Capabilities.Tools == nil || !res.Capabilities.Tools.ListChanged {
		t.Fatalf("Initialize: %+v %v", res, err)
	}
	out, err := c.CallTool(ctx, "echo", map[string]any{"text": "hé\n\"x\""})
	if err != nil || out.IsError || out.Content[0] != "echo: hé\n\"x\"" {
		t.Fatalf("CallTool: %+v %v", out, err)
	}
	var rpc *RPCError
	if _, err := c.CallTool(ctx, "missing", nil); !errors.As(err, &rpc) || rpc.Code != CodeInvalidParams {
		t.Fatalf("an unknown tool: %v", err)
	}
	// A cancelled call: the server ends its context and answers nothing.
	callCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { _, err := c.CallTool(callCtx, "wait", nil); done <- err }()
	wait(t, started)
	stop()
	if err := wait(t, done); !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled call: %v", err)
	}
	mustSet(t, srv, echoTool("echo"))
	if n := wait(t, notes); n.Method != "notifications/tools/list_changed" {
		t.Fatalf("notification: %+v", n)
	}
	c.Close()
	if err := wait(t, served); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	wait(t, c.Done())
}

// FuzzClientLines: whatever a server writes, the client neither panics
// nor hangs, and a call made before it ends (answered, or failed at EOF).
func FuzzClientLines(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}]}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","method":"n","params":{"a":[1,{"b":null}]}}`,
		`{"jsonrpc":"2.0","id":1,"result":null}`, `{"jsonrpc":"2.0","id":1,"error":null}`,
		`{"jsonrpc":"2.0","id":1e0,"result":{}}`, `{"jsonrpc":"2.0","method":"x","params":null}`,
		"\x00\n{\n}", `{"jsonrpc":"2.0","jsonrpc":"1.0","id":1,"result":{}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		c := NewClient(strings.NewReader(input), nopWriteCloser{io.Discard}, ClientOptions{Notify: func(Notification) {}, Skipped: func(string) {}})
		defer c.Close()
		done := make(chan struct{})
		go func() {
			defer close(done)
			c.CallTool(context.Background(), "t", map[string]any{"a": 1})
		}()
		select {
		case <-done:
		case <-time.After(waitLimit):
			t.Fatal("the call did not end")
		}
		wait(t, c.Done())
	})
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

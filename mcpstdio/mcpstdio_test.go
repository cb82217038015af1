package mcpstdio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestInitializeNegotiatesTheVersion(t *testing.T) {
	t.Parallel()
	instr := "You are \"Lin\" <a&b>\nline two 😀"
	for _, tc := range []struct{ asked, want string }{
		{"2025-11-25", "2025-11-25"},
		{"2025-06-18", "2025-06-18"},
		{"2025-03-26", "2025-03-26"},
		{"2024-11-05", "2024-11-05"},
		{"1999-01-01", "2025-11-25"}, // unknown: the newest
		{"2026-07-28", "2025-11-25"}, // the stateless core is not offered
		{"", "2025-03-26"},           // none given: what the spec assumes
	} {
		p := serve(t, New(Info{Name: "srv", Version: "1.2.3", Instructions: instr}))
		res := p.initialize(tc.asked)
		want := map[string]any{
			"protocolVersion": tc.want,
			"capabilities":    map[string]any{"tools": map[string]any{"listChanged": true}},
			"serverInfo":      map[string]any{"name": "srv", "version": "1.2.3"},
			"instructions":    instr,
		}
		if !reflect.DeepEqual(res, want) {
			t.Errorf("asked %q:\n got %v\nwant %v", tc.asked, res, want)
		}
	}
	p := serve(t, New(Info{Name: "srv", Version: "1"}))
	if res := p.initialize("2025-06-18"); res["instructions"] != nil {
		t.Errorf("no instructions given, yet initialize carries %q", res["instructions"])
	}
}

func TestNotificationsAndAnswersAreNeverAnswered(t *testing.T) {
	t.Parallel()
	s := New(Info{Name: "srv", Version: "1"})
	mustSet(t, s, echoTool("echo"))
	p := serve(t, s)
	for _, line := range []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","method":"notifications/something_new","params":{"x":1}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":999}}`, // nothing in flight
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":"bad"}`,
		`{"jsonrpc":"1.0","method":"notifications/initialized"}`, // malformed: dropped, not answered
		`{"jsonrpc":"2.0","method":42}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo"}}`, // a request without id is a notification
		`{"jsonrpc":"2.0","id":5,"result":{}}`,                             // answers to requests never sent
		`{"jsonrpc":"2.0","id":6,"error":{"code":1,"message":"x"}}`,
		``, `   `, // blank lines
	} {
		p.send(line)
	}
	p.ping(1) // the next line: nothing above was answered
	if rest := p.end(); len(rest) != 0 {
		t.Fatalf("answered after all: %v", rest)
	}
}

func TestToolsListShowsEachToolAsGiven(t *testing.T) {
	t.Parallel()
	s := New(Info{Name: "srv", Version: "1"})
	bare := Tool{Name: "bare", Handler: echoTool("").Handler} // no description, schema or annotations
	mustSet(t, s, echoTool("zeta"), bare, Tool{
		Name: "alpha", Description: "all hints", InputSchema: json.RawMessage(` {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}, "required": ["n"]} `),
		Annotations: &Annotations{ReadOnly: false, Destructive: true, Idempotent: true, OpenWorld: true}, Handler: bare.Handler,
	})
	p := serve(t, s)
	p.initialize("2025-06-18")
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	got := p.next()["result"]
	var want any
	json.Unmarshal([]byte(`{"tools":[
		{"name":"zeta","description":"echoes its text","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}},
		 "annotations":{"title":"Echo","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}},
		{"name":"bare","inputSchema":{"type":"object"}},
		{"name":"alpha","description":"all hints","inputSchema":{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]},
		 "annotations":{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":true,"openWorldHint":true}}]}`), &want)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("tools/list:\n got %v\nwant %v", got, want)
	}
	p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":""}}`)
	if !reflect.DeepEqual(p.next()["result"], want) {
		t.Fatal("an empty cursor is the first page")
	}
	p.send(`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":"abc"}}`)
	wantError(t, p.next(), float64(4), CodeInvalidParams, "invalid cursor")
}

func TestToolsCall(t *testing.T) {
	t.Parallel()
	s := New(Info{Name: "srv", Version: "1"})
	var gotArgs []json.RawMessage
	var mu sync.Mutex
	record := func(_ context.Context, r *Request) (*Result, error) {
		mu.Lock()
		gotArgs = append(gotArgs, r.Arguments)
		mu.Unlock()
		return &Result{Content: []string{"one", "two"}}, nil
	}
	mustSet(t, s, echoTool("echo"),
		Tool{Name: "record", Handler: record},
		Tool{Name: "fails", Handler: func(context.Context, *Request) (*Result, error) { return ErrorResult("it went wrong"), nil }},
		Tool{Name: "errs", Handler: func(context.Context, *Request) (*Result, error) { return nil, errors.New("the handler's own error") }},
		Tool{Name: "nothing", Handler: func(context.Context, *Request) (*Result, error) { return nil, nil }},
		Tool{Name: "empty", Handler: func(context.Context, *Request) (*Result, error) { return &Result{}, nil }},
	)
	p := serve(t, s)
	p.initialize("2025-06-18")
	call := func(id int, params string) map[string]any {
		t.Helper()
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, id, params))
		m := p.next()
		if m["id"] != float64(id) {
			t.Fatalf("the answer to %d came as %v", id, m)
		}
		return m
	}
	result := func(m map[string]any) string {
		t.Helper()
		b, _ := json.Marshal(m["result"])
		return string(b)
	}
	if r := result(call(1, `{"name":"echo","arguments":{"text":"hi \"there\""}}`)); r != `{"content":[{"text":"echo: hi \"there\"","type":"text"}]}` {
		t.Errorf("echo: %s", r)
	}
	if r := result(call(2, `{"name":"fails","arguments":{}}`)); r != `{"content":[{"text":"it went wrong","type":"text"}],"isError":true}` {
		t.Errorf("an error result: %s", r)
	}
	if r := result(call(3, `{"name":"empty"}`)); r != `{"content":[]}` {
		t.Errorf("no content must still be a list: %s", r)
	}
	if r := result(call(4, `{"name":"record"}`)); r != `{"content":[{"text":"one","type":"text"},{"text":"two","type":"text"}]}` {
		t.Errorf("two blocks: %s", r)
	}
	call(5, `{"name":"record","arguments":null}`)
	call(6, `{"name":"record","arguments":{"a":[1,2]}}`)
	mu.Lock()
	if len(gotArgs) != 3 || gotArgs[0] != nil || gotArgs[1] != nil || string(gotArgs[2]) != `{"a":[1,2]}` {
		t.Errorf("arguments handed to the handler: %q", gotArgs)
	}
	mu.Unlock()

	wantError(t, call(10, `{"name":"nope","arguments":{}}`), float64(10), CodeInvalidParams, "tool 'nope' not found: tool not found")
	wantError(t, call(11, `{"arguments":{}}`), float64(11), CodeInvalidParams, "tool '' not found")
	wantError(t, call(12, `{"name":"echo","arguments":[1]}`), float64(12), CodeInvalidParams, "arguments must be an object")
	wantError(t, call(13, `"x"`), float64(13), CodeInvalidParams, "params must be an object")
	wantError(t, call(14, `{"name":7}`), float64(14), CodeInvalidParams, "Invalid params")
	wantError(t, call(15, `{"name":"errs"}`), float64(15), CodeInternalError, "the handler's own error")
	wantError(t, call(16, `{"name":"nothing"}`), float64(16), CodeInternalError, "tool 'nothing' handler returned no result")
}

func TestRequestArgs(t *testing.T) {
	t.Parallel()
	r := &Request{Arguments: json.RawMessage(`{"n":5,"s":"x","l":["a",1],"z":null}`)}
	want := map[string]any{"n": float64(5), "s": "x", "l": []any{"a", float64(1)}, "z": nil}
	if got := r.Args(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Args = %v", got)
	}
	if (&Request{}).Args() != nil {
		t.Fatal("no arguments must be a nil map")
	}
}

func TestPanickingHandlerIsAnErrorAndTheServerGoesOn(t *testing.T) {
	t.Parallel()
	s := New(Info{Name: "srv", Version: "1"})
	mustSet(t, s, echoTool("echo"), Tool{Name: "boom", Handler: func(context.Context, *Request) (*Result, error) { panic("kaboom") }})
	p := serve(t, s)
	p.initialize("2025-06-18")
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boom"}}`)
	wantError(t, p.next(), float64(1), CodeInternalError, "panic recovered in boom tool handler: kaboom")
	p.ping(2)
	p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still"}}}`)
	if m := p.next(); m["id"] != float64(3) || !strings.Contains(fmt.Sprint(m["result"]), "echo: still") {
		t.Fatalf("after the panic: %v", m)
	}
}

func TestSlowCallHoldsUpNeitherPingNorAnotherCall(t *testing.T) {
	t.Parallel()
	s := New(Info{Name: "srv", Version: "1"})
	started, release := make(chan struct{}), make(chan struct{})
	mustSet(t, s, echoTool("echo"), Tool{Name: "slow", Handler: func(context.Context, *Request) (*Result, error) {
		close(started)
		<-release
		return TextResult("slow done"), nil
	}})
	p := serve(t, s)
	p.initialize("2025-06-18")
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`)
	<-started
	p.ping(2)
	p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"fast"}}}`)
	if m := p.next(); m["id"] != float64(3) {
		t.Fatalf("the fast call waited for the slow one: %v", m)
	}
	close(release)
	if m := p.next(); m["id"] != float64(1) || !strings.Contains(fmt.Sprint(m["result"]), "slow done") {
		t.Fatalf("the slow call: %v", m)
	}
}

func TestCancelledCallEndsItsContextAndIsNotAnswered(t *testing.T) {
	t.Parallel()
	s := New(Info{Name: "srv", Version: "1"})
	started, saw := make(chan string, 2), make(chan error, 2)
	mustSet(t, s, echoTool("echo"), Tool{Name: "wait", Handler: func(ctx context.Context, r *Request) (*Result, error) {
		started <- string(r.Arguments)
		<-ctx.Done()
		saw <- ctx.Err()
		return TextResult("too late"), nil
	}})
	p := serve(t, s)
	p.initialize("2025-06-18")
	p.send(`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"wait","arguments":{"n":1}}}`)
	p.send(`{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"wait","arguments":{"n":2}}}`)
	<-started
	<-started
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a","reason":"user"}}`)
	if err := <-saw; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled call's context: %v", err)
	}
	// Only a: b still runs, and the server still answers.
	select {
	case err := <-saw:
		t.Fatalf("cancelling a ended b too: %v", err)
	default:
	}
	p.ping(1)
	// The end cancels b, whose answer is still written; a's never is.
	rest := p.end()
	var ids []any
	for _, m := range rest {
		ids = append(ids, m["id"])
	}
	if !reflect.DeepEqual(ids, []any{"b"}) {
		t.Fatalf("answers after the cancel: %v", rest)
	}
}

func TestListChangedAfterInitializeWhenADefinitionChanges(t *testing.T) {
	t.Parallel()
	s := New(Info{Name: "srv", Version: "1"})
	base := echoTool("echo")
	mustSet(t, s, base)
	p := serve(t, s)
	p.ping(1) // connected

	renamed := base
	renamed.Description = "echoes, renamed"
	mustSet(t, s, renamed) // before initialize: nothing to tell
	if n := pendingChanges(s); n != 0 {
		t.Fatalf("%d list_changed queued before initialize", n)
	}
	p.initialize("2025-06-18")

	wantNotification := func(what string) {
		t.Helper()
		m := p.next()
		if m["method"] != "notifications/tools/list_changed" || m["id"] != nil {
			t.Fatalf("%s: want list_changed, got %v", what, m)
		}
	}
	otherHandler := renamed
	otherHandler.Handler = func(context.Context, *Request) (*Result, error) { return TextResult("new"), nil }
	mustSet(t, s, otherHandler) // the same definitions: nothing to tell
	if n := pendingChanges(s); n != 0 {
		t.Fatalf("a handler-only change queued %d list_changed", n)
	}

	described := renamed
	described.Description = "a new description"
	mustSet(t, s, described)
	wantNotification("description")
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if m := p.next(); !strings.Contains(fmt.Sprint(m["result"]), "a new description") {
		t.Fatalf("tools/list after the change: %v", m)
	}

	schema := described
	schema.InputSchema = json.RawMessage(`{"type":"object","properties":{}}`)
	mustSet(t, s, schema)
	wantNotification("schema")
	hinted := schema
	hinted.Annotations = &Annotations{Title: "Echo", ReadOnly: true}
	mustSet(t, s, hinted)
	wantNotification("annotations")
	mustSet(t, s, hinted, echoTool("second"))
	wantNotification("a tool added")
	mustSet(t, s, echoTool("second"), hinted)
	wantNotification("the order")

	mustSet(t, s, echoTool("second"), hinted) // unchanged again
	if n := pendingChanges(s); n != 0 {
		t.Fatalf("an unchanged set queued %d list_changed", n)
	}
	if rest := p.end(); len(rest) != 0 {
		t.Fatalf("more written than the changes: %v", rest)
	}
}

func TestMalformedInputIsAnsweredAndTheServerGoesOn(t *testing.T) {
	t.Parallel()
	s := New(Info{Name: "srv", Version: "1"})
	mustSet(t, s, echoTool("echo"))
	p := serve(t, s)
	for i, tc := range []struct {
		line string
		id   any
		code int
		text string
	}{
		{`not json`, nil, CodeParseError, "Parse error"},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"`, nil, CodeParseError, "Parse error"},
		{`[]`, nil, CodeInvalidRequest, "JSON object"},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, nil, CodeInvalidRequest, "JSON object"},
		{`"ping"`, nil, CodeInvalidRequest, "JSON object"},
		{`null`, nil, CodeInvalidRequest, "JSON object"},
		{`{}`, nil, CodeInvalidRequest, "no method"},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, nil, CodeInvalidRequest, "id must be"},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, nil, CodeInvalidRequest, "id must be"},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, nil, CodeInvalidRequest, "id must be"},
		{`{"jsonrpc":"1.0","id":8,"method":"ping"}`, float64(8), CodeInvalidRequest, "Invalid JSON-RPC version"},
		{`{"id":8,"method":"ping"}`, float64(8), CodeInvalidRequest, "Invalid JSON-RPC version"},
		{`{"jsonrpc":"2.0","id":9}`, float64(9), CodeInvalidRequest, "no method"},
		{`{"jsonrpc":"2.0","id":9,"method":5}`, float64(9), CodeInvalidRequest, "method must be"},
		{`{"jsonrpc":"2.0","id":9,"method":""}`, float64(9), CodeInvalidRequest, "method must be"},
		{`{"jsonrpc":"2.0","id":10,"method":"no/such"}`, float64(10), CodeMethodNotFound, "Method no/such not found"},
		{`{"jsonrpc":"2.0","id":11,"method":"server/discover"}`, float64(11), CodeMethodNotFound, "Method server/discover not found"},
		{`{"jsonrpc":"2.0","id":12,"method":"resources/list"}`, float64(12), CodeMethodNotFound, "resources not supported"},
		{`{"jsonrpc":"2.0","id":13,"method":"resources/templates/list"}`, float64(13), CodeMethodNotFound, "resources not supported"},
		{`{"jsonrpc":"2.0","id":14,"method":"prompts/list"}`, float64(14), CodeMethodNotFound, "prompts not supported"},
		{`{"jsonrpc":"2.0","id":15,"method":"logging/setLevel","params":{"level":"info"}}`, float64(15), CodeMethodNotFound, "logging not supported"},
		{`{"jsonrpc":"2.0","id":16,"method":"completion/complete","params":{}}`, float64(16), CodeMethodNotFound, "completions not supported"},
		{`{"jsonrpc":"2.0","id":17,"method":"tasks/list"}`, float64(17), CodeMethodNotFound, "tasks not supported"},
		{`{"jsonrpc":"2.0","id":18,"method":"initialize","params":"x"}`, float64(18), CodeInvalidParams, "params must be an object"},
		{`{"jsonrpc":"2.0","id":19,"method":"initialize","params":{"protocolVersion":5}}`, float64(19), CodeInvalidParams, "Invalid params"},
	} {
		p.send(tc.line)
		wantError(t, p.next(), tc.id, tc.code, tc.text)
		p.ping(1000 + i) // still serving
	}
	// Ids come back as sent: a string, a number past float64's precision.
	p.send(`{"jsonrpc":"2.0","id":"s-17","method":"ping"}`)
	if m := p.next(); m["id"] != "s-17" {
		t.Fatalf("string id: %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}`)
	if line := <-p.lines; line != `{"jsonrpc":"2.0","id":12345678901234567890,"result":{}}` {
		t.Fatalf("big id: %s", line)
	}
	p.send("{\"jsonrpc\":\"2.0\",\"id\":20,\"method\":\"ping\"}\r") // CRLF
	if m := p.next(); m["id"] != float64(20) {
		t.Fatalf("CRLF line: %v", m)
	}
}

func TestOverlongLineIsAnsweredAndSkipped(t *testing.T) {
	t.Parallel()
	s := New(Info{Name: "srv", Version: "1"})
	mustSet(t, s, echoTool("echo"))
	p := serve(t, s)
	pad := func(n int) string { return strings.Repeat("x", n) }
	huge := MaxLineBytes + 10
	for _, tc := range []struct {
		name, line string
		id         any
	}{
		{"id first", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + pad(huge) + `"}}}`, float64(7)},
		{"id last", `{"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + pad(huge) + `"}},"jsonrpc":"2.0","id":"tail"}`, "tail"},
		{"no id", `{"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + pad(huge) + `"}}}`, nil},
		{"an id inside the text only", `{"method":"x","params":{"text":"` + pad(huge) + `\"id\":5"}}`, nil},
		{"not JSON", pad(huge), nil},
	} {
		p.send(tc.line)
		wantError(t, p.next(), tc.id, CodeInvalidRequest, fmt.Sprintf("longer than %d bytes", MaxLineBytes))
		p.ping(1)
	}
	// Exactly the limit is read.
	head := `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`
	tail := `"}}}`
	p.send(head + pad(MaxLineBytes-len(head)-len(tail)) + tail)
	if m := p.next(); m["id"] != float64(8) || m["error"] != nil {
		t.Fatalf("a line of exactly MaxLineBytes: %.200v", m)
	}
	// The last line, over the limit, without a newline.
	io.WriteString(p.in, `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"p":"`+pad(huge)+`"}}`)
	rest := p.end()
	if len(rest) != 1 {
		t.Fatalf("after an overlong last line: %v", rest)
	}
	wantError(t, rest[0], float64(9), CodeInvalidRequest, "longer than")
}

func TestWritesAreWholeLinesUnderConcurrency(t *testing.T) {
	t.Parallel()
	s := New(Info{Name: "srv", Version: "1"})
	big := strings.Repeat("y", 100<<10) // more than a pipe holds at once
	handler := func(_ context.Context, r *Request) (*Result, error) {
		return TextResult(fmt.Sprint(r.Args()["n"]) + big), nil
	}
	mustSet(t, s, Tool{Name: "big", Handler: handler})
	p := serveVia(t, s, func(w io.Writer) io.Writer { return chunkWriter{w} })
	p.initialize("2025-06-18")
	const n = 100
	for i := range n {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"big","arguments":{"n":%d}}}`, i, i))
		if i%10 == 0 {
			mustSet(t, s, Tool{Name: "big", Description: fmt.Sprint(i), Handler: handler})
		}
	}
	seen := map[float64]bool{}
	for len(seen) < n {
		m := p.next() // fails on any line that is not one whole message
		if m["method"] == "notifications/tools/list_changed" {
			continue
		}
		id := m["id"].(float64)
		text := fmt.Sprint(m["result"])
		if seen[id] || !strings.Contains(text, fmt.Sprint(id)+big) {
			t.Fatalf("answer %v twice or wrong", id)
		}
		seen[id] = true
	}
}

func TestServeEnds(t *testing.T) {
	t.Parallel()
	t.Run("at EOF, cancelling and awaiting its calls", func(t *testing.T) {
		s := New(Info{Name: "srv", Version: "1"})
		started := make(chan struct{})
		mustSet(t, s, Tool{Name: "wait", Handler: func(ctx context.Context, _ *Request) (*Result, error) {
			close(started)
			<-ctx.Done()
			return ErrorResult("cancelled: " + ctx.Err().Error()), nil
		}})
		p := serve(t, s)
		p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait"}}`)
		<-started
		rest := p.end() // nil from Serve, after the call answered
		if len(rest) != 1 || rest[0]["id"] != float64(1) || !strings.Contains(fmt.Sprint(rest[0]["result"]), "context canceled") {
			t.Fatalf("after EOF: %v", rest)
		}
	})
	t.Run("when ctx ends, with a Read blocked", func(t *testing.T) {
		s := New(Info{Name: "srv", Version: "1"})
		r, w := io.Pipe()
		defer w.Close()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- s.Serve(ctx, r, io.Discard) }()
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Serve returned %v, want context.Canceled", err)
			}
		case <-time.After(waitLimit):
			t.Fatal("Serve did not return when its context ended")
		}
	})
	t.Run("when a write fails", func(t *testing.T) {
		s := New(Info{Name: "srv", Version: "1"})
		r, w := io.Pipe()
		defer w.Close()
		done := make(chan error, 1)
		go func() { done <- s.Serve(context.Background(), r, failingWriter{}) }()
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
		select {
		case err := <-done:
			if !errors.Is(err, errWrite) || !strings.Contains(err.Error(), "disk on fire") {
				t.Fatalf("Serve returned %v", err)
			}
		case <-time.After(waitLimit):
			t.Fatal("Serve went on after its output failed")
		}
	})
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestSetToolsRefusesABadSetWhole(t *testing.T) {
	t.Parallel()
	s := New(Info{Name: "srv", Version: "1"})
	good := echoTool("echo")
	mustSet(t, s, good)
	h := good.Handler
	for _, tc := range []struct {
		name  string
		tools []Tool
		text  string
	}{
		{"unnamed", []Tool{good, {Handler: h}}, "tool 1 has no name"},
		{"twice", []Tool{good, good}, `"echo" is in the set twice`},
		{"no handler", []Tool{{Name: "x"}}, `"x" has no handler`},
		{"schema not an object", []Tool{{Name: "x", Handler: h, InputSchema: json.RawMessage(`["object"]`)}}, "not a JSON object"},
		{"schema empty", []Tool{{Name: "x", Handler: h, InputSchema: json.RawMessage(` `)}}, "not a JSON object"},
	} {
		if err := s.SetTools(tc.tools); err == nil || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.text)
		}
	}
	if _, ok := s.tool("echo"); !ok || len(s.tools) != 1 {
		t.Fatalf("a refused set changed the tools: %v", s.tools)
	}
}

// A schema that starts as an object but is not JSON is found when
// tools/list is answered: an internal error, and the server goes on.
func TestBadSchemaMakesToolsListAnError(t *testing.T) {
	t.Parallel()
	s := New(Info{Name: "srv", Version: "1"})
	mustSet(t, s, Tool{Name: "x", Handler: echoTool("").Handler, InputSchema: json.RawMessage(`{"type":`)})
	p := serve(t, s)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	wantError(t, p.next(), float64(1), CodeInternalError, "the tool list could not be written")
	p.ping(2)
}

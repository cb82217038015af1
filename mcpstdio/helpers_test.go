package mcpstdio

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"
)

// peer is a raw client on a pipe to one Serve.
type peer struct {
	t      *testing.T
	s      *Server
	in     *io.PipeWriter // what the client writes
	lines  chan string    // what the server wrote, line by line
	done   chan error     // Serve's return
	cancel context.CancelFunc
}

// waitLimit bounds a wait for an event that must come (a failure guard,
// never a synchronisation).
const waitLimit = 15 * time.Second

func serve(t *testing.T, s *Server) *peer {
	t.Helper()
	return serveVia(t, s, nil)
}

// serveVia is serve with the server's writer wrapped.
func serveVia(t *testing.T, s *Server, wrap func(io.Writer) io.Writer) *peer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, pw := io.Pipe()
	var outW io.Writer = pw
	if wrap != nil {
		outW = wrap(pw)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &peer{t: t, s: s, in: inW, lines: make(chan string, 1024), done: make(chan error, 1), cancel: cancel}
	go func() {
		err := s.Serve(ctx, inR, outW)
		pw.Close()
		p.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
	})
	return p
}

// send writes one line as it is.
func (p *peer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatalf("writing %q: %v", line, err)
	}
}

// next is the next line the server wrote, decoded.
func (p *peer) next() map[string]any {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.t.Fatal("the server's output ended")
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			p.t.Fatalf("the server wrote a line that is not one JSON object: %q", line)
		}
		if m["jsonrpc"] != "2.0" {
			p.t.Fatalf("the server wrote a message without jsonrpc 2.0: %q", line)
		}
		return m
	case <-time.After(waitLimit):
		p.t.Fatal("no message from the server")
		return nil
	}
}

// ping sends a ping with id and expects its answer to be the next line:
// whatever was sent before it and is answered was answered before it.
func (p *peer) ping(id int) {
	p.t.Helper()
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
	m := p.next()
	if m["id"] != float64(id) || m["result"] == nil {
		p.t.Fatalf("expected the answer to ping %d, got %v", id, m)
	}
}

// init sends initialize and returns its result.
func (p *peer) initialize(version string) map[string]any {
	p.t.Helper()
	params := `{"capabilities":{},"clientInfo":{"name":"test","version":"0"}}`
	if version != "" {
		params = fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"test","version":"0"}}`, version)
	}
	p.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":` + params + `}`)
	m := p.next()
	res, ok := m["result"].(map[string]any)
	if m["id"] != "init" || !ok {
		p.t.Fatalf("initialize answered %v", m)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return res
}

// end closes the client's side and returns every line written after what
// was read, once Serve returned (it waits for its calls).
func (p *peer) end() []map[string]any {
	p.t.Helper()
	p.in.Close()
	var err error
	select {
	case err = <-p.done:
	case <-time.After(waitLimit):
		p.t.Fatal("Serve did not return after the input ended")
	}
	if err != nil {
		p.t.Fatalf("Serve after EOF: %v", err)
	}
	var rest []map[string]any
	for line := range p.lines {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil {
			p.t.Fatalf("not JSON: %q", line)
		}
		rest = append(rest, m)
	}
	return rest
}

// wantError checks m is the error answer to id with code, its message
// containing text.
func wantError(t *testing.T, m map[string]any, id any, code int, text string) {
	t.Helper()
	e, ok := m["error"].(map[string]any)
	if !ok || m["id"] != id || e["code"] != float64(code) || !strings.Contains(fmt.Sprint(e["message"]), text) {
		t.Fatalf("want error %d %q for id %v, got %v", code, text, id, m)
	}
	if _, has := m["result"]; has {
		t.Fatalf("an error answer with a result: %v", m)
	}
}

func echoTool(name string) Tool {
	return Tool{
		Name:        name,
		Description: "echoes its text",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`),
		Annotations: &Annotations{Title: "Echo", ReadOnly: true, Idempotent: true},
		Handler: func(_ context.Context, r *Request) (*Result, error) {
			text, _ := r.Args()["text"].(string)
			return TextResult("echo: " + text), nil
		},
	}
}

func mustSet(t *testing.T, s *Server, tools ...Tool) {
	t.Helper()
	if err := s.SetTools(tools); err != nil {
		t.Fatal(err)
	}
}

// pendingChanges is how many list_changed are queued and not yet written.
func pendingChanges(s *Server) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for c := range s.conns {
		n += len(c.changed)
	}
	return n
}

// chunkWriter writes in small pieces, yielding between them, as a pipe
// takes a write past its buffer: two writes at once interleave.
type chunkWriter struct{ w io.Writer }

func (c chunkWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		k := min(len(p), 512)
		m, err := c.w.Write(p[:k])
		n += m
		if err != nil {
			return n, err
		}
		p = p[k:]
		runtime.Gosched()
	}
	return n, nil
}

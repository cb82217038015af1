// Package mcpstdio is an MCP server over stdio: newline-delimited JSON-RPC
// 2.0 on an io.Reader and an io.Writer, with tools and nothing else. It is
// `pullcept sidecar`'s, which every CLI session launches: the standard
// library only (no net/http, no JSON-schema library), so the process answers
// initialize about as soon as a Go hello-world would (docs/performance.md
// "Start-up").
//
// What it serves, answered the way mark3labs/mcp-go v1.2.1's stdio server
// answers a server built with tool capabilities only (the sidecar's library
// before it; codes and texts kept so clients see the same, and where they
// differ on purpose sidecar/mcpgo_golden_test.go says how and why):
//
//   - initialize: the client's protocol version if it is one of
//     ProtocolVersions, else the newest of them (none given: 2025-03-26, as
//     the spec assumes for a client that does not say); the tools capability
//     with listChanged; serverInfo; instructions.
//   - ping; tools/list (every tool, its schema as given); tools/call, each
//     call on its own goroutine, so a slow one never holds up ping or another
//     call.
//   - notifications: notifications/cancelled cancels that call's context and
//     its answer is not sent (the spec: a cancelled request gets none); every
//     other notification is read and dropped; none is ever answered.
//   - notifications/tools/list_changed, sent once initialize was answered
//     whenever SetTools changes a name, description, schema or annotation.
//   - resources/*, prompts/*, logging/setLevel, completion/complete,
//     tasks/*: -32601 "<capability> not supported"; any other method: -32601
//     "Method <name> not found". server/discover (the 2026-07-28 stateless
//     core) is one of those: clients that probe it fall back to initialize.
//
// Errors: a line that is not JSON is -32700 with id null; JSON that is not a
// request object (an array, no method, a jsonrpc other than "2.0", an id
// that is neither a string nor a number) is -32600; params that do not
// decode are -32602, an unknown tool too (mcp-go's "tool 'x' not found: tool
// not found"). A handler's error and a panicking handler are -32603 with
// the error's or the panic's text, as mcp-go's WithRecovery has it; the
// stream goes on after each.
//
// Member names are matched exactly (JSON-RPC's are case-sensitive;
// encoding/json would fold case), a member given twice counts as its last.
//
// A line longer than MaxLineBytes is not read: it is skipped up to its
// newline and answered with -32600, carrying the request's id when the id
// stands at the line's start or end (where clients write it), else null.
//
// The package also holds the client side (Client, client.go): the app's
// client of the local MCP servers it launches (package mcpserv), read with
// the same line reader and envelope rules and answering with the same line
// builders, so the server binary needs no MCP library.
package mcpstdio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"pullcept/jsontext"
	"strconv"
	"sync"
)

// ProtocolVersions are the MCP revisions initialize can agree on, newest
// first.
var ProtocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// defaultProtocolVersion is the answer to an initialize that names no
// version (the spec's assumption for a client that does not say; mcp-go's).
const defaultProtocolVersion = "2025-03-26"

// MaxLineBytes bounds one message. A room post is at most 1 MiB as a frame
// (wire.MaxFrameBytes), so a line eight times that is no real call.
const MaxLineBytes = 8 << 20

// JSON-RPC error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// Info is what initialize reports.
type Info struct {
	Name, Version string
	// Instructions are the server instructions ("" leaves them out).
	Instructions string
	// Log receives what the client cannot be told (a dropped notification,
	// a recovered panic's stack); nil discards it.
	Log *slog.Logger
}

// Tool is one tool: its definition as tools/list shows it, and its handler.
type Tool struct {
	Name        string
	Description string
	// InputSchema is the JSON Schema of the arguments, as JSON text served
	// as it is; nil means {"type":"object"}.
	InputSchema json.RawMessage
	// Annotations, when not nil, are shown with all four hints stated.
	Annotations *Annotations
	Handler     Handler
}

// Annotations are a tool's hints to the client (MCP ToolAnnotations).
type Annotations struct {
	Title                                        string
	ReadOnly, Destructive, Idempotent, OpenWorld bool
}

// Handler runs one tools/call. ctx ends when the client cancels the call or
// the connection ends. A nil Result with a nil error is a -32603 error.
type Handler func(ctx context.Context, req *Request) (*Result, error)

// Request is one tools/call.
type Request struct {
	// Name is the tool's name.
	Name string
	// Arguments is the arguments object as the client sent it; nil when it
	// sent none (or null).
	Arguments json.RawMessage

	argsOnce sync.Once
	args     map[string]any
}

// Args is the arguments decoded as encoding/json decodes into any (numbers
// are float64), once; nil when there are none.
func (r *Request) Args() map[string]any {
	r.argsOnce.Do(func() {
		if len(r.Arguments) > 0 {
			_ = json.Unmarshal(r.Arguments, &r.args) // checked to be an object before the handler runs
		}
	})
	return r.args
}

// Result is a tools/call result: text content blocks, and whether the call
// failed (a failure the model is to read, not a protocol error).
type Result struct {
	Content []string
	IsError bool
}

// TextResult is a result of one text block.
func TextResult(text string) *Result { return &Result{Content: []string{text}} }

// ErrorResult is a failed call's result of one text block.
func ErrorResult(text string) *Result { return &Result{Content: []string{text}, IsError: true} }

// Server serves a set of tools to any number of connections (Serve).
type Server struct {
	info Info
	log  *slog.Logger

	mu      sync.Mutex
	tools   []Tool
	listing []byte // tools/list's result, built on the first tools/list after a change
	conns   map[*conn]struct{}
}

// New makes a server with no tools.
func New(info Info) *Server {
	lg := info.Log
	if lg == nil {
		lg = slog.New(slog.DiscardHandler)
	}
	return &Server{info: info, log: lg, conns: map[*conn]struct{}{}}
}

// SetTools replaces the tool set; tools/list shows them in this order. If a
// tool's definition changed, every connection whose initialize was answered
// is sent notifications/tools/list_changed. A set with an unnamed tool, a
// name twice, a missing handler or a schema that does not start as a JSON
// object is refused whole. The schema's JSON is checked in full only when
// tools/list is first answered (a bad one makes that a -32603 error): this
// runs before the answer to initialize, where no scan of every schema
// belongs; test your schemas instead.
func (s *Server) SetTools(tools []Tool) error {
	seen := make(map[string]bool, len(tools))
	for i, t := range tools {
		switch {
		case t.Name == "":
			return fmt.Errorf("mcpstdio: tool %d has no name", i)
		case seen[t.Name]:
			return fmt.Errorf("mcpstdio: tool %q is in the set twice", t.Name)
		case t.Handler == nil:
			return fmt.Errorf("mcpstdio: tool %q has no handler", t.Name)
		case t.InputSchema != nil && !startsObject(t.InputSchema):
			return fmt.Errorf("mcpstdio: tool %q: the input schema is not a JSON object", t.Name)
		}
		seen[t.Name] = true
	}
	tools = append([]Tool(nil), tools...)
	s.mu.Lock()
	changed := !sameDefinitions(s.tools, tools)
	s.tools = tools
	if changed {
		s.listing = nil
	}
	var tell []*conn
	if changed {
		for c := range s.conns {
			tell = append(tell, c)
		}
	}
	s.mu.Unlock()
	for _, c := range tell {
		c.toolsChanged()
	}
	return nil
}

// sameDefinitions: what tools/list would show is the same (handlers aside).
func sameDefinitions(a, b []Tool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Name != y.Name || x.Description != y.Description || string(x.InputSchema) != string(y.InputSchema) ||
			(x.Annotations == nil) != (y.Annotations == nil) || (x.Annotations != nil && *x.Annotations != *y.Annotations) {
			return false
		}
	}
	return true
}

// tool finds a tool by name.
func (s *Server) tool(name string) (Tool, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.tools {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// toolList is tools/list's result, as JSON (written out: scan.go says why).
func (s *Server) toolList() ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listing != nil {
		return s.listing, nil
	}
	b := []byte(`{"tools":[`)
	for i, t := range s.tools {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = jsontext.AppendString(b, t.Name)
		if t.Description != "" {
			b = append(b, `,"description":`...)
			b = jsontext.AppendString(b, t.Description)
		}
		b = append(b, `,"inputSchema":`...)
		if t.InputSchema == nil {
			b = append(b, `{"type":"object"}`...)
		} else {
			var buf bytes.Buffer
			if err := json.Compact(&buf, t.InputSchema); err != nil { // checks it, and keeps it on one line
				err = fmt.Errorf("tool %q: the input schema is not JSON: %w", t.Name, err)
				s.log.Error("mcp: the tool list could not be written", "error", err)
				return nil, err
			}
			b = append(b, buf.Bytes()...)
		}
		if a := t.Annotations; a != nil {
			b = append(b, `,"annotations":{`...)
			if a.Title != "" {
				b = append(b, `"title":`...)
				b = jsontext.AppendString(b, a.Title)
				b = append(b, ',')
			}
			b = append(b, `"readOnlyHint":`...)
			b = strconv.AppendBool(b, a.ReadOnly)
			b = append(b, `,"destructiveHint":`...)
			b = strconv.AppendBool(b, a.Destructive)
			b = append(b, `,"idempotentHint":`...)
			b = strconv.AppendBool(b, a.Idempotent)
			b = append(b, `,"openWorldHint":`...)
			b = strconv.AppendBool(b, a.OpenWorld)
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	b = append(b, "]}"...)
	s.listing = b
	return b, nil
}

// negotiate picks the protocol version to answer initialize with.
func negotiate(asked string) string {
	if asked == "" {
		return defaultProtocolVersion
	}
	for _, v := range ProtocolVersions {
		if v == asked {
			return v
		}
	}
	return ProtocolVersions[0]
}

// unsupported names the capability a known MCP method belongs to, which
// this server does not offer (mcp-go's "<capability> not supported"); ""
// for any other method. A switch, not a map: nothing built at start-up.
func unsupported(method string) string {
	switch method {
	case "resources/list", "resources/templates/list", "resources/read", "resources/subscribe", "resources/unsubscribe":
		return "resources"
	case "prompts/list", "prompts/get":
		return "prompts"
	case "logging/setLevel":
		return "logging"
	case "completion/complete":
		return "completions"
	case "tasks/get", "tasks/list", "tasks/result", "tasks/cancel":
		return "tasks"
	}
	return ""
}

// errWrite marks a failed write to the client, which ends the connection.
var errWrite = errors.New("mcpstdio: writing to the client")

// startsObject: b starts as a JSON object does.
func startsObject(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c == '{'
	}
	return false
}

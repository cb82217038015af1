// Package fakemodel is a scripted model server for end-to-end tests that run
// the real `claude` and `codex` CLIs offline.
//
// It speaks just enough of two wire formats:
//   - Anthropic Messages (Claude Code): POST /v1/messages[?beta=true] answered
//     as SSE, POST /v1/messages/count_tokens, HEAD/GET 200.
//   - OpenAI Responses (Codex): POST /v1/responses answered as SSE.
//
// Each request is parsed into a neutral Request (user turns, offered tools,
// tool results of the current turn) and handed to the test's Behaviour, which
// answers with text or a tool call. Every request is recorded; Wait blocks
// until the record satisfies a condition.
//
// See README.md for what was learned about the CLIs' traffic.
package fakemodel

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// API says which wire format a request used.
type API string

const (
	Anthropic API = "anthropic" // Claude Code, /v1/messages
	OpenAI    API = "openai"    // Codex, /v1/responses
)

// WaitForMcpServers is Claude Code's built-in tool, offered instead of the MCP
// tools when a turn starts before the MCP servers have connected.
const WaitForMcpServers = "WaitForMcpServers"

// Request is a model request in neutral form.
type Request struct {
	API API
	// UserTurns are the user's text turns, oldest first. System entries,
	// developer messages and injected context blocks (<system-reminder>,
	// <environment_context>, ...) are left out.
	UserTurns []string
	// Tools are the offered tool names as the model would call them:
	// "Bash", "WaitForMcpServers", "mcp__room__say_to_room". Codex's
	// namespaced tools are listed as namespace + "__" + name, which gives the
	// same "mcp__room__say_to_room" form.
	Tools []string
	// ToolResults are the results that arrived after the newest user turn,
	// oldest first: what the current turn has done so far.
	ToolResults []ToolResult
	// AllResults are every tool result of the conversation, oldest first
	// (a post typed in while a tool ran can start a new user turn before
	// the model has answered the result).
	AllResults []ToolResult
	// Side is true for a side call that wants JSON-schema output (Claude's
	// session titles). The server answers it itself; the Behaviour never
	// sees it.
	Side bool
	// Body is the raw JSON request body.
	Body json.RawMessage
	// Reply is what the server answered (set before the request is recorded).
	Reply Reply
	// At is when the request arrived.
	At time.Time
}

// ToolResult is one tool call's result as the CLI sent it back.
type ToolResult struct {
	Tool    string // full name, e.g. "mcp__room__say_to_room"
	CallID  string
	Output  string
	IsError bool
}

// LastUserTurn is the newest user turn, or "".
func (r Request) LastUserTurn() string {
	if len(r.UserTurns) == 0 {
		return ""
	}
	return r.UserTurns[len(r.UserTurns)-1]
}

// Offers reports whether a tool matching name (see Resolve) is offered.
func (r Request) Offers(name string) bool { return r.Resolve(name) != "" }

// Resolve maps a short tool name ("say_to_room") to the offered full name
// ("mcp__room__say_to_room"). An exact match wins; otherwise the first
// offered tool ending in "__"+name. It returns "" when nothing matches.
func (r Request) Resolve(name string) string {
	for _, t := range r.Tools {
		if t == name {
			return t
		}
	}
	for _, t := range r.Tools {
		if strings.HasSuffix(t, "__"+name) {
			return t
		}
	}
	return ""
}

// ResultsFor returns this turn's results of the tool matching name (short or
// full).
func (r Request) ResultsFor(name string) []ToolResult {
	var out []ToolResult
	for _, res := range r.ToolResults {
		if res.Tool == name || strings.HasSuffix(res.Tool, "__"+name) {
			out = append(out, res)
		}
	}
	return out
}

// Reply is the model's answer: a tool call when Tool is set, else text.
type Reply struct {
	Text string
	Tool string         // short or full name; resolved against Request.Tools
	Args map[string]any // tool arguments
	// Fail, when set, is answered instead (an HTTP error: Fail,
	// UsageLimitReached, Server.FailNext).
	Fail *Failure
}

// Say answers with text and ends the turn.
func Say(text string) Reply { return Reply{Text: text} }

// Call answers with one tool call.
func Call(tool string, args map[string]any) Reply { return Reply{Tool: tool, Args: args} }

// Behaviour decides the answer to one request. It may be called concurrently.
type Behaviour func(Request) Reply

// Server is a running fake model.
type Server struct {
	// URL is the server's base, e.g. http://127.0.0.1:PORT. Claude Code takes
	// it as ANTHROPIC_BASE_URL; Codex wants URL+"/v1" as base_url.
	URL string
	// DumpDir, when set (or FAKEMODEL_DUMP in the environment at New), gets
	// every request body as NNN-<api>.json, for looking at the real traffic.
	DumpDir string

	hs *httptest.Server

	mu        sync.Mutex
	behaviour Behaviour
	reqs      []Request
	changed   chan struct{} // closed and replaced whenever reqs grows
	seq       int
	headers   http.Header // SetHeaders
	failNext  *Failure    // FailNext
}

// New starts a server answering with b. Close it when done.
func New(b Behaviour) *Server {
	s := &Server{behaviour: b, changed: make(chan struct{}), DumpDir: os.Getenv("FAKEMODEL_DUMP")}
	s.hs = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.hs.URL
	return s
}

// Start is New plus Close at the end of the test.
func Start(tb testing.TB, b Behaviour) *Server {
	tb.Helper()
	s := New(b)
	tb.Cleanup(s.Close)
	return s
}

// Close stops the server.
func (s *Server) Close() { s.hs.Close() }

// OpenAIBaseURL is the base_url for Codex's model provider.
func (s *Server) OpenAIBaseURL() string { return s.URL + "/v1" }

// SetBehaviour replaces the behaviour for later requests.
func (s *Server) SetBehaviour(b Behaviour) {
	s.mu.Lock()
	s.behaviour = b
	s.mu.Unlock()
}

// Requests returns a copy of the model requests recorded so far (side calls
// included, marked Side).
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Wait blocks until cond holds for the recorded requests or ctx ends, and
// returns the requests it last looked at. cond must not keep the slice.
func (s *Server) Wait(ctx context.Context, cond func([]Request) bool) ([]Request, error) {
	for {
		s.mu.Lock()
		reqs := append([]Request(nil), s.reqs...)
		ch := s.changed
		s.mu.Unlock()
		if cond(reqs) {
			return reqs, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return reqs, fmt.Errorf("fakemodel: %d requests, condition not met: %w", len(reqs), ctx.Err())
		}
	}
}

// WaitToolResult waits for a request carrying a result of tool (short or full
// name) and returns that result. Seeing the result means the CLI made the
// call and got its answer.
func (s *Server) WaitToolResult(ctx context.Context, tool string) (ToolResult, error) {
	var got ToolResult
	_, err := s.Wait(ctx, func(reqs []Request) bool {
		for _, r := range reqs {
			if res := r.ResultsFor(tool); len(res) > 0 {
				got = res[0]
				return true
			}
		}
		return false
	})
	return got, err
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	s.reqs = append(s.reqs, r)
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

func (s *Server) dump(api string, body []byte) {
	if s.DumpDir == "" {
		return
	}
	s.mu.Lock()
	s.seq++
	n := s.seq
	s.mu.Unlock()
	_ = os.MkdirAll(s.DumpDir, 0o755)
	_ = os.WriteFile(filepath.Join(s.DumpDir, fmt.Sprintf("%03d-%s.json", n, api)), body, 0o644)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusOK) // liveness probes: HEAD /, GET /
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	switch r.URL.Path {
	case "/v1/messages/count_tokens":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"input_tokens":%d}`, len(body)/4+1)
	case "/v1/messages":
		s.dump("anthropic", body)
		req, err := parseAnthropic(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.answer(w, req, writeAnthropic)
	case "/v1/responses":
		s.dump("openai", body)
		req, meta, err := parseOpenAI(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.answer(w, req, func(w http.ResponseWriter, req Request, rep Reply, full string) {
			writeOpenAI(w, meta, rep, full)
		})
	default:
		http.NotFound(w, r)
	}
}

// answer runs the behaviour, resolves the tool name, writes the SSE answer
// and records the exchange.
func (s *Server) answer(w http.ResponseWriter, req Request, write func(http.ResponseWriter, Request, Reply, string)) {
	req.At = time.Now()
	var rep Reply
	s.mu.Lock()
	for k, vs := range s.headers {
		w.Header()[k] = append([]string(nil), vs...)
	}
	fail := s.failNext
	if !req.Side {
		s.failNext = nil
	}
	s.mu.Unlock()
	switch {
	case req.Side:
		rep = Say(sideAnswer(req.Body))
	case fail != nil:
		rep = Fail(*fail)
	default:
		s.mu.Lock()
		b := s.behaviour
		s.mu.Unlock()
		rep = b(req)
	}
	if rep.Fail != nil {
		req.Reply = rep
		writeFailure(w, rep.Fail)
		s.record(req)
		return
	}
	full := ""
	if rep.Tool != "" {
		full = req.Resolve(rep.Tool)
		switch {
		case full != "":
		case req.Offers(WaitForMcpServers) && len(req.ResultsFor(WaitForMcpServers)) < 3:
			// The MCP servers are still connecting: Claude offers only
			// its wait tool. Call it; the next request has the MCP tools.
			rep = Call(WaitForMcpServers, map[string]any{})
			full = WaitForMcpServers
		default:
			rep = Say(fmt.Sprintf("fakemodel: tool %q is not offered (offered: %s)", rep.Tool, strings.Join(req.Tools, ", ")))
		}
	}
	if rep.Args == nil && full != "" {
		rep.Args = map[string]any{}
	}
	req.Reply = rep
	write(w, req, rep, full)
	s.record(req)
}

// sideAnswer fills a JSON object for a JSON-schema side call: every string
// property gets a short text, so a session title comes out as
// {"title":"Fake session"}.
func sideAnswer(body []byte) string {
	var v struct {
		OutputFormat *struct {
			Schema schema `json:"schema"`
		} `json:"output_format"`
		OutputConfig struct {
			Format *struct {
				Schema schema `json:"schema"`
			} `json:"format"`
		} `json:"output_config"`
	}
	_ = json.Unmarshal(body, &v)
	var sc schema
	if v.OutputConfig.Format != nil {
		sc = v.OutputConfig.Format.Schema
	} else if v.OutputFormat != nil {
		sc = v.OutputFormat.Schema
	}
	b, _ := json.Marshal(sc.sample("Fake session"))
	return string(b)
}

type schema struct {
	Type       any               `json:"type"`
	Properties map[string]schema `json:"properties"`
	Items      *schema           `json:"items"`
	Enum       []any             `json:"enum"`
}

func (sc schema) sample(text string) any {
	if len(sc.Enum) > 0 {
		return sc.Enum[0]
	}
	t, _ := sc.Type.(string)
	if l, ok := sc.Type.([]any); ok && len(l) > 0 {
		t, _ = l[0].(string)
	}
	switch t {
	case "string":
		return text
	case "integer", "number":
		return 1
	case "boolean":
		return true
	case "array":
		if sc.Items != nil {
			return []any{sc.Items.sample(text)}
		}
		return []any{}
	}
	obj := map[string]any{}
	for k, p := range sc.Properties {
		obj[k] = p.sample(text)
	}
	return obj
}

// injected reports whether a user-role text block is context the CLI added
// rather than something the user typed.
func injected(text string) bool {
	t := strings.TrimSpace(text)
	for _, p := range []string{
		"<system-reminder>", "<environment_context>", "<user_instructions>",
		"<permissions instructions>", "<skills_instructions>", "# AGENTS.md instructions",
		"<turn_aborted>", "<user_shell_command>", "<local-command-", "<command-name>",
	} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// turnBuilder accumulates a conversation into the neutral form.
type turnBuilder struct {
	req   Request
	names map[string]string // tool call id -> full tool name
}

func (c *turnBuilder) userText(parts []string) {
	var kept []string
	for _, p := range parts {
		if p != "" && !injected(p) {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		return
	}
	c.req.UserTurns = append(c.req.UserTurns, strings.Join(kept, "\n"))
	c.req.ToolResults = nil // a new turn starts
}

func (c *turnBuilder) call(id, name string) { c.names[id] = name }

func (c *turnBuilder) result(id, output string, isErr bool) {
	r := ToolResult{Tool: c.names[id], CallID: id, Output: output, IsError: isErr}
	c.req.ToolResults = append(c.req.ToolResults, r)
	c.req.AllResults = append(c.req.AllResults, r)
}

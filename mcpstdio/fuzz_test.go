package mcpstdio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// syncBuffer is a bytes.Buffer safe for the server's writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// panicLog records that the server's own handling panicked (its recover
// would otherwise hide it from the fuzzer).
type panicLog struct {
	mu  sync.Mutex
	got []string
}

func (p *panicLog) Enabled(context.Context, slog.Level) bool { return true }
func (p *panicLog) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, "panic while handling") {
		p.mu.Lock()
		p.got = append(p.got, r.Message)
		r.Attrs(func(a slog.Attr) bool { p.got = append(p.got, a.String()); return true })
		p.mu.Unlock()
	}
	return nil
}
func (p *panicLog) WithAttrs([]slog.Attr) slog.Handler { return p }
func (p *panicLog) WithGroup(string) slog.Handler      { return p }

// FuzzLines: whatever arrives, the server does not panic, writes only whole
// JSON-RPC messages, and answers every line at most once.
func FuzzLines(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n" + `{"jsonrpc":"2.0","id":3,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"boom"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"fail","arguments":[1]}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}`,
		"not json\n[]\n{}\nnull\n\r\n",
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"1.0","id":8,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":9,"result":{}}`,
		`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"\u00e9\ud800","method":"resources/list"}`,
		`{"jsonrpc":"2.0","id":7,"id":8,"method":"ping","method":"tools/list"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		pl := &panicLog{}
		s := New(Info{Name: "fuzz", Version: "1", Instructions: "x", Log: slog.New(pl)})
		err := s.SetTools([]Tool{
			echoTool("echo"),
			{Name: "boom", Handler: func(context.Context, *Request) (*Result, error) { panic("boom") }},
			{Name: "fail", Handler: func(context.Context, *Request) (*Result, error) { return nil, errors.New("failed") }},
			{Name: "args", Handler: func(_ context.Context, r *Request) (*Result, error) {
				_ = r.Args()
				return TextResult(string(r.Arguments)), nil
			}},
		})
		if err != nil {
			t.Fatal(err)
		}
		var out syncBuffer
		if err := s.Serve(context.Background(), bytes.NewReader(data), &out); err != nil {
			t.Fatalf("Serve: %v", err)
		}
		if len(pl.got) > 0 {
			t.Fatalf("the server's handling panicked: %v", pl.got)
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		answers := map[string]int{}
		total := 0
		for _, line := range bytes.Split(bytes.TrimSuffix(out.b.Bytes(), []byte("\n")), []byte("\n")) {
			if len(line) == 0 && out.b.Len() == 0 {
				break
			}
			var m map[string]json.RawMessage
			err := json.Unmarshal(line, &m)
			_, hasMethod := m["method"]
			rawID, hasID := m["id"]
			if err != nil || string(m["jsonrpc"]) != `"2.0"` || !hasID || hasMethod {
				t.Fatalf("written: %q (%v): not one JSON-RPC answer", line, err)
			}
			total++
			if id := string(rawID); id != "null" {
				answers[id]++
				if n := bytes.Count(data, []byte(id)); answers[id] > n {
					t.Fatalf("id %s answered %d times, sent in at most %d lines", id, answers[id], n)
				}
			}
		}
		if total > lines {
			t.Fatalf("%d answers to %d lines", total, lines)
		}
	})
}

// FuzzReadMessage: the envelope's members are what encoding/json finds.
func FuzzReadMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		` { "id" : "a\"b" , "method":"x","params":{"a":[1,{"b":"}"}]},"result":null } `,
		`{"id":1,"id":2,"\u0069d":3,"error":{"code":1}}`,
		`{"method":"x","params":[1,2,"]"],"jsonrpc":"2.0"}`,
		`{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		b = bytes.TrimSpace(b)
		if !json.Valid(b) || len(b) == 0 || b[0] != '{' {
			return
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("encoding/json: %v", err)
		}
		m := readMessage(b)
		for key, got := range map[string][]byte{"jsonrpc": m.JSONRPC, "id": m.ID, "method": m.Method, "params": m.Params, "result": m.Result, "error": m.Error} {
			if w, ok := want[key]; string(w) != string(got) || ok != (got != nil) {
				t.Fatalf("%s: %s: member %q is %q, encoding/json's %q", b, key, key, got, w)
			}
		}
	})
}

package sidecar_test

// The sidecar's MCP answers against what it answered on mark3labs/mcp-go
// v1.2.1, captured from that build (testdata/*.golden.json, written from
// testdata/cmd built at commit 1b37aec, the last on mcp-go, by sending it
// these lines):
// tools/list with and without the seat's names, initialize, and a set of
// exchanges, among them the malformed ones. Where the answer differs on
// purpose, mcpgoDifferences says how and why.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"pullcept/room/wire"
	"pullcept/sidecar"
)

// exchange runs lines through a sidecar's MCP server (env: the launch's
// variables) and returns every message it wrote.
func exchange(t *testing.T, env map[string]string, lines ...string) []map[string]json.RawMessage {
	t.Helper()
	s := sidecar.New(sidecar.Options{Env: func(k string) string { return env[k] }, Log: io.Discard})
	var out bytes.Buffer
	if err := s.Serve(context.Background(), strings.NewReader(strings.Join(lines, "\n")+"\n"), &out); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	var msgs []map[string]json.RawMessage
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("the server wrote %q", line)
		}
		msgs = append(msgs, m)
	}
	return msgs
}

func golden(t *testing.T, name string) any {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

func decode(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

const initLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

// The tools/list result, tool for tool and in the same order (by name),
// and the initialize result are what mcp-go served.
func TestToolsListAndInitializeAreWhatMCPGoServed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file string
		env  map[string]string
	}{
		{"tools_list.golden.json", nil},
		{"tools_list_named.golden.json", map[string]string{sidecar.EnvAgentName: "Lin", sidecar.EnvAgentFullName: "Claude Lin"}},
	} {
		msgs := exchange(t, tc.env, initLine, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		if len(msgs) != 2 {
			t.Fatalf("%d answers to initialize and tools/list", len(msgs))
		}
		if got, want := decode(t, msgs[1]["result"]), golden(t, tc.file); !reflect.DeepEqual(got, want) {
			g, _ := json.MarshalIndent(got, "", "  ")
			t.Errorf("tools/list differs from %s; served:\n%s", tc.file, g)
		}
		if tc.env == nil {
			if got, want := decode(t, msgs[0]["result"]), golden(t, "initialize.golden.json"); !reflect.DeepEqual(got, want) {
				t.Errorf("initialize:\n got %v\nwant %v", got, want)
			}
		}
	}
}

// The schemas are JSON text constants: valid, objects, each the one mcp-go
// served for that tool, their numbers the wire's.
func TestSchemasAreJSONConstants(t *testing.T) {
	t.Parallel()
	served := map[string]any{}
	for _, tool := range golden(t, "tools_list.golden.json").(map[string]any)["tools"].([]any) {
		tool := tool.(map[string]any)
		served[tool["name"].(string)] = tool["inputSchema"]
	}
	tools := sidecar.Tools()
	if len(tools) != len(served) {
		t.Fatalf("%d tools, mcp-go served %d", len(tools), len(served))
	}
	for _, tool := range tools {
		if !json.Valid(tool.InputSchema) || !bytes.HasPrefix(tool.InputSchema, []byte("{")) {
			t.Errorf("%s: the schema is not one JSON object: %s", tool.Name, tool.InputSchema)
			continue
		}
		if got := decode(t, tool.InputSchema); !reflect.DeepEqual(got, served[tool.Name]) {
			t.Errorf("%s: the schema\n %v\nis not what mcp-go served\n %v", tool.Name, got, served[tool.Name])
		}
		if tool.Name == sidecar.ToolHistory {
			limit := decode(t, tool.InputSchema).(map[string]any)["properties"].(map[string]any)["limit"].(map[string]any)
			if limit["maximum"] != float64(wire.HistoryMax) {
				t.Errorf("read_room_history's maximum %v is not wire.HistoryMax %d", limit["maximum"], wire.HistoryMax)
			}
		}
	}
}

// mcpgoDifferences are the exchanges answered otherwise than mcp-go did, on
// purpose: our answer and why.
var mcpgoDifferences = map[string]struct{ answer, why string }{
	`{"jsonrpc":"2.0","id":14,"method":"server/discover"}`: {
		`{"jsonrpc":"2.0","id":14,"error":{"code":-32601,"message":"Method server/discover not found"}}`,
		"no 2026-07-28 stateless core here; the same code, so a client probing it falls back to initialize alike"},
	`{"jsonrpc":"2.0","id":15,"method":"tools/call","params":"x"}`: {
		`{"jsonrpc":"2.0","id":15,"error":{"code":-32602,"message":"Invalid params: params must be an object"}}`,
		"params that do not decode are invalid params (JSON-RPC's -32602), not an invalid request"},
	`{"jsonrpc":"2.0","id":16,"method":"tools/list","params":{"cursor":"abc"}}`: {
		`{"jsonrpc":"2.0","id":16,"error":{"code":-32602,"message":"Invalid params: invalid cursor (tools/list is one page, it hands out no cursor)"}}`,
		"the same code; a message that says what is wrong"},
	`[]`: {
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a message must be a JSON object"}}`,
		"valid JSON that is not a request object is an invalid request (JSON-RPC 2.0), not a parse error"},
	`{}`: {
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: no method"}}`,
		"the same code; what is missing first"},
	`{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"my_usage","arguments":[1]}}`: {
		`{"jsonrpc":"2.0","id":21,"error":{"code":-32602,"message":"Invalid params: arguments must be an object"}}`,
		"mcp-go ran the tool without its arguments; arguments are an object in MCP"},
	`{"jsonrpc":"2.0","id":null,"method":"ping"}`: {
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: id must be a string or a number"}}`,
		"mcp-go took it for a notification; MCP forbids a null id, so it is an invalid request"},
	`{"jsonrpc":"2.0","id":23}`: {
		`{"jsonrpc":"2.0","id":23,"error":{"code":-32600,"message":"Invalid Request: no method"}}`,
		`mcp-go: -32601 "Method  not found"; a request without a method is invalid`},
}

func TestExchangesAreWhatMCPGoAnswered(t *testing.T) {
	t.Parallel()
	var exchanges []struct {
		Send   string          `json:"send"`
		Answer json.RawMessage `json:"answer"`
	}
	b, err := os.ReadFile("testdata/mcpgo_exchanges.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &exchanges); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range exchanges {
		lines = append(lines, e.Send)
	}
	msgs := exchange(t, nil, lines...)
	byID := map[string]map[string]json.RawMessage{}
	var nullID []map[string]json.RawMessage // in the order written
	for _, m := range msgs {
		if string(m["id"]) == "null" {
			nullID = append(nullID, m)
		} else {
			byID[string(m["id"])] = m
		}
	}
	used, answered := 0, 0
	for _, e := range exchanges {
		want := decode(t, e.Answer)
		if d, ok := mcpgoDifferences[e.Send]; ok {
			want = decode(t, json.RawMessage(d.answer))
		}
		var got any
		var sent struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal([]byte(e.Send), &sent)
		switch {
		case want == nil:
			if m, ok := byID[string(sent.ID)]; ok && len(sent.ID) > 0 && string(sent.ID) != "null" {
				t.Errorf("%s: answered %v, mcp-go did not answer", e.Send, m)
			}
			continue
		case string(decodeID(want)) == "null":
			if used < len(nullID) {
				got = decode(t, marshal(nullID[used]))
				used++
			}
		default:
			if m, ok := byID[string(decodeID(want))]; ok {
				got = decode(t, marshal(m))
			}
		}
		// initialize: only the version is kept in the golden (the rest in
		// initialize.golden.json).
		if w, ok := want.(map[string]any)["result"].(map[string]any); ok && len(w) == 1 && w["protocolVersion"] != nil {
			if g, ok := got.(map[string]any)["result"].(map[string]any); ok {
				got.(map[string]any)["result"] = map[string]any{"protocolVersion": g["protocolVersion"]}
			}
		}
		answered++
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %v\nwant %v", e.Send, got, want)
		}
	}
	if len(msgs) != answered {
		t.Errorf("%d messages written for %d answers", len(msgs), answered)
	}
	if used != len(nullID) {
		t.Errorf("%d answers with id null, %d expected", len(nullID), used)
	}
}

func decodeID(v any) json.RawMessage {
	b, _ := json.Marshal(v.(map[string]any)["id"])
	return b
}

func marshal(m map[string]json.RawMessage) json.RawMessage {
	b, _ := json.Marshal(m)
	return b
}

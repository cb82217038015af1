package sidecar_test

// The sidecar's MCP answers over stdio (mcp-go's stdio server), line for
// line: tools/list with and without the seat's names (sorted by name, the
// list the CLIs have always seen), initialize, a set of exchanges among them
// the malformed ones (testdata/*.golden.json, first captured from the sidecar
// on mcp-go at commit 1b37aec), and the 2026-07-28 discovery.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"pullcept/room/wire"
	"pullcept/sidecar"
)

// exchange runs lines through a sidecar's MCP server (env: the launch's
// variables) over a pipe, waits for want answers, then ends the input and
// returns every message it wrote. (The input stays open until then: mcp-go
// drops the tool calls still queued when its input ends.)
func exchange(t *testing.T, env map[string]string, want int, lines ...string) []map[string]json.RawMessage {
	t.Helper()
	s := sidecar.New(sidecar.Options{Env: func(k string) string { return env[k] }, Log: io.Discard})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- s.Serve(context.Background(), inR, outW); outW.Close() }()
	read := make(chan string)
	go func() {
		defer close(read)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<22)
		for sc.Scan() {
			read <- sc.Text()
		}
	}()
	go func() {
		for _, l := range lines {
			if _, err := io.WriteString(inW, l+"\n"); err != nil {
				return
			}
		}
	}()
	var msgs []map[string]json.RawMessage
	take := func(line string) {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("the server wrote %q", line)
		}
		msgs = append(msgs, m)
	}
	deadline := time.After(30 * time.Second)
	for len(msgs) < want {
		select {
		case line := <-read:
			take(line)
		case <-deadline:
			t.Fatalf("%d answers of %d in 30 s", len(msgs), want)
		}
	}
	inW.Close()
	for line := range read { // anything more it wrote
		take(line)
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
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
// and the initialize result are as captured.
func TestToolsListAndInitialize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file string
		env  map[string]string
	}{
		{"tools_list.golden.json", nil},
		{"tools_list_named.golden.json", map[string]string{sidecar.EnvAgentName: "Lin", sidecar.EnvAgentFullName: "Claude Lin"}},
	} {
		msgs := exchange(t, tc.env, 2, initLine, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		if len(msgs) != 2 {
			t.Fatalf("%d answers to initialize and tools/list", len(msgs))
		}
		if string(msgs[0]["id"]) != "1" { // each request is answered on its own goroutine: any order
			msgs[0], msgs[1] = msgs[1], msgs[0]
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

// The schemas are JSON text constants: valid, objects, each the one
// tools/list served for that tool, their numbers the wire's.
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
		if !json.Valid(tool.RawInputSchema) || !bytes.HasPrefix(tool.RawInputSchema, []byte("{")) {
			t.Errorf("%s: the schema is not one JSON object: %s", tool.Name, tool.RawInputSchema)
			continue
		}
		if got := decode(t, tool.RawInputSchema); !reflect.DeepEqual(got, served[tool.Name]) {
			t.Errorf("%s: the schema\n %v\nis not what mcp-go served\n %v", tool.Name, got, served[tool.Name])
		}
		if tool.Name == sidecar.ToolHistory {
			limit := decode(t, tool.RawInputSchema).(map[string]any)["properties"].(map[string]any)["limit"].(map[string]any)
			if limit["maximum"] != float64(wire.HistoryMax) {
				t.Errorf("read_room_history's maximum %v is not wire.HistoryMax %d", limit["maximum"], wire.HistoryMax)
			}
		}
	}
}

func TestExchanges(t *testing.T) {
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
	want := 0
	for _, e := range exchanges {
		lines = append(lines, e.Send)
		if string(e.Answer) != "null" {
			want++
		}
	}
	msgs := exchange(t, nil, want, lines...)
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
		var got any
		var sent struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal([]byte(e.Send), &sent)
		switch {
		case want == nil:
			if m, ok := byID[string(sent.ID)]; ok && len(sent.ID) > 0 && string(sent.ID) != "null" {
				t.Errorf("%s: answered %v, expected no answer", e.Send, m)
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

// modernMeta is the _meta a 2026-07-28 client puts on every request.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"}}`

// A client that opens with the 2026-07-28 discovery (server/discover) is
// answered: the versions spoken, newest first, down to the handshake's, and
// the instructions with the launch's names; it then lists and calls the
// tools statelessly. A client that asks server/discover without the new
// core's _meta gets a plain method-not-found for its id and falls back to
// initialize on the same connection.
func TestServerDiscover(t *testing.T) {
	t.Parallel()
	env := map[string]string{sidecar.EnvAgentName: "Lin", sidecar.EnvAgentFullName: "Claude Lin"}
	msgs := exchange(t, env, 5,
		`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+modernMeta+`}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+modernMeta+`}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"my_usage","arguments":{},`+modernMeta+`}}`,
		`{"jsonrpc":"2.0","id":4,"method":"server/discover"}`,
		initLine[:len(`{"jsonrpc":"2.0","id":`)]+`5`+initLine[len(`{"jsonrpc":"2.0","id":1`):],
	)
	byID := map[string]map[string]any{}
	for _, m := range msgs {
		byID[string(m["id"])] = decode(t, marshal(m)).(map[string]any)
	}
	if len(byID) != 5 {
		t.Fatalf("%d answers, want 5: %v", len(byID), byID)
	}
	disc, _ := byID["1"]["result"].(map[string]any)
	if disc == nil {
		t.Fatalf("server/discover: %v", byID["1"])
	}
	var versions []string
	for _, v := range disc["supportedVersions"].([]any) {
		versions = append(versions, v.(string))
	}
	if len(versions) == 0 || versions[0] != "2026-07-28" || !slices.Contains(versions, "2025-11-25") || !slices.Contains(versions, "2025-06-18") {
		t.Errorf("supportedVersions %v", versions)
	}
	if instr, _ := disc["instructions"].(string); !strings.Contains(instr, "Lin") || !strings.Contains(instr, "Claude Lin") {
		t.Errorf("the discovery's instructions do not name the seat: %q", instr)
	}
	if caps, _ := disc["capabilities"].(map[string]any); caps["tools"] == nil {
		t.Errorf("no tools capability: %v", disc["capabilities"])
	}
	list, _ := byID["2"]["result"].(map[string]any)
	if list == nil {
		t.Fatalf("tools/list (2026-07-28): %v", byID["2"])
	}
	var names []string
	for _, tool := range list["tools"].([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	if !slices.IsSorted(names) || len(names) != len(sidecar.Tools()) {
		t.Errorf("tools/list (2026-07-28): %v", names)
	}
	call, _ := byID["3"]["result"].(map[string]any)
	if call == nil || call["isError"] != true {
		t.Errorf("tools/call (2026-07-28): %v", byID["3"])
	}
	legacy, _ := byID["4"]["error"].(map[string]any)
	if legacy == nil || legacy["code"] != float64(-32601) {
		t.Errorf("server/discover without the new core's _meta: %v, want a -32601 error", byID["4"])
	}
	if init, _ := byID["5"]["result"].(map[string]any); init == nil || init["protocolVersion"] != "2025-06-18" {
		t.Errorf("initialize after the fallback: %v", byID["5"])
	}
}

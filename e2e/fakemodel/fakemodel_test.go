package fakemodel_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"pullcept/e2e/fakemodel"
)

// These tests need no CLI: they post requests shaped like the real ones (see
// README.md) and read the SSE answers.

func post(t *testing.T, url, body string) string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s %s", url, resp.Status, b)
	}
	return string(b)
}

// sseData returns the data payloads of the SSE events named name.
func sseData(t *testing.T, stream, name string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, ev := range strings.Split(stream, "\n\n") {
		head, data, ok := strings.Cut(ev, "\ndata: ")
		if !ok || head != "event: "+name {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Fatalf("event %s: bad data %q: %v", name, data, err)
		}
		out = append(out, m)
	}
	return out
}

const tagged = `[pullcept] {\"role\":\"admin\",\"from\":\"Lin\",\"message_id\":\"m7\"}\nhi there`

func TestAnthropicAckToolCallThenText(t *testing.T) {
	srv := fakemodel.Start(t, fakemodel.AckBehaviour("ack: "))
	tools := `"tools":[{"name":"Bash"},{"name":"mcp__room__say_to_room"}]`
	user := `{"role":"user","content":[{"type":"text","text":"<system-reminder>\nctx\n</system-reminder>"},{"type":"text","text":"` + tagged + `"}]}`
	system := `{"role":"system","content":"agent types"}`

	out := post(t, srv.URL+"/v1/messages?beta=true", `{"model":"m","stream":true,`+tools+`,"messages":[`+user+`,`+system+`]}`)
	starts := sseData(t, out, "content_block_start")
	if len(starts) != 1 {
		t.Fatalf("content_block_start events: %v", starts)
	}
	block := starts[0]["content_block"].(map[string]any)
	if block["type"] != "tool_use" || block["name"] != "mcp__room__say_to_room" {
		t.Fatalf("block = %v, want tool_use mcp__room__say_to_room", block)
	}
	delta := sseData(t, out, "content_block_delta")[0]["delta"].(map[string]any)
	var args map[string]any
	if err := json.Unmarshal([]byte(delta["partial_json"].(string)), &args); err != nil {
		t.Fatal(err)
	}
	if args["content"] != "ack: hi there" || args["last_seen"] != "m7" {
		t.Errorf("args = %v", args)
	}
	md := sseData(t, out, "message_delta")[0]["delta"].(map[string]any)
	if md["stop_reason"] != "tool_use" {
		t.Errorf("stop_reason = %v", md["stop_reason"])
	}

	req := srv.Requests()[0]
	if len(req.UserTurns) != 1 || !strings.HasPrefix(req.UserTurns[0], "[pullcept] ") {
		t.Errorf("UserTurns = %q, want just the tagged turn", req.UserTurns)
	}

	// The tool result comes back: the turn ends with text.
	id := block["id"].(string)
	assistant := `{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"mcp__room__say_to_room","input":{}}]}`
	result := `{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":[{"type":"text","text":"posted"}]}]}`
	out = post(t, srv.URL+"/v1/messages?beta=true", `{"model":"m",`+tools+`,"messages":[`+user+`,`+assistant+`,`+result+`]}`)
	text := sseData(t, out, "content_block_delta")[0]["delta"].(map[string]any)
	if text["type"] != "text_delta" || text["text"] != "acked m7" {
		t.Errorf("second answer delta = %v", text)
	}
	req = srv.Requests()[1]
	if len(req.ToolResults) != 1 || req.ToolResults[0].Tool != "mcp__room__say_to_room" || req.ToolResults[0].Output != "posted" {
		t.Errorf("ToolResults = %+v", req.ToolResults)
	}
}

func TestAnthropicWaitsForMcpServers(t *testing.T) {
	srv := fakemodel.Start(t, fakemodel.AckBehaviour("ack: "))
	out := post(t, srv.URL+"/v1/messages", `{"model":"m","tools":[{"name":"Bash"},{"name":"WaitForMcpServers"}],
		"messages":[{"role":"user","content":"`+tagged+`"}]}`)
	block := sseData(t, out, "content_block_start")[0]["content_block"].(map[string]any)
	if block["name"] != fakemodel.WaitForMcpServers {
		t.Errorf("called %v, want WaitForMcpServers while the MCP tool is missing", block["name"])
	}
}

func TestAnthropicSideCallGetsJSON(t *testing.T) {
	srv := fakemodel.Start(t, func(fakemodel.Request) fakemodel.Reply {
		t.Error("behaviour called for a side call")
		return fakemodel.Say("")
	})
	out := post(t, srv.URL+"/v1/messages", `{"model":"m","messages":[{"role":"user","content":"<session>x</session>"}],
		"output_config":{"format":{"type":"json_schema","schema":{"type":"object","properties":{"title":{"type":"string"}}}}}}`)
	text := sseData(t, out, "content_block_delta")[0]["delta"].(map[string]any)["text"].(string)
	var v map[string]string
	if err := json.Unmarshal([]byte(text), &v); err != nil || v["title"] == "" {
		t.Errorf("side call answer %q, want a JSON object with a title", text)
	}
	if !srv.Requests()[0].Side {
		t.Error("request not marked Side")
	}
}

func TestAnthropicProbesAndCountTokens(t *testing.T) {
	srv := fakemodel.Start(t, fakemodel.AckBehaviour(""))
	for _, m := range []string{http.MethodHead, http.MethodGet} {
		req, _ := http.NewRequest(m, srv.URL+"/", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Errorf("%s /: %v %v", m, resp, err)
		}
		if resp != nil {
			resp.Body.Close()
		}
	}
	var n struct {
		InputTokens int `json:"input_tokens"`
	}
	if err := json.Unmarshal([]byte(post(t, srv.URL+"/v1/messages/count_tokens?beta=true", `{"messages":[]}`)), &n); err != nil || n.InputTokens <= 0 {
		t.Errorf("count_tokens: %+v %v", n, err)
	}
}

func TestOpenAINamespacedFunctionCall(t *testing.T) {
	srv := fakemodel.Start(t, fakemodel.AckBehaviour("ack: "))
	tools := `"tools":[{"type":"function","name":"exec_command"},{"type":"namespace","name":"mcp__room","tools":[{"type":"function","name":"say_to_room"}]},{"type":"web_search"}]`
	input := `{"type":"message","role":"developer","content":[{"type":"input_text","text":"be good"}]},
		{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n</environment_context>"}]},
		{"type":"message","role":"user","content":[{"type":"input_text","text":"` + tagged + `"}]}`

	out := post(t, srv.URL+"/v1/responses", `{"model":"fake-model","stream":true,`+tools+`,"input":[`+input+`]}`)
	item := sseData(t, out, "response.output_item.done")[0]["item"].(map[string]any)
	if item["type"] != "function_call" || item["namespace"] != "mcp__room" || item["name"] != "say_to_room" {
		t.Fatalf("item = %v, want function_call mcp__room/say_to_room", item)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(item["arguments"].(string)), &args); err != nil || args["content"] != "ack: hi there" {
		t.Errorf("arguments %v (%v)", item["arguments"], err)
	}
	if len(sseData(t, out, "response.completed")) != 1 {
		t.Error("no response.completed")
	}
	req := srv.Requests()[0]
	if strings.Join(req.Tools, ",") != "exec_command,mcp__room__say_to_room,web_search" {
		t.Errorf("Tools = %q", req.Tools)
	}
	if len(req.UserTurns) != 1 {
		t.Errorf("UserTurns = %q, want only the tagged one", req.UserTurns)
	}

	call := `{"type":"function_call","name":"say_to_room","namespace":"mcp__room","arguments":"{}","call_id":"` + item["call_id"].(string) + `"}`
	output := `{"type":"function_call_output","call_id":"` + item["call_id"].(string) + `","output":[{"type":"input_text","text":"posted"}]}`
	out = post(t, srv.URL+"/v1/responses", `{"model":"fake-model",`+tools+`,"input":[`+input+`,`+call+`,`+output+`]}`)
	msg := sseData(t, out, "response.output_item.done")[0]["item"].(map[string]any)
	if msg["type"] != "message" || !strings.Contains(out, `"delta":"acked m7"`) {
		t.Errorf("second answer = %v", msg)
	}
	if res := srv.Requests()[1].ResultsFor("say_to_room"); len(res) != 1 || res[0].Output != "posted" {
		t.Errorf("ResultsFor(say_to_room) = %+v", res)
	}
}

func TestWait(t *testing.T) {
	srv := fakemodel.Start(t, func(fakemodel.Request) fakemodel.Reply { return fakemodel.Say("hi") })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() {
		resp, err := http.Post(srv.URL+"/v1/messages", "application/json", strings.NewReader(`{"messages":[{"role":"user","content":"one"}]}`))
		if err == nil {
			resp.Body.Close()
		}
	}()
	reqs, err := srv.Wait(ctx, func(r []fakemodel.Request) bool { return len(r) == 1 })
	if err != nil || reqs[0].LastUserTurn() != "one" {
		t.Fatalf("Wait: %v %+v", err, reqs)
	}

	short, cancelShort := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancelShort()
	if _, err := srv.Wait(short, func(r []fakemodel.Request) bool { return len(r) == 2 }); err == nil {
		t.Error("Wait for an unmet condition returned no error")
	}
}

func TestParseTagged(t *testing.T) {
	tag, body, ok := fakemodel.ParseTagged("[pullcept] {\"role\":\"mcp\",\"from\":\"Ann\",\"message_id\":\"x9\",\"to\":[\"Lin\"]}\nline one\nline two\n")
	if !ok || tag.MessageID != "x9" || tag.From != "Ann" || body != "line one\nline two" {
		t.Errorf("got %+v %q %v", tag, body, ok)
	}
	if _, _, ok := fakemodel.ParseTagged("no tag here"); ok {
		t.Error("untagged text parsed as tagged")
	}
}

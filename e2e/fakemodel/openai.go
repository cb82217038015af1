package fakemodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

type openaiTool struct {
	Type  string       `json:"type"`
	Name  string       `json:"name"`
	Tools []openaiTool `json:"tools"` // type "namespace"
}

type openaiItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	Output    json.RawMessage `json:"output"` // string or content parts
}

type openaiPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// openaiMeta is what writing the answer needs from the request.
type openaiMeta struct {
	model string
	split map[string][2]string // full tool name -> {namespace, name}
}

func parts(raw json.RawMessage) []openaiPart {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []openaiPart{{Type: "input_text", Text: s}}
	}
	var ps []openaiPart
	_ = json.Unmarshal(raw, &ps)
	return ps
}

func partsText(raw json.RawMessage) string {
	var buf bytes.Buffer
	for _, p := range parts(raw) {
		buf.WriteString(p.Text)
	}
	return buf.String()
}

func joinName(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "__" + name
}

func parseOpenAI(body []byte) (Request, openaiMeta, error) {
	var or struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
		Tools []openaiTool    `json:"tools"`
	}
	meta := openaiMeta{split: map[string][2]string{}}
	if err := json.Unmarshal(body, &or); err != nil {
		return Request{}, meta, fmt.Errorf("fakemodel: bad responses request: %w", err)
	}
	meta.model = or.Model
	conv := turnBuilder{req: Request{API: OpenAI, Body: body}, names: map[string]string{}}
	for _, t := range or.Tools {
		switch {
		case t.Type == "namespace":
			for _, sub := range t.Tools {
				full := joinName(t.Name, sub.Name)
				meta.split[full] = [2]string{t.Name, sub.Name}
				conv.req.Tools = append(conv.req.Tools, full)
			}
		case t.Name != "":
			meta.split[t.Name] = [2]string{"", t.Name}
			conv.req.Tools = append(conv.req.Tools, t.Name)
		default:
			conv.req.Tools = append(conv.req.Tools, t.Type) // e.g. web_search
		}
	}
	var items []openaiItem
	if json.Unmarshal(or.Input, &items) != nil {
		var s string // input may be a plain string
		_ = json.Unmarshal(or.Input, &s)
		items = []openaiItem{{Type: "message", Role: "user", Content: json.RawMessage(strconv.Quote(s))}}
	}
	for _, it := range items {
		switch {
		case (it.Type == "message" || it.Type == "") && it.Role == "user":
			var texts []string
			for _, p := range parts(it.Content) {
				texts = append(texts, p.Text)
			}
			conv.userText(texts)
		case it.Type == "function_call":
			conv.call(it.CallID, joinName(it.Namespace, it.Name))
		case it.Type == "function_call_output":
			conv.result(it.CallID, partsText(it.Output), false)
		}
		// developer/system messages and reasoning items are skipped.
	}
	return conv.req, meta, nil
}

// writeOpenAI answers with a Responses SSE stream holding one message or one
// function_call item.
func writeOpenAI(w http.ResponseWriter, meta openaiMeta, rep Reply, full string) {
	var buf bytes.Buffer
	seq := 0
	ev := func(name string, data map[string]any) {
		data["type"] = name
		data["sequence_number"] = seq
		seq++
		b, _ := json.Marshal(data)
		fmt.Fprintf(&buf, "event: %s\ndata: %s\n\n", name, b)
	}
	respID := newID("resp_fake_")
	response := func(status string, output []any) map[string]any {
		r := map[string]any{"id": respID, "object": "response", "status": status,
			"model": meta.model, "output": output}
		if status == "completed" {
			r["usage"] = map[string]any{
				"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
				"output_tokens": 1, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
				"total_tokens": 11,
			}
		}
		return r
	}
	ev("response.created", map[string]any{"response": response("in_progress", []any{})})
	var done map[string]any
	if full != "" {
		args, _ := json.Marshal(rep.Args)
		ns := meta.split[full]
		item := func(status, arguments string) map[string]any {
			it := map[string]any{"type": "function_call", "id": "fc_" + respID, "call_id": newID("call_fake_"),
				"name": ns[1], "arguments": arguments, "status": status}
			if ns[0] != "" {
				it["namespace"] = ns[0]
			}
			return it
		}
		done = item("completed", string(args))
		added := item("in_progress", "")
		added["call_id"] = done["call_id"]
		ev("response.output_item.added", map[string]any{"output_index": 0, "item": added})
	} else {
		id := "msg_" + respID
		ev("response.output_item.added", map[string]any{"output_index": 0, "item": map[string]any{
			"type": "message", "id": id, "role": "assistant", "status": "in_progress", "content": []any{}}})
		ev("response.output_text.delta", map[string]any{"item_id": id, "output_index": 0, "content_index": 0, "delta": rep.Text})
		done = map[string]any{"type": "message", "id": id, "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": rep.Text, "annotations": []any{}}}}
	}
	ev("response.output_item.done", map[string]any{"output_index": 0, "item": done})
	ev("response.completed", map[string]any{"response": response("completed", []any{done})})
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	_, _ = w.Write(buf.Bytes())
}

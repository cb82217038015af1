package fakemodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
)

var idSeq atomic.Int64

func newID(prefix string) string { return prefix + strconv.FormatInt(idSeq.Add(1), 10) }

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"` // tool_result: string or blocks
	IsError   bool            `json:"is_error"`
}

type anthropicRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"` // string or blocks
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
	OutputFormat json.RawMessage `json:"output_format"`
	OutputConfig struct {
		Format json.RawMessage `json:"format"`
	} `json:"output_config"`
}

// blocks decodes Anthropic content, which is either a string or a list of
// blocks.
func blocks(raw json.RawMessage) []anthropicBlock {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []anthropicBlock{{Type: "text", Text: s}}
	}
	var bs []anthropicBlock
	_ = json.Unmarshal(raw, &bs)
	return bs
}

func blocksText(raw json.RawMessage) string {
	var buf bytes.Buffer
	for _, b := range blocks(raw) {
		if b.Type == "text" {
			buf.WriteString(b.Text)
		}
	}
	return buf.String()
}

func parseAnthropic(body []byte) (Request, error) {
	var ar anthropicRequest
	if err := json.Unmarshal(body, &ar); err != nil {
		return Request{}, fmt.Errorf("fakemodel: bad messages request: %w", err)
	}
	conv := turnBuilder{req: Request{API: Anthropic, Body: body}, names: map[string]string{}}
	for _, t := range ar.Tools {
		conv.req.Tools = append(conv.req.Tools, t.Name)
	}
	for _, m := range ar.Messages {
		switch m.Role {
		case "user":
			var texts []string
			for _, b := range blocks(m.Content) {
				switch b.Type {
				case "text":
					texts = append(texts, b.Text)
				case "tool_result":
					conv.result(b.ToolUseID, blocksText(b.Content), b.IsError)
				}
			}
			conv.userText(texts)
		case "assistant":
			for _, b := range blocks(m.Content) {
				if b.Type == "tool_use" {
					conv.call(b.ID, b.Name)
				}
			}
		}
		// role "system" entries are Claude Code's injected context: skipped.
	}
	hasFormat := func(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }
	conv.req.Side = hasFormat(ar.OutputFormat) || hasFormat(ar.OutputConfig.Format)
	return conv.req, nil
}

// writeAnthropic answers with a Messages SSE stream: one text or tool_use
// block, each sent whole in a single delta.
func writeAnthropic(w http.ResponseWriter, req Request, rep Reply, full string) {
	var buf bytes.Buffer
	ev := func(name string, data map[string]any) {
		data["type"] = name
		b, _ := json.Marshal(data)
		fmt.Fprintf(&buf, "event: %s\ndata: %s\n\n", name, b)
	}
	var model string
	var m struct {
		Model string `json:"model"`
	}
	if json.Unmarshal(req.Body, &m) == nil {
		model = m.Model
	}
	usage := map[string]any{"input_tokens": len(req.Body)/4 + 1, "output_tokens": 1,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	ev("message_start", map[string]any{"message": map[string]any{
		"id": newID("msg_fake_"), "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage,
	}})
	stop := "end_turn"
	if full != "" {
		stop = "tool_use"
		args, _ := json.Marshal(rep.Args)
		ev("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{
			"type": "tool_use", "id": newID("toolu_fake_"), "name": full, "input": map[string]any{}}})
		ev("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{
			"type": "input_json_delta", "partial_json": string(args)}})
	} else {
		ev("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		ev("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "text_delta", "text": rep.Text}})
	}
	ev("content_block_stop", map[string]any{"index": 0})
	ev("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 1}})
	ev("message_stop", map[string]any{})
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	_, _ = w.Write(buf.Bytes())
}

package e2e

// What only the newest Claude Code and Codex need checking (every scenario
// of clis_test.go and the others runs them too, see newCLIRoom).

import (
	"encoding/json"
	"strings"
	"testing"

	"pullcept/e2e/fakemodel"
)

// toolSearch is Claude Code's built-in tool that loads deferred tools
// (2.1.332 defers MCP tools behind it unless the server entry has
// "alwaysLoad": true).
const toolSearch = "ToolSearch"

// The person addresses Lin (the newest Claude), who answers through
// say_to_room without a ToolSearch round trip: the request that carried the
// post already offered the room's tools (the seat's alwaysLoad
// registration). Lay (the newest Codex) receives Lin's post and answers the
// person in turn.
func TestLatestCLIsConverse(t *testing.T) {
	t.Parallel()
	c := newCLIRoom(t, roomAgent(nil))
	topic := c.topic()
	c.startSeat(t, topic, "claude", claudeName)
	c.startSeat(t, topic, "codex", codexName)

	q := c.post(t, topic, "@"+claudeName+" hello", "")
	c.modelSaw(t, claudeName, func(tag map[string]any, body string) bool { return tag["message_id"] == q })
	first, ok := firstCarrying(c.model, q)
	if !ok {
		t.Fatal("no Claude request carried the post")
	}
	if !offersSuffix(first, "__"+fakemodel.SayToRoom) {
		t.Fatalf("the request that carried the post did not offer say_to_room directly (deferred behind %s?); tools: %v", toolSearch, first.Tools)
	}
	t.Logf("Claude's model: %s; tools offered with the post: %v", modelOf(first), first.Tools)
	ack := c.waitPost(topic, claudeName, "ack from Lin: hello")
	if ack["role"] != "claude_code" {
		t.Fatalf("Claude's post role = %v", ack["role"])
	}
	ackID := ack["post"].(map[string]any)["message_id"].(string)
	// The answer was the first thing the model did: no ToolSearch round
	// trip before it.
	if first.Reply.Tool != fakemodel.SayToRoom {
		t.Fatalf("the model's answer to the post = %+v, want the say_to_room call", first.Reply)
	}
	for _, r := range c.model.Requests() {
		if r.API != fakemodel.Anthropic {
			continue
		}
		if r.Reply.Tool == toolSearch {
			t.Errorf("the model called %s: %v", toolSearch, r.Reply.Args)
		}
		for _, res := range r.AllResults {
			if res.Tool == toolSearch {
				t.Errorf("a %s result reached the model: %q", toolSearch, res.Output)
			}
		}
	}

	// The room is the only way to the other seats: no cross-session tools,
	// no inbox socket (docs/decisions.md "Seats cannot go around the room").
	for _, r := range c.model.Requests() {
		if r.API == fakemodel.Anthropic && !r.Side {
			if got := offersCrossSession(r); len(got) > 0 {
				t.Fatalf("Claude's model was offered %v; tools %v, deferred %v", got, r.Tools, deferredTools(r))
			}
		}
	}
	if s := claudeSessionOf(t, c.home, c.sessionOf(t, topic, "claude")); s.Socket != "" {
		t.Fatalf("the seat bound an inbox socket: %+v", s)
	}

	c.modelSaw(t, codexName, func(tag map[string]any, body string) bool {
		return tag["message_id"] == ackID && tag["role"] == "claude_code" && tag["from"] == claudeName
	})
	q2 := c.post(t, topic, "@"+codexName+" and you?", ackID)
	ack2 := c.waitPost(topic, codexName, "ack from Lay: and you?")
	if ack2["role"] != "codex" {
		t.Fatalf("Codex's post role = %v", ack2["role"])
	}
	ids := postIDs(c.logged(t, topic))
	if len(ids) != 4 || ids[0] != q || ids[1] != ackID || ids[2] != q2 || ids[3] != ack2["post"].(map[string]any)["message_id"] {
		t.Fatalf("log = %v", ids)
	}
}

// The permission hold with the newest Claude. Its own default permission
// mode is "auto", which would decide this Bash call itself; the seat
// launches in "default" (docs/decisions.md), so the prompt comes.
func TestLatestClaudePermissionHold(t *testing.T) {
	t.Parallel()
	c := newCLIRoom(t, permAgent("Bash", func(cmd string) map[string]any {
		return map[string]any{"command": cmd, "description": "Run the check"}
	}))
	holdScenario(t, c, "claude", claudeName, "Do you want to proceed?", "\x1b", "\r")
}

// firstCarrying is Claude's first request whose newest user turn is the
// post with message id id.
func firstCarrying(m *fakemodel.Server, id string) (fakemodel.Request, bool) {
	for _, r := range m.Requests() {
		if r.API != fakemodel.Anthropic || r.Side {
			continue
		}
		if tag, _, ok := fakemodel.ParseTagged(r.LastUserTurn()); ok && tag.MessageID == id {
			return r, true
		}
	}
	return fakemodel.Request{}, false
}

func offersSuffix(r fakemodel.Request, suffix string) bool {
	for _, name := range r.Tools {
		if strings.HasSuffix(name, suffix) {
			return true
		}
	}
	return false
}

// modelOf is the model id a request asked for.
func modelOf(r fakemodel.Request) string {
	var v struct{ Model string }
	_ = json.Unmarshal(r.Body, &v)
	return v.Model
}

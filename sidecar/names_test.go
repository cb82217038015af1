package sidecar_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"pullcept/sidecar"
)

// The seat's names (spec 003 ニックネームと元の名前): the instructions carry
// the launch-time names, hello carries the full name, and a rename while
// seated reaches the tools' descriptions (with list_changed) and every tool
// result; history and refusals keep each post's full_name.
func TestSeatNamesFollowTheRoom(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	saved := map[string][2]string{"acc-lin": {"Lin", "Claude Lin"}}
	h := newRoomWith(t, func(a string) (string, string, bool) {
		mu.Lock()
		defer mu.Unlock()
		n, ok := saved[a]
		return n[0], n[1], ok
	}, "topic-n")
	lin := h.join("Lin", "topic-n", sidecar.EnvAgentFullName, "Claude Lin", sidecar.EnvAccountID, "acc-lin")
	if !strings.HasPrefix(lin.init.Instructions, "You are Lin (full name: Claude Lin) in a Pullcept room") {
		t.Errorf("instructions open with %q", strings.SplitN(lin.init.Instructions, "\n", 2)[0])
	}
	// An external connection without a saved account: its hello's full name.
	kay := h.join("Kay", "topic-n", sidecar.EnvAgentFullName, "Claude Kay")
	if p := h.participant("topic-n", "Kay"); p.FullName != "Claude Kay" {
		t.Errorf("Kay seated with full name %q: hello did not carry it", p.FullName)
	}

	describe := func() string {
		res, err := lin.c.ListTools(context.Background(), mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var d []string
		for _, tool := range res.Tools {
			d = append(d, tool.Description)
		}
		return strings.Join(d, "\n")
	}
	if d := describe(); strings.Count(d, "The room calls you Lin (your full name Claude Lin is not an address).") != len(sidecar.Tools()) {
		t.Errorf("tools/list does not carry the seat's names in every description:\n%s", d)
	}
	text, _ := lin.call(t, sidecar.ToolHistory, nil)
	if !strings.HasSuffix(text, "— you: Lin (full name: Claude Lin)") {
		t.Errorf("history result does not end with the seat's names: %q", text)
	}

	// Kay speaks; Lin's history and a refusal show Kay's full name.
	kayID := kay.say(t, map[string]any{"content": "from Kay"})
	text, _ = lin.call(t, sidecar.ToolHistory, nil)
	if !strings.Contains(text, "message_id: "+kayID+" | speaker: Kay | full_name: Claude Kay") {
		t.Errorf("history without Kay's full name:\n%s", text)
	}
	text, isErr := lin.call(t, sidecar.ToolSay, map[string]any{"content": "stale", "last_seen": ""})
	if !isErr || !strings.Contains(text, "speaker: Kay | full_name: Claude Kay") {
		t.Errorf("refusal without the missed post's full name: %v %q", isErr, text)
	}

	// The rename: the room tells the sidecar; descriptions and results follow.
	notified := make(chan struct{}, 8)
	lin.c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/tools/list_changed" {
			notified <- struct{}{}
		}
	})
	mu.Lock()
	saved["acc-lin"] = [2]string{"Luna", "Claude Lin"}
	mu.Unlock()
	ids, err := h.e.Rename("acc-lin")
	if err != nil || len(ids) != 1 {
		t.Fatalf("Rename: %v %v", ids, err)
	}
	h.srv.TellIdentity(ids...)
	select {
	case <-notified:
	case <-time.After(15 * time.Second):
		t.Fatal("no tools/list_changed after the rename")
	}
	if d := describe(); !strings.Contains(d, "The room calls you Luna (your full name Claude Lin is not an address).") || strings.Contains(d, "calls you Lin") {
		t.Errorf("descriptions after the rename:\n%s", d)
	}
	text, _ = lin.call(t, sidecar.ToolUsage, nil)
	if !strings.HasSuffix(text, "— you: Luna (full name: Claude Lin)") {
		t.Errorf("my_usage after the rename: %q", text)
	}
	// The session tools answer one JSON object: the names go inside it.
	text, _ = lin.call(t, sidecar.ToolListSessions, nil)
	if !strings.Contains(text, `"your_name":"Luna"`) || !strings.Contains(text, `"your_full_name":"Claude Lin"`) || !strings.HasPrefix(text, "{") {
		t.Errorf("list_account_sessions after the rename: %q", text)
	}
	text, _ = lin.call(t, sidecar.ToolSay, map[string]any{"content": "as Luna", "last_seen": kayID})
	if !strings.Contains(text, "— you: Luna (full name: Claude Lin)") {
		t.Errorf("say_to_room after the rename: %q", text)
	}
	last := h.logged("topic-n")
	if p := last[len(last)-1]; p.Speaker != "Luna" || p.FullName != "Claude Lin" {
		t.Errorf("logged as %q / %q", p.Speaker, p.FullName)
	}
	// Instructions stay what the launch said.
	if !strings.Contains(lin.init.Instructions, "You are Lin (full name: Claude Lin)") {
		t.Error("the launch-time instructions changed")
	}
}

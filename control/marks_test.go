package control

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"pullcept/app"
	"pullcept/room/wire"
	"pullcept/seat"
	"pullcept/seat/hook"
)

// TestServeDeliveryMarks: serve reports each post's delivery mark in each
// seat as a "delivery" line: a cli seat whose CLI has sent no prompt yet
// gets unknown once the post is typed; its UserPromptSubmit hook (through
// the room socket, with the launch's secret) carrying the post's tag line
// makes it received; once it is known to report prompts, the next post is
// typed, then received.
func TestServeDeliveryMarks(t *testing.T) {
	var mu sync.Mutex
	var env []string
	h, ready := startWith(t, func(o *app.Options) {
		o.Accounts = []seat.Account{{ID: "bot", Name: "Bot", Kind: seat.KindCLI, Command: "my-cli"}}
		o.StartPane = func(ctx context.Context, spec seat.PaneSpec) (*seat.Pane, error) {
			mu.Lock()
			env = spec.Env
			mu.Unlock()
			spec.Argv = []string{"/bin/sh", "-c", "stty raw -echo; cat >/dev/null"}
			return seat.StartPane(ctx, spec)
		}
	})
	cur := ready["topic"].(string)
	// The CLI's sidecar takes its seat, so posts are typed into its pane.
	h.seatBot(t, cur)
	mu.Lock()
	target, err := hook.HookTargetFromEnv(func(k string) string {
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, k+"="); ok {
				return v
			}
		}
		return ""
	})
	mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	prompt := func(id string) {
		t.Helper()
		body, _ := json.Marshal(map[string]string{"hook_event_name": "UserPromptSubmit", "prompt": wire.TagLine("admin", wire.Post{MessageID: id}, nil) + "\nthe body"})
		if err := hook.PostHook(context.Background(), target, "UserPromptSubmit", body); err != nil {
			t.Fatal(err)
		}
	}
	delivery := func(id, mark string) map[string]any {
		t.Helper()
		for {
			m := h.until(t, "delivery")
			if m["topic"] != cur || m["account"] != "bot" {
				t.Fatalf("a delivery line for another seat: %v", m)
			}
			if m["message_id"] == id && m["mark"] == mark {
				return m
			}
		}
	}
	post := func(content string) string {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"cmd": "post", "topic": cur, "content": content})
		h.send(t, string(b))
		m := h.until(t, "post_result")
		if m["delivered"] != true {
			t.Fatalf("post: %v", m)
		}
		return m["message_id"].(string)
	}

	one := post("@Bot one")
	delivery(one, "unknown")
	prompt(one)
	delivery(one, "received")
	two := post("@Bot two")
	delivery(two, "typed")
	prompt(two)
	delivery(two, "received")
	got := h.app.Deliveries(cur)
	if len(got[one]) != 1 || got[one][0].Mark != app.MarkReceived || len(got[two]) != 1 || got[two][0].Mark != app.MarkReceived {
		t.Fatalf("the marks kept for the topic: %+v", got)
	}
}

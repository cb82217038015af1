package e2e

import (
	"strings"
	"testing"
)

// u behind the person's unsent keys, with the real CLIs (issue 31, point
// 4): the release names the keys and clears nothing; the second choice
// clears them with the kind's clear key (Ctrl-U, never Ctrl-C), the CLI
// stays up, and the held post reaches the model once, without the keys.
func TestRealCLIsReleaseClearsUnsentKeys(t *testing.T) {
	t.Parallel()
	releaseClearsUnsentKeys(t, newCLIRoom(t, roomAgent(nil)))
}

func releaseClearsUnsentKeys(t *testing.T, c *cliRoom) {
	t.Helper()
	topic := c.topic()
	for _, tc := range []struct{ account, name, keys string }{
		{"claude", claudeName, "abc def\nghi jkl"},
		{"codex", codexName, "first line\nsecond line"}, // a paste: two lines in the input box
	} {
		// Each CLI starts idle: nothing else is typed into it meanwhile.
		c.startSeat(t, topic, tc.account, tc.name)
		from := c.mark()
		c.do(map[string]any{"cmd": "keys", "topic": topic, "account": tc.account, "keys": tc.keys})
		c.waitScreen(t, topic, tc.account, strings.Split(tc.keys, "\n")[0])
		q := c.post(t, topic, "@"+tc.name+" hello behind the keys", c.lastPostID(topic))
		c.waitHeld(t, from, topic, tc.account, 1, "unsent keys")
		r := c.do(map[string]any{"cmd": "release", "topic": topic, "account": tc.account})
		res, _ := r["result"].(map[string]any)
		if res["released"] != false || res["unsent"] != tc.keys || !strings.Contains(res["note"].(string), "unsent keys") {
			t.Fatalf("%s: the first release: %v", tc.account, r)
		}
		if n := turnsWith(c.model, tc.name, q); n != 0 {
			t.Fatalf("%s: the post was typed before the person's second choice", tc.account)
		}
		r = c.do(map[string]any{"cmd": "release", "topic": topic, "account": tc.account, "clear": tc.keys})
		if res, _ := r["result"].(map[string]any); res["released"] != true {
			t.Fatalf("%s: the clear: %v", tc.account, r)
		}
		c.waitPost(topic, tc.name, "ack from "+tc.name+": hello behind the keys")
		if n := turnsWith(c.model, tc.name, q); n != 1 {
			t.Fatalf("%s: the post reached the model %d times", tc.account, n)
		}
		for _, req := range c.model.Requests() {
			if agentOf(req) != tc.name {
				continue
			}
			for _, turn := range req.UserTurns {
				if strings.Contains(turn, q) && (strings.Contains(turn, "abc") || strings.Contains(turn, "jkl") || strings.Contains(turn, "line")) {
					t.Fatalf("%s: the cleared keys went with the post: %q", tc.account, turn)
				}
			}
		}
		if scr := c.screenOf(t, topic, tc.account); strings.Contains(scr, "again to exit") {
			t.Fatalf("%s: the clear started an exit:\n%s", tc.account, scr)
		}
	}
	// Both CLIs still run.
	r := c.do(map[string]any{"cmd": "seats", "topic": topic})
	for _, s := range r["result"].([]any) {
		if st := s.(map[string]any)["state"]; st != "running" {
			t.Fatalf("a seat is %v after the clears: %v", st, r)
		}
	}
}

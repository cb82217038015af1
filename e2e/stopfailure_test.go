package e2e

// Claude's StopFailure hook (a turn ended by an API error) with the real
// CLIs: the newest, and the oldest supported (2.1.197), whose hook list has
// StopFailure too, so its registration costs the launch none of its hooks.

import (
	"cmp"
	"strings"
	"testing"

	"pullcept/e2e/clihome"
	"pullcept/e2e/fakemodel"
)

// Answers that end a Claude turn with an API error, as Anthropic's API
// sends them.
var (
	claudeRateLimited = fakemodel.Fail(fakemodel.Failure{Status: 429,
		Body: `{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed your rate limit."}}`})
	claudeOverloaded = fakemodel.Fail(fakemodel.Failure{Status: 529,
		Body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`})
	claudeServerError = fakemodel.Fail(fakemodel.Failure{Status: 500,
		Body: `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`})
)

// The endpoint answers the post "overload" with a 529, "break" with a 500
// and "limit" with a 429 (the CLI does not retry: CLAUDE_CODE_MAX_RETRIES=0
// in the seat's environment). The 529 and the 500 end the turn with
// StopFailure overloaded / server_error: the seat's activity shows the
// failure, it is ready and not limited, and the next post goes in (and the
// failure clears). The 429 ends it with StopFailure rate_limit: the seat is
// limited first (an API key has no figures: until unknown, the app's
// notice says so), a post meanwhile is held, and the person's release
// types it.
func TestLatestClaudeStopFailure(t *testing.T) {
	t.Parallel()
	testClaudeStopFailure(t, clihome.RequireLatestBins(t))
}

func TestClaudeStopFailurePinned(t *testing.T) {
	t.Parallel()
	testClaudeStopFailure(t, clihome.RequireBins(t))
}

func testClaudeStopFailure(t *testing.T, bins clihome.Bins) {
	agent := roomAgent(nil)
	c := newCLIRoomWith(t, func(r fakemodel.Request) fakemodel.Reply {
		if r.API == fakemodel.Anthropic {
			if _, body, ok := fakemodel.ParseTagged(r.LastUserTurn()); ok && len(r.ToolResults) == 0 && !r.Side {
				switch body {
				case "limit":
					return claudeRateLimited
				case "overload":
					return claudeOverloaded
				case "break":
					return claudeServerError
				}
			}
		}
		return agent(r)
	}, roomOptions{bins: bins})
	c.env = append(c.env, "CLAUDE_CODE_MAX_RETRIES=0")
	c.restart(t)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the model's requests:\n%s", describeRequests(c.model.Requests()))
		}
	})
	topic := c.topic()
	c.startSeat(t, topic, "claude", claudeName)

	// Claude names the 500 server_error; the 529 (measured with 2.1.332
	// and no retries) server_error too, not overloaded: any name but
	// rate_limit will do for it.
	for _, tc := range []struct{ body, failure string }{{"overload", ""}, {"break", "server_error"}} {
		from := c.mark()
		c.post(t, topic, "@"+claudeName+" "+tc.body, c.lastPostID(topic))
		a := c.waitActivity(t, from, topic, "claude", func(a map[string]any) bool { return a["signal"] == "StopFailure" })
		f, _ := a["failure"].(string)
		if f == "" || f == "rate_limit" || tc.failure != "" && f != tc.failure || a["state"] != "ready" || a["hold"] != nil {
			t.Fatalf("after a %s: activity %v, want ready with failure %q and no hold", tc.body, a, cmp.Or(tc.failure, "(not rate_limit)"))
		}
		t.Logf("%s: StopFailure %q", tc.body, f)
		if n := c.count(appPost(topic, "利用上限で止まりました")); n != 0 {
			t.Fatalf("a %s limited the seat", tc.body)
		}
		// The next post goes in, and its turn clears the failure. Claude
		// sends the failed prompt again with it, in one user turn (so the
		// scripted agent's answer quotes both).
		from = c.mark()
		c.post(t, topic, "@"+claudeName+" after "+tc.body, c.lastPostID(topic))
		c.waitPost(topic, claudeName, "after "+tc.body)
		c.waitActivity(t, from, topic, "claude", func(a map[string]any) bool { return a["signal"] == "UserPromptSubmit" && a["failure"] == nil })
	}

	from := c.mark()
	c.post(t, topic, "@"+claudeName+" limit", c.lastPostID(topic))
	act := c.waitActivity(t, from, topic, "claude", func(a map[string]any) bool { return a["state"] == "limited" })
	if hold, _ := act["hold"].(string); !strings.Contains(hold, "usage limit (until unknown)") {
		t.Errorf("the limited activity's hold = %q", hold)
	}
	c.waitFrom(from, appPost(topic, claudeName+" が利用上限で止まりました。解除予定は不明です"))
	held := c.post(t, topic, "@"+claudeName+" are you back?", c.lastPostID(topic))
	c.waitHeld(t, from, topic, "claude", 1, "stopped at its usage limit")
	if r := c.do(map[string]any{"cmd": "release", "topic": topic, "account": "claude"}); r["result"].(map[string]any)["released"] != true {
		t.Fatalf("release: %v", r)
	}
	// Typed in (with the failed prompt before it, in one user turn).
	c.modelSaw(t, claudeName, func(_ map[string]any, body string) bool { return strings.Contains(body, held) })
}

package e2e

// A Codex plan that reports only the weekly window (no 5-hour one), with
// the real Codex: its rollout's token_count then carries one window.

import (
	"strings"
	"sync"
	"testing"
	"time"

	"pullcept/e2e/fakemodel"
)

// The endpoint's headers give only a weekly window (10080 minutes), as
// x-codex-primary-* or as x-codex-secondary-*. The book gets the 7-day figure and no 5-hour one; a 429
// usage_limit_reached with the weekly window full limits the seat until
// that window's reset (the app's notice gives it); a post meanwhile is
// held, and the person's release types it.
func TestUsageRealCodexWeeklyOnly(t *testing.T) {
	t.Parallel()
	for _, place := range []string{"primary", "secondary"} {
		t.Run(place, func(t *testing.T) {
			t.Parallel()
			testCodexWeeklyOnly(t, func(w *fakemodel.RateWindow) (p, s *fakemodel.RateWindow) {
				if place == "primary" {
					return w, nil
				}
				return nil, w
			})
		})
	}
}

// testCodexWeeklyOnly: place puts the weekly window in the primary or the
// secondary headers.
func testCodexWeeklyOnly(t *testing.T, place func(*fakemodel.RateWindow) (p, s *fakemodel.RateWindow)) {
	const trigger = "hit the weekly limit"
	var (
		mu      sync.Mutex
		limitAt time.Time
	)
	agent := roomAgent(nil)
	c := newCLIRoom(t, func(r fakemodel.Request) fakemodel.Reply {
		if r.API == fakemodel.OpenAI {
			if _, body, ok := fakemodel.ParseTagged(r.LastUserTurn()); ok && body == trigger && len(r.ToolResults) == 0 {
				mu.Lock()
				defer mu.Unlock()
				if limitAt.IsZero() {
					limitAt = time.Now().Add(50 * time.Hour).Truncate(time.Second)
				}
				return fakemodel.UsageLimitReached(place(&fakemodel.RateWindow{UsedPercent: 100, WindowMinutes: fakemodel.SevenDayMinutes, ResetAt: limitAt}))
			}
		}
		return agent(r)
	})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the model's requests:\n%s", describeRequests(c.model.Requests()))
		}
	})
	reset7 := time.Now().Add(72 * time.Hour).Truncate(time.Second)
	c.model.SetHeaders(fakemodel.CodexRateLimitHeaders(place(&fakemodel.RateWindow{UsedPercent: 12, WindowMinutes: fakemodel.SevenDayMinutes, ResetAt: reset7})))
	topic := c.topic()
	c.startSeat(t, topic, "codex", codexName)

	from := c.mark()
	c.post(t, topic, "@"+codexName+" hello", "")
	c.waitPost(topic, codexName, "ack from Lay: hello")
	u := c.waitUsage(from, topic, "codex", func(u map[string]any) bool { return figure(u, "seven_day") != nil })
	if f := figure(u, "seven_day"); f["used_percentage"] != 12.0 || f["resets_at"] != reset7.UTC().Format(time.RFC3339) {
		t.Fatalf("seven_day = %v, want 12%% resetting at %v", f, reset7)
	}
	if f := figure(u, "five_hour"); f != nil {
		t.Fatalf("a five_hour figure from a weekly window alone: %v", f)
	}

	from = c.mark()
	c.post(t, topic, "@"+codexName+" "+trigger, c.lastPostID(topic))
	act := c.waitActivity(t, from, topic, "codex", func(a map[string]any) bool { return a["state"] == "limited" })
	mu.Lock()
	until := limitAt
	mu.Unlock()
	if got, _ := act["limited_until"].(string); got == "" {
		t.Errorf("limited with no reset time: %v", act)
	} else if at, err := time.Parse(time.RFC3339Nano, got); err != nil || !at.Equal(until) {
		t.Errorf("limited until %q, want the weekly window's reset %v", got, until)
	}
	c.waitFrom(from, appPost(topic, codexName+" が利用上限で止まりました。解除予定 "+until.In(serverZone()).Format("15:04")))
	c.waitUsage(from, topic, "codex", func(u map[string]any) bool {
		f := figure(u, "seven_day")
		return f != nil && f["used_percentage"] == 100.0 && figure(u, "five_hour") == nil
	})
	held := c.post(t, topic, "@"+codexName+" are you back?", c.lastPostID(topic))
	c.waitHeld(t, from, topic, "codex", 1, "stopped at its usage limit until")
	if r := c.do(map[string]any{"cmd": "release", "topic": topic, "account": "codex"}); r["result"].(map[string]any)["released"] != true {
		t.Fatalf("release: %v", r)
	}
	c.modelSaw(t, codexName, func(tag map[string]any, body string) bool {
		return tag["message_id"] == held || strings.Contains(body, held)
	})
}

package e2e

// Sleeping seats (issue 35; docs/decisions.md "Sleeping seats") with the
// real Claude Code (pinned and newest) and Codex against the scripted
// model endpoint: a seat answers, goes idle past a short hibernate_after,
// its CLI stops while its placeholder stays in the room; a room-wide post
// wakes nobody; a post addressed to it wakes it, held "waking" until it
// joins, and the model's next request carries the conversation from before
// the sleep (resumed, not fresh) and says posts it has not seen exist.

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"pullcept/app"
	"pullcept/e2e/clihome"
	"pullcept/e2e/fakemodel"
)

func TestRealCLIsSleepAndWake(t *testing.T) {
	t.Parallel()
	bins, err := clihome.FindBins()
	if err != nil {
		required(t, err.Error())
	}
	sleepAndWake(t, newCLIRoomWith(t, roomAgent(nil), roomOptions{bins: bins, config: `"hibernate_after":"3s"`}))
}

func TestLatestCLIsSleepAndWake(t *testing.T) {
	t.Parallel()
	sleepAndWake(t, newCLIRoomWith(t, roomAgent(nil), roomOptions{bins: clihome.RequireLatestBins(t), config: `"hibernate_after":"3s"`}))
}

func sleepAndWake(t *testing.T, c *cliRoom) {
	topic := c.topic()
	from := c.mark()
	answerOnce(t, c, topic)

	// Both go idle and sleep: their CLIs are stopped (a requested exit),
	// their seats stay in the room, marked asleep.
	for _, acc := range []string{"claude", "codex"} {
		c.waitActivity(t, from, topic, acc, func(a map[string]any) bool { return a["state"] == "asleep" })
		c.waitFrom(from, func(m map[string]any) bool {
			return m["event"] == "seat" && m["topic"] == topic && m["account"] == acc && m["state"] == "exited" && m["requested"] == true
		})
	}
	c.waitFrom(from, func(m map[string]any) bool {
		return m["event"] == "roster" && m["topic"] == topic && asleepIn(m, claudeName) && asleepIn(m, codexName) && count(m, claudeName) == 1 && count(m, codexName) == 1
	})
	seats := c.do(map[string]any{"cmd": "seats", "topic": topic})["result"].([]any)
	if len(seats) != 2 {
		t.Fatalf("seats while asleep: %v", seats)
	}
	for _, s := range seats {
		if m := s.(map[string]any); m["state"] != "asleep" {
			t.Fatalf("seats while asleep: %v", seats)
		}
	}
	ls := run(t, c.phome, "ls")
	if !strings.Contains(ls, "sleeping seats: 2 (their CLIs held ") || !strings.Contains(ls, claudeName+" (asleep)") {
		t.Fatalf("pullcept ls while both sleep:\n%s", ls)
	}
	t.Logf("pullcept ls:\n%s", ls) // the memory freed, for docs/performance.md
	if runs := len(seatRuns(c.serve, topic, "claude")) + len(seatRuns(c.serve, topic, "codex")); runs != 2 {
		t.Fatalf("launches before any wake: %d", runs)
	}

	// A room-wide post wakes nobody; one addressed to Lin wakes Lin only.
	c.post(t, topic, "room-wide news", c.lastPostID(topic))
	wake := c.mark()
	c.post(t, topic, "@"+claudeName+" what was the number?", c.lastPostID(topic))
	asked := c.waitPost(topic, "Master", "what was the number?")
	waitWaking(c, wake, topic, "claude")
	c.waitFrom(wake, func(m map[string]any) bool {
		return m["event"] == "seat" && m["topic"] == topic && m["account"] == "claude" && m["state"] == "running" && m["resumed_from"] != nil
	})
	woke := c.waitPost(topic, claudeName, "what was the number?")
	t.Logf("addressed post to Lin's answer: %s", sinceTS(t, asked, woke))
	carried(t, c, fakemodel.Anthropic, claudeName, "what was the number?", "remember the number 7")
	if runs := seatRuns(c.serve, topic, "codex"); len(runs) != 1 {
		t.Fatalf("room-wide posts woke Codex: %v", runs)
	}
	// Lin's placeholder left when it joined: one Lin, awake.
	c.waitFrom(wake, func(m map[string]any) bool {
		return m["event"] == "roster" && m["topic"] == topic && count(m, claudeName) == 1 && !asleepIn(m, claudeName) && asleepIn(m, codexName)
	})

	wake = c.mark()
	c.post(t, topic, "@"+codexName+" what was the number?", c.lastPostID(topic))
	asked = c.waitFrom(wake, func(m map[string]any) bool {
		p, _ := m["post"].(map[string]any)
		return m["event"] == "post" && p != nil && p["speaker"] == "Master"
	})
	waitWaking(c, wake, topic, "codex")
	woke = c.waitPost(topic, codexName, "what was the number?")
	t.Logf("addressed post to Lay's answer: %s", sinceTS(t, asked, woke))
	carried(t, c, fakemodel.OpenAI, codexName, "what was the number?", "remember the number 8")
}

// carried waits for a model request of api whose user turns hold now and
// before (the conversation from before the sleep, resumed), that says the
// topic has posts the session has not seen (WakeNotice), and holds no room-wide post
// typed while it slept.
func carried(t *testing.T, c *cliRoom, api fakemodel.API, name, now, before string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := c.model.Wait(ctx, func(reqs []fakemodel.Request) bool {
		for _, r := range reqs {
			turns := strings.Join(r.UserTurns, "\n")
			if r.API == api && strings.Contains(turns, now) && strings.Contains(turns, before) {
				if strings.Contains(turns, "room-wide news") {
					t.Errorf("a room-wide post was typed into the woken seat: %q", turns)
				}
				if !strings.Contains(turns, app.WakeNotice(name)) {
					t.Errorf("the woken %s seat was not told that posts it has not seen exist: %q", api, turns)
				}
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("the woken %s session did not carry the conversation from before the sleep", api)
	}
}

// answerOnce starts a Claude and a Codex seat in topic; Lin is told to
// remember 7, Lay 8, and each answers.
func answerOnce(t *testing.T, c *cliRoom, topic string) {
	t.Helper()
	c.startSeat(t, topic, "claude", claudeName)
	c.startSeat(t, topic, "codex", codexName)
	// Lay first, and Lin only once Lay's turn is over: Codex 0.171 was seen
	// to drop a post typed into it during a turn (marked not received).
	from := c.mark()
	c.post(t, topic, "@"+codexName+" remember the number 8", "")
	ack := postOf(c.waitPost(topic, codexName, "remember the number 8"))["message_id"]
	c.modelSaw(t, claudeName, func(tag map[string]any, _ string) bool { return tag["message_id"] == ack })
	c.waitActivity(t, from, topic, "codex", func(a map[string]any) bool { return a["state"] == "ready" && a["signal"] == "Stop" })
	c.post(t, topic, "@"+claudeName+" remember the number 7", c.lastPostID(topic))
	c.waitPost(topic, claudeName, "remember the number 7")
}

func postOf(m map[string]any) map[string]any { return m["post"].(map[string]any) }

// waitWaking waits for account's woken seat to hold posts "waking" (the
// addressed post, and the wake notice before it) and for the addressed
// post's delivery mark "held: waking".
func waitWaking(c *cliRoom, from int, topic, account string) {
	c.waitFrom(from, func(m map[string]any) bool {
		held, _ := m["held"].(float64)
		return m["event"] == "activity" && m["topic"] == topic && m["account"] == account && held >= 1 && m["hold"] == "waking"
	})
	c.waitFrom(from, func(m map[string]any) bool {
		return m["event"] == "delivery" && m["topic"] == topic && m["account"] == account && m["mark"] == "held" && m["why"] == "waking"
	})
}

// sinceTS is the time between two post events' stamps.
func sinceTS(t *testing.T, from, to map[string]any) time.Duration {
	t.Helper()
	ts := func(m map[string]any) time.Time {
		at, err := time.Parse(time.RFC3339Nano, fmt.Sprint(m["post"].(map[string]any)["ts"]))
		if err != nil {
			t.Fatal(err)
		}
		return at
	}
	return ts(to).Sub(ts(from))
}

// asleepIn: name is in the roster m, marked asleep.
func asleepIn(m map[string]any, name string) bool {
	ps, _ := m["participants"].([]any)
	for _, p := range ps {
		if pm := p.(map[string]any); pm["name"] == name && pm["asleep"] == true {
			return true
		}
	}
	return false
}

// count is how many participants of the roster m are called name.
func count(m map[string]any, name string) int {
	ps, _ := m["participants"].([]any)
	n := 0
	for _, p := range ps {
		if fmt.Sprint(p.(map[string]any)["name"]) == name {
			n++
		}
	}
	return n
}

// TestLatestClaudeBackgroundWorkKeepsItAwake: a Claude seat whose turn left
// a backgrounded Bash running (its Stop's background_tasks) does not sleep
// past hibernate_after; once the job ends and Claude's turn about it is
// over (a Stop with none), it sleeps.
func TestLatestClaudeBackgroundWorkKeepsItAwake(t *testing.T) {
	t.Parallel()
	rooms := roomAgent(nil)
	agent := func(r fakemodel.Request) fakemodel.Reply {
		_, body, ok := fakemodel.ParseTagged(r.LastUserTurn())
		if !ok || !strings.Contains(body, "start the background job") {
			return rooms(r)
		}
		if len(r.ResultsFor("Bash")) > 0 {
			return fakemodel.Say("the job runs in the background")
		}
		return fakemodel.Call("Bash", map[string]any{"command": "sleep 12", "run_in_background": true, "description": "a background job"})
	}
	c := newCLIRoomWith(t, agent, roomOptions{bins: clihome.RequireLatestBins(t), claudeCommand: "claude --allowedTools Bash(sleep:*)", config: `"hibernate_after":"2s"`})
	topic := c.topic()
	c.startSeat(t, topic, "claude", claudeName)
	from := c.mark()
	c.post(t, topic, "@"+claudeName+" start the background job", "")
	a := c.waitActivity(t, from, topic, "claude", func(a map[string]any) bool {
		n, _ := a["background"].(float64)
		return a["state"] == "ready" && n >= 1
	})
	t.Logf("after the turn: %v", a)
	// Past hibernate_after with the job still running (12 s): awake.
	time.Sleep(6 * time.Second)
	if st := seatState(t, c, topic, "claude"); st == "asleep" {
		t.Fatalf("the seat slept while its background job ran")
	}
	// The job ends, Claude's turn about it ends with none in flight: asleep.
	c.waitActivity(t, from, topic, "claude", func(a map[string]any) bool { return a["state"] == "asleep" })
}

// seatState is account's state in topic from serve's seats answer.
func seatState(t *testing.T, c *cliRoom, topic, account string) string {
	t.Helper()
	for _, s := range c.do(map[string]any{"cmd": "seats", "topic": topic})["result"].([]any) {
		if m := s.(map[string]any); m["account"] == account {
			st, _ := m["state"].(string)
			return st
		}
	}
	return ""
}

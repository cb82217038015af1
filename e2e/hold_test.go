package e2e

// The permission hold with the real CLIs (issue "Seats know what their CLI
// is doing"): while a seat's CLI shows a permission prompt, a room post is
// not typed into it; the post is typed once, and answered, after the
// person declines or approves.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pullcept/e2e/fakemodel"
)

// permAgent is the scripted model: an admin post "run CMD" addressed to the
// agent makes it run CMD with the CLI's shell tool (Claude: Bash) and then
// say "ran"; any other admin post is answered with say_to_room("ack from
// NAME: BODY").
func permAgent(shellTool string, args func(cmd string) map[string]any) fakemodel.Behaviour {
	return func(r fakemodel.Request) fakemodel.Reply {
		tag, body, ok := fakemodel.ParseTagged(r.LastUserTurn())
		if !ok || tag.Role != "admin" {
			return fakemodel.Say("ok")
		}
		if len(r.ResultsFor(fakemodel.SayToRoom)) > 0 {
			return fakemodel.Say("done")
		}
		if cmd, isRun := strings.CutPrefix(body, "run "); isRun {
			if len(r.ResultsFor(shellTool)) > 0 {
				return fakemodel.Say("ran")
			}
			return fakemodel.Call(shellTool, args(cmd))
		}
		return fakemodel.Call(fakemodel.SayToRoom, map[string]any{"content": "ack from " + agentOf(r) + ": " + body, "last_seen": tag.MessageID})
	}
}

// turnsWith counts, in the newest request of agent, the user turns whose
// tag carries message id: how often the post was typed into its terminal.
func turnsWith(m *fakemodel.Server, agent, id string) int {
	var last *fakemodel.Request
	reqs := m.Requests()
	for i := range reqs {
		if agentOf(reqs[i]) == agent {
			last = &reqs[i]
		}
	}
	if last == nil {
		return 0
	}
	n := 0
	for _, turn := range last.UserTurns {
		if strings.Count(turn, id) > 0 {
			n++
		}
	}
	return n
}

func TestRealClaudePermissionHold(t *testing.T) {
	t.Parallel()
	c := newCLIRoom(t, permAgent("Bash", func(cmd string) map[string]any {
		return map[string]any{"command": cmd, "description": "Run the check"}
	}))
	// Esc is Claude's "No" and fires no hook; Enter takes "1. Yes".
	holdScenario(t, c, "claude", claudeName, "Do you want to proceed?", "\x1b", "\r")
}

// Codex asks only for a command that asks to leave the sandbox; Esc is its
// "No" (an Interrupt hook), y its "Yes, proceed".
func TestRealCodexPermissionHold(t *testing.T) {
	t.Parallel()
	c := newCLIRoom(t, permAgent("exec_command", func(cmd string) map[string]any {
		return map[string]any{"cmd": cmd, "sandbox_permissions": "require_escalated", "justification": "Run the check?"}
	}))
	holdScenario(t, c, "codex", codexName, "Would you like to run the following command?", "\x1b", "y")
}

// holdScenario: the model runs a command that needs permission; while the
// prompt is up a post arrives for the seat; the command must not run and
// the post must not be typed; after the person declines (and, in a second
// round, approves) the held post is typed exactly once and answered.
func holdScenario(t *testing.T, c *cliRoom, account, name, prompt, decline, approve string) {
	t.Helper()
	topic := c.topic()
	c.startSeat(t, topic, account, name)
	for _, tc := range []struct {
		name, keys string
		runs       bool
	}{
		{"decline", decline, false},
		{"approve", approve, true},
	} {
		marker := filepath.Join(c.cwd, "ran-"+tc.name)
		from := c.mark()
		c.post(t, topic, "@"+name+" run touch "+marker, c.lastPostID(topic))
		c.waitActivity(t, from, topic, account, func(a map[string]any) bool {
			return a["state"] == "waiting" && a["wait"] == "permission" && a["signal"] == "PermissionRequest"
		})
		c.waitScreen(t, topic, account, prompt)
		q := c.post(t, topic, "@"+name+" are you there? ("+tc.name+")", c.lastPostID(topic))
		c.waitHeld(t, from, topic, account, 1, "waiting for your permission")
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%s: the command ran before anyone answered the prompt", tc.name)
		}
		if n := turnsWith(c.model, name, q); n != 0 {
			t.Fatalf("%s: the held post reached the model %d times while the prompt was up", tc.name, n)
		}
		if !strings.Contains(c.screenOf(t, topic, account), prompt) {
			t.Fatalf("%s: the prompt went away while the post was held", tc.name)
		}

		answered := c.mark()
		c.do(map[string]any{"cmd": "keys", "topic": topic, "account": account, "keys": tc.keys})
		c.waitPost(topic, name, "ack from "+name+": are you there? ("+tc.name+")")
		// The next round starts once this turn has ended.
		c.waitActivity(t, answered, topic, account, func(a map[string]any) bool { return a["state"] == "ready" && a["signal"] == "Stop" })
		if os.Getenv("HOLD_DEBUG") != "" {
			t.Logf("screen after %s:\n%s", tc.name, c.screenOf(t, topic, account))
		}
		if n := turnsWith(c.model, name, q); n != 1 {
			t.Fatalf("%s: the held post was typed %d times, want once", tc.name, n)
		}
		_, err := os.Stat(marker)
		if ran := err == nil; ran != tc.runs {
			t.Fatalf("%s: the command ran = %v, want %v", tc.name, ran, tc.runs)
		}
		acks := c.count(func(m map[string]any) bool {
			p, _ := m["post"].(map[string]any)
			return m["event"] == "post" && p["speaker"] == name && strings.Contains(p["content"].(string), "("+tc.name+")")
		})
		if acks != 1 {
			t.Fatalf("%s: %s answered %d times", tc.name, name, acks)
		}
	}
}

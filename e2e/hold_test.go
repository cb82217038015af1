package e2e

// The permission hold with the real CLIs (issue "Seats know what their CLI
// is doing"): while a seat's CLI shows a permission prompt, a room post is
// not typed into it; the post is typed once, and answered, after the
// person declines or approves.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

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

// With the oldest supported Claude Code (TestLatestClaudePermissionHold has
// the newest).
func TestOldestClaudePermissionHold(t *testing.T) {
	t.Parallel()
	c := newOldestRoom(t, permAgent("Bash", func(cmd string) map[string]any {
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

		// Claude Code 2.1.332 refuses a dialog's answer keys for 150 ms after
		// it paints the dialog (and 150 ms after each refused key): a key
		// sent as soon as the prompt shows is dropped. No event says the
		// prompt takes keys.
		time.Sleep(200 * time.Millisecond)
		answered := c.mark()
		c.do(map[string]any{"cmd": "keys", "topic": topic, "account": account, "keys": tc.keys})
		c.waitPost(topic, name, "ack from "+name+": are you there? ("+tc.name+")")
		if account == "codex" && tc.name == "decline" {
			// The held post waited for the rollout's turn_aborted, not a
			// guessed time (seat.SettleTime, SettleMax; seat.SignalTurnAborted).
			c.waitActivity(t, answered, topic, account, func(a map[string]any) bool { return a["signal"] == "interrupted turn aborted" })
		}
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

// #127 with Claude: a resume whose conversation does not load (a transcript
// holding only metadata, what a seat stopped mid-turn can leave) must drop
// the topic's record, although Claude's sidecar joins the room before
// Claude says "No conversation found" and exits 1. The signal is that
// SessionStart "resume" never came.
func TestRealClaudeFailedResumeDropsTheRecord(t *testing.T) {
	t.Parallel()
	c := newCLIRoom(t, roomAgent(nil))
	topic := c.topic()
	first := c.startSeat(t, topic, "claude", claudeName)
	sid, _ := first["session_id"].(string)
	c.post(t, topic, "@"+claudeName+" hello", "")
	c.waitPost(topic, claudeName, "ack from Lin: hello")
	transcript := claudeTranscript(t, c.home, sid)
	waitFileHas(t, transcript, "hello")
	if r := c.do(map[string]any{"cmd": "stop", "topic": topic, "account": "claude"}); r["event"] != "stop" {
		t.Fatalf("%v", r)
	}
	// Only metadata is left: the file exists (so the resume line is
	// chosen), the conversation does not.
	if err := os.WriteFile(transcript, []byte(`{"type":"summary","summary":"cut short","leafUuid":"00000000-0000-4000-8000-000000000000"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	from := c.mark()
	r := c.do(map[string]any{"cmd": "start", "topic": topic, "account": "claude"})
	if res, _ := r["result"].(map[string]any); res["resumed_from"] != sid {
		t.Fatalf("the start did not try to resume %s: %v", sid, r)
	}
	ended := c.waitFrom(from, func(m map[string]any) bool {
		return m["event"] == "seat" && m["topic"] == topic && m["state"] == "exited" && m["requested"] != true
	})
	if ended["dropped_on_exit"] != true || ended["dropped_resume"] != sid {
		t.Fatalf("a resume that never loaded ended without dropping the record: %v", ended)
	}
	if got := c.sessionOf(t, topic, "claude"); got != "" {
		t.Fatalf("the topic still records %q", got)
	}
	// The next start is fresh and works.
	fresh := c.startSeat(t, topic, "claude", claudeName)
	if fresh["resumed_from"] != nil || fresh["session_id"] == sid {
		t.Fatalf("the start after the dropped record: %v", fresh)
	}
}

// A Claude seat stopped mid-turn resumes on its next start with a
// conversation that loads (SessionStart "resume"). The stop interrupts a
// busy Claude first (Esc) so it can write the turn; with 2.1.197 a stop by
// signals alone also left a resumable transcript in this scenario, so this
// test guards the outcome, not the Esc.
func TestRealClaudeStoppedMidTurnResumes(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	ack := roomAgent(nil)
	c := newCLIRoom(t, func(r fakemodel.Request) fakemodel.Reply {
		if _, body, ok := fakemodel.ParseTagged(r.LastUserTurn()); ok && body == "think long" && len(r.ToolResults) == 0 {
			select {
			case entered <- struct{}{}:
			default:
			}
			<-release // the model never answers: the turn is cut by the stop
			return fakemodel.Say("late")
		}
		return ack(r)
	})
	t.Cleanup(func() { close(release) }) // before the model server closes
	topic := c.topic()
	first := c.startSeat(t, topic, "claude", claudeName)
	sid, _ := first["session_id"].(string)
	from := c.mark()
	c.post(t, topic, "@"+claudeName+" think long", "")
	<-entered // the model request of the turn is in flight
	c.waitActivity(t, from, topic, "claude", func(a map[string]any) bool { return a["state"] == "working" })
	if r := c.do(map[string]any{"cmd": "stop", "topic": topic, "account": "claude"}); r["event"] != "stop" {
		t.Fatalf("%v", r)
	}
	from = c.mark()
	again := c.startSeat(t, topic, "claude", claudeName)
	if again["resumed_from"] != sid {
		t.Fatalf("the start after a stop mid-turn did not resume %s: %v", sid, again)
	}
	c.waitActivity(t, from, topic, "claude", func(a map[string]any) bool { return a["loaded"] == true })
	c.post(t, topic, "@"+claudeName+" still there?", c.lastPostID(topic))
	c.waitPost(topic, claudeName, "ack from Lin: still there?")
}

// A cli account reports with `pullcept hook EVENT` (docs/hooks.md): its
// question holds the room's posts like a CLI's permission prompt, the
// person's answer reaches it (not a post's letters), and the held post is
// typed once after the program says the tool ended.
func TestCLIAccountHooksHoldPosts(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	script := filepath.Join(repoRoot(t), "e2e", "testdata", "askcli.sh")
	cfg := `{"accounts":[{"id":"ask","name":"Ask","kind":"cli","command":` + strconv.Quote(script) + `}]}`
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, home)
	topic := s.topic()
	if r := s.do(map[string]any{"cmd": "start", "topic": topic, "account": "ask"}); r["event"] != "start" {
		t.Fatalf("%v", r)
	}
	screen := func() string {
		r := s.do(map[string]any{"cmd": "screen", "topic": topic, "account": "ask"})
		res, _ := r["result"].(map[string]any)
		scr, _ := res["screen"].(string)
		return scr
	}
	waitScr := func(text string) string {
		deadline := time.Now().Add(30 * time.Second)
		for {
			scr := screen()
			if strings.Contains(scr, text) {
				return scr
			}
			if time.Now().After(deadline) {
				t.Fatalf("the screen never showed %q:\n%s", text, scr)
			}
			time.Sleep(50 * time.Millisecond) // polling a screen; no event says "drawn"
		}
	}
	waitScr("askcli READY")
	s.wait(func(m map[string]any) bool { return m["event"] == "roster" && hasParticipant(m, "Ask") })
	post := func(content string) {
		if r := s.do(map[string]any{"cmd": "post", "topic": topic, "content": content}); r["delivered"] != true {
			t.Fatalf("post %q: %v", content, r)
		}
	}
	from := s.mark()
	post("ask rm -rf build")
	s.waitFrom(from, func(m map[string]any) bool {
		a, _ := m["activity"].(map[string]any)
		return m["event"] == "activity" && a["state"] == "waiting" && a["signal"] == "PermissionRequest"
	})
	waitScr("Allow rm -rf build? [y/n]")
	post("yes please, and are you there?") // its letters must not answer
	s.waitFrom(from, func(m map[string]any) bool {
		held, _ := m["held"].(float64)
		return m["event"] == "activity" && held == 1 && m["hold"] == "waiting for your permission"
	})
	if scr := screen(); strings.Contains(scr, "ANSWER<") {
		t.Fatalf("the question was answered before the person did:\n%s", scr)
	}
	s.do(map[string]any{"cmd": "keys", "topic": topic, "account": "ask", "keys": "n\r"})
	scr := waitScr("GOT<yes please, and are you there?>")
	if strings.Count(scr, "GOT<yes please") != 1 || !strings.Contains(scr, "ANSWER<n>") ||
		strings.Index(scr, "ANSWER<n>") > strings.Index(scr, "GOT<yes please") {
		t.Fatalf("want the person's answer, then the held post once:\n%s", scr)
	}
}

// The person's own Claude settings keep working beside the launch's: their
// hooks run, and their status line is what the room's status line shows.
func TestRealClaudeKeepsThePersonsSettings(t *testing.T) {
	t.Parallel()
	c := newCLIRoom(t, roomAgent(nil))
	settingsPath := filepath.Join(c.home, ".claude", "settings.json")
	var settings map[string]any
	data, err := os.ReadFile(settingsPath)
	if err != nil || json.Unmarshal(data, &settings) != nil {
		t.Fatalf("the seeded settings: %v", err)
	}
	touched := filepath.Join(t.TempDir(), "own-hook-ran")
	settings["hooks"] = map[string]any{"SessionStart": []any{map[string]any{"hooks": []any{
		map[string]any{"type": "command", "command": "touch " + touched},
	}}}}
	settings["statusLine"] = map[string]any{"type": "command", "command": "echo MY-OWN-STATUS"}
	data, _ = json.Marshal(settings)
	if err := os.WriteFile(settingsPath, data, 0o600); err != nil {
		t.Fatal(err)
	}
	topic := c.topic()
	r := c.do(map[string]any{"cmd": "start", "topic": topic, "account": "claude"})
	if r["event"] != "start" {
		t.Fatalf("%v", r)
	}
	c.waitActivity(t, 0, topic, "claude", func(a map[string]any) bool { return a["state"] == "ready" && a["signal"] == "SessionStart" })
	c.waitScreen(t, topic, "claude", "MY-OWN-STATUS")
	if _, err := os.Stat(touched); err != nil {
		t.Fatalf("the person's own SessionStart hook did not run: %v", err)
	}
}

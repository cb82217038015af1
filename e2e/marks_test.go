package e2e

// Delivery marks with the real CLIs (issue 31 point 5): a post typed into a
// seat is marked typed, then received when the CLI's UserPromptSubmit hook
// carries its tag line; a post that waits behind a permission prompt is
// marked held with the reason first.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"pullcept/e2e/fakemodel"
)

func TestRealClaudeDeliveryMarks(t *testing.T) {
	t.Parallel()
	c := newCLIRoom(t, permAgent("Bash", func(cmd string) map[string]any {
		return map[string]any{"command": cmd, "description": "Run the check"}
	}))
	marksScenario(t, c, "claude", claudeName, "Do you want to proceed?", "\r")
}

func TestRealCodexDeliveryMarks(t *testing.T) {
	t.Parallel()
	c := newCLIRoom(t, permAgent("exec_command", func(cmd string) map[string]any {
		return map[string]any{"cmd": cmd, "sandbox_permissions": "require_escalated", "justification": "Run the check?"}
	}))
	marksScenario(t, c, "codex", codexName, "Would you like to run the following command?", "y")
}

// waitDelivery waits for serve's delivery line of post id in account's
// seat with the mark (and a why containing why).
func (c *cliRoom) waitDelivery(t *testing.T, from int, topic, account, id, mark, why string) map[string]any {
	t.Helper()
	return c.waitFrom(from, func(m map[string]any) bool {
		w, _ := m["why"].(string)
		return m["event"] == "delivery" && m["topic"] == topic && m["account"] == account && m["message_id"] == id &&
			m["mark"] == mark && strings.Contains(w, why)
	})
}

// marksOf are the marks serve reported for post id in account's seat, in
// order.
func (c *cliRoom) marksOf(topic, account, id string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, m := range c.lines {
		if m["event"] == "delivery" && m["topic"] == topic && m["account"] == account && m["message_id"] == id {
			out = append(out, m["mark"].(string))
		}
	}
	return out
}

func marksScenario(t *testing.T, c *cliRoom, account, name, prompt, approve string) {
	t.Helper()
	topic := c.topic()
	c.startSeat(t, topic, account, name)

	// A post typed into a ready CLI: typed, then received.
	from := c.mark()
	hello := c.post(t, topic, "@"+name+" hello", c.lastPostID(topic))
	c.waitDelivery(t, from, topic, account, hello, "received", "")
	c.waitPost(topic, name, "ack from "+name+": hello")
	c.waitActivity(t, from, topic, account, func(a map[string]any) bool { return a["state"] == "ready" && a["signal"] == "Stop" })

	// A post that arrives while a permission prompt is up: held with the
	// reason, then typed once the person approves, and received.
	marker := filepath.Join(c.cwd, "ran-marks")
	from = c.mark()
	run := c.post(t, topic, "@"+name+" run touch "+marker, c.lastPostID(topic))
	c.waitDelivery(t, from, topic, account, run, "received", "")
	c.waitActivity(t, from, topic, account, func(a map[string]any) bool { return a["state"] == "waiting" && a["wait"] == "permission" })
	c.waitScreen(t, topic, account, prompt)
	q := c.post(t, topic, "@"+name+" are you there?", c.lastPostID(topic))
	q2 := c.post(t, topic, "@"+name+" and now?", c.lastPostID(topic))
	for _, id := range []string{q, q2} {
		c.waitDelivery(t, from, topic, account, id, "held", "waiting for your permission")
	}
	time.Sleep(200 * time.Millisecond) // Claude refuses a dialog's keys for 150 ms after it paints it (hold_test.go)
	answered := c.mark()
	c.do(map[string]any{"cmd": "keys", "topic": topic, "account": account, "keys": approve})
	for _, id := range []string{q, q2} {
		c.waitDelivery(t, answered, topic, account, id, "received", "")
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}
	for _, id := range []string{hello, run, q, q2} {
		got := c.marksOf(topic, account, id)
		t.Logf("marks of %s: %q", id, got)
		if n := strings.Count(strings.Join(got, " "), "received"); n != 1 || got[len(got)-1] != "received" || strings.Contains(strings.Join(got, " "), "not_received") {
			t.Fatalf("the marks of %s: %q, want received once, last", id, got)
		}
	}
	for _, id := range []string{q, q2} {
		if got := c.marksOf(topic, account, id); got[0] != "held" {
			t.Fatalf("the held post's marks: %q", got)
		}
	}
}

// slowAgent is roomAgent, but a post whose body is "slow" is answered only
// after pause, the turn running with no tool (so nothing holds the seat
// and the typist types into a busy CLI, which queues the text).
func slowAgent(pause time.Duration) fakemodel.Behaviour {
	room := roomAgent(nil)
	return func(r fakemodel.Request) fakemodel.Reply {
		if _, body, ok := fakemodel.ParseTagged(r.LastUserTurn()); ok && body == "slow" && len(r.ResultsFor(fakemodel.SayToRoom)) == 0 {
			time.Sleep(pause) // the model "thinks"
		}
		return room(r)
	}
}

// TestRealClaudeMarksDuringATurn: a post typed while Claude's turn runs
// (the model "thinks", no tool holds the seat) is queued by Claude and
// given to the model inside the same turn after the next tool result,
// with no UserPromptSubmit (measured with 2.1.197); the transcript's
// "queued_command" record marks it received, never not received.
func TestRealClaudeMarksDuringATurn(t *testing.T) {
	t.Parallel()
	duringATurn(t, newCLIRoom(t, slowAgent(4*time.Second)))
}

func duringATurn(t *testing.T, c *cliRoom) {
	t.Helper()
	topic := c.topic()
	c.startSeat(t, topic, "claude", claudeName)
	from := c.mark()
	slow := c.post(t, topic, "@"+claudeName+" slow", c.lastPostID(topic))
	c.waitDelivery(t, from, topic, "claude", slow, "received", "")
	next := c.post(t, topic, "@"+claudeName+" second", c.lastPostID(topic))
	c.waitDelivery(t, from, topic, "claude", next, "typed", "")
	c.waitPost(topic, claudeName, "ack from "+claudeName+": slow")
	c.waitDelivery(t, from, topic, "claude", next, "received", "")
	// The model did get it (framed as a reminder inside the turn).
	seen := false
	for _, r := range c.model.Requests() {
		seen = seen || (agentOf(r) == claudeName && strings.Contains(string(r.Body), next))
	}
	if !seen {
		t.Fatal("no request of Claude's carried the post typed during the turn")
	}
	got := c.marksOf(topic, "claude", next)
	t.Logf("marks of the post typed during the turn: %q", got)
	if !slices.Equal(got, []string{"typed", "received"}) {
		t.Fatalf("the marks of the post typed during the turn: %q", got)
	}
}

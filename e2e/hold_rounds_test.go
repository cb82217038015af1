package e2e

// Posts held behind Claude's permission prompt, over several rounds of
// approve and decline with one to three held posts (issue 31, point 5, and
// "When a held post is released" in docs/decisions.md): each post reaches
// the model exactly once, each approved command runs once, a declined one
// never.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"pullcept/e2e/fakemodel"
)

// holdRound is one round: the person approves (or declines) the prompt
// while held posts wait.
type holdRound struct {
	approve bool
	held    int
	// tell: after the command, the model goes on in the same turn with a
	// room tool call (tellAfterRun) before it ends the turn.
	tell bool
}

var holdRounds = []holdRound{{true, 1, false}, {false, 2, false}, {true, 3, true}, {true, 2, false}, {false, 1, false}, {true, 1, true}}

// tellAfterRun: a "run CMD # tell" post makes the model, once the command
// ran, call say_to_room ("ran it") in the same turn, then end it.
func tellAfterRun(b fakemodel.Behaviour) fakemodel.Behaviour {
	return func(r fakemodel.Request) fakemodel.Reply {
		tag, body, ok := fakemodel.ParseTagged(r.LastUserTurn())
		if !ok || !strings.HasSuffix(body, " # tell") || len(r.ResultsFor("Bash")) == 0 {
			return b(r)
		}
		if len(r.ResultsFor(fakemodel.SayToRoom)) > 0 {
			return fakemodel.Say("done")
		}
		return fakemodel.Call(fakemodel.SayToRoom, map[string]any{"content": "ran it", "last_seen": tag.MessageID})
	}
}

// slowAfterTool delays the model's answer to a request carrying a Bash
// result: by 600 ms, so a post typed as the tool ends would land while that
// turn still runs; HOLD_DELAY (durations, comma-separated, used in turn)
// overrides it for measurements.
func slowAfterTool(b fakemodel.Behaviour) fakemodel.Behaviour {
	ds := []time.Duration{600 * time.Millisecond}
	if v := os.Getenv("HOLD_DELAY"); v != "" {
		ds = nil
	}
	for _, f := range strings.Split(os.Getenv("HOLD_DELAY"), ",") {
		if d, err := time.ParseDuration(f); err == nil {
			ds = append(ds, d)
		}
	}
	var mu sync.Mutex
	n := 0
	return func(r fakemodel.Request) fakemodel.Reply {
		if len(ds) > 0 && len(r.ResultsFor("Bash")) > 0 {
			mu.Lock()
			d := ds[n%len(ds)]
			n++
			mu.Unlock()
			time.Sleep(d)
		}
		return b(r)
	}
}

func TestRealClaudeHeldRounds(t *testing.T) {
	t.Parallel()
	c := newCLIRoom(t, slowAfterTool(tellAfterRun(permAgent("Bash", func(cmd string) map[string]any {
		return map[string]any{"command": cmd, "description": "Run the check"}
	}))))
	heldRounds(t, c)
}

func heldRounds(t *testing.T, c *cliRoom) {
	t.Helper()
	const account, name, prompt = "claude", claudeName, "Do you want to proceed?"
	topic := c.topic()
	c.startSeat(t, topic, account, name)
	var ids []string
	for i, rd := range holdRounds {
		label := fmt.Sprintf("round %d (%s, %d held, tell %v)", i+1, map[bool]string{true: "approve", false: "decline"}[rd.approve], rd.held, rd.tell)
		file := filepath.Join(c.cwd, fmt.Sprintf("runs-%d", i+1))
		from := c.mark()
		reqFrom := len(c.model.Requests())
		run := "@" + name + " run echo ran >> " + file
		if rd.tell {
			run += " # tell"
		}
		c.post(t, topic, run, c.lastPostID(topic))
		c.waitActivity(t, from, topic, account, func(a map[string]any) bool {
			return a["state"] == "waiting" && a["wait"] == "permission"
		})
		c.waitScreen(t, topic, account, prompt)
		var held []string
		for j := range rd.held {
			held = append(held, c.post(t, topic, fmt.Sprintf("@%s are you there? (%d.%d)", name, i+1, j+1), c.lastPostID(topic)))
		}
		c.waitHeld(t, from, topic, account, rd.held, "waiting for your permission")
		time.Sleep(200 * time.Millisecond) // Claude 2.1.332 refuses a dialog's keys for 150 ms after it paints it
		keys := "\x1b"
		if rd.approve {
			keys = "\r"
		}
		answered, answeredMark := time.Now(), c.mark()
		c.do(map[string]any{"cmd": "keys", "topic": topic, "account": account, "keys": keys})
		done := c.waitRoundDone(t, label, held)
		if os.Getenv("HOLD_MEASURE") != "" || !done {
			c.logRound(t, label, from, reqFrom, answered)
		}
		if !done {
			t.FailNow()
		}
		want := 0
		if rd.approve {
			want = 1
		}
		data, _ := os.ReadFile(file)
		if got := strings.Count(string(data), "ran"); got != want {
			t.Errorf("%s: the command ran %d times, want %d", label, got, want)
		}
		// After "Yes" the posts are released when the turn ends, not when
		// the tool does (docs/decisions.md "When a held post is released").
		if rd.approve {
			if released, stop := c.releasedAt(answeredMark), c.signalAt(answeredMark, "Stop"); released < 0 || stop < 0 || released < stop {
				t.Errorf("%s: the posts were released at line %d, the turn ended at line %d", label, released, stop)
			}
		}
		ids = append(ids, held...)
	}
	// The newest request carries the whole conversation.
	q := c.post(t, topic, "@"+name+" last one", c.lastPostID(topic))
	if !c.waitRoundDone(t, "the last post", []string{q}) {
		t.FailNow()
	}
	last := lastRequestOf(c.model)
	for _, id := range ids {
		if n := userTextsWith(last, id); n != 1 {
			t.Errorf("post %s reached the model in %d user turns, want 1", id, n)
		}
	}
	for _, r := range c.model.Requests() {
		for _, res := range r.AllResults {
			if strings.Contains(res.Output, "interrupted") && !strings.Contains(res.Output, "doesn't want to proceed") {
				t.Errorf("a tool result says it was interrupted: %q", res.Output)
				break
			}
		}
	}
}

// waitRoundDone waits until the model has received every post of ids and
// the seat is ready again with nothing held.
func (c *cliRoom) waitRoundDone(t *testing.T, label string, ids []string) bool {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		seen := 0
		for _, id := range ids {
			if firstRequestWith(c.model, id) >= 0 {
				seen++
			}
		}
		if seen == len(ids) && c.seatIdle("claude") {
			return true
		}
		if time.Now().After(deadline) {
			t.Errorf("%s: the model got %d of %d held posts; screen:\n%s", label, seen, len(ids), c.screenOf(t, c.topicsSeen()[0], "claude"))
			return false
		}
		time.Sleep(100 * time.Millisecond) // the model's record and the activity events are polled together
	}
}

// seatIdle: the newest activity event of account says ready, and the
// newest hold report holds nothing.
func (c *cliRoom) seatIdle(account string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	state, held := "", -1
	for i := len(c.lines) - 1; i >= 0 && (state == "" || held < 0); i-- {
		l := c.lines[i]
		if l["event"] != "activity" || l["account"] != account {
			continue
		}
		if a, ok := l["activity"].(map[string]any); ok && state == "" {
			state, _ = a["state"].(string)
		}
		if h, ok := l["held"].(float64); ok && held < 0 {
			held = int(h)
		} else if _, ok := l["hold"]; !ok && held < 0 && l["activity"] == nil {
			held = 0
		}
	}
	return state == "ready" && held <= 0
}

// firstRequestWith is the index of the first request whose user text
// carries id, or -1.
func firstRequestWith(m *fakemodel.Server, id string) int {
	for i, r := range m.Requests() {
		if r.API == fakemodel.Anthropic && userTextsWith(r, id) > 0 {
			return i
		}
	}
	return -1
}

// userTextsWith counts the user text blocks of r that carry id, and the
// "system" entries among its messages: Claude gives a post submitted while
// its turn runs as such an entry after the next tool result ("The user sent
// a new message while you were working: …"), which UserTurns leaves out.
// Tool results are not counted (the floor's refusal quotes missed posts).
func userTextsWith(r fakemodel.Request, id string) int {
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(r.Body, &body) != nil {
		return 0
	}
	n := 0
	for _, m := range body.Messages {
		if m.Role != "user" && m.Role != "system" {
			continue
		}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			n += min(strings.Count(s, id), 1)
			continue
		}
		var blocks []struct{ Type, Text string }
		_ = json.Unmarshal(m.Content, &blocks)
		for _, b := range blocks {
			if b.Type == "text" && strings.Contains(b.Text, id) {
				n++
			}
		}
	}
	return n
}

// lastRequestOf is the newest main (not side) Claude request.
func lastRequestOf(m *fakemodel.Server) fakemodel.Request {
	var last fakemodel.Request
	for _, r := range m.Requests() {
		if r.API == fakemodel.Anthropic && !r.Side {
			last = r
		}
	}
	return last
}

// logRound logs the round's timeline relative to the answer key.
func (c *cliRoom) logRound(t *testing.T, label string, from, reqFrom int, answered time.Time) {
	t.Helper()
	var b strings.Builder
	rel := func(at time.Time) string {
		return fmt.Sprintf("%+8.0fms", float64(at.Sub(answered).Microseconds())/1000)
	}
	type ev struct {
		at   time.Time
		text string
	}
	var evs []ev
	c.mu.Lock()
	for i := from; i < len(c.lines); i++ {
		l := c.lines[i]
		if l["event"] != "activity" || l["account"] != "claude" {
			continue
		}
		if a, ok := l["activity"].(map[string]any); ok {
			evs = append(evs, ev{c.at[i], fmt.Sprintf("activity %v (%v) hold=%q", a["state"], a["signal"], a["hold"])})
		} else {
			evs = append(evs, ev{c.at[i], fmt.Sprintf("held %v %q", l["held"], l["hold"])})
		}
	}
	c.mu.Unlock()
	for _, r := range c.model.Requests()[reqFrom:] {
		if r.API != fakemodel.Anthropic || r.Side {
			continue
		}
		var res []string
		for _, x := range r.ToolResults {
			res = append(res, x.Tool+"="+oneLine(x.Output, 60))
		}
		evs = append(evs, ev{r.At, fmt.Sprintf("model request: last user turn %q results %v tail %s -> %s%s", oneLine(r.LastUserTurn(), 90), res, oneLine(lastUserRaw(r), 400), r.Reply.Tool, r.Reply.Text)})
	}
	for i := range evs {
		for j := i + 1; j < len(evs); j++ {
			if evs[j].at.Before(evs[i].at) {
				evs[i], evs[j] = evs[j], evs[i]
			}
		}
	}
	for _, e := range evs {
		fmt.Fprintf(&b, "%s %s\n", rel(e.at), e.text)
	}
	t.Logf("%s, relative to the answer key:\n%s", label, b.String())
}

func oneLine(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", "⏎")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// lastUserRaw is the raw content of r's last user message.
func lastUserRaw(r fakemodel.Request) string {
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(r.Body, &body)
	for i := len(body.Messages) - 1; i >= 0; i-- {
		if body.Messages[i].Role == "user" {
			return string(body.Messages[i].Content)
		}
	}
	return ""
}

// releasedAt is the index of the first serve line from from on that
// reports Lin's terminal holding nothing, or -1.
func (c *cliRoom) releasedAt(from int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := from; i < len(c.lines); i++ {
		l := c.lines[i]
		if l["event"] == "activity" && l["account"] == "claude" && l["activity"] == nil && l["held"] == nil {
			return i
		}
	}
	return -1
}

// signalAt is the index of the first activity line of Lin from from on
// decided by signal, or -1.
func (c *cliRoom) signalAt(from int, signal string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := from; i < len(c.lines); i++ {
		if a, ok := c.lines[i]["activity"].(map[string]any); ok && c.lines[i]["account"] == "claude" && a["signal"] == signal {
			return i
		}
	}
	return -1
}

package e2e

// Agents that talk in circles (issue 36): scripted agents on the official
// MCP TypeScript SDK (testdata/loop_agent.mjs) that always answer each
// other, run by `pullcept serve` in real PTYs with a budget of 3.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"pullcept/seat"
	"pullcept/sidecar"
)

const loopBudget = 3

type loopAgent struct{ id, name, answer string }

type loopRoom struct {
	*serve
	topic, out string
}

// startLoopRoom runs serve with the agents seated in a new topic and the
// loop rule mode, and waits until every agent sits in the room.
func startLoopRoom(t *testing.T, mode string, max int, agents ...loopAgent) *loopRoom {
	t.Helper()
	_, prefix := nodeSDK(t)
	script := filepath.Join(repoRoot(t), "e2e", "testdata", "loop_agent.mjs")
	phome, cwd, out := t.TempDir(), t.TempDir(), t.TempDir()
	var accs []string
	for _, a := range agents {
		accs = append(accs, fmt.Sprintf(`{"id":%q,"name":%q,"kind":"cli","dir":%q,"command":"node %s {mcp_config}","env":{"ANSWER":%q,"MAX":"%d"}}`, a.id, a.name, cwd, script, a.answer, max))
	}
	cfg := fmt.Sprintf(`{"accounts":[%s],"agent_posts_per_person_post":%d,"agent_loop":%q,"notify":{"agent_loop":"mark"}}`, strings.Join(accs, ","), loopBudget, mode)
	if err := os.WriteFile(filepath.Join(phome, "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServeEnv(t, phome, append(os.Environ(), "SDK_PREFIX="+prefix, "AGENT_OUT="+out))
	r := &loopRoom{serve: s, topic: s.topic(), out: out}
	for _, a := range agents {
		if res := s.do(map[string]any{"cmd": "start", "topic": r.topic, "account": a.id}); res["event"] != "start" {
			t.Fatalf("start %s: %v", a.id, res)
		}
	}
	s.wait(func(m map[string]any) bool {
		if m["event"] != "roster" || m["topic"] != r.topic {
			return false
		}
		for _, a := range agents {
			if !hasParticipant(m, a.name) {
				return false
			}
		}
		return true
	})
	return r
}

// posts are the ids of the topic's posts as serve reported them, in order,
// the agents' alone when agents.
func (r *loopRoom) posts(agents bool) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ids []string
	for _, m := range r.lines {
		p, _ := m["post"].(map[string]any)
		if m["event"] == "post" && m["topic"] == r.topic && (!agents || m["role"] == "cli") {
			ids = append(ids, p["message_id"].(string))
		}
	}
	return ids
}

// typed are the posts typed into account's terminal, in order (ids, once
// each); only those among ids when ids is not nil.
func (r *loopRoom) typed(account string, ids []string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, m := range r.lines {
		id, _ := m["message_id"].(string)
		if m["event"] == "delivery" && m["topic"] == r.topic && m["account"] == account && typedMark(m["mark"]) && !slices.Contains(out, id) && (ids == nil || slices.Contains(ids, id)) {
			out = append(out, id)
		}
	}
	return out
}

// typedMark: the post's \r was written (a cli seat's mark goes from typed
// to unknown: no receipt is known for it).
func typedMark(mark any) bool { return mark == "typed" || mark == "received" || mark == "unknown" }

// typedAgentPosts is how many agents' posts were typed into some terminal.
func (r *loopRoom) typedAgentPosts(accounts ...string) int {
	agents := r.posts(true)
	seen := map[string]bool{}
	for _, a := range accounts {
		for _, id := range r.typed(a, agents) {
			seen[id] = true
		}
	}
	return len(seen)
}

// personPost posts as the person after the newest post (again after what
// the floor returns) and returns its id.
func (r *loopRoom) personPost(t *testing.T, content string) string {
	t.Helper()
	last := ""
	if ids := r.posts(false); len(ids) > 0 {
		last = ids[len(ids)-1]
	}
	for range 10 {
		res := r.do(map[string]any{"cmd": "post", "topic": r.topic, "content": content, "last_seen": last})
		if res["delivered"] == true {
			return res["message_id"].(string)
		}
		missed, _ := res["missed"].([]any)
		if len(missed) == 0 {
			t.Fatalf("post: %v", res)
		}
		last = missed[len(missed)-1].(map[string]any)["message_id"].(string)
	}
	t.Fatal("the person's post was refused ten times")
	return ""
}

// until polls f (the agents work on their own) with a generous deadline.
func (r *loopRoom) until(t *testing.T, what string, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !f() {
		if time.Now().After(deadline) {
			for _, acc := range []string{"lin", "lay", "lou"} {
				t.Logf("%s's screen: %v", acc, r.do(map[string]any{"cmd": "screen", "topic": r.topic, "account": acc}))
			}
			t.Fatalf("never: %s (agent posts %d)", what, len(r.posts(true)))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// quiet asserts that no agent post is typed anywhere for a while: the held
// posts stay held. A negative can only be watched for a time.
func (r *loopRoom) quiet(t *testing.T, accounts ...string) {
	t.Helper()
	agents := r.posts(true)
	n := r.typedAgentPosts(accounts...)
	if l := r.scanFrom(r.mark(), 3*time.Second, func(m map[string]any) bool {
		id, _ := m["message_id"].(string)
		return m["event"] == "delivery" && typedMark(m["mark"]) && !slices.Contains(agents, id) || m["event"] == "post" && m["role"] == "cli"
	}); l != nil {
		t.Fatalf("agents went on past the budget: %v (typed %d before)", l, n)
	}
}

// answers are the say_to_room answers account's agent got.
func (r *loopRoom) answers(t *testing.T, account string) []string {
	b, _ := os.ReadFile(filepath.Join(r.out, "answers-"+account+".jsonl"))
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var a struct{ Text string }
		if json.Unmarshal([]byte(l), &a) == nil {
			out = append(out, a.Text)
		}
	}
	return out
}

// nothingLost: every post serve reported is in the topic's log, in order.
func (r *loopRoom) nothingLost(t *testing.T) {
	t.Helper()
	want := r.posts(false)
	got := r.do(map[string]any{"cmd": "open", "topic": r.topic, "limit": 500})
	var ids []string
	for _, p := range got["posts"].([]any) {
		ids = append(ids, p.(map[string]any)["message_id"].(string))
	}
	if !slices.Equal(ids[len(ids)-len(want):], want) {
		t.Fatalf("the log %v\nlacks posts of %v", ids, want)
	}
}

func (r *loopRoom) loopEvents() []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []map[string]any
	for _, m := range r.lines {
		if m["event"] == "agent_loop" && m["topic"] == r.topic {
			out = append(out, m)
		}
	}
	return out
}

// TestLoopTellSignalsAtTheBudget: in tell mode the person is told once at
// the budget ("Lin and Lay have exchanged 3 posts without you") and every
// post is typed as before; nothing is lost from the log.
func TestLoopTellSignalsAtTheBudget(t *testing.T) {
	t.Parallel()
	r := startLoopRoom(t, seat.AgentLoopTell, 4, loopAgent{"lin", "Lin", "Master,Lay"}, loopAgent{"lay", "Lay", "Lin"})
	r.personPost(t, "begin")
	// Lin answers the person and three of Lay's; Lay answers Lin's four.
	r.until(t, "eight agent posts typed", func() bool { return r.typedAgentPosts("lin", "lay") == 8 })
	ev := r.loopEvents()
	if len(ev) != 1 || ev[0]["text"] != "Lin and Lay have exchanged 3 posts without you" || ev[0]["held"] != 0.0 || ev[0]["reached"] != true {
		t.Fatalf("agent_loop events %v", ev)
	}
	for _, acc := range []string{"lin", "lay"} {
		for _, a := range r.answers(t, acc) {
			if strings.Contains(a, "Held by the loop budget") {
				t.Fatalf("%s was told of a hold in tell mode: %q", acc, a)
			}
		}
	}
	if l := r.do(map[string]any{"cmd": "loop", "topic": r.topic}); l["count"] != 8.0 || l["mode"] != "tell" {
		t.Fatalf("loop state %v", l)
	}
	if l := r.do(map[string]any{"cmd": "go_on", "topic": r.topic}); l["released"] != false {
		t.Fatalf("go_on in tell mode: %v", l)
	}
	r.nothingLost(t)
}

// TestLoopHoldTypesTheBudgetGoOnAndPersonRelease: in hold mode exactly the
// budget of agent posts is typed after the person's post, the next is
// logged and held (its speaker told so in say_to_room's answer); go_on
// types another budget; the person's post types the held one before
// itself; nothing is lost from the log.
func TestLoopHoldTypesTheBudgetGoOnAndPersonRelease(t *testing.T) {
	t.Parallel()
	r := startLoopRoom(t, seat.AgentLoopHold, 20, loopAgent{"lin", "Lin", "Master,Lay"}, loopAgent{"lay", "Lay", "Lin"})
	r.personPost(t, "begin")
	heldEv := func(held float64, limit float64) func() bool {
		return func() bool {
			for _, e := range r.loopEvents() {
				if e["held"] == held && e["limit"] == limit {
					return true
				}
			}
			return false
		}
	}
	r.until(t, "the fourth agent post held", heldEv(1, loopBudget))
	r.quiet(t, "lin", "lay")
	agents := r.posts(true)
	if len(agents) != 4 || r.typedAgentPosts("lin", "lay") != loopBudget {
		t.Fatalf("%d agent posts, %d typed: want 4 and the budget", len(agents), r.typedAgentPosts("lin", "lay"))
	}
	if a := r.answers(t, "lay"); len(a) != 2 || !strings.HasPrefix(a[1], sidecar.DeliveredPrefix) || strings.Split(a[1], "\n")[1] != sidecar.LoopHeldLine(loopBudget) {
		t.Fatalf("lay's answers %q: the second held, said on its second line", a)
	}
	held := agents[3]
	if n := r.count(func(m map[string]any) bool {
		return m["event"] == "delivery" && m["message_id"] == held && m["account"] == "lin" && m["mark"] == "held" && m["why"] == seat.HoldLoop
	}); n == 0 {
		t.Fatal("the held post has no held mark in lin's seat")
	}

	// go_on: the held post and the next ones, up to another budget.
	if l := r.do(map[string]any{"cmd": "go_on", "topic": r.topic}); l["released"] != true || l["limit"] != 2.0*loopBudget {
		t.Fatalf("go_on: %v", l)
	}
	r.until(t, "the seventh agent post held", heldEv(1, 2*loopBudget))
	r.quiet(t, "lin", "lay")
	if n := r.typedAgentPosts("lin", "lay"); n != 2*loopBudget || len(r.posts(true)) != 2*loopBudget+1 {
		t.Fatalf("after go_on %d typed of %d: want another budget", n, len(r.posts(true)))
	}

	// The person's post: the held one (Lin's, for Lay) typed before it.
	held = r.posts(true)[2*loopBudget]
	mine := r.personPost(t, "enough")
	r.until(t, "the person's post typed into lay", func() bool { return slices.Contains(r.typed("lay", nil), mine) })
	order := r.typed("lay", []string{held, mine})
	if !slices.Equal(order, []string{held, mine}) {
		t.Fatalf("typed into lay: %v, want the held %s before the person's %s", order, held, mine)
	}
	r.nothingLost(t)
}

// TestLoopHoldRingOfThree: three agents answering in a ring are held at the
// budget in every other seat; the person's post releases them first.
func TestLoopHoldRingOfThree(t *testing.T) {
	t.Parallel()
	r := startLoopRoom(t, seat.AgentLoopHold, 20, loopAgent{"lin", "Lin", "Master,Lou"}, loopAgent{"lay", "Lay", "Lin"}, loopAgent{"lou", "Lou", "Lay"})
	r.personPost(t, "begin")
	r.until(t, "the fourth agent post held", func() bool { return len(r.posts(true)) == 4 })
	r.quiet(t, "lin", "lay", "lou")
	held := r.posts(true)[3] // Lin's second, for Lay and Lou
	if n := r.typedAgentPosts("lin", "lay", "lou"); n != loopBudget {
		t.Fatalf("%d agent posts typed, want the budget", n)
	}
	if ev := r.loopEvents(); len(ev) < 2 || ev[0]["text"] != "Lin, Lay and Lou have exchanged 3 posts without you" {
		t.Fatalf("agent_loop events %v", ev)
	}
	mine := r.personPost(t, "stop")
	for _, acc := range []string{"lay", "lou"} {
		r.until(t, "the person's post typed into "+acc, func() bool { return slices.Contains(r.typed(acc, nil), mine) })
		if order := r.typed(acc, []string{held, mine}); !slices.Equal(order, []string{held, mine}) {
			t.Fatalf("typed into %s: %v, want the held post first", acc, order)
		}
	}
	r.nothingLost(t)
}

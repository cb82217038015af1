package e2e

// The real Claude Code and Codex CLIs as seats of `pullcept serve`, driven
// offline by the scripted model endpoint (e2e/fakemodel). Scenarios of the
// issue "End to end with the real Claude Code and Codex CLIs". Every
// scenario runs the newest CLIs (.cache/npm-latest, CLAUDE_CODE_LATEST in
// .ci/install-clis.sh); the tests named Oldest run the oldest supported
// Claude Code (.cache/npm, CLAUDE_CODE_VERSION) where it matters: the
// conversation, the resume and the permission hold.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"pullcept/e2e/clihome"
	"pullcept/e2e/fakemodel"
)

// names of the two agents: Claude is Lin, Codex is Lay.
const (
	claudeName = "Lin"
	codexName  = "Lay"
)

func agentOf(r fakemodel.Request) string {
	if r.API == fakemodel.Anthropic {
		return claudeName
	}
	return codexName
}

var missedID = regexp.MustCompile(`message_id: (\S+)`)

// roomAgent is the scripted model: an agent answers an admin post that is
// addressed to it (or to the whole room) with say_to_room("ack from NAME:
// BODY", last_seen = the tag's id); a refusal by the floor makes it resend
// the draft (content omitted) with the newest missed id; posts of other
// agents are only noted. gate, if set, is called before answering a
// room-wide post (the floor scenario holds both agents there).
func roomAgent(gate func(name string)) fakemodel.Behaviour {
	return func(r fakemodel.Request) fakemodel.Reply {
		tag, body, ok := fakemodel.ParseTagged(r.LastUserTurn())
		if !ok {
			return fakemodel.Say("ok")
		}
		me := agentOf(r)
		if draft, ok := pendingDraft(r); ok {
			return draft
		}
		if res := r.ResultsFor(fakemodel.SayToRoom); len(res) > 0 {
			return fakemodel.Say("done")
		}
		if tag.Role != "admin" || (len(tag.To) > 0 && !slices.Contains(tag.To, me)) {
			return fakemodel.Say("noted")
		}
		if gate != nil && len(tag.To) == 0 {
			gate(me)
		}
		return fakemodel.Call(fakemodel.SayToRoom, map[string]any{"content": "ack from " + me + ": " + body, "last_seen": tag.MessageID})
	}
}

// pendingDraft: the agent's newest say_to_room in the conversation was
// refused by the floor (fewer than 3 times): resend the draft with the
// newest missed id, whatever was typed in since.
func pendingDraft(r fakemodel.Request) (fakemodel.Reply, bool) {
	refused := 0
	var last fakemodel.ToolResult
	for _, res := range r.AllResults {
		if strings.HasSuffix(res.Tool, "__"+fakemodel.SayToRoom) {
			last = res
			if strings.Contains(res.Output, "Not delivered: nothing was posted") {
				refused++
			}
		}
	}
	if !strings.Contains(last.Output, "Not delivered: nothing was posted") || refused >= 3 {
		return fakemodel.Reply{}, false
	}
	ids := missedID.FindAllStringSubmatch(last.Output, -1)
	if len(ids) == 0 {
		return fakemodel.Reply{}, false
	}
	return fakemodel.Call(fakemodel.SayToRoom, map[string]any{"last_seen": ids[len(ids)-1][1]}), true
}

// cliRoom is a serve run whose config has the two real CLIs as accounts.
type cliRoom struct {
	*serve
	model *fakemodel.Server
	cwd   string
	home  string // HOME of the CLIs
	phome string // PULLCEPT_HOME
	env   []string
}

// newCLIRoom is a room of the newest CLIs.
func newCLIRoom(t *testing.T, b fakemodel.Behaviour) *cliRoom {
	t.Helper()
	return newCLIRoomWith(t, b, roomOptions{bins: newestBins(t)})
}

// newOldestRoom is a room of the oldest supported Claude Code (and the
// pinned Codex).
func newOldestRoom(t *testing.T, b fakemodel.Behaviour) *cliRoom {
	t.Helper()
	bins, err := clihome.FindBins()
	if err != nil {
		required(t, err.Error())
	}
	return newCLIRoomWith(t, b, roomOptions{bins: bins})
}

// newestBins are the newest CLIs (skipped or failed as required says when
// absent).
func newestBins(t *testing.T) clihome.Bins {
	t.Helper()
	bins, err := clihome.FindLatestBins()
	if err != nil {
		required(t, err.Error())
	}
	return bins
}

// roomOptions are what newCLIRoomWith varies.
type roomOptions struct {
	bins clihome.Bins // the CLIs to run
	// claudeCommand is the Claude account's command ("" for the kind's
	// default), e.g. "claude --permission-mode default".
	claudeCommand string
	// claudeEnv is the Claude account's env.
	claudeEnv map[string]string
	// config is more of config.json's top-level keys, e.g.
	// `"hibernate_after":"3s"` ("" none).
	config string
}

func newCLIRoomWith(t *testing.T, b fakemodel.Behaviour, o roomOptions) *cliRoom {
	t.Helper()
	bins := o.bins
	model := fakemodel.Start(t, b)
	cwd := t.TempDir()
	h := clihome.New(t, clihome.Options{BaseURL: model.URL, Cwd: cwd, MCPServers: []string{"pullcept"}})
	phome := t.TempDir()
	claudeEnv, _ := json.Marshal(o.claudeEnv)
	cfg := fmt.Sprintf(`{"accounts":[{"id":"claude","name":%q,"kind":"claude_code","dir":%q,"command":%q,"env":%s},{"id":"codex","name":%q,"kind":"codex","dir":%q}]}`,
		claudeName, cwd, o.claudeCommand, claudeEnv, codexName, cwd)
	if o.config != "" {
		cfg = "{" + o.config + "," + cfg[1:]
	}
	if err := os.WriteFile(filepath.Join(phome, "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := make([]string, 0, len(h.Env)+1)
	for _, kv := range h.Env {
		if strings.HasPrefix(kv, "PATH=") {
			kv = "PATH=" + bins.Dir + ":" + strings.TrimPrefix(kv, "PATH=")
		}
		env = append(env, kv)
	}
	cr := &cliRoom{model: model, cwd: cwd, home: h.Dir, phome: phome, env: env}
	cr.restart(t)
	return cr
}

// restart starts a new serve on the same homes (the old one, if any, is
// stopped first).
func (c *cliRoom) restart(t *testing.T) {
	t.Helper()
	if c.serve != nil {
		c.serve.stop()
	}
	c.serve = startServeEnv(t, c.phome, c.env)
	s := c.serve
	t.Cleanup(func() { // runs before serve's own cleanup: the seats still run
		if !t.Failed() {
			return
		}
		for _, acc := range []string{"claude", "codex"} {
			for _, topic := range c.topicsSeen() {
				r := s.do(map[string]any{"cmd": "screen", "topic": topic, "account": acc})
				if res, ok := r["result"].(map[string]any); ok {
					t.Logf("screen of %s in %s:\n%s", acc, topic, res["screen"])
				}
			}
		}
	})
}

func (c *cliRoom) topicsSeen() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := map[string]bool{}
	var out []string
	for _, l := range c.lines {
		if l["event"] == "seat" {
			if t, _ := l["topic"].(string); t != "" && !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// startSeat starts account in topic and waits until its CLI shows its
// prompt and its sidecar sits in the room.
func (c *cliRoom) startSeat(t *testing.T, topic, account, name string) map[string]any {
	t.Helper()
	from := c.mark()
	r := c.do(map[string]any{"cmd": "start", "topic": topic, "account": account})
	if r["event"] != "start" {
		t.Fatalf("start %s: %v", account, r)
	}
	c.wait(func(m map[string]any) bool {
		return m["event"] == "roster" && m["topic"] == topic && hasParticipant(m, name)
	})
	if account == "claude" {
		// The room's status line replaces Claude's "? for shortcuts" hint;
		// SessionStart says Claude is up.
		c.waitActivity(t, from, topic, account, func(a map[string]any) bool { return a["state"] == "ready" })
		c.waitScreen(t, topic, account, "pullcept ·")
	} else {
		c.waitScreen(t, topic, account, "for shortcuts") // Codex's prompt hint
		// The seat's hooks are trusted by the launch itself: Codex must not
		// stop at start to ask the person to review them.
		if scr := c.screenOf(t, topic, account); strings.Contains(scr, "Hooks need review") {
			t.Fatalf("the Codex seat started behind the hook review dialog:\n%s", scr)
		}
	}
	return r["result"].(map[string]any)
}

// waitActivity waits for an activity event of account in topic whose
// activity matches (the event's "activity" object).
func (c *cliRoom) waitActivity(t *testing.T, from int, topic, account string, match func(a map[string]any) bool) map[string]any {
	t.Helper()
	m := c.waitFrom(from, func(m map[string]any) bool {
		a, _ := m["activity"].(map[string]any)
		return m["event"] == "activity" && m["topic"] == topic && m["account"] == account && a != nil && match(a)
	})
	return m["activity"].(map[string]any)
}

// waitHeld waits for an activity event saying account's terminal in topic
// holds n posts for a reason containing why.
func (c *cliRoom) waitHeld(t *testing.T, from int, topic, account string, n int, why string) {
	t.Helper()
	c.waitFrom(from, func(m map[string]any) bool {
		held, _ := m["held"].(float64)
		hold, _ := m["hold"].(string)
		return m["event"] == "activity" && m["topic"] == topic && m["account"] == account && int(held) == n && strings.Contains(hold, why)
	})
}

func hasParticipant(m map[string]any, name string) bool {
	ps, _ := m["participants"].([]any)
	for _, p := range ps {
		if p.(map[string]any)["name"] == name {
			return true
		}
	}
	return false
}

// waitScreen polls a seat's screen until it contains text.
func (c *cliRoom) waitScreen(t *testing.T, topic, account, text string) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	last := ""
	for time.Now().Before(deadline) {
		r := c.do(map[string]any{"cmd": "screen", "topic": topic, "account": account})
		if res, ok := r["result"].(map[string]any); ok {
			last, _ = res["screen"].(string)
			if strings.Contains(last, text) {
				return last
			}
		}
		time.Sleep(100 * time.Millisecond) // polling a screen; no event says "drawn"
	}
	t.Fatalf("%s's screen never showed %q; last screen:\n%s", account, text, last)
	return ""
}

// post makes an admin post and returns its message id.
func (c *cliRoom) post(t *testing.T, topic, content, lastSeen string) string {
	t.Helper()
	r := c.do(map[string]any{"cmd": "post", "topic": topic, "content": content, "last_seen": lastSeen})
	if r["delivered"] != true {
		t.Fatalf("post %q: %v", content, r)
	}
	return r["message_id"].(string)
}

// waitPost waits for a delivered post in topic whose content has text.
func (c *cliRoom) waitPost(topic, speaker, text string) map[string]any {
	m := c.wait(func(m map[string]any) bool {
		p, _ := m["post"].(map[string]any)
		return m["event"] == "post" && m["topic"] == topic && p["speaker"] == speaker && strings.Contains(p["content"].(string), text)
	})
	return m
}

// modelSaw waits until the model got a user turn from agent whose tag
// matches.
func (c *cliRoom) modelSaw(t *testing.T, agent string, match func(tag map[string]any, body string) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err := c.model.Wait(ctx, func(reqs []fakemodel.Request) bool {
		for _, r := range reqs {
			if agentOf(r) != agent {
				continue
			}
			for _, turn := range r.UserTurns {
				tag, body, ok := fakemodel.ParseTagged(turn)
				if !ok {
					continue
				}
				b, _ := json.Marshal(tag)
				var m map[string]any
				json.Unmarshal(b, &m)
				if match(m, body) {
					return true
				}
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("%s's model never saw the awaited input: %v", agent, err)
	}
}

// logged reads a topic's log through `pullcept topics show --json`.
func (c *cliRoom) logged(t *testing.T, topic string) []map[string]any {
	t.Helper()
	out := run(t, c.phome, "topics", "show", topic, "--json")
	var got struct{ Posts []map[string]any }
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	return got.Posts
}

func speakers(posts []map[string]any) []string {
	var out []string
	for _, p := range posts {
		out = append(out, fmt.Sprint(p["speaker"]))
	}
	return out
}

// Scenario 1: a Claude seat and a Codex seat in one topic; the person
// addresses Claude; Claude answers through say_to_room; Codex receives
// Claude's post as claude_code; the log holds both in the room's order.
// With the oldest supported Claude Code (TestLatestCLIsConverse has the
// newest).
func TestOldestCLIsConverse(t *testing.T) {
	t.Parallel()
	c := newOldestRoom(t, roomAgent(nil))
	topic := c.topic()
	c.startSeat(t, topic, "claude", claudeName)
	c.startSeat(t, topic, "codex", codexName)

	q := c.post(t, topic, "@"+claudeName+" hello", "")
	c.modelSaw(t, claudeName, func(tag map[string]any, body string) bool {
		to, _ := tag["to"].([]any)
		return tag["message_id"] == q && tag["role"] == "admin" && tag["from"] == "Master" && len(to) == 1 && to[0] == claudeName && body == "hello"
	})
	ack := c.waitPost(topic, claudeName, "ack from Lin: hello")
	if ack["role"] != "claude_code" {
		t.Fatalf("Claude's post role = %v", ack["role"])
	}
	ackID := ack["post"].(map[string]any)["message_id"]
	c.modelSaw(t, codexName, func(tag map[string]any, body string) bool {
		return tag["message_id"] == ackID && tag["role"] == "claude_code" && tag["from"] == claudeName
	})
	posts := c.logged(t, topic)
	if len(posts) != 2 || posts[0]["message_id"] != q || posts[1]["message_id"] != ackID {
		t.Fatalf("log = %v", posts)
	}
	// Claude's own post never came back into Claude's terminal.
	for _, r := range c.model.Requests() {
		if r.API == fakemodel.Anthropic {
			for _, turn := range r.UserTurns {
				if tag, _, ok := fakemodel.ParseTagged(turn); ok && tag.MessageID == ackID {
					t.Fatal("Claude received its own post")
				}
			}
		}
	}
}

// Scenario 2: both agents answer the same room-wide post at once with the
// same last_seen; exactly one is delivered first, the other is refused with
// the first returned, and its draft resent is delivered after.
func TestRealCLIsFloor(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	arrived := map[string]bool{}
	all := make(chan struct{})
	gate := func(name string) { // hold both agents until both want to speak
		mu.Lock()
		arrived[name] = true
		if len(arrived) == 2 {
			select {
			case <-all:
			default:
				close(all)
			}
		}
		mu.Unlock()
		select {
		case <-all:
		case <-time.After(60 * time.Second):
		}
	}
	c := newCLIRoom(t, roomAgent(gate))
	topic := c.topic()
	c.startSeat(t, topic, "claude", claudeName)
	c.startSeat(t, topic, "codex", codexName)
	q := c.post(t, topic, "who takes the release notes?", "")

	c.waitPost(topic, claudeName, "ack from Lin")
	c.waitPost(topic, codexName, "ack from Lay")
	posts := c.logged(t, topic)
	if got := speakers(posts); len(got) != 3 || got[0] != "Master" || got[1] == got[2] {
		t.Fatalf("log speakers = %v", got)
	}
	first, second := posts[1], posts[2]
	// The second one was refused once, shown the first, and resent.
	var refused []string
	for _, r := range c.model.Requests() {
		for _, res := range r.AllResults {
			if strings.Contains(res.Output, "Not delivered: nothing was posted") {
				refused = append(refused, agentOf(r)+": "+res.Output)
			}
		}
	}
	if len(refused) == 0 {
		t.Fatal("nobody was refused by the floor")
	}
	for _, r := range refused {
		if !strings.HasPrefix(r, fmt.Sprint(second["speaker"])+": ") || !strings.Contains(r, fmt.Sprint(first["message_id"])) {
			t.Fatalf("refusal %q: want %v refused with %v's post returned", r, second["speaker"], first["speaker"])
		}
	}
	_ = q
}

// Scenario 3: resume across restarts of pullcept, and a dropped resume when
// the transcript is gone (fresh launch, record replaced, unseen-history
// instructions).
func TestRealClaudeResume(t *testing.T) {
	t.Parallel()
	resumeScenario(t, newCLIRoom(t, roomAgent(nil)))
}

// The resume with the oldest supported Claude Code.
func TestOldestClaudeResume(t *testing.T) {
	t.Parallel()
	resumeScenario(t, newOldestRoom(t, roomAgent(nil)))
}

func resumeScenario(t *testing.T, c *cliRoom) {
	t.Helper()
	topic := c.topic()
	first := c.startSeat(t, topic, "claude", claudeName)
	sid, _ := first["session_id"].(string)
	if sid == "" || !slices.Contains(toStrings(first["argv"]), "--session-id") {
		t.Fatalf("a new Claude seat must get --session-id: %v", first)
	}
	q := c.post(t, topic, "@"+claudeName+" remember the number 7", "")
	c.waitPost(topic, claudeName, "remember the number 7")
	transcript := claudeTranscript(t, c.home, sid)
	// Claude writes the turn to its transcript when the turn ends: wait for
	// it before stopping (a turn cut off by a stop is not in it).
	waitFileHas(t, transcript, "remember the number 7")
	size1 := fileSize(t, transcript)
	if strings.Contains(instructionsSeen(c.model, claudeName), "earlier posts this session has not seen") {
		t.Fatal("a seat in a topic without earlier posts got the unseen-history line")
	}

	// Stop pullcept, start it again, open the topic, start the seat.
	c.restart(t)
	if r := c.do(map[string]any{"cmd": "open", "topic": topic}); r["event"] != "opened" {
		t.Fatalf("%v", r)
	}
	again := c.startSeat(t, topic, "claude", claudeName)
	if again["resumed_from"] != sid || !slices.Contains(toStrings(again["argv"]), "--resume") {
		t.Fatalf("restart must resume %s: %v", sid, again)
	}
	last := c.lastPostID(topic)
	c.post(t, topic, "@"+claudeName+" what was the number?", last)
	c.waitPost(topic, claudeName, "what was the number?")
	waitFileHas(t, transcript, "what was the number?")
	if size2 := fileSize(t, transcript); size2 <= size1 {
		t.Fatalf("the resumed transcript did not grow: %d -> %d", size1, size2)
	}

	// Lose the transcript: the next start is fresh, the record replaced,
	// the status says so, the instructions carry the unseen-history line.
	if r := c.do(map[string]any{"cmd": "stop", "topic": topic, "account": "claude"}); r["event"] != "stop" {
		t.Fatalf("%v", r)
	}
	if err := os.Remove(transcript); err != nil {
		t.Fatal(err)
	}
	fresh := c.startSeat(t, topic, "claude", claudeName)
	sid2, _ := fresh["session_id"].(string)
	if fresh["dropped_resume"] != sid || fresh["resumed_from"] != nil || sid2 == "" || sid2 == sid {
		t.Fatalf("fresh launch after a lost transcript: %v", fresh)
	}
	if got := c.sessionOf(t, topic, "claude"); got != sid2 {
		t.Fatalf("topic record = %q, want the new %q", got, sid2)
	}
	c.post(t, topic, "@"+claudeName+" are you there?", c.lastPostID(topic))
	c.waitPost(topic, claudeName, "are you there?")
	if !strings.Contains(instructionsSeen(c.model, claudeName), "This topic has earlier posts this session has not seen") {
		t.Fatal("the fresh seat in a topic with posts did not get the unseen-history instructions")
	}
	_ = q
}

// Scenario 4: a second topic with its own seat; posts never cross; deleting
// a topic stops its seat.
func TestRealCLIsTopicsDoNotCross(t *testing.T) {
	t.Parallel()
	c := newCLIRoom(t, roomAgent(nil))
	one := c.topic()
	two := c.do(map[string]any{"cmd": "new"})["topic"].(string)
	c.startSeat(t, one, "claude", claudeName)
	c.startSeat(t, two, "codex", codexName)

	p1 := c.post(t, one, "@"+claudeName+" in one", "")
	p2 := c.post(t, two, "@"+codexName+" in two", "")
	a1 := c.waitPost(one, claudeName, "in one")
	a2 := c.waitPost(two, codexName, "in two")
	if ids := postIDs(c.logged(t, one)); !slices.Equal(ids, []string{p1, a1["post"].(map[string]any)["message_id"].(string)}) {
		t.Fatalf("topic one log = %v", ids)
	}
	if ids := postIDs(c.logged(t, two)); !slices.Equal(ids, []string{p2, a2["post"].(map[string]any)["message_id"].(string)}) {
		t.Fatalf("topic two log = %v", ids)
	}
	for _, r := range c.model.Requests() {
		for _, turn := range r.UserTurns {
			tag, _, ok := fakemodel.ParseTagged(turn)
			if !ok {
				continue
			}
			if (agentOf(r) == codexName && tag.MessageID == p1) || (agentOf(r) == claudeName && tag.MessageID == p2) {
				t.Fatalf("%s received a post of the other topic", agentOf(r))
			}
		}
	}
	del := c.do(map[string]any{"cmd": "delete", "topic": two})
	if del["event"] != "deleted" {
		t.Fatalf("%v", del)
	}
	exit := c.wait(func(m map[string]any) bool {
		return m["event"] == "seat" && m["topic"] == two && m["account"] == "codex" && m["state"] == "exited"
	})
	if exit["requested"] != true {
		t.Fatalf("deleting the topic must stop its seat as a requested stop: %v", exit)
	}
	if r := c.do(map[string]any{"cmd": "seats", "topic": one}); len(r["result"].([]any)) != 1 {
		t.Fatalf("the other topic's seat must keep running: %v", r)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, fmt.Sprint(x))
	}
	return out
}

func postIDs(posts []map[string]any) []string {
	var out []string
	for _, p := range posts {
		out = append(out, fmt.Sprint(p["message_id"]))
	}
	return out
}

// waitFileHas polls a file written by another process until it holds text.
func waitFileHas(t *testing.T, path, text string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), text) {
			return
		}
		time.Sleep(50 * time.Millisecond) // no event says "written"
	}
	b, _ := os.ReadFile(path)
	t.Fatalf("%s never held %q:\n%s", path, text, b)
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// claudeTranscript finds ~/.claude/projects/*/<id>.jsonl.
func claudeTranscript(t *testing.T, home, id string) string {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", id+".jsonl"))
	if len(matches) != 1 {
		t.Fatalf("transcript of %s: %v", id, matches)
	}
	return matches[0]
}

// instructionsSeen is the raw bodies of the agent's model requests (the
// MCP server instructions travel in Claude's system prompt).
func instructionsSeen(m *fakemodel.Server, agent string) string {
	var b strings.Builder
	for _, r := range m.Requests() {
		if agentOf(r) == agent {
			b.Write(r.Body)
		}
	}
	return b.String()
}

func (c *cliRoom) lastPostID(topic string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.lines) - 1; i >= 0; i-- {
		l := c.lines[i]
		if l["event"] == "post" && l["topic"] == topic {
			return l["post"].(map[string]any)["message_id"].(string)
		}
	}
	if posts := c.logged(c.t, topic); len(posts) > 0 {
		return fmt.Sprint(posts[len(posts)-1]["message_id"])
	}
	return ""
}

func (c *cliRoom) sessionOf(t *testing.T, topic, account string) string {
	t.Helper()
	r := c.do(map[string]any{"cmd": "topics"})
	for _, x := range r["topics"].([]any) {
		tp := x.(map[string]any)
		if tp["id"] == topic {
			s, _ := tp["sessions"].(map[string]any)
			id, _ := s[account].(string)
			return id
		}
	}
	return ""
}

// screenOf is a seat's screen now.
func (c *cliRoom) screenOf(t *testing.T, topic, account string) string {
	t.Helper()
	r := c.do(map[string]any{"cmd": "screen", "topic": topic, "account": account})
	res, _ := r["result"].(map[string]any)
	s, _ := res["screen"].(string)
	return s
}

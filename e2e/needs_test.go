package e2e

// The needs-you list (issue 37, points 1 and 2) with the real Claude Code:
// a permission prompt is listed with its tool and input from the hook's
// payload, answered from the list through Claude's PermissionRequest hook
// (yes runs the command once, no keeps it from running), recorded in the
// topic's record of answers; an answer to a prompt answered in the pane
// meanwhile sends nothing.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"pullcept/e2e/clihome"
	"pullcept/e2e/fakemodel"
)

// runs is how many times a command `echo ran >> path` ran.
func runs(path string) int {
	data, _ := os.ReadFile(path)
	return strings.Count(string(data), "ran\n")
}

// permShell is the scripted model of these tests: "run CMD" runs CMD with
// Claude's Bash.
func permShell() fakemodel.Behaviour {
	return permAgent("Bash", func(cmd string) map[string]any { return map[string]any{"command": cmd, "description": "Run the check"} })
}

// The newest Claude (a seat launches it in --permission-mode default),
// then the oldest supported.
func TestRealClaudeNeedsList(t *testing.T) {
	t.Parallel()
	needsScenario(t, newCLIRoom(t, permShell()))
}

func TestOldestClaudeNeedsList(t *testing.T) {
	t.Parallel()
	needsScenario(t, newOldestRoom(t, permShell()))
}

// needsScenario drives serve's needs, answer and needs answered commands
// against a real Claude seat, in three rounds: yes from the list, no from
// the list, and the pane answering first.
func needsScenario(t *testing.T, c *cliRoom) {
	t.Helper()
	topic := c.topic()
	c.startSeat(t, topic, "claude", claudeName)
	item := func(from int, marker string) map[string]any {
		t.Helper()
		ev := c.waitFrom(from, func(m map[string]any) bool {
			ch, _ := m["change"].(map[string]any)
			it, _ := ch["item"].(map[string]any)
			return m["event"] == "needs" && ch["gone"] == nil && it["kind"] == "permission" && it["via"] == "hook" && strings.Contains(fmt.Sprint(it["input"]), marker)
		})
		it := ev["change"].(map[string]any)["item"].(map[string]any)
		if it["tool"] != "Bash" || it["input"] != "echo ran >> "+marker || it["topic"] != topic || it["account"] != "claude" || it["name"] != claudeName {
			t.Fatalf("the item: %v", it)
		}
		// Newest first (an earlier round's turn, which posted nothing to
		// the room, is listed after it as unanswered).
		list := c.do(map[string]any{"cmd": "needs"})["items"].([]any)
		if len(list) == 0 || list[0].(map[string]any)["id"] != it["id"] {
			t.Fatalf("the needs command lists %v, want %v first", list, it["id"])
		}
		return it
	}
	gone := func(from int, id any) {
		t.Helper()
		c.waitFrom(from, func(m map[string]any) bool {
			ch, _ := m["change"].(map[string]any)
			it, _ := ch["item"].(map[string]any)
			return m["event"] == "needs" && ch["gone"] == true && it["id"] == id
		})
	}
	stopped := func(from int) {
		t.Helper()
		c.waitActivity(t, from, topic, "claude", func(a map[string]any) bool { return a["state"] == "ready" && a["signal"] == "Stop" })
	}

	for _, tc := range []struct {
		answer string
		runs   int
	}{{"yes", 1}, {"no", 0}} {
		marker := filepath.Join(c.cwd, "ran-"+tc.answer)
		from := c.mark()
		c.post(t, topic, "@"+claudeName+" run echo ran >> "+marker, c.lastPostID(topic))
		it := item(from, marker)
		c.waitScreen(t, topic, "claude", "Do you want to proceed?")
		if runs(marker) != 0 {
			t.Fatalf("%s: the command ran before the answer", tc.answer)
		}
		res := c.do(map[string]any{"cmd": "answer", "item": it["id"], "answer": tc.answer, "screen": "e2e"})
		r, _ := res["result"].(map[string]any)
		if res["event"] != "answer" || r["done"] != true || r["via"] != "hook" {
			t.Fatalf("%s: %v", tc.answer, res)
		}
		gone(from, it["id"])
		stopped(from)
		if n := runs(marker); n != tc.runs {
			t.Fatalf("%s: the command ran %d times, want %d", tc.answer, n, tc.runs)
		}
	}
	// The model was told why it may not.
	declined := false
	for _, req := range c.model.Requests() {
		for _, res := range req.AllResults {
			declined = declined || strings.Contains(res.Output, "declined this from the needs-you list")
		}
	}
	if !declined {
		t.Error("the model never got the decline's message")
	}

	// The pane answers first (Enter: "1. Yes"); the list's answer then
	// sends nothing, and the command runs once.
	marker := filepath.Join(c.cwd, "ran-pane")
	from := c.mark()
	c.post(t, topic, "@"+claudeName+" run echo ran >> "+marker, c.lastPostID(topic))
	it := item(from, marker)
	c.waitScreen(t, topic, "claude", "Do you want to proceed?")
	time.Sleep(200 * time.Millisecond) // Claude 2.1.332 drops a dialog's keys for 150 ms after painting it (hold_test.go)
	c.do(map[string]any{"cmd": "keys", "topic": topic, "account": "claude", "keys": "\r"})
	gone(from, it["id"])
	stopped(from)
	res := c.do(map[string]any{"cmd": "answer", "item": it["id"], "answer": "no", "screen": "e2e"})
	r, _ := res["result"].(map[string]any)
	if r["done"] != false || !strings.Contains(fmt.Sprint(r["note"]), "nothing was sent") {
		t.Fatalf("an answer to a prompt answered in the pane: %v", res)
	}
	if n := runs(marker); n != 1 {
		t.Fatalf("the command answered in the pane ran %d times, want once", n)
	}

	// The topic's record: the two answers given and the one that came too
	// late, with who, where, what and how.
	rec := c.do(map[string]any{"cmd": "needs", "topic": topic, "answered": true})
	answers, _ := rec["answers"].([]any)
	if len(answers) != 3 {
		t.Fatalf("record: %v", rec)
	}
	for i, want := range []struct {
		answer, via string
		done        bool
	}{{"yes", "hook", true}, {"no", "hook", true}, {"no", "", false}} {
		a := answers[i].(map[string]any)
		if a["answer"] != want.answer || fmt.Sprint(a["via"]) != fmt.Sprint(map[bool]any{true: want.via, false: nil}[want.via != ""]) || a["done"] != want.done ||
			a["screen"] != "e2e" || a["who"] != "Master" || a["tool"] != "Bash" || !strings.HasPrefix(fmt.Sprint(a["input"]), "echo ran >> ") || a["account"] != "claude" || a["at"] == nil {
			t.Fatalf("record line %d: %v", i, a)
		}
	}
	path := filepath.Join(c.phome, "logs", "main", "answers", topic+".jsonl")
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the record file: %v %v", fi, err)
	}
	if del := c.do(map[string]any{"cmd": "delete", "topic": topic}); del["event"] != "deleted" {
		t.Fatalf("delete: %v", del)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the record outlived its topic: %v", err)
	}
}

// TestTUINeedsListRealClaude: in the real binary's screen (tmux), a real
// Claude's permission prompt shows in the needs-you list (prefix !) with
// its tool and input; y runs the command once, n keeps the next one from
// running; h shows both answers with the screen they came from.
func TestTUINeedsListRealClaude(t *testing.T) {
	t.Parallel()
	tuiNeedsScenario(t, newestBins(t), "")
}

// TestTUINeedsListOldestClaude is the same with the oldest supported Claude.
func TestTUINeedsListOldestClaude(t *testing.T) {
	t.Parallel()
	bins, err := clihome.FindBins()
	if err != nil {
		required(t, err.Error())
	}
	tuiNeedsScenario(t, bins, "")
}

func tuiNeedsScenario(t *testing.T, bins clihome.Bins, command string) {
	t.Helper()
	model := fakemodel.Start(t, permShell())
	c := startClaudeTUI(t, bins, model, command)
	r, cwd, paneTitle := c.r, c.cwd, c.paneTitle

	for _, tc := range []struct {
		key, said string
		runs      int
	}{{"y", "answered yes (through its hook)", 1}, {"n", "answered no (through its hook)", 0}} {
		marker := filepath.Join(cwd, "ran-"+tc.key)
		r.prefix("i")
		r.text("@" + claudeName + " run echo ran >> " + marker)
		r.keys("Enter")
		r.waitForWithin(cliWait, "the prompt in Lin's pane", func(scr string) bool {
			return strings.Contains(paneText(scr, paneTitle), "Do you want to proceed?")
		})
		r.prefix("!")
		r.waitForWithin(cliWait, "the prompt in the needs-you list", func(scr string) bool {
			return strings.Contains(scr, "▶ permission — "+claudeName+" in “") && strings.Contains(scr, "Bash: echo ran >> "+marker+"  [y yes · ")
		})
		if runs(marker) != 0 {
			t.Fatalf("%s: the command ran before the answer", tc.key)
		}
		r.keys(tc.key)
		r.waitText(tc.said)
		// The prompt leaves the list (the turn, which posted nothing to the
		// room, then stays as unanswered).
		r.waitForWithin(cliWait, "the prompt off the list and out of Lin's pane", func(scr string) bool {
			return strings.Contains(scr, "Needs you — ") && !strings.Contains(scr, "permission — "+claudeName) && !strings.Contains(paneText(scr, paneTitle), "Do you want to proceed?")
		})
		r.keys("q")
		if tc.runs == 1 {
			r.until("the command ran", func() bool { return runs(marker) == 1 })
		} else {
			r.until("the model told of the decline", func() bool {
				for _, req := range model.Requests() {
					for _, res := range req.AllResults {
						if strings.Contains(res.Output, "declined this from the needs-you list") {
							return true
						}
					}
				}
				return false
			})
		}
		r.waitForWithin(cliWait, "Lin's turn over", func(scr string) bool { return !strings.Contains(scr, "waiting for permission") })
		if n := runs(marker); n != tc.runs {
			t.Fatalf("%s: the command ran %d times, want %d", tc.key, n, tc.runs)
		}
	}
	r.prefix("!")
	r.waitText("Needs you — ", "unanswered — "+claudeName)
	r.keys("h")
	scr := r.waitText("Answered in “", claudeName+" · permission · yes", claudeName+" · permission · no")
	if !regexp.MustCompile(`Bash: echo ran >> \S+ran-y  — Master from terminal \d+, hook`).MatchString(scr) {
		t.Fatalf("the answered items:\n%s", scr)
	}
	r.keys("Escape")
}

// TestRealCodexNeedsList: Codex shows its prompt only once its
// PermissionRequest hook returned, so its item is answered by typing the
// answer's key into the pane, after checking the same prompt still waits:
// y runs the command once, Esc (no) keeps it from running, and an answer
// after the pane's own types nothing.
func TestRealCodexNeedsList(t *testing.T) {
	t.Parallel()
	c := newCLIRoom(t, permAgent("exec_command", func(cmd string) map[string]any {
		return map[string]any{"cmd": cmd, "sandbox_permissions": "require_escalated", "justification": "Run the check?"}
	}))
	topic := c.topic()
	c.startSeat(t, topic, "codex", codexName)
	const prompt = "Would you like to run the following command?"
	item := func(from int, marker string) map[string]any {
		t.Helper()
		ev := c.waitFrom(from, func(m map[string]any) bool {
			ch, _ := m["change"].(map[string]any)
			it, _ := ch["item"].(map[string]any)
			return m["event"] == "needs" && ch["gone"] == nil && it["kind"] == "permission" && strings.Contains(fmt.Sprint(it["input"]), marker)
		})
		it := ev["change"].(map[string]any)["item"].(map[string]any)
		if it["via"] != "keys" || it["tool"] != "Bash" || it["account"] != "codex" {
			t.Fatalf("the item: %v", it)
		}
		return it
	}
	for _, tc := range []struct {
		answer string
		runs   int
		pane   bool
	}{{"yes", 1, false}, {"no", 0, false}, {"no", 1, true}} {
		marker := filepath.Join(c.cwd, fmt.Sprintf("ran-%s-%v", tc.answer, tc.pane))
		from := c.mark()
		c.post(t, topic, "@"+codexName+" run echo ran >> "+marker, c.lastPostID(topic))
		it := item(from, marker)
		c.waitScreen(t, topic, "codex", prompt)
		if tc.pane {
			c.do(map[string]any{"cmd": "keys", "topic": topic, "account": "codex", "keys": "y"})
			c.waitActivity(t, from, topic, "codex", func(a map[string]any) bool { return a["state"] == "ready" && a["signal"] == "Stop" })
		}
		var res map[string]any
		for {
			res = c.do(map[string]any{"cmd": "answer", "item": it["id"], "answer": tc.answer, "screen": "e2e"})
			r, _ := res["result"].(map[string]any)
			if !strings.Contains(fmt.Sprint(r["note"]), "still opening") {
				break
			}
			time.Sleep(100 * time.Millisecond) // the answer waits out the prompt's opening (app.promptOpening)
		}
		r, _ := res["result"].(map[string]any)
		if tc.pane {
			if r["done"] != false || !strings.Contains(fmt.Sprint(r["note"]), "nothing was") {
				t.Fatalf("an answer after the pane's: %v", res)
			}
		} else {
			if r["done"] != true || r["via"] != "keys" {
				t.Fatalf("%s: %v", tc.answer, res)
			}
			c.waitActivity(t, from, topic, "codex", func(a map[string]any) bool {
				return a["state"] == "ready" && (a["signal"] == "Stop" || a["signal"] == "Interrupt" || a["signal"] == "interrupted turn aborted")
			})
		}
		if tc.runs == 1 {
			waitFileHas(t, marker, "ran")
		}
		time.Sleep(500 * time.Millisecond) // a second run, or a late one, would show by now
		if n := runs(marker); n != tc.runs {
			t.Fatalf("%s (pane first %v): the command ran %d times, want %d", tc.answer, tc.pane, n, tc.runs)
		}
		if scr := c.screenOf(t, topic, "codex"); strings.Contains(scr, prompt) {
			t.Fatalf("%s: the prompt is still up:\n%s", tc.answer, scr)
		}
	}
}

// TestRealClaudeNeedsListQuestion: a question Claude asks (AskUserQuestion)
// is an item with its question and numbered choices from the hook's
// payload; a digit answers it, typed into the pane while the same question
// waits, and the model gets that choice.
func TestRealClaudeNeedsListQuestion(t *testing.T) {
	t.Parallel()
	questionScenario(t, newCLIRoom(t, askColour))
}

func TestOldestClaudeNeedsListQuestion(t *testing.T) {
	t.Parallel()
	questionScenario(t, newOldestRoom(t, askColour))
}

// askColour: an admin post "ask" makes the model ask the person a question
// with two choices, then say what it got.
func askColour(r fakemodel.Request) fakemodel.Reply {
	tag, body, ok := fakemodel.ParseTagged(r.LastUserTurn())
	if !ok || tag.Role != "admin" || body != "ask" {
		return fakemodel.Say("ok")
	}
	if res := r.ResultsFor("AskUserQuestion"); len(res) > 0 {
		return fakemodel.Say("got " + res[0].Output)
	}
	return fakemodel.Call("AskUserQuestion", map[string]any{"questions": []any{map[string]any{
		"question": "Which colour?", "header": "Colour", "multiSelect": false,
		"options": []any{map[string]any{"label": "Red", "description": "warm"}, map[string]any{"label": "Blue", "description": "cool"}},
	}}})
}

func questionScenario(t *testing.T, c *cliRoom) {
	t.Helper()
	topic := c.topic()
	c.startSeat(t, topic, "claude", claudeName)
	from := c.mark()
	c.post(t, topic, "@"+claudeName+" ask", "")
	ev := c.waitFrom(from, func(m map[string]any) bool {
		ch, _ := m["change"].(map[string]any)
		it, _ := ch["item"].(map[string]any)
		return m["event"] == "needs" && it["kind"] == "question" && it["text"] == "Which colour?"
	})
	it := ev["change"].(map[string]any)["item"].(map[string]any)
	if it["tool"] != "AskUserQuestion" || fmt.Sprint(it["answers"]) != "[map[id:1 key:1 label:Red] map[id:2 key:2 label:Blue]]" || it["via"] != "keys" {
		t.Fatalf("the question's item: %v", it)
	}
	c.waitScreen(t, topic, "claude", "Which colour?")
	var res map[string]any
	for {
		res = c.do(map[string]any{"cmd": "answer", "item": it["id"], "answer": "2", "screen": "e2e"})
		if r, _ := res["result"].(map[string]any); !strings.Contains(fmt.Sprint(r["note"]), "still opening") {
			break
		}
		time.Sleep(100 * time.Millisecond) // the answer waits out the prompt's opening (app.promptOpening)
	}
	if r, _ := res["result"].(map[string]any); r["done"] != true || r["via"] != "keys" {
		t.Fatalf("the answer: %v", res)
	}
	c.waitActivity(t, from, topic, "claude", func(a map[string]any) bool { return a["state"] == "ready" && a["signal"] == "Stop" })
	got := ""
	for _, req := range c.model.Requests() {
		for _, res := range req.AllResults {
			if res.Tool == "AskUserQuestion" {
				got = res.Output
			}
		}
	}
	if !strings.Contains(got, "Blue") || strings.Contains(got, "Red") {
		t.Fatalf("the model got %q, want the choice Blue", got)
	}
}

// TestRealClaudeNeedsListAlways: "always" from the list (the newest Claude
// offers it with its permission suggestions) answers through the hook with
// those suggestions: the command runs, and the same command asked again
// runs without a prompt.
func TestRealClaudeNeedsListAlways(t *testing.T) {
	t.Parallel()
	c := newCLIRoom(t, permShell())
	topic := c.topic()
	c.startSeat(t, topic, "claude", claudeName)
	dir := filepath.Join(c.cwd, "made-always")
	cmd := "mkdir -p " + dir
	from := c.mark()
	c.post(t, topic, "@"+claudeName+" run "+cmd, c.lastPostID(topic))
	ev := c.waitFrom(from, func(m map[string]any) bool {
		ch, _ := m["change"].(map[string]any)
		it, _ := ch["item"].(map[string]any)
		return m["event"] == "needs" && ch["gone"] == nil && it["kind"] == "permission" && it["via"] == "hook" && strings.Contains(fmt.Sprint(it["input"]), dir)
	})
	it := ev["change"].(map[string]any)["item"].(map[string]any)
	if !strings.Contains(fmt.Sprint(it["answers"]), "always") {
		t.Fatalf("no always among the item's answers: %v", it)
	}
	c.waitScreen(t, topic, "claude", "Do you want to proceed?")
	res := c.do(map[string]any{"cmd": "answer", "item": it["id"], "answer": "always", "screen": "e2e"})
	if r, _ := res["result"].(map[string]any); r["done"] != true || r["via"] != "hook" {
		t.Fatalf("always: %v", res)
	}
	c.waitActivity(t, from, topic, "claude", func(a map[string]any) bool { return a["state"] == "ready" && a["signal"] == "Stop" })
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("after always the command did not run: %v", err)
	}
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	// Asked again: allowed by the rule "always" added, no prompt.
	from = c.mark()
	c.post(t, topic, "@"+claudeName+" run "+cmd, c.lastPostID(topic))
	if asked := c.scanFrom(from, 60*time.Second, func(m map[string]any) bool {
		a, _ := m["activity"].(map[string]any)
		return m["event"] == "activity" && m["account"] == "claude" && a != nil && (a["wait"] == "permission" || a["signal"] == "Stop")
	}); asked == nil || asked["activity"].(map[string]any)["wait"] == "permission" {
		t.Fatalf("the same command after always: %v", asked)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the same command after always did not run: %v", err)
	}
}

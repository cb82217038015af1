package e2e

// The real Claude Code CLI as a seat of the terminal UI: the real pullcept
// binary in tmux on a private socket, the account started from the
// participants panel, addressed from the input line, answering through the
// sidecar against the scripted model endpoint (e2e/fakemodel), and ended by
// quitting the app. Scenario of the issue "End to end with the real Claude
// Code and Codex CLIs": at least one real-CLI scenario through the TUI.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"pullcept/e2e/clihome"
	"pullcept/e2e/fakemodel"
	"pullcept/room/wire"
)

// cliWait bounds the waits that include a real CLI's work (start, turn,
// exit); the runs take seconds, the bound is for a loaded machine.
const cliWait = 30 * time.Second

// waitForWithin is tuiRun.waitFor with its own bound.
func (r *tuiRun) waitForWithin(d time.Duration, what string, ok func(scr string) bool) string {
	r.t.Helper()
	deadline := time.Now().Add(d)
	for {
		scr := r.screen()
		if ok(scr) {
			return scr
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(25 * time.Millisecond) // polling the screen; no event says "drawn"
	}
}

// processesWithArg lists the processes that have arg as one of their
// arguments (Linux /proc).
func processesWithArg(arg string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if slices.Contains(strings.Split(string(cmd), "\x00"), arg) {
			out = append(out, pid)
		}
	}
	return out
}

// alive keeps the pids that are still processes (zombies included: a seat
// not reaped is not gone).
func alive(pids []int) []int {
	var out []int
	for _, p := range pids {
		if processAlive(p) {
			out = append(out, p)
		}
	}
	return out
}

// describeRequests is the model's requests, for a failure's report.
func describeRequests(reqs []fakemodel.Request) string {
	var b strings.Builder
	for i, r := range reqs {
		fmt.Fprintf(&b, "#%d %s side=%v tools=%d\n", i, r.API, r.Side, len(r.Tools))
		for _, turn := range r.UserTurns {
			fmt.Fprintf(&b, "  user: %q\n", turn)
		}
		for _, res := range r.ToolResults {
			fmt.Fprintf(&b, "  result %s: %q\n", res.Tool, res.Output)
		}
		fmt.Fprintf(&b, "  reply: %+v\n", r.Reply)
	}
	return b.String()
}

// claudeTUI is the real binary's screen in tmux with a real Claude seat.
type claudeTUI struct {
	r          *tuiRun
	cwd, phome string
	paneTitle  string // Lin's pane's title
}

// startClaudeTUI starts the screen with one Claude account, Lin (command ""
// for the kind's default), against model; starts Lin's seat from the
// participants panel and waits for its prompt and for Lin in the room.
func startClaudeTUI(t *testing.T, bins clihome.Bins, model *fakemodel.Server, command string) claudeTUI {
	t.Helper()
	cwd := t.TempDir()
	h := clihome.New(t, clihome.Options{BaseURL: model.URL, Cwd: cwd, MCPServers: []string{"pullcept"}})
	phome := t.TempDir()
	writeConfig(t, phome, fmt.Sprintf(`{"accounts":[{"id":"claude","name":%q,"kind":"claude_code","dir":%q,"command":%q}]}`, claudeName, cwd, command))
	// The environment: the clean one of the CLI home (nothing of a
	// surrounding Claude session, no real key), the CLIs on PATH, and
	// pullcept's own variables.
	var env []string
	for _, kv := range h.Env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			kv = "PATH=" + bins.Dir + ":" + v
		}
		env = append(env, kv)
	}
	r := startTUI(t, phome, env, 200, 50, func() {
		t.Logf("the model's requests:\n%s", describeRequests(model.Requests()))
	})

	r.waitText("say something to the room", "Participants", claudeName)

	// Start Lin's seat from the participants panel (Master, then Lin).
	r.prefix("a")
	r.keys("j")
	r.keys("s")
	paneTitle := claudeName + " · claude_code · running"
	r.waitForWithin(cliWait, "Claude's prompt in Lin's pane and Lin in the room", func(scr string) bool {
		// The room's status line stands where Claude's "? for shortcuts" was.
		return strings.Contains(paneText(scr, paneTitle), "pullcept ·") &&
			regexp.MustCompile(`● `+claudeName+` +in room`).MatchString(scr)
	})
	return claudeTUI{r: r, cwd: cwd, phome: phome, paneTitle: paneTitle}
}

// TestTUIRealClaude drives the real Claude Code CLI through the TUI: start
// Lin's seat from the participants panel, wait for its prompt and its
// sidecar in the room, type "@Lin hello" in the input line; the model gets
// the tagged post, Lin answers through say_to_room, the room pane and the
// topic's log show the post then the answer; quitting ends Claude.
func TestTUIRealClaude(t *testing.T) {
	t.Parallel()
	bins := newestBins(t)
	start := time.Now()
	model := fakemodel.Start(t, roomAgent(nil))
	c := startClaudeTUI(t, bins, model, "")
	r, phome := c.r, c.phome

	// The topic's record names the session the app minted; the Claude
	// process runs it.
	topic, sid := "", ""
	var listed []struct {
		ID       string
		Sessions map[string]string
	}
	if err := json.Unmarshal([]byte(run(t, phome, "topics", "list", "--json")), &listed); err != nil {
		t.Fatal(err)
	}
	for _, tp := range listed {
		if s := tp.Sessions["claude"]; s != "" {
			if topic != "" {
				t.Fatalf("more than one topic records a Claude session: %+v", listed)
			}
			topic, sid = tp.ID, s
		}
	}
	if topic == "" {
		t.Fatalf("no topic records Lin's session: %+v", listed)
	}
	claudePids := alive(processesWithArg(sid))
	if len(claudePids) == 0 {
		t.Fatalf("no process runs Claude session %s", sid)
	}
	// Its registration: an MCP file and a settings file (the hooks) under
	// $PULLCEPT_HOME/run, each named in the argv of the process that runs
	// the session.
	regs := registrations(phome)
	if len(regs) != 2 {
		t.Fatalf("registration files %v, want the MCP config and the settings", regs)
	}
	for _, reg := range regs {
		if !slices.Equal(alive(processesWithArg(reg)), claudePids) {
			t.Fatalf("registration file %s; processes of session %s: %v", reg, sid, claudePids)
		}
	}
	if len(sidecarsOf(topic)) == 0 {
		t.Errorf("no sidecar process found for topic %s", topic)
	}

	// Address Lin from the input line.
	r.prefix("i")
	r.text("@" + claudeName + " hello")
	r.keys("Enter")
	var tag wire.Tag
	ctx, cancel := context.WithTimeout(context.Background(), cliWait)
	defer cancel()
	if _, err := model.Wait(ctx, func(reqs []fakemodel.Request) bool {
		for _, q := range reqs {
			if q.API != fakemodel.Anthropic || q.Side {
				continue
			}
			for _, turn := range q.UserTurns {
				tg, body, ok := fakemodel.ParseTagged(turn)
				if ok && tg.Role == "admin" && tg.From == "Master" && slices.Equal(tg.To, []string{claudeName}) && body == "hello" {
					tag = tg
					return true
				}
			}
		}
		return false
	}); err != nil {
		t.Fatalf("the model never got the tagged post (role admin, from Master, to [Lin], body hello): %v", err)
	}
	if tag.MessageID == "" {
		t.Fatalf("the tag names no message: %+v", tag)
	}
	want := "ack from " + claudeName + ": hello"
	scr := r.waitForWithin(cliWait, "Lin's answer in the room", func(scr string) bool {
		return strings.Contains(roomText(scr), want)
	})
	if room := roomText(scr); !regexp.MustCompile(`^\d\d:\d\d ▶ Master → ` + claudeName + `\n  hello\n  → ` + claudeName + ` ✓\n\d\d:\d\d ` +
		claudeName + `\n  ` + regexp.QuoteMeta(want) + `$`).MatchString(room) {
		t.Errorf("the room does not show the post then the answer:\n%s", room)
	}

	// The topic's log: the person's post (the one the tag names), then Lin's.
	var logged struct{ Posts []wire.Post }
	out := run(t, phome, "topics", "show", topic, "--json")
	if err := json.Unmarshal([]byte(out), &logged); err != nil {
		t.Fatalf("topics show: %v\n%s", err, out)
	}
	if p := logged.Posts; len(p) != 2 ||
		p[0].MessageID != tag.MessageID || p[0].Speaker != "Master" || p[0].Content != "hello" || !slices.Equal(p[0].To, []string{claudeName}) ||
		p[1].Speaker != claudeName || p[1].Account != "claude" || p[1].Content != want {
		t.Errorf("the topic's log:\n%s", out)
	}

	// Quit with the prefix key: pullcept ends with status 0 and Claude and
	// the sidecar with it.
	r.prefix("q")
	// A session runs: quitting asks first.
	r.waitText("Quit pullcept", "Quitting stops 1 running session(s) in 1 topic(s).")
	r.keys("y")
	r.until("pullcept to end", func() bool { return r.exitStatus() != "" })
	if st := r.exitStatus(); st != "0" {
		t.Errorf("pullcept exited with status %s", st)
	}
	r.until("Claude's process to end", func() bool {
		return len(alive(claudePids)) == 0 && len(alive(processesWithArg(sid))) == 0 && len(alive(processesWithArg(regs[0]))) == 0
	})
	r.until("Lin's sidecar to end", func() bool { return len(sidecarsOf(topic)) == 0 })
	if regs := registrations(phome); len(regs) > 0 {
		t.Errorf("registration files outlived the seat: %v", regs)
	}
	log, _ := os.ReadFile(filepath.Join(phome, "state", "pullcept.log"))
	if strings.Contains(string(log), "level=ERROR") {
		t.Errorf("the app log has errors:\n%s", log)
	}
	t.Logf("took %v", time.Since(start).Round(time.Millisecond))
}

package e2e

// Issue 31, points 3, 8 and 9, with the real binary in tmux: prefix x
// acts on the focused pane's seat and asks first; a post to an account not
// in the room waits for ctrl+s and goes when the seat joins; `pullcept
// attach` and `pullcept a` attach.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestTUIStopKeyActsOnTheFocusedPane: two cli seats (cat); the
// participants have Bob selected, pane 1 (Ann) is focused. prefix x asks
// "Stop Ann (pane 1)?"; n stops nothing; prefix x, y stops Ann, and Bob
// runs on.
func TestTUIStopKeyActsOnTheFocusedPane(t *testing.T) {
	t.Parallel()
	phome := t.TempDir()
	seatsConfig(t, phome, "cat", "Ann", "Bob")
	r := startTUI(t, phome, serverEnv(t), 160, 40, nil)
	r.waitText("say something to the room", "Participants", "Bob")
	startSeats(r, "Ann", "Bob") // Bob is the participant selected
	annRunning := regexp.MustCompile(`● Ann +running`)
	bobRunning := regexp.MustCompile(`● Bob +running`)

	r.prefix("#")
	r.keys("1")
	r.waitFor("pane 1 (Ann) focused", func(scr string) bool { return strings.HasPrefix(focusedTitle(scr), "1 Ann · cli") })
	r.prefix("x")
	r.waitText("Stop Ann (pane 1)?", "[y] stop    [n] cancel")
	r.keys("n")
	r.waitFor("the question gone, both seats running", func(scr string) bool {
		return !strings.Contains(scr, "Stop Ann (pane 1)?") && annRunning.MatchString(scr) && bobRunning.MatchString(scr)
	})

	r.prefix("x")
	r.waitText("Stop Ann (pane 1)?")
	r.keys("y")
	r.waitFor("Ann stopped, Bob running (now pane 1)", func(scr string) bool {
		_, annPane := findPane(scr, "Ann · cli")
		_, bobPane := findPane(scr, "1 Bob · cli")
		return !annRunning.MatchString(scr) && !annPane && bobPane && bobRunning.MatchString(scr)
	})
}

// TestTUIAttachCommand: `pullcept attach` and `pullcept a` attach to the
// home's server as `pullcept` does (the seat kept running, the same
// server), and the usage lists them; Ctrl-C in the input line reaches the
// screen (issue 31, point 9).
func TestTUIAttachCommand(t *testing.T) {
	t.Parallel()
	phome := t.TempDir()
	seatsConfig(t, phome, "cat", "Ann")
	env := serverEnv(t)
	if res := pullceptCmd(t, phome, env, "help"); !strings.Contains(res.out, "pullcept attach | a") {
		t.Errorf("pullcept help does not list attach:\n%s", res.out)
	}
	r := startTUI(t, phome, env, 160, 30, nil)
	const empty = "› say something to the room…"
	r.waitText("say something to the room", "Participants", "Ann")
	startSeats(r, "Ann") // a session keeps the server when the terminal detaches
	server := serverPID(phome)
	r.prefix("d")
	r.until("the first client to detach", func() bool { return r.exitStatus() == "0" })

	dir := t.TempDir()
	for _, name := range []string{"attach", "a"} {
		status, stderr := filepath.Join(dir, name+".status"), filepath.Join(dir, name+".stderr")
		r.tmux("respawn-pane", "-k", shellQuote(pullceptBin)+" "+name+" 2>"+shellQuote(stderr)+"; echo $? >"+shellQuote(status))
		r.waitText(reattachedLine, "1 Ann · cli · running")
		if serverPID(phome) != server {
			t.Fatalf("pullcept %s started another server", name)
		}
		if name == "a" {
			// Ctrl-C in the input line clears it; again, on the empty
			// line, it says how to leave (and ends nothing).
			r.text("half a thought")
			r.waitFor("the text in the input line", func(scr string) bool { return strings.Contains(inputLine(scr), "half a thought") })
			r.keys("C-c")
			r.waitFor("the input line cleared", func(scr string) bool { return inputLine(scr) == empty })
			r.keys("C-c")
			waitStatus(r, "ctrl+b d detaches (the sessions keep running), ctrl+b q quits")
		}
		r.prefix("d")
		r.until("pullcept "+name+" to detach", func() bool {
			b, _ := os.ReadFile(status)
			return strings.TrimSpace(string(b)) == "0"
		})
		if b, _ := os.ReadFile(stderr); len(b) > 0 {
			t.Errorf("pullcept %s wrote to stderr: %s", name, b)
		}
	}
}

// TestTUIPostToAnAccountNotInTheRoom: Bot (the scripted CLI, which answers
// every tagged post) has no seat; "@bot hello" stays in the input line and
// the status line offers ctrl+s; nothing enters the room; ctrl+s starts
// Bot, and the post goes when Bot has joined: Bot answers it.
func TestTUIPostToAnAccountNotInTheRoom(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cli := filepath.Join(dir, "scriptcli")
	build := exec.Command("go", "build", "-o", cli, "./seat/testdata/scriptcli")
	build.Dir = repoRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build scriptcli: %v\n%s", err, out)
	}
	phome := t.TempDir()
	cfg, _ := json.Marshal(map[string]any{"accounts": []map[string]any{{
		"id": "bot", "name": "Bot", "kind": "cli", "command": strconv.Quote(cli) + " {mcp_config}",
		"env": map[string]string{"SCRIPTCLI_RECORD": filepath.Join(dir, "record"), "SCRIPTCLI_MCP_AT_START": "1"},
	}}})
	writeConfig(t, phome, string(cfg))
	record := filepath.Join(dir, "record")
	r := startTUI(t, phome, serverEnv(t), 160, 40, func() {
		rec, _ := os.ReadFile(record)
		t.Logf("scriptcli record:\n%s", rec)
	})
	r.waitText("say something to the room", "Participants", "Bot")
	r.text("@bot hello")
	r.keys("Enter")
	scr := waitStatus(r, "Bot is not in the room — ctrl+s starts Bot and sends when it joins")
	if inputLine(scr) != "› @bot hello" || !strings.Contains(roomText(scr), "Nothing said yet") {
		t.Fatalf("the post left the input line:\n%s", scr)
	}
	r.keys("C-s")
	scr = r.waitFor("the post in the room after Bot joined, and Bot's answer", func(scr string) bool {
		return strings.Contains(scr, "ack: hello")
	})
	if room := roomText(scr); !regexp.MustCompile(`^\d\d:\d\d ▶? ?Master → Bot\n  hello\n  → Bot typed \(no receipt signal\)\n\d\d:\d\d Bot\n  ack: hello$`).MatchString(room) {
		t.Errorf("the room does not show the post to Bot then its answer:\n%s", room)
	}
	if got := inputLine(scr); got != "› say something to the room…" {
		t.Errorf("input line %q after the send", got)
	}
}

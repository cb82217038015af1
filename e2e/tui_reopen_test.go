package e2e

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

// TestTUIReopenBringsSessionsBack: a topic whose seat ran is opened again
// after pullcept was restarted; its session comes back by itself
// (reopen_seats auto), with the launch's id handed out again.
func TestTUIReopenBringsSessionsBack(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cli := filepath.Join(dir, "scriptcli")
	build := exec.Command("go", "build", "-o", cli, "./seat/testdata/scriptcli")
	build.Dir = repoRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build scriptcli: %v\n%s", err, out)
	}
	phome := t.TempDir()
	cfg := map[string]any{"accounts": []map[string]any{{
		"id": "bot", "name": "Bot", "kind": "cli",
		// {session_id}: the app mints an id, so the topic records the session.
		"command": strconv.Quote(cli) + " {session_id}",
		"env":     map[string]string{"SCRIPTCLI_MCP_AT_START": "1"},
	}}}
	data, _ := json.Marshal(cfg)
	writeConfig(t, phome, string(data))
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=C.UTF-8"}

	r := startTUI(t, phome, env, 160, 40, nil)
	r.waitText("say something to the room", "Participants", "Bot")
	r.prefix("i")
	r.text("remember this topic")
	r.keys("Enter")
	r.prefix("a")
	r.keys("j")
	r.keys("s")
	r.waitText("Bot · cli · running", "scriptcli READY")
	r.waitFor("Bot in the room", func(scr string) bool { return regexp.MustCompile(`● Bot +in room`).MatchString(scr) })
	r.prefix("q")
	// A session runs: quitting asks first.
	r.waitText("Quit pullcept", "Quitting stops 1 running session(s) in 1 topic(s).")
	r.keys("y")
	r.until("pullcept to end", func() bool { return r.exitStatus() != "" })

	// A new pullcept on the same home: it opens on a new topic; the old one
	// is in the list. Opening it brings Bot back.
	r2 := startTUI(t, phome, env, 160, 40, nil)
	r2.waitText("say something to the room", "remember this")
	r2.prefix("n")
	r2.waitText("Room · remember this topic", "Bot · cli · running", "scriptcli READY")
	r2.waitFor("Bot back in the room", func(scr string) bool { return regexp.MustCompile(`● Bot +in room`).MatchString(scr) })
	// The status line says how it came back (no resume line: fresh).
	r2.waitText("Bot started (new session)")
}

// A CLI that ends by itself leaves its pane: the last screen and why it
// ended, until it is started again or closed (tmux's remain-on-exit).
func TestTUIEndedPaneStays(t *testing.T) {
	t.Parallel()
	phome := t.TempDir()
	cfg := `{"accounts":[{"id":"eta","name":"Eta","kind":"cli","command":"/bin/sh -c 'echo last words before the end; exit 3'"}]}`
	writeConfig(t, phome, cfg)
	r := startTUI(t, phome, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=C.UTF-8"}, 160, 40, nil)
	r.waitText("say something to the room", "Participants", "Eta")
	r.prefix("a")
	r.keys("j")
	r.keys("s")
	r.waitText("Eta · cli · exited · exit 3", "last words before the end")
	r.keys("x") // close it, from the participants
	r.waitFor("the ended pane closed", func(scr string) bool {
		return !strings.Contains(scr, "Eta · cli ·") && !strings.Contains(scr, "last words before the end")
	})
}

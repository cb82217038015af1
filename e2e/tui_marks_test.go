package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestTUIShowsDeliveryMarks drives the TUI in tmux with a cli seat that
// reports each post it reads as a prompt (e2e/testdata/promptcli.sh, with
// pullcept hook UserPromptSubmit): under a post typed into it the room
// pane shows "→ Pro ✓"; a post that waits behind its question shows
// "→ Pro held: waiting for your permission", then ✓ once the person has
// answered in the pane.
func TestTUIShowsDeliveryMarks(t *testing.T) {
	t.Parallel()
	phome := t.TempDir()
	script := filepath.Join(repoRoot(t), "e2e", "testdata", "promptcli.sh")
	writeConfig(t, phome, `{"accounts":[{"id":"pro","name":"Pro","kind":"cli","command":`+strconv.Quote(script)+`}]}`)
	r := startTUI(t, phome, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=C.UTF-8"}, 160, 40, nil)
	r.waitText("say something to the room", "Participants", "Pro")
	r.prefix("a")
	r.keys("j")
	r.keys("s")
	r.waitText("Pro · cli · running", "promptcli READY")
	r.waitFor("Pro in the room", func(scr string) bool { return regexp.MustCompile(`● Pro +in room`).MatchString(scr) })

	r.prefix("i")
	r.text("@Pro hello there")
	r.keys("Enter")
	r.waitText("GOT<hello there>", "→ Pro ✓")

	r.text("@Pro ask rm -rf build")
	r.keys("Enter")
	r.waitText("Allow rm -rf build? [y/n]")
	r.text("@Pro are you there?")
	r.keys("Enter")
	r.waitText("→ Pro held: waiting for your permission")
	// Answer in the pane: focus it (prefix o: input, room, then the pane).
	r.prefix("o")
	r.prefix("o")
	r.text("n")
	r.keys("Enter")
	r.waitText("ANSWER<n>", "GOT<are you there?>")
	r.waitFor("every post received", func(scr string) bool {
		return strings.Count(scr, "→ Pro ✓") == 3 && !strings.Contains(scr, "held:")
	})
}

package e2e

// Issue 35, point 3, with the real binary in tmux: a seat whose pane is
// on the screen never sleeps; with the room zoomed (its pane on no
// screen) it sleeps, the participants say "asleep since HH:MM", and its
// pane, shown again, is a placeholder with its last screen dimmed and how
// it wakes; a key typed into it wakes it.

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestTUISleepingSeat(t *testing.T) {
	t.Parallel()
	phome := t.TempDir()
	// A cli account pullcept can resume: it mints the id, has a resume line.
	writeConfig(t, phome, `{"hibernate_after":"1s","accounts":[{"id":"ann","name":"Ann","kind":"cli",`+
		`"command":"sh -c 'echo ann-was-here; exec cat' {session_id}","resume":"sh -c 'echo ann-resumed; exec cat' {session_id}"}]}`)
	r := startTUI(t, phome, serverEnv(t), 160, 40, nil)
	r.waitText("say something to the room", "Participants", "Ann")
	startSeats(r, "Ann")
	r.waitText("ann-was-here")

	// Its pane is on the screen: it stays awake well past hibernate_after.
	time.Sleep(3 * time.Second)
	running := regexp.MustCompile(`● Ann +running`)
	if scr := r.screen(); !running.MatchString(scr) || strings.Contains(scr, "asleep") {
		t.Fatalf("a seat whose pane is on the screen slept:\n%s", scr)
	}

	// The room zoomed: the pane is on no screen, the seat sleeps.
	r.prefix("r")
	r.prefix("z")
	r.waitFor("the status line says it sleeps", func(scr string) bool { return strings.Contains(statusLine(scr), "Ann is asleep") })

	// Unzoomed: the participants say since when; its pane is the
	// placeholder, the last screen dimmed.
	r.prefix("z")
	asleep := regexp.MustCompile(`● Ann +asleep *\n.*│ +asleep since \d\d:\d\d`)
	r.waitFor("Ann asleep in the participants", func(scr string) bool { return asleep.MatchString(scr) })
	r.waitText("ann-was-here", "a key here, s or @Ann wakes it")
	if styled := r.tmux("capture-pane", "-e", "-p"); !dimAt(styled, "ann-was-here") {
		t.Fatalf("the last screen is not dimmed:\n%q", styled)
	}

	// A key typed into it wakes it, resumed.
	r.prefix("#")
	r.keys("1")
	r.text("x")
	r.waitFor("Ann running again, resumed", func(scr string) bool {
		return strings.Contains(scr, "1 Ann · cli · running") && strings.Contains(scr, "ann-resumed") && !strings.Contains(scr, "wakes it")
	})
}

// dimAt says whether text is drawn faint in the styled capture: the SGR
// in effect where it starts (from the last reset on its row) sets 2 and
// no later 22 clears it.
func dimAt(styled, text string) bool {
	for _, row := range strings.Split(styled, "\n") {
		i := strings.Index(row, text)
		if i < 0 {
			continue
		}
		on := false
		for _, m := range regexp.MustCompile(`\x1b\[([0-9;]*)m`).FindAllStringSubmatch(row[:i], -1) {
			for _, p := range strings.Split(m[1], ";") {
				switch p {
				case "", "0":
					on = false
				case "2":
					on = true
				case "22":
					on = false
				}
			}
		}
		return on
	}
	return false
}

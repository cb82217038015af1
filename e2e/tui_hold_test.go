package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestTUIShowsHolds drives the TUI in tmux with a cli seat that asks the
// person before it runs a command (e2e/testdata/askcli.sh, reporting with
// pullcept hook): the pane title and the participants row say the seat
// waits and how many posts it holds; the person's answer in the pane
// releases them, and the held post is typed once.
func TestTUIShowsHolds(t *testing.T) {
	t.Parallel()
	phome := t.TempDir()
	script := filepath.Join(repoRoot(t), "e2e", "testdata", "askcli.sh")
	cfg := `{"accounts":[{"id":"ask","name":"Ask","kind":"cli","command":` + strconv.Quote(script) + `}],"notify":{"permission":"both"}}`
	writeConfig(t, phome, cfg)
	r := startTUI(t, phome, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=C.UTF-8"}, 160, 40, nil)
	// Everything pullcept writes to its terminal, raw: the bell and the
	// desktop notification are bytes, not something on the screen.
	raw := filepath.Join(t.TempDir(), "raw")
	r.tmux("pipe-pane", "-o", "cat >> "+shellQuote(raw))
	r.waitText("say something to the room", "Participants", "Ask")
	r.prefix("a")
	r.keys("j")
	r.keys("s")
	r.waitText("Ask · cli · running", "askcli READY")
	r.waitFor("Ask in the room", func(scr string) bool { return regexp.MustCompile(`● Ask +in room`).MatchString(scr) })

	r.prefix("i")
	r.text("@Ask ask rm -rf build")
	r.keys("Enter")
	r.waitText("Ask · cli · running · waiting for permission", "Allow rm -rf build? [y/n]")
	r.waitFor("the waiting badge in the participants", func(scr string) bool {
		return regexp.MustCompile(`● Ask +waiting`).MatchString(scr)
	})
	// The needs-you signal: the topic row is marked, the outer terminal
	// got BEL and the desktop notifications (notify.permission "both").
	r.waitFor("the needs-you mark on the topic row", func(scr string) bool { return strings.HasPrefix(topicRows(scr)[0], "!") })
	r.until("the bell and the desktop notification", func() bool {
		data, _ := os.ReadFile(raw)
		return strings.Contains(string(data), "\a\x1b]9;Ask is waiting for your permission") &&
			strings.Contains(string(data), "\x1b]777;notify;Pullcept;Ask is waiting for your permission")
	})
	r.text("@Ask yes, are you there?")
	r.keys("Enter")
	r.waitText("1 Ask · cli · running · waiting for permission · 1 held — waiting") // pane 1; the title is cut at the pane's width
	r.waitFor("the held count in the participants", func(scr string) bool {
		return regexp.MustCompile(`● Ask +1 held`).MatchString(scr)
	})
	if strings.Contains(r.screen(), "ANSWER<") {
		t.Fatal("a post answered the question")
	}

	// Answer in the pane: focus it (prefix o: input, room, then the pane),
	// type n, Enter.
	r.prefix("o")
	r.prefix("o")
	r.text("n")
	r.keys("Enter")
	scr := r.waitText("ANSWER<n>", "GOT<yes, are you there?>")
	if strings.Count(scr, "GOT<yes, are you there?>") != 1 || strings.Contains(scr, "held —") {
		t.Fatalf("after the answer:\n%s", scr)
	}
	r.waitFor("the mark gone once nothing waits", func(scr string) bool { return !strings.HasPrefix(topicRows(scr)[0], "!") })
}

// TestTUIReleaseSaysWhy: u in the participants, through the real server,
// says what it did or why not (issue 31, point 4): a seat holding nothing
// says so; a post held behind the person's unsent keys in the pane is
// named with the keys, and for a cli program (no clear key measured safe)
// the person is told to send or clear them in the pane; Enter there sends
// the keys and the held post follows once.
func TestTUIReleaseSaysWhy(t *testing.T) {
	t.Parallel()
	phome := t.TempDir()
	script := filepath.Join(repoRoot(t), "e2e", "testdata", "askcli.sh")
	writeConfig(t, phome, `{"accounts":[{"id":"ask","name":"Ask","kind":"cli","command":`+strconv.Quote(script)+`}]}`)
	r := startTUI(t, phome, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=C.UTF-8"}, 160, 40, nil)
	r.waitText("say something to the room", "Participants", "Ask")
	r.prefix("a")
	r.keys("j")
	r.keys("s")
	r.waitText("Ask · cli · running", "askcli READY")
	r.waitFor("Ask in the room", func(scr string) bool { return regexp.MustCompile(`● Ask +in room`).MatchString(scr) })
	r.keys("u")
	r.waitText("Ask holds no posts")

	// Half a line typed in the pane, then a post for Ask from the input line.
	r.prefix("i")
	r.prefix("o")
	r.prefix("o")
	r.text("abc")
	r.prefix("i")
	r.text("@Ask hello there")
	r.keys("Enter")
	r.waitText("1 held — unsent keys")
	r.prefix("a")
	r.keys("u")
	r.waitText("Ask holds 1 post behind your unsent keys 'abc': send or clear them in its pane")
	if scr := r.screen(); strings.Contains(scr, "GOT<") {
		t.Fatalf("something was typed:\n%s", scr)
	}
	// The person sends the keys in the pane (input line, room, pane); the
	// held post follows, once.
	r.prefix("i")
	r.prefix("o")
	r.prefix("o")
	r.keys("Enter")
	scr := r.waitText("GOT<abc>", "GOT<hello there>")
	if strings.Count(scr, "GOT<hello there>") != 1 {
		t.Fatalf("after Enter:\n%s", scr)
	}
}

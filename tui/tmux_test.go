package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tmuxSession drives the test binary in tmux on a private socket.
type tmuxSession struct {
	t      *testing.T
	socket string
}

func (s *tmuxSession) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

func (s *tmuxSession) capture() string { return s.tmux("capture-pane", "-p") }

// waitFor polls the screen until ok holds or the deadline passes.
func (s *tmuxSession) waitFor(what string, ok func(screen string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		scr := s.capture()
		if ok(scr) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out waiting for %s; screen:\n%s", what, scr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *tmuxSession) waitText(text string) string {
	s.t.Helper()
	return s.waitFor(fmt.Sprintf("%q", text), func(scr string) bool { return strings.Contains(scr, text) })
}

func (s *tmuxSession) keys(keys ...string) {
	s.t.Helper()
	s.tmux(append([]string{"send-keys"}, keys...)...)
}

func TestTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "pullcept-tui")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/cmd").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	data := filepath.Join(dir, "data")
	s := &tmuxSession{t: t, socket: fmt.Sprintf("pullcept-tui-%d-%d", os.Getpid(), time.Now().UnixNano())}
	s.tmux("new-session", "-d", "-x", "100", "-y", "30", bin+" -dir "+data)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", s.socket, "kill-server").Run() })

	s.waitText("say something to the room")
	// Type a post: it shows in the room and names the topic.
	s.keys("-l", "hello from tmux 日本語")
	s.keys("Enter")
	s.waitText("▶ you")
	scr := s.waitText("Room · hello from tmux 日本語")
	if !strings.Contains(scr, "  hello from tmux 日本語") {
		t.Fatalf("post body not in the room:\n%s", scr)
	}

	// A new topic (prefix c), a post there, then back (prefix p).
	s.keys("C-b")
	s.keys("c")
	s.waitText("Room · new topic")
	s.keys("-l", "second topic")
	s.keys("Enter")
	s.waitText("Room · second topic")
	screenshot := s.capture()
	s.keys("C-b")
	s.keys("p")
	s.waitText("Room · hello from tmux")

	// Delete the topic on screen from the list: the dialog, then a new topic.
	s.keys("C-b")
	s.keys("w")
	s.keys("d")
	s.waitText("Delete the topic")
	scr = s.waitText("[y] delete")
	if strings.Contains(scr, "session") {
		t.Errorf("the dialog mentions sessions although none run:\n%s", scr)
	}
	s.keys("y")
	s.waitText("topic deleted")
	s.waitFor("the deleted topic gone from the list", func(scr string) bool {
		return !strings.Contains(scr, "hello from tmux") && strings.Contains(scr, "second topic")
	})

	// Help, then quit with the prefix key.
	s.keys("C-b")
	s.keys("?")
	s.waitText("After the prefix key")
	s.keys("Escape")
	s.waitFor("help closed", func(scr string) bool { return !strings.Contains(scr, "After the prefix key") })
	s.keys("C-b")
	s.keys("q")
	deadline := time.Now().Add(10 * time.Second)
	for exec.Command("tmux", "-L", s.socket, "has-session").Run() == nil {
		if time.Now().After(deadline) {
			t.Fatalf("prefix q did not quit:\n%s", s.capture())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if *update {
		_ = os.WriteFile(filepath.Join("testdata", "screenshot.txt"), []byte(screenshot), 0o644)
	}
}

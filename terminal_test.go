package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// The server reads a passed terminal on Go's poller, so it sets the
// terminal's open file non-blocking; that open file is the person's shell's
// too. It is non-blocking while the screen reads it, blocking for a
// program run on it ($EDITOR), and blocking again after a detach and after
// the server was killed (the client puts it back).
func TestPassedTerminalLeftBlocking(t *testing.T) {
	bin := pullceptBinary(t)
	home := t.TempDir()
	flags := filepath.Join(t.TempDir(), "editor-stdin-flags")
	editor := filepath.Join(t.TempDir(), "editor.sh")
	// The editor notes its stdin's open-file flags (octal) and writes the draft.
	script := "#!/bin/sh\n[ \"$1\" = -- ] && shift\nsed -n 's/^flags:[[:space:]]*//p' /proc/self/fdinfo/0 > " + flags + ".tmp && mv " + flags + ".tmp " + flags + "\necho 'from the editor' > \"$1\"\n"
	if err := os.WriteFile(editor, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(homeEnv(home), "TERM=xterm-256color", "EDITOR="+editor, "VISUAL=")
	t.Cleanup(func() {
		kill := exec.Command(bin, "kill-server")
		kill.Env = env
		_ = kill.Run()
	})

	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 30, Cols: 100}); err != nil {
		t.Fatal(err)
	}
	var (
		mu  sync.Mutex
		out strings.Builder
	)
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := ptmx.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	ansi := regexp.MustCompile(`\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78])`)
	seen := func(s string) bool {
		mu.Lock()
		defer mu.Unlock()
		return strings.Contains(ansi.ReplaceAllString(out.String(), ""), s)
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(15 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				mu.Lock()
				defer mu.Unlock()
				t.Fatalf("%s: not within 15 s; output so far:\n%q", what, ansi.ReplaceAllString(out.String(), ""))
			}
		}
	}
	// Not tty.Fd(): that would make the open file blocking itself.
	rc, err := tty.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	nonblocking := func() bool {
		var fl int
		var ferr error
		if err := rc.Control(func(fd uintptr) { fl, ferr = unix.FcntlInt(fd, unix.F_GETFL, 0) }); err != nil || ferr != nil {
			t.Fatal(err, ferr)
		}
		return fl&unix.O_NONBLOCK != 0
	}
	attach := func() *exec.Cmd {
		t.Helper()
		cmd := exec.Command(bin)
		cmd.Env = env
		cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	exited := func(cmd *exec.Cmd) {
		t.Helper()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			t.Fatal("the client did not end")
		}
	}

	client := attach()
	waitFor("the screen", func() bool { return seen("say something to the room") })
	waitFor("the server reading the terminal non-blocking", nonblocking)

	ptmx.WriteString("\x07") // ctrl+g: the editor, on this terminal
	waitFor("the editor's note", func() bool { _, err := os.Stat(flags); return err == nil })
	b, err := os.ReadFile(flags)
	if err != nil {
		t.Fatal(err)
	}
	fl, err := strconv.ParseUint(strings.TrimSpace(string(b)), 8, 64)
	if err != nil {
		t.Fatalf("the editor's stdin flags %q: %v", b, err)
	}
	if fl&unix.O_NONBLOCK != 0 {
		t.Errorf("the editor's stdin is non-blocking (flags %o)", fl)
	}
	waitFor("the edited draft", func() bool { return seen("from the editor") })
	waitFor("the server reading non-blocking again after the editor", nonblocking)

	ptmx.WriteString("\x02d") // prefix d: detach
	exited(client)
	if nonblocking() {
		t.Error("after a detach the terminal is left non-blocking")
	}

	// The server killed while a client is attached: the client puts the
	// terminal back as it ends.
	client = attach()
	waitFor("the server reading the terminal non-blocking", nonblocking)
	lock, err := os.ReadFile(filepath.Join(home, "state", "pullcept.lock"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(lock)))
	if err != nil {
		t.Fatalf("the server's pid %q: %v", lock, err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	exited(client)
	if nonblocking() {
		t.Error("after the server was killed the terminal is left non-blocking")
	}
}

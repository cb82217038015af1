package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startTUI runs pullcept (PULLCEPT_HOME=phome, the person Master, prefix
// Ctrl-b) in a private tmux server of size w x h, with exactly env plus
// pullcept's own variables: the tmux server itself is started with it, so
// its global environment adds nothing to the pane's. On failure the
// cleanup logs the screen, the app's log, pullcept's stderr and whatever
// onFail adds; race reports fail the test. The terminal is as a person's
// tmux makes it: TERM is tmux's default-terminal, set by tmux in the pane,
// and no COLORTERM; a test does not choose them (the screen's colours come
// from them: issue 31).
func startTUI(t *testing.T, phome string, env []string, w, h int, onFail func()) *tuiRun {
	t.Helper()
	return startTUIBinary(t, pullceptBin, phome, env, w, h, onFail)
}

// startTUIBinary is startTUI with the pullcept binary bin.
func startTUIBinary(t *testing.T, bin, phome string, env []string, w, h int, onFail func()) *tuiRun {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		required(t, "tmux is not installed: the TUI test drives pullcept in tmux")
	}
	for _, kv := range env {
		if strings.HasPrefix(kv, "TERM=") || strings.HasPrefix(kv, "COLORTERM=") {
			t.Fatalf("startTUI: %s forces the terminal's colours; tmux sets TERM in its panes", kv)
		}
	}
	dir := t.TempDir()
	race := filepath.Join(dir, "race")
	stderr := filepath.Join(dir, "stderr")
	status := filepath.Join(dir, "status")
	env = append(slices.Clone(env), "PULLCEPT_HOME="+phome, "PULLCEPT_NAME=Master", "PULLCEPT_PREFIX=ctrl+b",
		"GORACE=log_path="+race)
	tmuxEnv := slices.Clone(env)
	if v, ok := os.LookupEnv("TMUX_TMPDIR"); ok { // where the socket lives
		tmuxEnv = append(tmuxEnv, "TMUX_TMPDIR="+v)
	}
	r := &tuiRun{t: t, socket: fmt.Sprintf("pullcept-e2e-%d-%d", os.Getpid(), time.Now().UnixNano()), status: status}
	args := []string{"start-server", ";", "set-option", "-g", "remain-on-exit", "on", ";",
		"new-session", "-d", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h)}
	for _, kv := range env {
		args = append(args, "-e", kv)
	}
	args = append(args, shellQuote(bin)+" 2>"+shellQuote(stderr)+"; echo $? >"+shellQuote(status))
	startTmux := r.tmuxCmd(args...)
	startTmux.Env = tmuxEnv
	if out, err := startTmux.CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if t.Failed() {
			if out, err := r.tmuxCmd("capture-pane", "-p").CombinedOutput(); err == nil {
				r.last = string(out)
			}
			t.Logf("screen (capture-pane):\n%s", r.last)
			log, _ := os.ReadFile(filepath.Join(phome, "state", "pullcept.log"))
			t.Logf("pullcept.log:\n%s", log)
			errs, _ := os.ReadFile(stderr)
			t.Logf("pullcept's stderr:\n%s", errs)
			if onFail != nil {
				onFail()
			}
		}
		endServer(t, phome, env)
		_ = r.tmuxCmd("kill-server").Run()
		files, _ := filepath.Glob(race + ".*")
		for _, f := range files {
			data, _ := os.ReadFile(f)
			t.Errorf("the race detector reported (%s):\n%s", f, data)
		}
	})
	return r
}

// writeConfig writes a run's config.json.
func writeConfig(t *testing.T, phome, cfg string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(phome, "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

// endServer ends the home's pullcept server (the screen's server outlives
// its terminal) as a person would, with pullcept kill-server; a failed
// test first gets the server's goroutines and stderr (state/server.log).
func endServer(t *testing.T, phome string, env []string) {
	t.Helper()
	if t.Failed() {
		if pid := serverPID(phome); pid > 0 && syscall.Kill(pid, syscall.SIGQUIT) == nil {
			waitGone(pid, tuiWait)
		}
		serr, _ := os.ReadFile(filepath.Join(phome, "state", "server.log"))
		t.Logf("the server's stderr (state/server.log):\n%s", serr)
	}
	kill := exec.Command(pullceptBin, "kill-server")
	kill.Env = append(os.Environ(), env...)
	kill.Env = append(kill.Env, "PULLCEPT_HOME="+phome)
	_ = kill.Run()
}

// serverPID is the pid the home's lock names (0 when none).
func serverPID(phome string) int {
	b, _ := os.ReadFile(filepath.Join(phome, "state", "pullcept.lock"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// waitGone waits until pid has ended (no event to await for another
// process's end: polled).
func waitGone(pid int, d time.Duration) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil {
			return true
		}
	}
	return false
}

// registrations are the per-launch files in the runtime folder (not the
// server's socket and its copy of the binary, bin/).
func registrations(phome string) []string {
	all, _ := filepath.Glob(filepath.Join(phome, "run", "*"))
	var out []string
	for _, f := range all {
		if b := filepath.Base(f); b != "bin" && b != "server.sock" {
			out = append(out, f)
		}
	}
	return out
}

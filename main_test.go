package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"pullcept/cli"
	"pullcept/dirs"
	"pullcept/room/wire"
)

func TestVersion(t *testing.T) {
	for _, arg := range []string{"version", "--version"} {
		var out bytes.Buffer
		if err := cli.Run(context.Background(), []string{arg}, nil, &out, &out); err != nil {
			t.Fatal(err)
		}
		if s := out.String(); !strings.HasPrefix(s, "pullcept ") || !strings.Contains(s, fmt.Sprintf("room protocol %d", wire.ProtocolVersion)) {
			t.Errorf("%s: %q", arg, s)
		}
	}
}

// Signals (docs/performance.md "Start-up"): main installs no handler, each
// subcommand with something to undo installs its own (cli.OnStopSignal). These
// run the real binary and signal it.

// homeEnv is the environment of a pullcept run on home: the test's, without
// its PULLCEPT_ variables.
func homeEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PULLCEPT_") {
			env = append(env, kv)
		}
	}
	return append(env, "PULLCEPT_HOME="+home, "PULLCEPT_NAME=Master")
}

// waitExit waits up to 20 s for cmd and returns its exit code (-1 and the
// signal for a process killed by one).
func waitExit(t *testing.T, cmd *exec.Cmd) (int, syscall.Signal) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("%s: %v", cmd.Args, err)
		}
		ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
		if ws.Signaled() {
			return -1, ws.Signal()
		}
		return ws.ExitStatus(), 0
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("%s did not end in 20 s", cmd.Args)
		return 0, 0
	}
}

// homeCleanedUp checks what a server leaves when it has stopped: no socket,
// the home's lock free.
func homeCleanedUp(t *testing.T, home string) {
	t.Helper()
	if _, err := os.Lstat(filepath.Join(home, "run", "server.sock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the server's socket is still there (%v)", err)
	}
	release, err := dirs.LockHome(filepath.Join(home, "state"))
	if err != nil {
		t.Errorf("the home's lock is still held: %v", err)
		return
	}
	release()
}

// gone waits up to 10 s for the process pid to end.
func gone(pid int) bool {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil {
			return true
		}
	}
	return false
}

// `pullcept server` stops on SIGTERM or SIGHUP as kill-server stops it:
// status 0, its socket removed, the home's lock released.
func TestServerStopsOnSignal(t *testing.T) {
	bin := pullceptBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			home := t.TempDir()
			cmd := exec.Command(bin, "server")
			cmd.Env = homeEnv(home)
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(stderr).ReadString('\n')
			if !strings.HasPrefix(line, "pullcept server: pid") {
				cmd.Process.Kill()
				t.Fatalf("the server's first line: %q", line)
			}
			go io.Copy(io.Discard, stderr)
			if _, err := os.Stat(filepath.Join(home, "run", "server.sock")); err != nil {
				t.Fatalf("listening, but: %v", err)
			}
			cmd.Process.Signal(sig)
			if code, s := waitExit(t, cmd); code != 0 {
				t.Errorf("after %v the server exited with %d (signal %v), want 0", sig, code, s)
			}
			homeCleanedUp(t, home)
		})
	}
}

// `pullcept serve` with no server is the engine: SIGTERM stops its seats
// (their process ends) and the engine as EOF does.
func TestServeStopsItsSeatsOnSIGTERM(t *testing.T) {
	bin := pullceptBinary(t)
	home := t.TempDir()
	pidFile := filepath.Join(t.TempDir(), "seat.pid")
	cfg, _ := json.Marshal(map[string]any{"accounts": []map[string]any{{
		"id": "shell", "name": "Shell", "kind": "cli",
		"command": `/bin/sh -c 'echo $$ >"$SEAT_PID_FILE"; exec sleep 600'`,
		"env":     map[string]string{"SEAT_PID_FILE": pidFile},
	}}})
	if err := os.WriteFile(filepath.Join(home, "config.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = homeEnv(home)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	lines := make(chan map[string]any, 64)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 8<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				lines <- m
			}
		}
		close(lines)
	}()
	next := func(event string) map[string]any {
		t.Helper()
		timeout := time.After(20 * time.Second)
		for {
			select {
			case m, ok := <-lines:
				if !ok {
					t.Fatalf("serve ended before %q:\n%s", event, stderr.Bytes())
				}
				if m["event"] == event {
					return m
				}
			case <-timeout:
				cmd.Process.Kill()
				t.Fatalf("no %q from serve in 20 s", event)
			}
		}
	}
	topic, _ := next("ready")["topic"].(string)
	fmt.Fprintf(in, `{"cmd":"start","account":"shell","topic":%q}`+"\n", topic)
	next("start")
	var seat int
	for deadline := time.Now().Add(10 * time.Second); seat == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(pidFile)
		seat, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if seat == 0 {
		t.Fatal("the seat did not write its pid")
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if code, s := waitExit(t, cmd); code != 0 {
		t.Errorf("after SIGTERM serve exited with %d (signal %v), want 0\n%s", code, s, stderr.Bytes())
	}
	if !gone(seat) {
		syscall.Kill(seat, syscall.SIGKILL)
		t.Errorf("the seat's process (pid %d) outlived serve", seat)
	}
	homeCleanedUp(t, home)
}

// The sidecar, once it has answered, ends on SIGTERM as at the end of its
// input: status 0 (its handler is installed after the first answer).
func TestSidecarEndsCleanlyOnSIGTERM(t *testing.T) {
	cmd := exec.Command(pullceptBinary(t), "sidecar")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")} // no room: initialize is still answered
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	r := bufio.NewReader(out)
	for i, req := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`,
		// Answered after the first answer's Write returned, so after the
		// handler was installed.
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
	} {
		io.WriteString(in, req+"\n")
		line, err := r.ReadString('\n')
		if err != nil || !strings.Contains(line, fmt.Sprintf(`"id":%d`, i+1)) {
			cmd.Process.Kill()
			t.Fatalf("answer %d: %q %v", i+1, line, err)
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if code, s := waitExit(t, cmd); code != 0 {
		t.Errorf("after SIGTERM the sidecar exited with %d (signal %v), want 0", code, s)
	}
}

// A subcommand with nothing to undo has no handler: a hook waiting for its
// stdin dies of SIGTERM at once. (A handler in main would also cost every
// start-up a thread: docs/performance.md "Start-up".)
func TestHookKeepsTheDefaultSignalAction(t *testing.T) {
	cmd := exec.Command(pullceptBinary(t), "hook", "activity")
	cmd.Env = homeEnv(t.TempDir())
	in, _ := cmd.StdinPipe()
	defer in.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Give it time to reach main and block on its stdin: a signal before
	// main kills it whatever main does, which would prove nothing.
	time.Sleep(100 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	if _, s := waitExit(t, cmd); s != syscall.SIGTERM {
		t.Errorf("the hook did not die of SIGTERM (signal %v)", s)
	}
}

// The binary alone, on a PATH with nothing of pullcept's (what `go install
// .` gives), runs the engine's commands and the others: before, the front
// binary said "pullcept-server is not beside DIR nor on PATH".
func TestTheBinaryAloneRunsEveryCommand(t *testing.T) {
	dir := t.TempDir()
	alone := filepath.Join(dir, "pullcept")
	data, err := os.ReadFile(pullceptBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, data, 0o755); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	env := append(homeEnv(home), "PATH=/usr/bin:/bin")
	cmd := exec.Command(alone, "accounts", "list")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if want := "No accounts: " + filepath.Join(home, "config.json") + " does not exist"; err != nil || !strings.HasPrefix(string(out), want) {
		t.Fatalf("accounts list from the lone binary: %v: %q, want %q…", err, out, want)
	}
	cmd = exec.Command(alone, "topics", "list")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "no topics yet") {
		t.Fatalf("topics list from the lone binary: %v\n%s", err, out)
	}
}

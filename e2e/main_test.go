// Package e2e runs the real pullcept binary: headless control mode, the
// sidecar as real MCP clients see it, the topics command, and the real
// claude/codex CLIs against a scripted model endpoint.
package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// pullceptBin is the binary built once for the whole package.
var pullceptBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "pullcept-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pullceptBin = filepath.Join(dir, "pullcept")
	build := exec.Command("go", "build", "-race", "-o", pullceptBin, "..")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building pullcept:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// serve is a running `pullcept serve`.
type serve struct {
	t     *testing.T
	home  string
	cmd   *exec.Cmd
	in    io.WriteCloser
	mu    sync.Mutex
	lines []map[string]any
	raw   []string
	at    []time.Time   // when each line arrived
	grew  chan struct{} // closed and replaced on every new line
	Ready map[string]any
	// stop closes stdin and waits for the process to end (once).
	stop func()
}

func startServe(t *testing.T, home string) *serve {
	t.Helper()
	return startServeEnv(t, home, os.Environ())
}

// startServeEnv runs serve with env (plus PULLCEPT_HOME and PULLCEPT_NAME);
// its seats inherit env.
func startServeEnv(t *testing.T, home string, env []string) *serve {
	t.Helper()
	cmd := exec.Command(pullceptBin, "serve")
	cmd.Env = append(append([]string(nil), env...), "PULLCEPT_HOME="+home, "PULLCEPT_NAME=Master")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &serve{t: t, home: home, cmd: cmd, in: in, grew: make(chan struct{})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 8<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("serve wrote a line that is not JSON: %q", sc.Text())
				continue
			}
			s.mu.Lock()
			s.lines = append(s.lines, m)
			s.raw = append(s.raw, sc.Text())
			s.at = append(s.at, time.Now())
			close(s.grew)
			s.grew = make(chan struct{})
			s.mu.Unlock()
		}
	}()
	s.stop = func() {
		in.Close()
		waited := make(chan error, 1)
		go func() { <-done; waited <- cmd.Wait() }()
		select {
		case err := <-waited:
			if err != nil {
				t.Errorf("serve exited with %v\nstderr: %s", err, stderr.String())
			}
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Errorf("serve did not exit on EOF")
		}
		if t.Failed() {
			s.mu.Lock()
			t.Logf("serve output:\n%s\nstderr:\n%s", strings.Join(s.raw, "\n"), stderr.String())
			s.mu.Unlock()
			if log, err := os.ReadFile(filepath.Join(home, "state", "pullcept.log")); err == nil {
				t.Logf("pullcept.log:\n%s", log)
			}
		}
	}
	var once sync.Once
	stop := s.stop
	s.stop = func() { once.Do(stop) }
	t.Cleanup(s.stop)
	s.Ready = s.wait(func(m map[string]any) bool { return m["event"] == "ready" })
	return s
}

// wait returns the first line (from the start of the run) matching f.
func (s *serve) wait(f func(map[string]any) bool) map[string]any {
	s.t.Helper()
	return s.waitFrom(0, f)
}

// mark is the number of lines so far, for waitFrom.
func (s *serve) mark() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.lines)
}

// waitFrom returns the first line after the first from lines matching f.
func (s *serve) waitFrom(from int, f func(map[string]any) bool) map[string]any {
	s.t.Helper()
	l := s.scanFrom(from, 60*time.Second, f)
	if l == nil {
		s.t.Fatalf("serve never wrote the awaited line")
	}
	return l
}

// scanFrom returns the first line after the first from lines matching f,
// or nil when none came within d.
func (s *serve) scanFrom(from int, d time.Duration, f func(map[string]any) bool) map[string]any {
	deadline := time.After(d)
	seen := from
	for {
		s.mu.Lock()
		lines, grew := s.lines, s.grew
		s.mu.Unlock()
		for ; seen < len(lines); seen++ {
			if f(lines[seen]) {
				return lines[seen]
			}
		}
		select {
		case <-grew:
		case <-deadline:
			return nil
		}
	}
}

// count returns how many lines so far match f.
func (s *serve) count(f func(map[string]any) bool) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, l := range s.lines {
		if f(l) {
			n++
		}
	}
	return n
}

// do sends a command with a fresh id and waits for its answer.
func (s *serve) do(cmd map[string]any) map[string]any {
	s.t.Helper()
	s.mu.Lock()
	id := fmt.Sprintf("c%d", len(s.lines))
	s.mu.Unlock()
	cmd["id"] = id
	b, _ := json.Marshal(cmd)
	if _, err := s.in.Write(append(b, '\n')); err != nil {
		s.t.Fatal(err)
	}
	return s.wait(func(m map[string]any) bool { return m["id"] == id })
}

func (s *serve) url() string   { return s.Ready["url"].(string) }
func (s *serve) token() string { return s.Ready["token"].(string) }
func (s *serve) topic() string { return s.Ready["topic"].(string) }

// repoRoot is the module root (the test runs in e2e/).
func repoRoot(t *testing.T) string {
	t.Helper()
	abs, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// required skips, or fails on CI (PULLCEPT_REQUIRE_CLIS) where the real
// clients must be installed.
func required(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("PULLCEPT_REQUIRE_CLIS") != "" {
		t.Fatal("required but missing: " + why)
	}
	t.Skip(why)
}

// nodeSDK is node and the npm prefix holding the official TypeScript MCP
// SDK, for the scripted agents; the test is skipped (or failed under
// PULLCEPT_REQUIRE_CLIS) when either is missing.
func nodeSDK(t *testing.T) (node, prefix string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		required(t, "node is not installed")
	}
	prefix = filepath.Join(repoRoot(t), ".cache", "npm")
	if _, err := os.Stat(filepath.Join(prefix, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		required(t, "@modelcontextprotocol/sdk not installed (bash .ci/install-clis.sh)")
	}
	return node, prefix
}

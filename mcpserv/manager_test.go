package mcpserv

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var fakeBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcpserv-test-")
	if err != nil {
		panic(err)
	}
	fakeBin = filepath.Join(dir, "fakebridge")
	if out, err := exec.Command("go", "build", "-o", fakeBin, "./testdata/fakebridge").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build fakebridge: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// harness is a manager over a file of fake bridges, recording its posts.
type harness struct {
	t     *testing.T
	dir   string
	m     *Manager
	mu    sync.Mutex
	posts []Notice
	rooms int
	note  chan struct{}
}

func newHarness(t *testing.T, o Options, names ...string) *harness {
	t.Helper()
	// Unix socket paths must be short.
	dir, err := os.MkdirTemp("", "mcp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	h := &harness{t: t, dir: dir, rooms: 1, note: make(chan struct{}, 1)}
	var entries []Entry
	for _, n := range names {
		entries = append(entries, h.entry(n, nil))
	}
	if err := os.WriteFile(filepath.Join(dir, FileName), fresh(entries), 0o600); err != nil {
		t.Fatal(err)
	}
	o.Path = filepath.Join(dir, FileName)
	o.Post = func(n Notice) int {
		h.mu.Lock()
		h.posts = append(h.posts, n)
		r := h.rooms
		h.mu.Unlock()
		return r
	}
	o.Changed = func() {
		select {
		case h.note <- struct{}{}:
		default:
		}
	}
	h.m = New(o)
	t.Cleanup(h.m.Close)
	h.m.Load()
	return h
}

func (h *harness) entry(name string, env map[string]string) Entry {
	e := map[string]string{"FAKEBRIDGE_CTL": h.ctl(name), "FAKEBRIDGE_PIDFILE": filepath.Join(h.dir, name+".pid")}
	for k, v := range env {
		e[k] = v
	}
	return Entry{Name: name, Command: fakeBin, Env: e}
}

func (h *harness) ctl(name string) string { return filepath.Join(h.dir, name+".sock") }

// waitFor waits until cond holds, woken by the manager's changes and the
// posts (a bound of 20 s only fails the test).
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.After(20 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-h.note:
		case <-tick.C:
		case <-deadline:
			h.t.Fatalf("timed out waiting for %s; status %+v", what, h.m.Status())
		}
	}
}

func (h *harness) state(name string) State {
	for _, s := range h.m.Status() {
		if s.Name == name {
			return s.State
		}
	}
	return ""
}

func (h *harness) running(name string) {
	h.t.Helper()
	h.waitFor(name+" running", func() bool { return h.state(name) == StateRunning })
}

// cue sends the fake bridge name one cue and waits for its "ok".
func (h *harness) cue(name string, c any) {
	h.t.Helper()
	conn, err := net.Dial("unix", h.ctl(name))
	if err != nil {
		h.t.Fatal(err)
	}
	defer conn.Close()
	b, _ := json.Marshal(c)
	if _, err := conn.Write(append(b, '\n')); err != nil {
		h.t.Fatal(err)
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || line != "ok\n" {
		h.t.Fatalf("cue %s: %q %v", b, line, err)
	}
}

func push(content, id string) map[string]any {
	meta := map[string]any{"chat_id": "github", "user": "alice", "ts": "2026-10-14T01:02:03.456Z"}
	if id != "" {
		meta["message_id"] = id
	}
	return map[string]any{"push": map[string]any{"content": content, "meta": meta}}
}

func record(kind, at, body string) string {
	b, _ := json.MarshalIndent(map[string]any{"id": "x", "type": kind, "processed": false,
		"payload": map[string]any{at: map[string]any{"body": body}}}, "", "  ")
	return string(b)
}

func (h *harness) postsNow() []Notice {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Notice(nil), h.posts...)
}

func (h *harness) waitPosts(n int) []Notice {
	h.t.Helper()
	h.waitFor(fmt.Sprintf("%d posts", n), func() bool { return len(h.postsNow()) >= n })
	return h.postsNow()
}

func (h *harness) logText(name string) string {
	var b strings.Builder
	for _, l := range h.m.Log(name) {
		b.WriteString(l.Text + "\n")
	}
	return b.String()
}

const comment = "[issue_comment] acme/web-app\naction: created\n#42 Fix login timeout\nby alice\nhttps://github.com/acme/web-app/issues/42"

func TestNoticeSignedAndPrompted(t *testing.T) {
	h := newHarness(t, Options{}, "hook")
	if got := h.state("hook"); got != StateNotStarted {
		t.Fatalf("before start: %q, want not started", got)
	}
	h.m.StartAll()
	h.running("hook")
	h.cue("hook", map[string]any{"event": map[string]any{"id": "ev-1", "record": record("issue_comment", "comment", "Looks good.\n\n— Lin\n")}})
	h.cue("hook", push(comment, "ev-1"))
	posts := h.waitPosts(1)
	want := "署名: Lin\n[issue_comment] acme/web-app\naction: created\n#42 Fix login timeout\nby alice\n" +
		"If this is your own operation, mark it processed now: event_id=ev-1\nhttps://github.com/acme/web-app/issues/42"
	if posts[0].Text != want || posts[0].Server != "hook" || posts[0].EventID != "ev-1" || posts[0].Signer != "Lin" {
		t.Fatalf("post = %+v\nwant text %q", posts[0], want)
	}
	if log := h.logText("hook"); !strings.Contains(log, "call get_event ev-1") || strings.Contains(log, "mark_processed") {
		t.Fatalf("the app must read the event with get_event and never mark it:\n%s", log)
	}
}

func TestNoticeWithoutIDNotPosted(t *testing.T) {
	h := newHarness(t, Options{}, "hook")
	h.m.StartAll()
	h.running("hook")
	h.cue("hook", push("[push] acme/web-app\nby bob", ""))
	h.cue("hook", push("[push] acme/web-app\nby carol", "ev-2"))
	posts := h.waitPosts(1)
	h.waitFor("the log line", func() bool { return strings.Contains(h.logText("hook"), "without an event id") })
	if len(posts) != 1 || posts[0].Text != "[push] acme/web-app\nby carol\n"+MarkLine("ev-2") {
		t.Fatalf("posts = %+v", posts)
	}
}

func TestNoticeNowhereLogged(t *testing.T) {
	h := newHarness(t, Options{}, "hook")
	h.rooms = 0
	h.m.StartAll()
	h.running("hook")
	h.cue("hook", push("[push] acme/web-app\nby bob", "ev-9"))
	h.waitFor("the posted-nowhere line", func() bool { return strings.Contains(h.logText("hook"), "event ev-9: no room has an AI session") })
}

// A slow signature holds the notices behind it; one past the bound goes
// out unsigned, still in order.
func TestSignatureBoundAndOrder(t *testing.T) {
	// A bound well past ev-a's 150 ms: under load (a load average of 9 on
	// two cores) 300 ms once left ev-a unsigned.
	h := newHarness(t, Options{SignatureWait: 2 * time.Second}, "hook")
	h.m.StartAll()
	h.running("hook")
	// ev-a answers within the bound but after ev-b arrived; ev-c never
	// answers within it.
	h.cue("hook", map[string]any{"event": map[string]any{"id": "ev-a", "delay_ms": 150, "record": record("pull_request_review", "review", "LGTM\n— Lay")}})
	h.cue("hook", map[string]any{"event": map[string]any{"id": "ev-c", "delay_ms": 60000, "record": record("issues", "issue", "x\n— Lin")}})
	h.cue("hook", push("[pull_request_review] acme/web-app\naction: submitted\n#7 Add retry\nby carol\nhttps://github.com/acme/web-app/pull/7", "ev-a"))
	h.cue("hook", push("[workflow_run] acme/web-app\naction: completed\n# CI\nby bob\nhttps://github.com/acme/web-app/actions/runs/1", "ev-b"))
	h.cue("hook", push("[issues] acme/web-app\naction: opened\n#8 Crash\nby dave\nhttps://github.com/acme/web-app/issues/8", "ev-c"))
	h.cue("hook", push("[push] acme/web-app\nby bob", "ev-d"))
	posts := h.waitPosts(4)
	var ids, signers []string
	for _, p := range posts {
		ids, signers = append(ids, p.EventID), append(signers, p.Signer)
		if strings.Count(p.Text, MarkLinePrefix) != 1 {
			t.Errorf("%s: the mark line is not there exactly once:\n%s", p.EventID, p.Text)
		}
	}
	if !slices.Equal(ids, []string{"ev-a", "ev-b", "ev-c", "ev-d"}) {
		t.Fatalf("order = %v, want arrival order", ids)
	}
	if !slices.Equal(signers, []string{"Lay", "", "", ""}) {
		t.Fatalf("signers = %q", signers)
	}
	if !strings.HasPrefix(posts[0].Text, "署名: Lay\n") || strings.HasPrefix(posts[2].Text, SignaturePrefix) {
		t.Fatalf("texts: %q / %q", posts[0].Text, posts[2].Text)
	}
}

// When the bridge ends, a notice waiting for its signature goes out
// unsigned (and at once, not at the bound).
func TestBridgeEndFlushesPending(t *testing.T) {
	h := newHarness(t, Options{SignatureWait: time.Hour}, "hook")
	h.m.StartAll()
	h.running("hook")
	h.cue("hook", map[string]any{"event": map[string]any{"id": "ev-1", "delay_ms": 60000, "record": record("issue_comment", "comment", "— Lin")}})
	h.cue("hook", push(comment, "ev-1"))
	h.cue("hook", push("[push] acme/web-app\nby bob", "ev-2"))
	h.waitFor("the get_event call", func() bool { return strings.Contains(h.logText("hook"), "call get_event ev-1") })
	conn, err := net.Dial("unix", h.ctl("hook"))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(conn, `{"exit":3}`)
	conn.Close()
	posts := h.waitPosts(2)
	if posts[0].EventID != "ev-1" || posts[0].Signer != "" || posts[1].EventID != "ev-2" {
		t.Fatalf("posts = %+v", posts)
	}
	h.waitFor("ended", func() bool { return h.state("hook") == StateEnded })
}

// What the server writes on stdout that is not MCP is said in its log and
// skipped (an answer to no request is dropped by mcp-go's client); the
// pushes around it are posted.
func TestStdoutNoiseLogged(t *testing.T) {
	h := newHarness(t, Options{}, "hook")
	h.m.StartAll()
	h.running("hook")
	h.cue("hook", map[string]any{"stdout": "Debugger listening on ws://127.0.0.1:9229"})
	h.cue("hook", map[string]any{"stdout": `{"jsonrpc":"2.0","id":"x","result":{}}`})
	h.cue("hook", push("[push] acme/web-app\nby bob", "ev-1"))
	if posts := h.waitPosts(1); posts[0].EventID != "ev-1" {
		t.Fatalf("posts = %+v", posts)
	}
	log := h.logText("hook")
	if !strings.Contains(log, `stdout: a line that is not JSON was skipped: "Debugger listening`) {
		t.Fatalf("log:\n%s", log)
	}
}

func TestStatesAndLog(t *testing.T) {
	h := newHarness(t, Options{}, "hook")
	h.m.StartAll()
	h.running("hook")
	h.cue("hook", map[string]any{"stderr": "[github-webhook-mcp] WebSocket: connected"})
	h.waitFor("the stderr line", func() bool { return strings.Contains(h.logText("hook"), "WebSocket: connected") })
	for _, l := range h.m.Log("hook") {
		if l.At.IsZero() {
			t.Fatalf("a line without its time: %+v", l)
		}
		if strings.Contains(l.Text, "WebSocket: connected") && l.App {
			t.Fatalf("stderr line marked as the app's: %+v", l)
		}
	}
	// A crash: ended (it had run), never restarted.
	pid := h.m.Status()[0].PID
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	h.waitFor("ended", func() bool { return h.state("hook") == StateEnded })
	st := h.m.Status()[0]
	if st.Reason != "signal: killed" || st.PID != 0 {
		t.Fatalf("status = %+v", st)
	}
	if !strings.Contains(h.logText("hook"), "ended: signal: killed") {
		t.Fatalf("log:\n%s", h.logText("hook"))
	}
	// Restart: the log is kept across runs.
	if stopped, err := h.m.Restart("hook"); err != nil || stopped {
		t.Fatal(stopped, err)
	}
	h.running("hook")
	if !strings.Contains(h.logText("hook"), "WebSocket: connected") {
		t.Fatal("the log of the previous run went")
	}
}

func TestFailedBeforeInitialize(t *testing.T) {
	h := newHarness(t, Options{}, "hook")
	// A program that exits at once: it never answers initialize.
	os.WriteFile(h.m.Path(), fresh([]Entry{{Name: "hook", Command: "false"}, {Name: "nope", Command: filepath.Join(h.dir, "missing")}}), 0o600)
	h.m.Load()
	h.m.StartAll()
	h.waitFor("failed", func() bool { return h.state("hook") == StateFailed && h.state("nope") == StateFailed })
	if !strings.Contains(h.logText("nope"), "failed to start") {
		t.Fatalf("log:\n%s", h.logText("nope"))
	}
}

func TestLogKeepsLast1000(t *testing.T) {
	var r ring
	for i := range LogLines + 250 {
		r.add(Line{Text: strconv.Itoa(i)})
	}
	got := r.snapshot()
	if len(got) != LogLines || got[0].Text != "250" || got[len(got)-1].Text != strconv.Itoa(LogLines+249) {
		t.Fatalf("len %d first %q last %q", len(got), got[0].Text, got[len(got)-1].Text)
	}
}

// The log of a real server: a burst of stderr lines over the bound keeps
// the last 1000, with the app's own lines among them.
func TestLogBoundAcrossRestart(t *testing.T) {
	h := newHarness(t, Options{}, "hook")
	h.m.StartAll()
	h.running("hook")
	var lines []string
	for i := range 1200 {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	h.cue("hook", map[string]any{"stderr": strings.Join(lines, "\n")})
	h.waitFor("line 1199", func() bool { return strings.Contains(h.logText("hook"), "line 1199\n") })
	if _, err := h.m.Restart("hook"); err != nil {
		t.Fatal(err)
	}
	h.running("hook")
	log := h.m.Log("hook")
	if len(log) != LogLines {
		t.Fatalf("%d lines, want %d", len(log), LogLines)
	}
	if strings.Contains(h.logText("hook"), "line 100\n") || !strings.Contains(h.logText("hook"), "line 1199\n") {
		t.Fatal("not the last lines")
	}
}

// Stop closes stdin, then signals the group: a server that ignores the
// end of its stdin and leaves a child behind still goes, child and all.
func TestCloseKillsGroup(t *testing.T) {
	h := newHarness(t, Options{StopGrace: 200 * time.Millisecond})
	e := h.entry("hook", map[string]string{"FAKEBRIDGE_IGNORE_EOF": "1", "FAKEBRIDGE_CHILD": "1"})
	os.WriteFile(h.m.Path(), fresh([]Entry{e}), 0o600)
	h.m.Load()
	h.m.StartAll()
	h.running("hook")
	var pids []int
	h.waitFor("the pid file", func() bool {
		b, err := os.ReadFile(filepath.Join(h.dir, "hook.pid"))
		pids = nil
		for _, f := range strings.Fields(string(b)) {
			n, _ := strconv.Atoi(f)
			pids = append(pids, n)
		}
		return err == nil && len(pids) == 2
	})
	h.m.Close()
	// SIGKILL is sent before Close returns; the kernel ends the processes
	// right after (polled: another process's end sends no event).
	gone := func(pid int) bool {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		return err != nil || strings.Contains(string(b), ") Z ") // a zombie waits for init
	}
	for _, pid := range pids {
		h.waitFor(fmt.Sprintf("pid %d gone", pid), func() bool { return gone(pid) })
	}
}

func TestRestartRemovedStops(t *testing.T) {
	h := newHarness(t, Options{}, "hook", "other")
	h.m.StartAll()
	h.running("hook")
	h.running("other")
	if err := RemoveEntry(h.m.Path(), "hook"); err != nil {
		t.Fatal(err)
	}
	h.m.Load()
	st := h.m.Status()
	if len(st) != 2 || st[1].Name != "hook" || st[1].InFile || st[1].State != StateRunning {
		t.Fatalf("status = %+v", st)
	}
	stopped, err := h.m.Restart("hook")
	if err != nil || !stopped {
		t.Fatal(stopped, err)
	}
	h.waitFor("stopped", func() bool { return h.state("hook") == StateStopped })
	if h.state("other") != StateRunning {
		t.Fatal("the other server was touched")
	}
	// Differs: the file now says something else for a running server.
	f := h.entry("other", map[string]string{"X": "1"})
	os.WriteFile(h.m.Path(), fresh([]Entry{f}), 0o600)
	h.m.Load()
	if st := h.m.Status(); !st[0].Differs {
		t.Fatalf("status = %+v, want Differs", st[0])
	}
}

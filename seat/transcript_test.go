package seat

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"pullcept/e2e/clihome"
	"pullcept/e2e/fakemodel"
	"pullcept/room/wire"
	"pullcept/topicstore"
)

// TestClaudeProjectSlug: the expected values come from running Claude Code
// 2.1.197's own slug function under node.
func TestClaudeProjectSlug(t *testing.T) {
	t.Parallel()
	long := "/home/user/" + strings.Repeat("a-very-long-folder-name/", 9) + "end"
	tests := []struct{ in, want string }{
		{"/tmp/work/proj", "-tmp-work-proj"},
		{`C:\Users\smile\Code`, "C--Users-smile-Code"}, // the spec's example
		{"/home/u/日本語/x.y_z", "-home-u-----x-y-z"},
		{"/tmp/😀/a b", "-tmp----a-b"}, // outside the BMP: two UTF-16 units, two dashes
		{long, "-home-user-a-very-long-folder-name-a-very-long-folder-name-a-very-long-folder-name-a-very-long-folder-name-a-very-long-folder-name-a-very-long-folder-name-a-very-long-folder-name-a-very-long-folder-na-efpdzp"},
		{"/" + strings.Repeat("é", 250), strings.Repeat("-", 200) + "-5hvcwf"},
	}
	for _, tc := range tests {
		if got := ClaudeProjectSlug(tc.in); got != tc.want {
			t.Errorf("ClaudeProjectSlug(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := ClaudeTranscriptPath("/h/.claude", "/tmp/work/proj", "abc"); got != "/h/.claude/projects/-tmp-work-proj/abc.jsonl" {
		t.Errorf("ClaudeTranscriptPath = %q", got)
	}
}

func TestFindClaudeTranscript(t *testing.T) {
	t.Parallel()
	const id = "6f1d2a34-5b6c-4d7e-8f90-123456789abc"
	cfg := t.TempDir()
	real := t.TempDir()
	if _, ok := FindClaudeTranscript(cfg, real, id); ok {
		t.Error("found a transcript that was never written")
	}
	p := ltClaudeTranscript(t, cfg, real, id)
	if got, ok := FindClaudeTranscript(cfg, real, id); !ok || got != p {
		t.Errorf("found %q %v, want %q", got, ok, p)
	}
	// Reached through a symlink, the folder is the real one's (Claude
	// resolves the cwd).
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if got, ok := FindClaudeTranscript(cfg, link, id); !ok || got != p {
		t.Errorf("through a symlink: %q %v", got, ok)
	}
	// An empty file is no conversation.
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := FindClaudeTranscript(cfg, real, id); ok {
		t.Error("an empty transcript counted")
	}
	// Ids that are not a file name are never looked up.
	for _, bad := range []string{"", "../x", "a/b", "x.jsonl"} {
		if _, ok := FindClaudeTranscript(cfg, real, bad); ok {
			t.Errorf("id %q found", bad)
		}
	}
	// A long slug: any folder with the same 200-unit prefix.
	longDir := "/srv/" + strings.Repeat("deep-folder/", 20)
	slug := ClaudeProjectSlug(longDir)
	other := filepath.Join(cfg, "projects", slug[:200]+"-otherhash")
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, id+".jsonl"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, ok := FindClaudeTranscript(cfg, longDir, id); !ok || filepath.Dir(got) != other {
		t.Errorf("long slug: %q %v", got, ok)
	}
}

func TestCodexRolloutID(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, id string }{
		{"rollout-2026-11-30T23-30-38-01a22ecb-cee9-7202-a3c6-80f61482f5a2.jsonl", "01a22ecb-cee9-7202-a3c6-80f61482f5a2"},
		{"rollout-x-01A22ECB-CEE9-7202-A3C6-80F61482F5A2.jsonl", "01A22ECB-CEE9-7202-A3C6-80F61482F5A2"},
		{"rollout-2026-11-30T23-30-38-01a22ecb-cee9-7202-a3c6-80f61482f5a2.json", ""},
		{"other-2026-11-30T23-30-38-01a22ecb-cee9-7202-a3c6-80f61482f5a2.jsonl", ""},
		{"rollout-01a22ecb-cee9-7202-a3c6-80f61482f5a2.jsonl", ""},
		{"rollout-2026-xx01a22ecb-cee9-7202-a3c6-80f61482f5a2.jsonl", ""},
		{"rollout-2026-11-30T23-30-38-01a22ecb-cee9-7202-a3c6-80f61482f5zz.jsonl", ""},
	}
	for _, tc := range tests {
		id, ok := CodexRolloutID(tc.name)
		if id != tc.id || ok != (tc.id != "") {
			t.Errorf("CodexRolloutID(%q) = %q %v, want %q", tc.name, id, ok, tc.id)
		}
	}
}

func TestFindCodexRollout(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), ".codex")
	const v7 = "01a22ecb-cee9-7202-a3c6-80f61482f5a2" // made 2026-11-30
	const v4 = "6f1d2a34-5b6c-4d7e-8f90-123456789abc"
	if _, ok, err := FindCodexRollout(home, v7); ok || err != nil {
		t.Errorf("no sessions folder: %v %v", ok, err)
	}
	created, _ := uuidV7Time(v7)
	p7 := ltRollout(t, home, v7, "/w", created)
	// A v4 id in a folder its id says nothing about: found by the walk.
	p4 := ltRollout(t, home, v4, "/w", time.Date(2024, 2, 3, 4, 5, 6, 0, time.UTC))
	for id, want := range map[string]string{v7: p7, v4: p4, strings.ToUpper(v7): p7} {
		if got, ok, err := FindCodexRollout(home, id); !ok || err != nil || got != want {
			t.Errorf("FindCodexRollout(%s) = %q %v %v, want %q", id, got, ok, err, want)
		}
	}
	for _, id := range []string{"01a22ecb-cee9-7202-a3c6-000000000000", "", "../../etc"} {
		if got, ok, _ := FindCodexRollout(home, id); ok {
			t.Errorf("FindCodexRollout(%q) found %q", id, got)
		}
	}
	if got, _ := uuidV7Time(v7); got.UTC().Format("2006-01-02") != "2026-11-30" {
		t.Errorf("uuidV7Time = %v", got)
	}
}

func TestFindCodexSession(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), ".codex")
	cwd := t.TempDir()
	since := time.Now().Add(-time.Minute)
	ids := []string{
		"01a22ecb-0000-7000-8000-000000000001",
		"01a22ecb-0000-7000-8000-000000000002",
		"01a22ecb-0000-7000-8000-000000000003",
		"01a22ecb-0000-7000-8000-000000000004",
		"01a22ecb-0000-7000-8000-000000000005",
	}
	ltRollout(t, home, ids[0], cwd, since.Add(-time.Hour))             // made before the launch
	ltRollout(t, home, ids[1], "/another/dir", since.Add(time.Second)) // another folder's seat
	if _, ok := FindCodexSession(home, cwd, since, nil); ok {
		t.Fatal("matched an old thread or another folder's")
	}
	ltRollout(t, home, ids[3], cwd, since.Add(3*time.Second))
	ltRollout(t, home, ids[2], cwd, since.Add(2*time.Second))
	if id, ok := FindCodexSession(home, cwd, since, nil); !ok || id != ids[2] {
		t.Errorf("got %q %v, want the earliest %s", id, ok, ids[2])
	}
	taken := func(id string) bool { return id == ids[2] }
	if id, ok := FindCodexSession(home, cwd, since, taken); !ok || id != ids[3] {
		t.Errorf("with %s taken: got %q %v, want %s", ids[2], id, ok, ids[3])
	}
	// A first line still being written is looked at again later.
	p := ltRollout(t, home, ids[4], cwd, since.Add(time.Second))
	full, _ := os.ReadFile(p)
	if err := os.WriteFile(p, full[:len(full)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	scan := newCodexScan(home, cwd, since)
	if id, _ := scan.find(time.Now(), nil); id != ids[2] {
		t.Errorf("with a torn first line: %q, want %s", id, ids[2])
	}
	if err := os.WriteFile(p, full, 0o600); err != nil {
		t.Fatal(err)
	}
	if id, _ := scan.find(time.Now(), nil); id != ids[4] {
		t.Errorf("once complete: %q, want %s", id, ids[4])
	}
}

func TestWatchSessionID(t *testing.T) {
	t.Parallel()
	w := ltSetup(t)
	l := w.resolve(t, Account{ID: "x", Name: "X", Kind: KindCodex})
	started := time.Now()
	const id = "01a22ecb-1111-7000-8000-000000000001"
	got := make(chan string, 1)
	go func() {
		id, err := l.WatchSessionID(context.Background(), started, nil)
		if err != nil {
			id = "error: " + err.Error()
		}
		got <- id
	}()
	ltRollout(t, w.codexHome, "01a22ecb-1111-7000-8000-000000000002", "/elsewhere", started)
	ltRollout(t, w.codexHome, id, w.dir, started.Add(time.Millisecond))
	select {
	case g := <-got:
		if g != id {
			t.Errorf("WatchSessionID = %q, want %s", g, id)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("WatchSessionID never saw the rollout")
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w2 := ltSetup(t)
	l2 := w2.resolve(t, Account{ID: "x", Name: "X", Kind: KindCodex})
	if _, err := l2.WatchSessionID(ctx, time.Now(), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled watch: %v", err)
	}
	// A launch with an id returns it at once.
	l3 := w.resolve(t, Account{ID: "c", Name: "C", Kind: KindClaudeCode})
	if g, err := l3.WatchSessionID(ctx, time.Now(), nil); err != nil || g != l3.SessionID {
		t.Errorf("claude: %q %v", g, err)
	}
}

// The real CLIs. Each test seeds a throwaway HOME (e2e/clihome), answers
// the model with e2e/fakemodel, registers the stand-in sidecar
// (register_test.go) and runs exactly the argv and env Resolve produced.

const realToken = "tok-REAL-9b7f3c"

type realWorld struct {
	bins    clihome.Bins
	srv     *fakemodel.Server
	home    clihome.Home
	dir     string
	store   *topicstore.Store
	topic   string
	exe     string
	stubDir string
	run     string
}

func realSetup(t *testing.T) *realWorld {
	t.Helper()
	bins := clihome.RequireBins(t)
	srv := fakemodel.Start(t, fakemodel.AckBehaviour("ack: "))
	dir := t.TempDir()
	home := clihome.New(t, clihome.Options{BaseURL: srv.URL, Cwd: dir, MCPServers: []string{MCPServerName}})
	store, err := topicstore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	exe, stubDir := stubSidecar(t)
	return &realWorld{bins: bins, srv: srv, home: home, dir: dir, store: store, topic: topicstore.NewID(),
		exe: exe, stubDir: stubDir, run: filepath.Join(t.TempDir(), "run")}
}

func (w *realWorld) resolve(t *testing.T, acc Account) Launch {
	t.Helper()
	l, err := Resolve(LaunchRequest{
		Account: acc, Topic: w.topic, Dir: w.dir, RoomURL: "ws://127.0.0.1:9/room", Token: realToken,
		ExePath: w.exe, RuntimeDir: w.run, Home: w.home.Dir, Store: w.store, BaseEnv: w.home.Env,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.RemoveRegistration() })
	for _, a := range l.Argv {
		if strings.Contains(a, realToken) {
			t.Fatalf("token in argv: %q", l.Argv)
		}
	}
	return l
}

func realTagLine() string {
	return wire.TagLine(wire.RoleAdmin, wire.Post{MessageID: "m1", Speaker: "Lin"}, nil)
}

// checkStubEnv checks the stand-in sidecar got the room from the
// registration, token included.
func (w *realWorld) checkStubEnv(t *testing.T, name string, unseen bool) {
	t.Helper()
	envs := stubEnvs(t, w.stubDir)
	if len(envs) == 0 {
		t.Fatal("the sidecar was never started")
	}
	e := envs[len(envs)-1]
	if e[envRoomToken] != realToken || e[envRoomID] != w.topic || e[envAgentName] != name || e[envRoomURL] != "ws://127.0.0.1:9/room" {
		t.Errorf("sidecar env %v", e)
	}
	if _, ok := e[envUnseenHistory]; ok != unseen {
		t.Errorf("sidecar %s set %v, want %v", envUnseenHistory, ok, unseen)
	}
}

// lastTurns are the user turns of the newest non-side model request.
func (w *realWorld) lastTurns() []string {
	var turns []string
	for _, r := range w.srv.Requests() {
		if !r.Side && len(r.UserTurns) > 0 {
			turns = r.UserTurns
		}
	}
	return turns
}

// TestRealClaudeSessionLifecycle: a fresh launch hands Claude the minted id
// and Claude writes its transcript exactly where ClaudeTranscriptPath says;
// the next launch resumes it (and Claude really continues the
// conversation); once the transcript is gone the launch is fresh and the
// record dropped.
func TestRealClaudeSessionLifecycle(t *testing.T) {
	w := realSetup(t)
	acc := Account{ID: "claude", Name: "Claude", Kind: KindClaudeCode, Command: w.bins.Claude}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	l := w.resolve(t, acc)
	if l.Resumed || l.SessionID == "" || !slices.Contains(l.Argv, "--session-id") {
		t.Fatalf("first launch: %+v", l)
	}
	if err := RecordStart(w.store, l); err != nil {
		t.Fatal(err)
	}
	out := realRun(t, ctx, l, "-p", realTagLine()+"\nhello")
	if got := strings.TrimSpace(out); got != "acked m1" {
		t.Errorf("claude -p printed %q, want %q", got, "acked m1")
	}
	// The room's tool was allowed (no permission refusal) and reached the
	// sidecar, which got its env from the registration file.
	calls := stubCalls(t, w.stubDir)
	if len(calls) != 1 || calls[0].Tool != "say_to_room" || calls[0].Args["content"] != "ack: hello" {
		t.Errorf("sidecar calls %+v, want one say_to_room", calls)
	}
	w.checkStubEnv(t, "Claude", false)
	want := ClaudeTranscriptPath(filepath.Join(w.home.Dir, ".claude"), w.dir, l.SessionID)
	if info, err := os.Stat(want); err != nil || info.Size() == 0 {
		t.Fatalf("no transcript at the predicted %s: %v", want, err)
	}
	if files, _ := filepath.Glob(filepath.Join(filepath.Dir(want), "*.jsonl")); len(files) != 1 {
		t.Errorf("transcripts %v, want exactly the predicted one", files)
	}

	// Second launch: the record, the resume line and the transcript are
	// all there.
	l2 := w.resolve(t, acc)
	if !l2.Resumed || l2.ResumedFrom != l.SessionID || l2.UnseenHistory {
		t.Fatalf("second launch: resumed %v from %q (unseen %v), want a resume of %s", l2.Resumed, l2.ResumedFrom, l2.UnseenHistory, l.SessionID)
	}
	if i := slices.Index(l2.Argv, "--resume"); i < 0 || l2.Argv[i+1] != l.SessionID || slices.Contains(l2.Argv, "--session-id") {
		t.Fatalf("second argv %q", l2.Argv)
	}
	size := fileSize(want)
	if got := strings.TrimSpace(realRun(t, ctx, l2, "-p", "hello again")); got != "ok" {
		t.Errorf("resumed claude printed %q", got)
	}
	if turns := w.lastTurns(); !slices.Contains(turns, realTagLine()+"\nhello") || turns[len(turns)-1] != "hello again" {
		t.Errorf("resumed request's turns %q: the first conversation is not in it", turns)
	}
	if fileSize(want) <= size {
		t.Error("the resume did not append to the same transcript")
	}

	// The conversation is gone: fresh launch, record dropped at once.
	if err := os.Remove(want); err != nil {
		t.Fatal(err)
	}
	l3 := w.resolve(t, acc)
	if l3.Resumed || l3.DroppedResume != l.SessionID || l3.SessionID == l.SessionID {
		t.Fatalf("third launch: resumed %v dropped %q session %q", l3.Resumed, l3.DroppedResume, l3.SessionID)
	}
	tp, err := w.store.Get(w.topic)
	if err != nil || tp.Sessions["claude"] != "" {
		t.Errorf("record after drop: %v %v", tp.Sessions, err)
	}
}

// TestRealCodexSessionLifecycle: the Codex TUI started with the resolved
// argv in a PTY reaches the room's tool with the token forwarded by
// env_vars; WatchSessionID returns the id of the rollout it wrote; the next
// launch resumes it with `codex resume ID`, and Codex really continues the
// conversation; once the rollout is gone the launch is fresh and the record
// dropped.
func TestRealCodexSessionLifecycle(t *testing.T) {
	w := realSetup(t)
	acc := Account{ID: "codex", Name: "Codex", Kind: KindCodex, Command: w.bins.Codex}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()

	l := w.resolve(t, acc)
	if l.Resumed || l.SessionID != "" || !l.CaptureID {
		t.Fatalf("first launch: %+v", l)
	}
	started := time.Now()
	term := startRealTerm(t, l)
	watched := make(chan string, 1)
	go func() {
		id, err := l.WatchSessionID(ctx, started, nil)
		if err != nil {
			id = ""
		}
		watched <- id
	}()
	if !term.waitScreen(ctx, "Ask Codex") {
		t.Fatalf("codex never showed its prompt:\n%s", term.out.String())
	}
	if err := RecordStart(w.store, l); err != nil {
		t.Fatal(err)
	}
	term.typeLine(realTagLine() + "\nhello")
	if _, err := w.srv.WaitToolResult(ctx, "say_to_room"); err != nil {
		t.Fatalf("no say_to_room result: %v\nscreen:\n%s", err, screenOf(term.out.String()))
	}
	var id string
	select {
	case id = <-watched:
	case <-ctx.Done():
		t.Fatal("WatchSessionID never returned")
	}
	if id == "" {
		t.Fatal("WatchSessionID failed")
	}
	term.stop()
	w.checkStubEnv(t, "Codex", false)
	rollout, ok, err := FindCodexRollout(l.TranscriptRoot, id)
	if !ok || err != nil {
		t.Fatalf("no rollout for the watched id %s: %v", id, err)
	}
	meta, err := ReadCodexSessionMeta(rollout)
	if err != nil || meta.ID != id || !samePath(meta.Cwd, w.dir) || meta.Originator != "codex-tui" {
		t.Errorf("rollout meta %+v %v", meta, err)
	}
	all, _ := filepath.Glob(filepath.Join(l.TranscriptRoot, "sessions", "*", "*", "*", "rollout-*.jsonl"))
	if len(all) != 1 || all[0] != rollout {
		t.Errorf("rollouts %v, want only %s", all, rollout)
	}
	if err := RecordSession(w.store, l, id); err != nil {
		t.Fatal(err)
	}

	// Second launch resumes with the TUI subcommand.
	l2 := w.resolve(t, acc)
	if !l2.Resumed || l2.ResumedFrom != id || l2.CaptureID || !slices.Equal(l2.Argv[:3], []string{w.bins.Codex, "resume", id}) {
		t.Fatalf("second launch: resumed %v from %q argv %q", l2.Resumed, l2.ResumedFrom, l2.Argv)
	}
	size := fileSize(rollout)
	term2 := startRealTerm(t, l2)
	if !term2.waitScreen(ctx, "Ask Codex") {
		t.Fatalf("resumed codex never showed its prompt:\n%s", screenOf(term2.out.String()))
	}
	term2.typeLine("hello again")
	_, err = w.srv.Wait(ctx, func(reqs []fakemodel.Request) bool {
		for _, r := range reqs {
			if n := len(r.UserTurns); n >= 2 && r.UserTurns[n-1] == "hello again" && slices.Contains(r.UserTurns, realTagLine()+"\nhello") {
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("the resumed session's request lacks the first conversation: %v\nturns %q", err, w.lastTurns())
	}
	term2.stop()
	if fileSize(rollout) <= size {
		t.Error("the resume did not append to the same rollout")
	}

	// The rollout is gone: fresh launch, record dropped at once.
	if err := os.Remove(rollout); err != nil {
		t.Fatal(err)
	}
	l3 := w.resolve(t, acc)
	if l3.Resumed || l3.DroppedResume != id || !l3.CaptureID {
		t.Fatalf("third launch: resumed %v dropped %q capture %v", l3.Resumed, l3.DroppedResume, l3.CaptureID)
	}
	if tp, err := w.store.Get(w.topic); err != nil || tp.Sessions["codex"] != "" {
		t.Errorf("record after drop: %v %v", tp.Sessions, err)
	}
}

func fileSize(p string) int64 {
	info, err := os.Stat(p)
	if err != nil {
		return -1
	}
	return info.Size()
}

// realRun runs the launch headless with extra arguments and returns stdout.
func realRun(t *testing.T, ctx context.Context, l Launch, extra ...string) string {
	t.Helper()
	argv := append(slices.Clone(l.Argv), extra...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = l.Env, l.Dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%q: %v\nstdout:\n%s\nstderr:\n%s", argv, err, out, stderr.Bytes())
	}
	return string(out)
}

// realTerm is a launch running in a PTY.
type realTerm struct {
	t      *testing.T
	f      *os.File
	cmd    *exec.Cmd
	out    *realBuf
	exited chan struct{}
	once   sync.Once
}

type realBuf struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *realBuf) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *realBuf) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func startRealTerm(t *testing.T, l Launch) *realTerm {
	t.Helper()
	cmd := exec.Command(l.Argv[0], l.Argv[1:]...)
	cmd.Env, cmd.Dir = l.Env, l.Dir
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	r := &realTerm{t: t, f: f, cmd: cmd, out: &realBuf{}, exited: make(chan struct{})}
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := f.Read(buf)
			_, _ = r.out.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	go func() { _ = cmd.Wait(); close(r.exited) }()
	t.Cleanup(r.stop)
	return r
}

// stop kills the launch's process group (pty.Start made it a session
// leader) and waits for it.
func (r *realTerm) stop() {
	r.once.Do(func() {
		_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
		select {
		case <-r.exited:
		case <-time.After(10 * time.Second):
			r.t.Errorf("%s still running 10 s after SIGKILL", r.cmd.Path)
		}
		_ = r.f.Close()
	})
}

// typeLine types text and, after the typing rule's pause, Enter.
func (r *realTerm) typeLine(text string) {
	if _, err := r.f.Write([]byte(text)); err != nil {
		r.t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if _, err := r.f.Write([]byte("\r")); err != nil {
		r.t.Fatal(err)
	}
}

// waitScreen polls the output for s; a TUI gives no other signal.
func (r *realTerm) waitScreen(ctx context.Context, s string) bool {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !strings.Contains(screenOf(r.out.String()), s) {
		select {
		case <-ctx.Done():
			return false
		case <-r.exited:
			return strings.Contains(screenOf(r.out.String()), s)
		case <-tick.C:
		}
	}
	return true
}

var realANSI = regexp.MustCompile(`\x1b\[[0-?]*[ -/]*([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[@-Z\\^_78=>]`)

// screenOf approximates the visible text: cursor moves become a space,
// other escapes vanish, runs of blanks shrink.
func screenOf(raw string) string {
	s := realANSI.ReplaceAllStringFunc(raw, func(seq string) string {
		if m := realANSI.FindStringSubmatch(seq); m[1] != "" && strings.Contains("ABCDGHdf", m[1]) {
			return " "
		}
		return ""
	})
	return strings.Join(strings.Fields(s), " ")
}

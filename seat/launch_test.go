package seat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"pullcept/seat/hook"
	"pullcept/topicstore"
)

const ltToken = "tok-SECRET-4c1d9e"

// ltWorld is a topic store, a HOME, a working folder and a runtime folder.
type ltWorld struct {
	store                *topicstore.Store
	home, dir, run, exe  string
	topic                string
	claudeDir, codexHome string
	ids                  int
}

func ltSetup(t *testing.T) *ltWorld {
	t.Helper()
	s, err := topicstore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	return &ltWorld{
		store: s, home: home, dir: t.TempDir(), run: filepath.Join(t.TempDir(), "run"),
		exe: "/opt/pullcept/bin/pullcept", topic: topicstore.NewID(),
		claudeDir: filepath.Join(home, ".claude"), codexHome: filepath.Join(home, ".codex"),
	}
}

func (w *ltWorld) req(acc Account) LaunchRequest {
	return LaunchRequest{
		Account: acc, Topic: w.topic, Dir: w.dir,
		RoomURL: "ws://127.0.0.1:4242/room", Token: ltToken,
		ExePath: w.exe, RuntimeDir: w.run, Home: w.home, Store: w.store,
		BaseEnv: []string{"PATH=/usr/bin:/bin", "HOME=" + w.home, "TERM=dumb", "PULLCEPT_UNSEEN_HISTORY=1", "PULLCEPT_ROOM_TOKEN=leak", "KEEP=me",
			"TMUX=/tmp/tmux-0/default,1,0", "TMUX_PANE=%1", "TERM_PROGRAM=tmux", "TERM_PROGRAM_VERSION=3.3a", "PULLCEPT_HOOK_SECRET=leak"},
		NewID: func() string {
			w.ids++
			return fmt.Sprintf("00000000-0000-4000-8000-%012d", w.ids)
		},
	}
}

func (w *ltWorld) resolve(t *testing.T, acc Account) Launch {
	t.Helper()
	l, err := Resolve(w.req(acc))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.RemoveRegistration() })
	return l
}

func (w *ltWorld) record(t *testing.T, account, id string) {
	t.Helper()
	if err := w.store.SetSession(w.topic, account, id); err != nil {
		t.Fatal(err)
	}
}

func (w *ltWorld) recorded(t *testing.T, account string) string {
	t.Helper()
	tp, err := w.store.Get(w.topic)
	if errors.Is(err, topicstore.ErrUnknownTopic) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return tp.Sessions[account]
}

// ltClaudeTranscript writes the transcript Claude would have written.
func ltClaudeTranscript(t *testing.T, claudeDir, cwd, id string) string {
	t.Helper()
	p := ClaudeTranscriptPath(claudeDir, cwd, id)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(`{"type":"user"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// ltRollout writes a Codex rollout file for id made at created in cwd.
func ltRollout(t *testing.T, codexHome, id, cwd string, created time.Time) string {
	t.Helper()
	lt := created.Local()
	dir := filepath.Join(codexHome, "sessions", lt.Format("2006"), lt.Format("01"), lt.Format("02"))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "rollout-"+lt.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
	meta, _ := json.Marshal(map[string]any{
		"timestamp": created.UTC().Format(time.RFC3339Nano), "type": "session_meta",
		"payload": map[string]any{"id": id, "session_id": id, "timestamp": created.UTC().Format(time.RFC3339Nano),
			"cwd": cwd, "originator": "codex-tui", "base_instructions": map[string]string{"text": strings.Repeat("x", 70000)}},
	})
	if err := os.WriteFile(p, append(meta, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func ltEnvGet(env []string, k string) (string, bool) {
	v, ok := "", false
	for _, kv := range env {
		if name, val, _ := strings.Cut(kv, "="); name == k {
			v, ok = val, true
		}
	}
	return v, ok
}

func ltReadMCPConfig(t *testing.T, path string) MCPServerEntry {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg MCPConfig
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	e, ok := cfg.MCPServers[MCPServerName]
	if !ok || len(cfg.MCPServers) != 1 {
		t.Fatalf("%s: servers %v, want only %s", path, cfg.MCPServers, MCPServerName)
	}
	return e
}

// TestDecideResume: all eight combinations of record, resume line and
// conversation.
func TestDecideResume(t *testing.T) {
	t.Parallel()
	for _, rec := range []bool{false, true} {
		for _, line := range []bool{false, true} {
			for _, exists := range []bool{false, true} {
				got := DecideResume(rec, line, exists)
				want := ResumeDecision{Resume: rec && line && exists, Drop: rec && line && !exists}
				if got != want {
					t.Errorf("record %v, line %v, exists %v: %+v, want %+v", rec, line, exists, got, want)
				}
			}
		}
	}
}

// TestResolveResume runs the decision through Resolve with real files: the
// record in the topic index, the resume line of the kind or cli account,
// and the CLI's conversation file.
func TestResolveResume(t *testing.T) {
	t.Parallel()
	const old = "01a22ecb-cee9-7202-a3c6-80f61482f5a2" // a Codex-style v7 id
	claude := Account{ID: "claude", Name: "Claude", Kind: KindClaudeCode}
	codex := Account{ID: "codex", Name: "Codex", Kind: KindCodex}
	cliResume := Account{ID: "tool", Name: "Tool", Kind: KindCLI, Command: "tool --id {session_id}", Resume: "tool --continue {session_id}"}
	cliNoResume := Account{ID: "tool", Name: "Tool", Kind: KindCLI, Command: "tool --id {session_id}"}
	tests := []struct {
		name         string
		acc          Account
		record, file bool
		resume, drop bool
	}{
		{"claude: nothing recorded", claude, false, false, false, false},
		{"claude: nothing recorded, stray file", claude, false, true, false, false},
		{"claude: recorded, transcript there", claude, true, true, true, false},
		{"claude: recorded, transcript gone", claude, true, false, false, true},
		{"codex: nothing recorded", codex, false, false, false, false},
		{"codex: nothing recorded, stray rollout", codex, false, true, false, false},
		{"codex: recorded, rollout there", codex, true, true, true, false},
		{"codex: recorded, rollout gone", codex, true, false, false, true},
		// A cli account names no storage: its record is trusted.
		{"cli with resume line: recorded", cliResume, true, false, true, false},
		{"cli with resume line: nothing recorded", cliResume, false, false, false, false},
		{"cli without resume line: recorded", cliNoResume, true, false, false, false},
		{"cli without resume line: nothing recorded", cliNoResume, false, false, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := ltSetup(t)
			if tc.record {
				w.record(t, tc.acc.ID, old)
			}
			if tc.file {
				ltClaudeTranscript(t, w.claudeDir, w.dir, old)
				ltRollout(t, w.codexHome, old, w.dir, time.Now().Add(-time.Hour))
			}
			l := w.resolve(t, tc.acc)
			if l.Resumed != tc.resume || (l.ResumedFrom == old) != tc.resume {
				t.Errorf("Resumed %v from %q, want %v", l.Resumed, l.ResumedFrom, tc.resume)
			}
			if (l.DroppedResume == old) != tc.drop || (!tc.drop && l.DroppedResume != "") {
				t.Errorf("DroppedResume %q, want dropped %v", l.DroppedResume, tc.drop)
			}
			got := w.recorded(t, tc.acc.ID)
			switch {
			case tc.drop && got != "":
				t.Errorf("stale record %q left in the index", got)
			case tc.record && !tc.drop && got != old:
				t.Errorf("record %q, want %q kept", got, old)
			}
			if tc.resume {
				if l.SessionID != old || !slices.Contains(l.Argv, old) {
					t.Errorf("resume: session %q argv %q", l.SessionID, l.Argv)
				}
			} else if slices.Contains(l.Argv, old) {
				t.Errorf("fresh launch carries the old id: %q", l.Argv)
			}
		})
	}
}

// TestResolveArgv checks each kind's command line, fresh and resumed.
func TestResolveArgv(t *testing.T) {
	t.Parallel()
	const old = "01a22ecb-cee9-7202-a3c6-80f61482f5a2"
	allowed := "mcp__pullcept__say_to_room,mcp__pullcept__read_room_history,mcp__pullcept__my_usage,mcp__pullcept__list_account_sessions,mcp__pullcept__control_account_session,mcp__pullcept__account_session_status"
	t.Run("claude fresh", func(t *testing.T) {
		t.Parallel()
		w := ltSetup(t)
		l := w.resolve(t, Account{ID: "c", Name: "C", Kind: KindClaudeCode, Command: "claude --model opus"})
		settings := ltSettingsFile(t, l)
		want := []string{"claude", "--model", "opus", "--session-id", l.SessionID, "--permission-mode", "default", "--settings", settings, "--mcp-config", l.Registration, "--allowedTools", allowed}
		if !slices.Equal(l.Argv, want) || l.SessionID == "" || l.CaptureID {
			t.Errorf("argv %q (capture %v), want %q", l.Argv, l.CaptureID, want)
		}
		if !filepath.IsAbs(l.Registration) || !strings.HasPrefix(l.Registration, w.run) || !slices.Equal(l.Cleanup, []string{l.Registration, settings}) {
			t.Errorf("registration %q cleanup %q", l.Registration, l.Cleanup)
		}
	})
	t.Run("claude resumed", func(t *testing.T) {
		t.Parallel()
		w := ltSetup(t)
		w.record(t, "c", old)
		ltClaudeTranscript(t, w.claudeDir, w.dir, old)
		l := w.resolve(t, Account{ID: "c", Name: "C", Kind: KindClaudeCode, Command: "~/bin/claude"})
		want := []string{filepath.Join(w.home, "bin/claude"), "--resume", old, "--permission-mode", "default", "--settings", ltSettingsFile(t, l), "--mcp-config", l.Registration, "--allowedTools", allowed}
		if !slices.Equal(l.Argv, want) {
			t.Errorf("argv %q, want %q", l.Argv, want)
		}
	})
	t.Run("codex fresh", func(t *testing.T) {
		t.Parallel()
		w := ltSetup(t)
		l := w.resolve(t, Account{ID: "x", Name: "X", Kind: KindCodex})
		if l.Argv[0] != "codex" || l.Argv[1] != "--disable" || l.Argv[2] != "daemon_auto_start" || l.SessionID != "" || !l.CaptureID {
			t.Errorf("argv %q session %q capture %v", l.Argv, l.SessionID, l.CaptureID)
		}
		if l.Registration != "" || len(l.Cleanup) != 0 {
			t.Errorf("codex wrote a registration file: %q", l.Registration)
		}
		if l.TranscriptRoot != w.codexHome {
			t.Errorf("transcript root %q, want %q", l.TranscriptRoot, w.codexHome)
		}
	})
	t.Run("codex resumed", func(t *testing.T) {
		t.Parallel()
		w := ltSetup(t)
		w.record(t, "x", old)
		ltRollout(t, w.codexHome, old, w.dir, time.Now())
		l := w.resolve(t, Account{ID: "x", Name: "X", Kind: KindCodex, Command: "codex -m o3"})
		if !slices.Equal(l.Argv[:5], []string{"codex", "resume", old, "-m", "o3"}) || l.CaptureID {
			t.Errorf("argv %q capture %v", l.Argv, l.CaptureID)
		}
	})
	t.Run("cli fresh", func(t *testing.T) {
		t.Parallel()
		w := ltSetup(t)
		l := w.resolve(t, Account{ID: "t", Name: "T", Kind: KindCLI, Command: `"/opt/my tool/t" --session {session_id} --mcp={mcp_config}`})
		want := []string{"/opt/my tool/t", "--session", l.SessionID, "--mcp=" + l.Registration}
		if !slices.Equal(l.Argv, want) || l.SessionID == "" {
			t.Errorf("argv %q, want %q", l.Argv, want)
		}
		if v, _ := ltEnvGet(l.Env, EnvMCPConfig); v != l.Registration {
			t.Errorf("%s=%q, want %q", EnvMCPConfig, v, l.Registration)
		}
	})
	t.Run("cli resumed", func(t *testing.T) {
		t.Parallel()
		w := ltSetup(t)
		w.record(t, "t", old)
		l := w.resolve(t, Account{ID: "t", Name: "T", Kind: KindCLI, Command: "t --session {session_id}", Resume: "t2 --continue {session_id} --mcp {mcp_config}"})
		want := []string{"t2", "--continue", old, "--mcp", l.Registration}
		if !slices.Equal(l.Argv, want) {
			t.Errorf("argv %q, want %q", l.Argv, want)
		}
	})
	t.Run("cli without an id", func(t *testing.T) {
		t.Parallel()
		w := ltSetup(t)
		l := w.resolve(t, Account{ID: "t", Name: "T", Kind: KindCLI, Command: "t"})
		if l.SessionID != "" || l.CaptureID || !slices.Equal(l.Argv, []string{"t"}) {
			t.Errorf("session %q capture %v argv %q", l.SessionID, l.CaptureID, l.Argv)
		}
		if _, err := l.WatchSessionID(t.Context(), time.Now(), nil); !errors.Is(err, ErrNoSessionID) {
			t.Errorf("WatchSessionID: %v, want ErrNoSessionID", err)
		}
	})
}

// TestResolveKeepsTokenOutOfArgv: the room token is in no argv, only in a
// 0600 registration file (Claude, cli) or in the child's own environment
// (Codex, which forwards it by name).
func TestResolveKeepsTokenOutOfArgv(t *testing.T) {
	t.Parallel()
	for _, acc := range []Account{
		{ID: "c", Name: "C", Kind: KindClaudeCode},
		{ID: "x", Name: "X", Kind: KindCodex},
		{ID: "t", Name: "T", Kind: KindCLI, Command: "t {mcp_config}"},
	} {
		w := ltSetup(t)
		l := w.resolve(t, acc)
		for _, a := range l.Argv {
			if strings.Contains(a, ltToken) {
				t.Errorf("%s: token in argv %q", acc.Kind, a)
			}
		}
		inEnv, _ := ltEnvGet(l.Env, envRoomToken)
		switch acc.Kind {
		case KindCodex:
			if inEnv != ltToken {
				t.Errorf("codex: child env token %q, want the room's", inEnv)
			}
			if !slices.Contains(l.Argv, `mcp_servers.pullcept.env_vars=["PULLCEPT_ROOM_TOKEN"]`) {
				t.Errorf("codex: token not forwarded by name: %q", l.Argv)
			}
		default:
			if inEnv != "" {
				t.Errorf("%s: token %q in the child env (the base env's must be dropped too)", acc.Kind, inEnv)
			}
			if e := ltReadMCPConfig(t, l.Registration); e.Env[envRoomToken] != ltToken {
				t.Errorf("%s: registration token %q", acc.Kind, e.Env[envRoomToken])
			}
		}
	}
}

func TestResolveEnv(t *testing.T) {
	t.Parallel()
	w := ltSetup(t)
	l := w.resolve(t, Account{ID: "c", Name: "C", Kind: KindClaudeCode, Env: map[string]string{"ANTHROPIC_API_KEY": "k", "KEEP": "account wins"}})
	for k, want := range map[string]string{
		"TERM": "xterm-256color", "COLORTERM": "truecolor", "PATH": "/usr/bin:/bin",
		"ANTHROPIC_API_KEY": "k", "KEEP": "account wins",
	} {
		if got, ok := ltEnvGet(l.Env, k); !ok || got != want {
			t.Errorf("%s=%q, want %q", k, got, want)
		}
	}
	seen := map[string]bool{}
	for _, kv := range l.Env {
		k, _, _ := strings.Cut(kv, "=")
		if seen[k] {
			t.Errorf("%s twice in env", k)
		}
		seen[k] = true
	}
	// The person's multiplexer is not the seat's: a CLI that saw TMUX
	// would believe it runs in tmux.
	for _, k := range []string{"TMUX", "TMUX_PANE", "TERM_PROGRAM", "TERM_PROGRAM_VERSION"} {
		if v, ok := ltEnvGet(l.Env, k); ok {
			t.Errorf("%s=%q inherited", k, v)
		}
	}
	if v, _ := ltEnvGet(l.Env, hook.EnvHookSecret); v == "leak" || v != l.Hook.Secret {
		t.Errorf("hook secret %q: want this launch's own", v)
	}
	if l.Dir != w.dir {
		t.Errorf("dir %q, want %q", l.Dir, w.dir)
	}
	// The account's dir wins over the request's, ~ expanded.
	if err := os.MkdirAll(filepath.Join(w.home, "proj"), 0o700); err != nil {
		t.Fatal(err)
	}
	l = w.resolve(t, Account{ID: "c", Name: "C", Kind: KindClaudeCode, Dir: "~/proj"})
	if l.Dir != filepath.Join(w.home, "proj") {
		t.Errorf("dir %q, want ~/proj", l.Dir)
	}
	// A Claude seat binds no inbox socket (CLAUDE_CODE_HARBOR_KITE=0)
	// unless its account says otherwise.
	if v, _ := ltEnvGet(l.Env, "CLAUDE_CODE_HARBOR_KITE"); v != "0" {
		t.Errorf("CLAUDE_CODE_HARBOR_KITE=%q, want 0", v)
	}
	l = w.resolve(t, Account{ID: "c", Name: "C", Kind: KindClaudeCode, Env: map[string]string{"CLAUDE_CODE_HARBOR_KITE": "1"}})
	if v, _ := ltEnvGet(l.Env, "CLAUDE_CODE_HARBOR_KITE"); v != "1" {
		t.Errorf("the account's CLAUDE_CODE_HARBOR_KITE=%q, want its own 1", v)
	}
	// CLAUDE_CONFIG_DIR / CODEX_HOME move the transcripts.
	l = w.resolve(t, Account{ID: "c", Name: "C", Kind: KindClaudeCode, Env: map[string]string{"CLAUDE_CONFIG_DIR": "/elsewhere/claude"}})
	if l.TranscriptRoot != "/elsewhere/claude" {
		t.Errorf("claude transcript root %q", l.TranscriptRoot)
	}
}

// TestResolveUnseenHistory: PULLCEPT_UNSEEN_HISTORY=1 exactly when the topic
// has posts and the launch is not a resume; never inherited.
func TestResolveUnseenHistory(t *testing.T) {
	t.Parallel()
	const old = "01a22ecb-cee9-7202-a3c6-80f61482f5a2"
	tests := []struct {
		name                 string
		posts, record, stale bool
		kind                 Kind
		unseen               bool
	}{
		{"empty topic, fresh", false, false, false, KindClaudeCode, false},
		{"posts, fresh", true, false, false, KindClaudeCode, true},
		{"posts, resumed", true, true, false, KindClaudeCode, false},
		{"posts, stale record dropped", true, true, true, KindClaudeCode, true},
		{"posts, codex fresh", true, false, false, KindCodex, true},
		{"posts, codex resumed", true, true, false, KindCodex, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := ltSetup(t)
			if tc.posts {
				if _, err := w.store.Append(w.topic, topicstore.Post{MessageID: "m1", Speaker: "Lin", Content: "hi", TS: "2026-01-01T00:00:00Z"}); err != nil {
					t.Fatal(err)
				}
			}
			if tc.record {
				w.record(t, "a", old)
				if !tc.stale {
					ltClaudeTranscript(t, w.claudeDir, w.dir, old)
					ltRollout(t, w.codexHome, old, w.dir, time.Now())
				}
			}
			l := w.resolve(t, Account{ID: "a", Name: "A", Kind: tc.kind})
			if l.UnseenHistory != tc.unseen {
				t.Errorf("UnseenHistory %v, want %v", l.UnseenHistory, tc.unseen)
			}
			v, ok := ltEnvGet(l.Env, envUnseenHistory)
			if tc.unseen != (ok && v == "1") || (!tc.unseen && ok) {
				t.Errorf("child env %s=%q (set %v), want set %v", envUnseenHistory, v, ok, tc.unseen)
			}
			var reg string
			if tc.kind == KindClaudeCode {
				reg = ltReadMCPConfig(t, l.Registration).Env[envUnseenHistory]
			} else {
				for _, a := range l.Argv {
					if strings.HasPrefix(a, "mcp_servers.pullcept.env=") && strings.Contains(a, `"PULLCEPT_UNSEEN_HISTORY" = "1"`) {
						reg = "1"
					}
				}
			}
			if (reg == "1") != tc.unseen {
				t.Errorf("registration %s=%q, want set %v", envUnseenHistory, reg, tc.unseen)
			}
		})
	}
}

func TestResolveErrors(t *testing.T) {
	t.Parallel()
	w := ltSetup(t)
	ok := Account{ID: "c", Name: "C", Kind: KindClaudeCode}
	tests := []struct {
		name   string
		change func(*LaunchRequest)
		want   error
		text   string
	}{
		{"mcp account", func(r *LaunchRequest) { r.Account.Kind = KindMCP }, ErrNotLaunchable, ""},
		{"relative exe", func(r *LaunchRequest) { r.ExePath = "pullcept" }, ErrLaunchRequest, "not absolute"},
		{"no token", func(r *LaunchRequest) { r.Token = "" }, ErrLaunchRequest, ""},
		{"no store", func(r *LaunchRequest) { r.Store = nil }, ErrLaunchRequest, ""},
		{"bad topic", func(r *LaunchRequest) { r.Topic = "../x" }, ErrLaunchRequest, ""},
		{"missing dir", func(r *LaunchRequest) { r.Account.Dir = "/no/such/dir" }, os.ErrNotExist, ""},
		{"bad command", func(r *LaunchRequest) { r.Account.Command = `claude "` }, nil, "unterminated"},
	}
	for _, tc := range tests {
		r := w.req(ok)
		tc.change(&r)
		_, err := Resolve(r)
		if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s: err %v, want %v %q", tc.name, err, tc.want, tc.text)
		}
	}
	if entries, _ := os.ReadDir(w.run); len(entries) != 0 {
		t.Errorf("failed resolves left files: %v", entries)
	}
}

func TestRecordStart(t *testing.T) {
	t.Parallel()
	w := ltSetup(t)
	// A Claude launch records its minted id.
	l := w.resolve(t, Account{ID: "c", Name: "C", Kind: KindClaudeCode})
	if err := RecordStart(w.store, l); err != nil {
		t.Fatal(err)
	}
	if got := w.recorded(t, "c"); got != l.SessionID {
		t.Errorf("record %q, want %q", got, l.SessionID)
	}
	// A Codex launch has no id yet: the topic is materialised all the same,
	// and the id is recorded when learnt.
	w2 := ltSetup(t)
	l = w2.resolve(t, Account{ID: "x", Name: "X", Kind: KindCodex})
	if err := RecordStart(w2.store, l); err != nil {
		t.Fatal(err)
	}
	tp, err := w2.store.Get(w2.topic)
	if err != nil || !tp.Indexed || len(tp.Sessions) != 0 {
		t.Errorf("codex start: topic %+v, %v; want an entry without sessions", tp, err)
	}
	if err := RecordSession(w2.store, l, "01a22ecb-cee9-7202-a3c6-80f61482f5a2"); err != nil {
		t.Fatal(err)
	}
	if got := w2.recorded(t, "x"); got != "01a22ecb-cee9-7202-a3c6-80f61482f5a2" {
		t.Errorf("record %q", got)
	}
}

// TestShouldDropOnExit: only a resumed session that ended by itself
// without ever reaching the roster loses its record.
func TestShouldDropOnExit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		resumed, inRoster, requested, drop bool
	}{
		{true, false, false, true},
		{true, false, true, false}, // the person stopped it during a prompt
		{true, true, false, false}, // it was back in the room: the resume worked
		{true, true, true, false},
		{false, false, false, false}, // a fresh launch never drops
		{false, false, true, false},
		{false, true, false, false},
		{false, true, true, false},
	}
	for _, tc := range tests {
		if got := ShouldDropOnExit(tc.resumed, tc.inRoster, tc.requested); got != tc.drop {
			t.Errorf("resumed %v, in roster %v, requested %v: %v, want %v", tc.resumed, tc.inRoster, tc.requested, got, tc.drop)
		}
	}
}

func TestDropAfterExitOnlyItsOwnID(t *testing.T) {
	t.Parallel()
	const old = "01a22ecb-cee9-7202-a3c6-80f61482f5a2"
	w := ltSetup(t)
	w.record(t, "c", old)
	ltClaudeTranscript(t, w.claudeDir, w.dir, old)
	l := w.resolve(t, Account{ID: "c", Name: "C", Kind: KindClaudeCode})
	if !l.Resumed {
		t.Fatal("not resumed")
	}
	// Asked-for ends keep it.
	if dropped, err := DropAfterExit(w.store, l, false, true); dropped || err != nil || w.recorded(t, "c") != old {
		t.Errorf("requested stop dropped the record: %v %v", dropped, err)
	}
	// A newer session recorded meanwhile is never touched.
	w.record(t, "c", "newer")
	if dropped, err := DropAfterExit(w.store, l, false, false); dropped || err != nil || w.recorded(t, "c") != "newer" {
		t.Errorf("dropped a newer record: %v %v", dropped, err)
	}
	w.record(t, "c", old)
	if dropped, err := DropAfterExit(w.store, l, false, false); !dropped || err != nil || w.recorded(t, "c") != "" {
		t.Errorf("failed resume kept its record: %v %v", dropped, err)
	}
	tp, err := w.store.Get(w.topic)
	if err != nil || !tp.Indexed {
		t.Errorf("the topic entry went with the record: %+v %v", tp, err)
	}
}

func TestSplitWords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
		err  bool
	}{
		{"", nil, false},
		{"   ", nil, false},
		{"claude", []string{"claude"}, false},
		{"  a  b\tc ", []string{"a", "b", "c"}, false},
		{`a 'b c' "d e"`, []string{"a", "b c", "d e"}, false},
		{`a'b'"c"d`, []string{"abcd"}, false},
		{`a\ b`, []string{"a b"}, false},
		{`"a \"q\" \\ \$x \n"`, []string{`a "q" \ $x \n`}, false},
		{`'$HOME ~ *'`, []string{`$HOME ~ *`}, false},
		{`''`, []string{""}, false},
		{`x {session_id}`, []string{"x", "{session_id}"}, false},
		{`日本 語`, []string{"日本", "語"}, false},
		{`'open`, nil, true},
		{`"open`, nil, true},
		{`trailing\`, nil, true},
	}
	for _, tc := range tests {
		got, err := splitWords(tc.in)
		if (err != nil) != tc.err || !slices.Equal(got, tc.want) {
			t.Errorf("splitWords(%q) = %q, %v; want %q (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
}

// TestLaunchPrintsNoSecrets: a launch or account printed or logged shows no
// env value and no token.
func TestLaunchPrintsNoSecrets(t *testing.T) {
	t.Parallel()
	w := ltSetup(t)
	l := w.resolve(t, Account{ID: "x", Name: "X", Kind: KindCodex, Env: map[string]string{"OPENAI_API_KEY": "sk-account-secret"}})
	if v, _ := ltEnvGet(l.Env, envRoomToken); v != ltToken {
		t.Fatalf("codex env lacks the token: %q", v)
	}
	var logged bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logged, nil))
	logger.Info("start", "launch", l, "account", l.Account)
	for _, s := range []string{fmt.Sprint(l), fmt.Sprintf("%+v", l), fmt.Sprintf("%v", l.Account), logged.String()} {
		if strings.Contains(s, ltToken) || strings.Contains(s, "sk-account-secret") {
			t.Errorf("secret in %q", s)
		}
	}
	if !strings.Contains(logged.String(), "OPENAI_API_KEY") || !strings.Contains(fmt.Sprint(l), "fresh") {
		t.Errorf("description lacks the env key or mode: %s / %s", logged.String(), l)
	}
}

// ltSettingsFile is the launch's --settings file: in the runtime folder,
// mode 0600.
func ltSettingsFile(t *testing.T, l Launch) string {
	t.Helper()
	i := slices.Index(l.Argv, "--settings")
	if i < 0 || i+1 >= len(l.Argv) {
		t.Fatalf("no --settings in %q", l.Argv)
	}
	p := l.Argv[i+1]
	info, err := os.Stat(p)
	if err != nil || info.Mode().Perm() != 0o600 || filepath.Dir(p) != filepath.Dir(l.Registration) {
		t.Fatalf("settings file %s: %v %v", p, info, err)
	}
	return p
}

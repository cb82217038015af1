package seat

// Launch resolution: what one start of a seat runs. The resume line is
// chosen only when three things hold (spec 003 "トピック", 再開の線は…実在す
// るときだけ, #131): the topic records a session id for the account, the
// account (its kind, or a cli account itself) has a resume line, and the
// conversation exists as the CLI's own file (transcript.go). When the record
// is there but the file is not, the record is dropped at once and the seat
// starts fresh; the status line says so (DroppedResume). A launch that is not
// a resume into a topic that already has posts tells the sidecar so
// (PULLCEPT_UNSEEN_HISTORY, #133). After the start the new session id is
// recorded (RecordStart); a resumed session that ends by itself without ever
// reaching the room's roster drops its record (ShouldDropOnExit, #127).

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"pullcept/ids"
	"pullcept/seat/hook"
	"pullcept/topicstore"
)

// Store is what a launch needs of the topic store (*topicstore.Store).
type Store interface {
	Get(topic string) (topicstore.Topic, error)
	HasPosts(topic string) (bool, error)
	SetSession(topic, account, session string) error
	DropSession(topic, account, onlyIf string) (dropped bool, err error)
}

// LaunchRequest is what Resolve needs to know.
type LaunchRequest struct {
	Account Account
	// Topic is the topic (room) the seat sits in.
	Topic string
	// Dir is the working directory when the account names none; "" means
	// this process's.
	Dir string
	// RoomURL and Token are the room socket's address and secret, handed to
	// the sidecar. The token never goes into argv.
	RoomURL string
	Token   string
	// ExePath is the absolute path of the running pullcept (os.Executable):
	// the sidecar runs as ExePath + "sidecar", never looked up on PATH.
	ExePath string
	// RuntimeDir holds the per-launch registration files (0700).
	RuntimeDir string
	// Home is where transcripts are looked for (~/.claude, ~/.codex) unless
	// the environment names CLAUDE_CONFIG_DIR / CODEX_HOME; "" means
	// os.UserHomeDir.
	Home  string
	Store Store
	// BaseEnv is the environment the child inherits before the account's
	// env; nil means os.Environ().
	BaseEnv []string
	// NewID mints session ids; nil means a random UUID.
	NewID func() string
	// HookSecret is the launch's hook secret; "" means a fresh random one.
	HookSecret string
	// Mode is "" (the resume rule above), LaunchFresh (a new conversation:
	// the record is not resumed, and dropped) or LaunchResume (the
	// recorded conversation, else ErrCannotResume and nothing changes).
	Mode string
	// Capability is the launch's operation capability (session
	// operations, app/sessionops.go): put in the CLI's environment only,
	// never in argv or the MCP registration. "" puts none.
	Capability string
	// UnseenHistory tells a resumed launch too that the topic holds posts
	// it has not seen: a seat woken from sleep after room-wide posts it was
	// not typed (docs/decisions.md "Sleeping seats").
	UnseenHistory bool
}

// Launch modes of LaunchRequest.Mode.
const (
	LaunchFresh  = "fresh"
	LaunchResume = "resume"
)

// ErrCannotResume reports a LaunchResume whose conversation cannot be
// resumed (no record, no resume line, no transcript).
var ErrCannotResume = errors.New("cannot resume")

// Launch is one resolved start of a seat.
type Launch struct {
	Account Account
	Topic   string
	// Argv is the command line; Argv[0] is the program as the account wrote
	// it (looked up on PATH unless it holds a slash).
	Argv []string
	// Env is the child's whole environment: BaseEnv without the sidecar's
	// variables, TERM=xterm-256color, COLORTERM=truecolor, the account's env
	// and what the registration needs.
	Env []string
	// Dir is the absolute working directory.
	Dir string
	// SessionID is the session this launch runs: the resumed one, or the id
	// the app minted for a fresh one. "" when the CLI chooses its own
	// (CaptureID) or none is handed out.
	SessionID string
	// Resumed reports that Argv is the resume line; ResumedFrom is then the
	// session id it resumes ("" otherwise).
	Resumed     bool
	ResumedFrom string
	// DroppedResume is the recorded session id that was dropped because its
	// conversation no longer exists; the launch is fresh. "" when none.
	DroppedResume string
	// UnseenHistory reports that the topic already has posts and this launch
	// is not a resume, so the sidecar tells the session they exist.
	UnseenHistory bool
	// CaptureID reports that the CLI picks its session id itself (Codex):
	// learn it with WatchSessionID, then RecordSession.
	CaptureID bool
	// MCPServer is the name the sidecar is registered under.
	MCPServer string
	// Registration is the MCP registration file ("" when the registration
	// is all flags, as for Codex).
	Registration string
	// Cleanup are the files to delete when the seat stops.
	Cleanup []string
	// TranscriptRoot is where this kind's conversations live for this launch
	// (~/.claude, CODEX_HOME ...), "" for a kind with no transcript rule.
	TranscriptRoot string
	// Hook is where this launch's hooks report, with its secret.
	Hook hook.HookTarget
	// Capability is the launch's operation capability (in Env only).
	Capability string
}

// multiplexerEnvNames are the person's terminal's variables that would
// tell a seat's CLI it runs inside a multiplexer or a particular terminal.
var multiplexerEnvNames = []string{"TMUX", "TMUX_PANE", "TERM_PROGRAM", "TERM_PROGRAM_VERSION", "STY", "ZELLIJ", "ZELLIJ_SESSION_NAME"}

// Errors of Resolve.
var (
	// ErrNotLaunchable reports an account whose kind is not started as a seat
	// (mcp) or is unknown.
	ErrNotLaunchable = errors.New("account is not launchable")
	// ErrLaunchRequest reports a request missing what a launch needs.
	ErrLaunchRequest = errors.New("incomplete launch request")
)

// Resolve decides how the account starts in the topic and prepares it: it
// reads the topic's record, checks the conversation exists, drops a stale
// record (only while it still holds that id), mints a session id where the
// kind hands one out, and writes the registration file (mode 0600, under
// RuntimeDir, unique to this launch). On error nothing is left behind but a
// dropped stale record.
func Resolve(req LaunchRequest) (Launch, error) {
	acc := req.Account
	l := Launch{Account: acc, Topic: req.Topic, MCPServer: MCPServerName}
	fail := func(format string, args ...any) (Launch, error) {
		return Launch{}, fmt.Errorf("launch %s in topic %s: "+format, append([]any{acc.ID, req.Topic}, args...)...)
	}
	if !acc.Kind.Launchable() {
		return fail("kind %q: %w", acc.Kind, ErrNotLaunchable)
	}
	switch {
	case req.Store == nil:
		return fail("no topic store: %w", ErrLaunchRequest)
	case !topicstore.ValidID(req.Topic):
		return fail("bad topic id: %w", ErrLaunchRequest)
	case !ValidAccountID(acc.ID):
		return fail("bad account id: %w", ErrLaunchRequest)
	case req.RoomURL == "" || req.Token == "":
		return fail("room address or token missing: %w", ErrLaunchRequest)
	case !filepath.IsAbs(req.ExePath):
		return fail("pullcept's own path %q is not absolute: %w", req.ExePath, ErrLaunchRequest)
	case req.RuntimeDir == "":
		return fail("no runtime folder: %w", ErrLaunchRequest)
	}
	home := req.Home
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return fail("home folder: %w", err)
		}
		home = h
	}
	dir, err := launchDir(acc.Dir, req.Dir, home)
	if err != nil {
		return fail("%w", err)
	}
	l.Dir = dir
	command, err := splitWords(acc.CommandLine())
	if err != nil || len(command) == 0 {
		return fail("command %q: %v", acc.CommandLine(), errOr(err, "empty"))
	}
	command[0] = expandHome(command[0], home)

	base := req.BaseEnv
	if base == nil {
		base = os.Environ()
	}
	env := newEnvList(base)
	for _, k := range sidecarEnvNames {
		env.unset(k)
	}
	env.unset(EnvMCPConfig)
	// The seat's terminal is the app's, not the person's multiplexer: a
	// CLI that sees TMUX or TERM_PROGRAM=tmux believes it runs in tmux
	// (Claude then talks to tmux about its clipboard and drops colours).
	for _, k := range multiplexerEnvNames {
		env.unset(k)
	}
	for _, k := range hookEnvNames {
		env.unset(k)
	}
	env.unset(EnvOperationCapability)
	env.set("TERM", "xterm-256color")
	env.set("COLORTERM", "truecolor")
	env.set(hook.EnvSeat, acc.ID+" in "+req.Topic)
	env.set(hook.EnvSeatHome, req.RuntimeDir)
	for _, kv := range acc.Kind.def().env {
		env.set(kv[0], kv[1])
	}
	for _, k := range sortedKeys(acc.Env) {
		env.set(k, acc.Env[k])
	}
	l.TranscriptRoot = acc.Kind.transcriptRoot(env.get, home)

	// The resume decision.
	recorded := ""
	topic, err := req.Store.Get(req.Topic)
	switch {
	case errors.Is(err, topicstore.ErrUnknownTopic):
	case err != nil:
		return fail("read the topic's record: %w", err)
	default:
		recorded = topic.Sessions[acc.ID]
	}
	hasLine := acc.ResumeLine() != ""
	exists := false
	if recorded != "" && hasLine {
		exists = acc.Kind.conversationExists(l.TranscriptRoot, dir, recorded)
	}
	d := DecideResume(recorded != "", hasLine, exists)
	switch req.Mode {
	case LaunchResume:
		switch {
		case recorded == "":
			return fail("%w: the topic records no conversation of this account", ErrCannotResume)
		case !hasLine:
			return fail("%w: the account has no resume line", ErrCannotResume)
		case !exists:
			return fail("%w: the conversation %s has no transcript", ErrCannotResume, recorded)
		}
	case LaunchFresh:
		// A new conversation takes the topic's place for this account: the
		// old record goes now (a CLI that picks its own id records it later).
		d = ResumeDecision{}
		if recorded != "" {
			if _, err := req.Store.DropSession(req.Topic, acc.ID, recorded); err != nil {
				return fail("drop the resume record %s for a fresh start: %w", recorded, err)
			}
		}
	}
	if d.Drop {
		if _, err := req.Store.DropSession(req.Topic, acc.ID, recorded); err != nil {
			return fail("drop the stale resume record %s: %w", recorded, err)
		}
		l.DroppedResume = recorded
	}
	if d.Resume {
		l.Resumed, l.ResumedFrom, l.SessionID = true, recorded, recorded
		l.UnseenHistory = req.UnseenHistory
	} else {
		posts, err := req.Store.HasPosts(req.Topic)
		if err != nil {
			return fail("look for earlier posts: %w", err)
		}
		l.UnseenHistory = posts
		newID := req.NewID
		if newID == nil {
			newID = ids.Random
		}
		switch {
		case acc.Kind.mintsID(acc):
			l.SessionID = newID()
		case acc.Kind.ChoosesOwnID():
			l.CaptureID = true
		}
	}

	// The command line, then the registration (last: nothing fails after the
	// file is written).
	var argv []string
	switch {
	case acc.Kind == KindCLI && l.Resumed:
		argv, err = splitWords(acc.Resume)
		if err != nil || len(argv) == 0 {
			return fail("resume line %q: %v", acc.Resume, errOr(err, "empty"))
		}
		argv[0] = expandHome(argv[0], home)
	case l.Resumed:
		argv = acc.Kind.resumeArgs(command, l.SessionID)
	default:
		argv = acc.Kind.newArgs(command, l.SessionID)
	}
	for i := range argv {
		argv[i] = strings.ReplaceAll(argv[i], SessionIDPlaceholder, l.SessionID)
	}
	hookBase, err := hook.HookBase(req.RoomURL)
	if err != nil {
		return fail("%w", err)
	}
	secret := req.HookSecret
	if secret == "" {
		if secret, err = NewHookSecret(); err != nil {
			return fail("%w", err)
		}
	}
	l.Hook = hook.HookTarget{Base: hookBase, Topic: req.Topic, Account: acc.ID, Secret: secret}
	reg, err := acc.Kind.register(registration{
		exe:        req.ExePath,
		runtimeDir: req.RuntimeDir,
		server:     MCPServerName,
		env:        sidecarEnv(req, l.UnseenHistory),
		hook:       l.Hook,
		argv:       argv,
		getenv:     env.get,
		home:       home,
		dir:        dir,
		capability: req.Capability != "",
	})
	if err != nil {
		return fail("register the sidecar and hooks: %w", err)
	}
	l.Argv = reg.argv
	for _, kv := range reg.env {
		env.set(kv[0], kv[1])
	}
	if l.UnseenHistory {
		env.set(envUnseenHistory, "1")
	}
	if req.Capability != "" {
		env.set(EnvOperationCapability, req.Capability)
		l.Capability = req.Capability
	}
	l.Env = env.list()
	l.Registration = reg.mcpFile
	l.Cleanup = reg.files
	return l, nil
}

// ResumeDecision is what DecideResume chose.
type ResumeDecision struct {
	// Resume: start with the resume line.
	Resume bool
	// Drop: the record names a conversation that does not exist; drop it now.
	Drop bool
}

// DecideResume is the resume rule: resume only when the topic records a
// session for the account, the account has a resume line and the
// conversation exists. A record whose conversation is gone is dropped; a
// record with no resume line is left (a fresh start that hands out an id
// replaces it), and its conversation is not even looked for.
func DecideResume(recorded, hasResumeLine, conversationExists bool) ResumeDecision {
	switch {
	case !recorded || !hasResumeLine:
		return ResumeDecision{}
	case conversationExists:
		return ResumeDecision{Resume: true}
	default:
		return ResumeDecision{Drop: true}
	}
}

// String describes the launch without its environment, which holds secrets
// (the account's env, Codex's room token).
func (l Launch) String() string {
	mode := "fresh"
	switch {
	case l.Resumed:
		mode = "resume " + l.ResumedFrom
	case l.DroppedResume != "":
		mode = "fresh (dropped " + l.DroppedResume + ")"
	}
	return fmt.Sprintf("launch %s in topic %s: %s; session %q; dir %s; argv %q", l.Account.ID, l.Topic, mode, l.SessionID, l.Dir, l.Argv)
}

// LogValue logs the launch without its environment.
func (l Launch) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("account", l.Account.ID), slog.String("topic", l.Topic),
		slog.Any("argv", l.Argv), slog.String("dir", l.Dir),
		slog.String("session", l.SessionID), slog.Bool("resumed", l.Resumed),
		slog.String("dropped_resume", l.DroppedResume), slog.Bool("unseen_history", l.UnseenHistory),
		slog.Bool("capture_id", l.CaptureID), slog.String("registration", l.Registration),
	)
}

// RecordStart writes the launch into the topic index once its process has
// started: the session id it runs, or, when it has none yet (Codex before
// its first turn, a CLI that takes no id), just the topic's entry, so that a
// topic a seat started in is listed even before anything is said.
func RecordStart(s Store, l Launch) error {
	if err := s.SetSession(l.Topic, l.Account.ID, l.SessionID); err != nil {
		return fmt.Errorf("record session of %s in topic %s: %w", l.Account.ID, l.Topic, err)
	}
	return nil
}

// RecordSession records a session id learnt after the start (WatchSessionID).
func RecordSession(s Store, l Launch, id string) error {
	if id == "" {
		return nil
	}
	if err := s.SetSession(l.Topic, l.Account.ID, id); err != nil {
		return fmt.Errorf("record session %s of %s in topic %s: %w", id, l.Account.ID, l.Topic, err)
	}
	return nil
}

// ShouldDropOnExit is the rule for a seat that ended (#127): the record of a
// resumed session is dropped when the session ended by itself without ever
// appearing in the room's roster — the CLI could not go back to it. An end
// the person or the app asked for (a stop, deleting the topic, quitting)
// never drops it, nor does the end of a fresh launch.
func ShouldDropOnExit(resumed, everInRoster, stopRequested bool) bool {
	return resumed && !everInRoster && !stopRequested
}

// DropAfterExit applies ShouldDropOnExit to a launch that ended: it drops
// the topic's record of the resumed id, only while the record still holds
// that id (a newer start may have written another). dropped reports whether
// a record was removed.
func DropAfterExit(s Store, l Launch, everInRoster, stopRequested bool) (dropped bool, err error) {
	if !ShouldDropOnExit(l.Resumed, everInRoster, stopRequested) || l.ResumedFrom == "" {
		return false, nil
	}
	dropped, err = s.DropSession(l.Topic, l.Account.ID, l.ResumedFrom)
	if err != nil {
		return false, fmt.Errorf("drop resume record %s of %s in topic %s: %w", l.ResumedFrom, l.Account.ID, l.Topic, err)
	}
	return dropped, nil
}

// RemoveRegistration deletes the launch's registration files; call it when
// the seat has stopped. Files already gone are fine.
func (l Launch) RemoveRegistration() error {
	var errs []error
	for _, f := range l.Cleanup {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// launchDir is the account's dir (~ expanded), else fallback, else the
// process's; it must be an existing directory.
func launchDir(accountDir, fallback, home string) (string, error) {
	dir := expandHome(accountDir, home)
	if dir == "" {
		dir = fallback
	}
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("working directory: %w", err)
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("working directory %s: %w", dir, err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("working directory %s is not a directory", abs)
	}
	return abs, nil
}

// expandHome replaces a leading "~" or "~/" with home.
func expandHome(p, home string) string {
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	switch {
	case p == "~":
		return home
	case strings.HasPrefix(p, "~/"):
		return filepath.Join(home, p[2:])
	}
	return p
}

func errOr(err error, text string) string {
	if err != nil {
		return err.Error()
	}
	return text
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// envList is an environment being built: set replaces a variable in place
// or appends it; the last value of a name wins.
type envList struct {
	kvs []string
}

func newEnvList(base []string) *envList {
	e := &envList{}
	for _, kv := range base {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			e.set(k, v)
		}
	}
	return e
}

func (e *envList) index(k string) int {
	for i, kv := range e.kvs {
		if name, _, _ := strings.Cut(kv, "="); name == k {
			return i
		}
	}
	return -1
}

func (e *envList) set(k, v string) {
	if i := e.index(k); i >= 0 {
		e.kvs[i] = k + "=" + v
		return
	}
	e.kvs = append(e.kvs, k+"="+v)
}

func (e *envList) unset(k string) {
	if i := e.index(k); i >= 0 {
		e.kvs = slices.Delete(e.kvs, i, i+1)
	}
}

func (e *envList) get(k string) string {
	if i := e.index(k); i >= 0 {
		_, v, _ := strings.Cut(e.kvs[i], "=")
		return v
	}
	return ""
}

func (e *envList) list() []string { return slices.Clone(e.kvs) }

// splitWords splits a command line into words the way a POSIX shell does
// for quoting only: blanks separate words, '...' keeps everything, "..."
// keeps everything but \" \\ \$ \` (and a backslash-newline), a backslash
// outside quotes keeps the next character. Nothing is expanded.
func splitWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case r == '\\':
			inWord = true
			if i+1 >= len(rs) {
				return nil, errors.New("ends with a lone backslash")
			}
			i++
			if rs[i] != '\n' {
				cur.WriteRune(rs[i])
			}
		case r == '\'':
			inWord = true
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			if j >= len(rs) {
				return nil, errors.New("unterminated ' quote")
			}
			cur.WriteString(string(rs[i+1 : j]))
			i = j
		case r == '"':
			inWord = true
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				if rs[j] == '\\' && j+1 < len(rs) && strings.ContainsRune("\"\\$`\n", rs[j+1]) {
					j++
					if rs[j] != '\n' {
						cur.WriteRune(rs[j])
					}
					continue
				}
				cur.WriteRune(rs[j])
			}
			if j >= len(rs) {
				return nil, errors.New(`unterminated " quote`)
			}
			i = j
		default:
			inWord = true
			cur.WriteRune(r)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

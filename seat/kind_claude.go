package seat

// Claude Code's manners (measured with 2.1.197 and 2.1.332:
// ../shared/notes/real-clis.md, cli-hooks.md).
//
//   - Launch: `claude --session-id ID` for a fresh session (the app mints
//     the id), `claude --resume ID` to go back; transcripts under
//     CONFIG/projects/<slug>/<id>.jsonl (transcript.go).
//   - Sidecar: --mcp-config FILE (0600, runtime folder) with alwaysLoad, and
//     --allowedTools for the room's three tools so the room never stalls on
//     a permission prompt for its own tools.
//   - Hooks: --settings FILE (0600, runtime folder), merged by Claude with
//     the person's own settings. http hooks for every event they work for,
//     with the launch's secret in a header read from the environment; a
//     command hook for SessionStart (http is skipped there). The status
//     line is `pullcept hook status`, which also runs the person's own
//     status-line command and prints its output.
//   - An account whose command already passes --settings: its file (or
//     inline JSON) is merged into the launch's file ("--settings の二重宣言");
//     one that cannot be read is refused with the reason.
//   - Signals: SessionStart source "resume" says a resumed conversation
//     loaded; a failed --resume fires only SessionEnd (#127).
//   - The room is the only channel (docs/decisions.md "Seats cannot go
//     around the room"): the launch's settings deny ListAgents and
//     SendMessage and refuse cross-session messages; CLAUDE_CODE_HARBOR_KITE=0
//     keeps 2.1.332's inbox socket from being bound at all.
//   - Permission mode: "default" unless the person chose one
//     (docs/decisions.md "The permission mode seats launch in").

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"pullcept/seat/hook"
)

var claudeKind = kindDef{
	namesCLI:       true,
	launchable:     true,
	command:        "claude",
	resumeLine:     "claude --resume " + SessionIDPlaceholder,
	newSessionLine: "claude --session-id " + SessionIDPlaceholder,
	mintsID:        func(Account) bool { return true },
	newArgs: func(command []string, id string) []string {
		if id == "" {
			return slices.Clone(command)
		}
		return append(slices.Clone(command), "--session-id", id)
	},
	resumeArgs: func(command []string, id string) []string {
		return append(slices.Clone(command), "--resume", id)
	},
	transcriptRoot: claudeConfigDir,
	conversationExists: func(root, dir, id string) bool {
		_, ok := FindClaudeTranscript(root, dir, id)
		return ok
	},
	register:           registerClaude,
	resumeLoadedSignal: true,
	reportsStart:       true,
	promptSignal:       true,
	receipts:           claudeReceipts,
	interrupt:          []byte{0x1b},
	answeredToTurnEnd:  true,
	turnEndSettle:      250 * time.Millisecond,
	// Ctrl-U: deletes to the line's start; on an empty prompt it does
	// nothing (Ctrl-C there starts an exit). Measured with 2.1.197 and
	// 2.1.332.
	clearInput: []byte{0x15},
	// No inbox socket (measured with 2.1.332: no socket, no
	// CLAUDE_CODE_MESSAGING_* in children, no ListAgents); 2.1.197 has no
	// inbox and ignores it.
	env: [][2]string{{"CLAUDE_CODE_HARBOR_KITE", "0"}},
}

// claudeDenied are the built-in tools a seat may not use: 2.1.332's way to
// list and message the person's other Claude sessions, seats included,
// around the room. 2.1.197 has no ListAgents and a teammate-only
// SendMessage; a deny rule naming a tool it lacks is ignored (measured).
var claudeDenied = []string{"ListAgents", "SendMessage"}

// claudeInbound is crossSessionInbound: "refuse" drops every message from
// another session (nothing on screen, nothing to the model); "hold" would
// park them behind a notice the person could release, a second path in.
// 2.1.197 does not know the key and ignores it (measured: its hooks fire).
const claudeInbound = "refuse"

// claudeHTTPEvents are the events reported by http hooks (all Claude
// delivers them for); claudeCommandEvents need a command hook. Every one is
// in the event list of the oldest supported Claude (2.1.197) as of the
// newest (2.1.332): docs/hooks.md "What each version offers".
var (
	claudeHTTPEvents = []string{"UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse",
		"PostToolUseFailure", "PermissionDenied", "Notification", "Elicitation", "ElicitationResult",
		"SubagentStart", "SubagentStop", "Stop", "StopFailure", "SessionEnd"}
	claudeCommandEvents = []string{"SessionStart"}
)

// claudeHookTimeout bounds an http hook (seconds). PreToolUse waits for the
// answer; the app answers within the typist's echo wait.
const claudeHookTimeout = 30

// ClaudePermissionHookTimeout bounds the PermissionRequest hook (seconds):
// the app holds the call open while the prompt waits, to answer it with
// the person's decision from the needs-you list (app/needslist.go). The
// prompt shows at once meanwhile and is answered in the pane as usual (its
// answer ends the call). 600 s is Claude's own default for a hook.
const ClaudePermissionHookTimeout = 600

func registerClaude(r registration) (registered, error) {
	argv, theirs, err := takeClaudeSettings(r.argv, r.dir)
	if err != nil {
		return registered{}, err
	}
	if !claudeModeChosen(argv, theirs, r) {
		argv = append(argv, "--permission-mode", "default")
	}
	settings := claudeSettings(r, theirs)
	data, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		return registered{}, err
	}
	var env [][2]string
	if cmd := claudeOwnStatusLine(theirs, r); cmd != "" {
		env = append(env, [2]string{hook.EnvStatusLine, cmd})
	}
	mcp, err := writeMCPConfig(r, true)
	if err != nil {
		return registered{}, err
	}
	sfile, err := writeRuntimeFile(r.runtimeDir, "claude-settings-*.json", data)
	if err != nil {
		os.Remove(mcp)
		return registered{}, err
	}
	argv = append(argv, "--settings", sfile, "--mcp-config", mcp, "--allowedTools", ClaudeAllowedTools(r.server))
	return registered{argv: argv, env: append(env, hookEnv(r.hook)...), mcpFile: mcp, files: []string{mcp, sfile}}, nil
}

// claudeSettings is the launch's settings: the account's own (if its command
// passed --settings) with the room's hooks added to each event and the
// room's status line.
func claudeSettings(r registration, theirs map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range theirs {
		out[k] = v
	}
	hooks, _ := out["hooks"].(map[string]any)
	merged := map[string]any{}
	for k, v := range hooks {
		merged[k] = v
	}
	add := func(event string, h map[string]any) {
		groups, _ := merged[event].([]any)
		merged[event] = append(slices.Clone(groups), map[string]any{"hooks": []any{h}})
	}
	for _, ev := range claudeHTTPEvents {
		timeout := claudeHookTimeout
		if ev == "PermissionRequest" {
			timeout = ClaudePermissionHookTimeout
		}
		add(ev, map[string]any{
			"type": "http", "url": r.hook.ActivityURL(ev), "timeout": timeout,
			"headers":        map[string]any{"Authorization": "Bearer $" + hook.EnvHookSecret},
			"allowedEnvVars": []any{hook.EnvHookSecret},
		})
	}
	for _, ev := range claudeCommandEvents {
		add(ev, map[string]any{"type": "command", "command": hookCommandLine(r.exe, ev), "timeout": claudeHookTimeout})
	}
	out["hooks"] = merged
	perms, _ := out["permissions"].(map[string]any)
	p := map[string]any{}
	for k, v := range perms {
		p[k] = v
	}
	deny, _ := p["deny"].([]any)
	deny = slices.Clone(deny)
	for _, tool := range claudeDenied {
		if !slices.Contains(deny, any(tool)) {
			deny = append(deny, tool)
		}
	}
	p["deny"] = deny
	out["permissions"] = p
	out["crossSessionInbound"] = claudeInbound
	out["statusLine"] = map[string]any{"type": "command", "command": hookCommandLine(r.exe, hook.HookStatus), "padding": 0}
	return out
}

// takeClaudeSettings removes a --settings VALUE (or --settings=VALUE) from
// argv and reads it: a file, or inline JSON. A value that cannot be read is
// an error naming it.
func takeClaudeSettings(argv []string, dir string) (rest []string, theirs map[string]any, err error) {
	var values []string
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "--settings" && i+1 < len(argv):
			values = append(values, argv[i+1])
			i++
		case strings.HasPrefix(a, "--settings="):
			values = append(values, strings.TrimPrefix(a, "--settings="))
		default:
			rest = append(rest, a)
		}
	}
	if len(values) == 0 {
		return rest, nil, nil
	}
	if len(values) > 1 {
		return nil, nil, fmt.Errorf("the command passes --settings %d times; pass it once and the room's hooks are merged into it", len(values))
	}
	v := strings.TrimSpace(values[0])
	data := []byte(v)
	if !strings.HasPrefix(v, "{") {
		p := v
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if data, err = os.ReadFile(p); err != nil {
			return nil, nil, fmt.Errorf("the command's --settings %s cannot be read to merge the room's hooks into it: %w", v, err)
		}
	}
	if err := json.Unmarshal(data, &theirs); err != nil || theirs == nil {
		return nil, nil, fmt.Errorf("the command's --settings %s is not a JSON object, so the room's hooks cannot be merged into it: %v", v, errOr(err, "null"))
	}
	if h, ok := theirs["hooks"]; ok {
		if _, isMap := h.(map[string]any); !isMap {
			return nil, nil, fmt.Errorf("the command's --settings %s has \"hooks\" that is not an object", v)
		}
	}
	return rest, theirs, nil
}

// claudeOwnStatusLine is the person's own status-line command, in Claude's
// order of precedence: the account's --settings, the project's local and
// shared settings, then the user's.
func claudeOwnStatusLine(theirs map[string]any, r registration) string {
	return claudeOwnSetting(theirs, r, statusLineCommand)
}

// claudeModeChosen: the person chose the seat's permission mode, in the
// account's command (--permission-mode, --dangerously-skip-permissions) or
// in settings (permissions.defaultMode).
func claudeModeChosen(argv []string, theirs map[string]any, r registration) bool {
	for _, a := range argv {
		if a == "--permission-mode" || strings.HasPrefix(a, "--permission-mode=") || a == "--dangerously-skip-permissions" {
			return true
		}
	}
	return claudeOwnSetting(theirs, r, func(m map[string]any) string {
		p, _ := m["permissions"].(map[string]any)
		mode, _ := p["defaultMode"].(string)
		return mode
	}) != ""
}

// claudeOwnSetting is get's first non-empty answer, in Claude's order of
// precedence: the account's --settings, the project's local and shared
// settings, then the user's.
func claudeOwnSetting(theirs map[string]any, r registration, get func(map[string]any) string) string {
	if c := get(theirs); c != "" {
		return c
	}
	root := claudeConfigDir(r.getenv, r.home)
	for _, p := range []string{
		filepath.Join(r.dir, ".claude", "settings.local.json"),
		filepath.Join(r.dir, ".claude", "settings.json"),
		filepath.Join(root, "settings.json"),
	} {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var m map[string]any
		if json.Unmarshal(data, &m) == nil {
			if c := get(m); c != "" {
				return c
			}
		}
	}
	return ""
}

func statusLineCommand(settings map[string]any) string {
	sl, _ := settings["statusLine"].(map[string]any)
	if t, _ := sl["type"].(string); t != "" && t != "command" {
		return ""
	}
	c, _ := sl["command"].(string)
	return strings.TrimSpace(c)
}

// claudeConfigDir is $CLAUDE_CONFIG_DIR, else ~/.claude.
func claudeConfigDir(getenv func(string) string, home string) string {
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	return filepath.Join(home, ".claude")
}

package seat

// Codex CLI's manners (measured with 0.171.0: ../shared/notes/real-clis.md,
// cli-hooks.md).
//
//   - Launch: `codex` for a fresh session (Codex chooses the id; the app
//     learns it from the rollout file, transcript.go), `codex resume ID` to
//     go back (the subcommand goes right after the program).
//   - Sidecar: -c mcp_servers.NAME.* flags (codexRegistration): no config
//     file option exists, so the room token travels in Codex's own
//     environment, forwarded by name (env_vars), never in argv.
//   - Hooks: command hooks given and trusted with -c (codexHooks).

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

var codexKind = kindDef{
	namesCLI:     true,
	launchable:   true,
	command:      "codex",
	resumeLine:   "codex resume " + SessionIDPlaceholder,
	choosesOwnID: true,
	promptSignal: true,
	resumeArgs: func(command []string, id string) []string {
		out := []string{command[0], "resume", id}
		return append(out, command[1:]...)
	},
	transcriptRoot: func(getenv func(string) string, home string) string {
		if d := getenv("CODEX_HOME"); d != "" {
			return d
		}
		return filepath.Join(home, ".codex")
	},
	conversationExists: func(root, _, id string) bool {
		_, ok, _ := FindCodexRollout(root, id)
		return ok
	},
	register: registerCodex,
	// Ctrl-U: deletes to the line's start; nothing on an empty composer
	// (Ctrl-C there starts an exit). Measured with 0.171.0.
	clearInput: []byte{0x15},
}

func registerCodex(r registration) (registered, error) {
	args, env := codexRegistration(r)
	hargs, henv, err := codexHooks(r)
	if err != nil {
		return registered{}, err
	}
	argv := append(slices.Clone(r.argv), args...)
	argv = append(argv, hargs...)
	argv = append(argv, codexQuietArgs...)
	return registered{argv: argv, env: append(env, henv...)}, nil
}

// codexQuietArgs turn off Codex's own pop-ups that would read room posts as
// answers: at 90 % of a window Codex 0.171 asks "Switch to <model> for
// lower credit usage? 1. … 2. …" in its pane, and a post typed into it
// chose the other model (and lost the room's tools) in 2 of 5 runs.
var codexQuietArgs = []string{"-c", "notice.hide_rate_limit_model_nudge=true"}

// codexHookEvents are the events a Codex seat reports, with the labels
// Codex files their trust under (snake case).
// The timeout (seconds) is part of the trust hash: Codex clamps the
// Interrupt and SessionEnd hooks to 3 s (and then hashes 3), so they are
// given 3.
var codexHookEvents = []struct {
	name, label string
	timeout     int
}{
	{"SessionStart", "session_start", 30},
	{"UserPromptSubmit", "user_prompt_submit", 30},
	{"PreToolUse", "pre_tool_use", 30},
	{"PermissionRequest", "permission_request", 30},
	{"PostToolUse", "post_tool_use", 30},
	{"Stop", "stop", 30},
	{"Interrupt", "interrupt", 3},
	{"SessionEnd", "session_end", 3},
}

// codexSessionFlagsSource is the name Codex gives the -c layer in a hook's
// trust key.
const codexSessionFlagsSource = "/<session-flags>/config.toml"

// codexHooks registers the seat's hooks with Codex: one command hook per
// event, `pullcept hook EVENT`, given with -c, and their trust with -c too.
// Codex runs only trusted hooks and otherwise opens a "Hooks need review"
// dialog at start. Trust is read from the user, in-memory and -c layers, so
// the launch trusts exactly its own hooks with a -c hooks.state inline table
// holding each hook's trusted_hash: the person's config.toml is not written
// and no other hook's trust changes (--dangerously-bypass-hook-trust would
// also run the project's untrusted hooks). The hash is Codex's own recipe
// (codexHookHash), so the trust follows the command: a new pullcept path
// (go run) gets a new hash on the same launch.
func codexHooks(r registration) (args []string, env [][2]string, err error) {
	var state []string
	for _, ev := range codexHookEvents {
		cmd := hookCommandLine(r.exe, ev.name)
		args = append(args, "-c", "hooks."+ev.name+"=[{hooks=[{type=\"command\",command="+tomlString(cmd)+",timeout="+strconv.Itoa(ev.timeout)+"}]}]")
		key := codexSessionFlagsSource + ":" + ev.label + ":0:0"
		state = append(state, tomlString(key)+"={trusted_hash="+tomlString(codexHookHash(ev.label, cmd, ev.timeout))+"}")
	}
	args = append(args, "-c", "hooks.state={"+strings.Join(state, ",")+"}")
	return args, hookEnv(r.hook), nil
}

// codexHookHash is Codex's trusted_hash of one command hook (a group with no
// matcher and one handler): "sha256:" + the hex SHA-256 of the compact JSON
// of {event_name, hooks:[{async, command, timeout, type}]} with keys sorted
// and serde_json's escaping (codex-rs hooks/src/engine/discovery.rs
// command_hook_hash, config/src/fingerprint.rs version_for_toml; checked
// against the hash Codex 0.171.0 reports).
func codexHookHash(label, command string, timeout int) string {
	ident := map[string]any{"event_name": label, "hooks": []any{map[string]any{
		"async": false, "command": command, "timeout": timeout, "type": "command",
	}}}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(ident) // plain values: cannot fail
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	// serde_json leaves U+2028/U+2029 as they are; Go escapes them.
	b = bytes.ReplaceAll(b, []byte(`\u2028`), []byte("\u2028"))
	b = bytes.ReplaceAll(b, []byte(`\u2029`), []byte("\u2029"))
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

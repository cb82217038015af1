package seat

// Hook registration: how a seat's CLI tells the app what it is doing (spec
// 003 "部屋プロトコル": the one port answers /hooks/status/<topic>/<account>
// and /hooks/activity/<event>/<topic>/<account>). Every launch gets its own
// hook secret; the room socket accepts a hook call only with the secret of
// the seat the path names (the room token is shared by every seat, so with
// it alone one agent could say that another seat's prompt has ended).
//
// The secret and the seat's address travel in the child's environment
// (PULLCEPT_HOOK_*), never in argv: Claude's http hooks name the variable in
// a header (allowedEnvVars), command hooks (`pullcept hook EVENT`, for
// Claude's SessionStart and status line, every Codex hook, and any cli
// program) read it from the environment they inherit. The hooks' client
// side (the target, the call, the room's status line) is package
// pullcept/seat/hook, light enough for `pullcept hook`; this file is the
// launch's side.

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"

	"pullcept/seat/hook"
)

// The variables a seat's processes get besides the hook target's
// (hook.EnvHookURL …).
const (
	// EnvHookBin is the absolute path of the pullcept binary, for a cli
	// program's hooks: "$PULLCEPT_BIN" hook EVENT.
	EnvHookBin = "PULLCEPT_BIN"
)

// hookEnvNames are removed from the environment a child inherits.
var hookEnvNames = []string{hook.EnvHookURL, hook.EnvHookTopic, hook.EnvHookAccount, hook.EnvHookSecret, EnvHookBin, hook.EnvStatusLine, hook.EnvSeat, hook.EnvSeatHome}

// HookCommand is the argument that makes the pullcept binary a hook.
const HookCommand = "hook"

// NewHookSecret makes a launch's hook secret.
func NewHookSecret() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("hook secret: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// hookEnv is the child's hook environment: what hook.HookTargetFromEnv
// reads back.
func hookEnv(h hook.HookTarget) [][2]string {
	return [][2]string{{hook.EnvHookURL, h.Base}, {hook.EnvHookTopic, h.Topic}, {hook.EnvHookAccount, h.Account}, {hook.EnvHookSecret, h.Secret}}
}

// shellQuote quotes s for a POSIX shell (hook commands run through one).
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// hookCommandLine is the shell line of `pullcept hook EVENT`.
func hookCommandLine(exe, event string) string {
	return shellQuote(exe) + " " + HookCommand + " " + shellQuote(event)
}

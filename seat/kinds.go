package seat

import (
	"slices"
	"strings"
	"time"
)

// Kind is an account's kind. A kind that names a CLI (claude_code, codex)
// knows that CLI's manners; the cli kind takes the id and resume manners
// from the account; mcp accounts are local MCP servers and are never
// launched as seats. Spec 003 "トピック" (再開の一行, 新規セッションへ渡す
// id); #156 decision 6.
//
// Every manner of a kind lives in one definition (a kindDef) in one file:
// kind_claude.go, kind_codex.go, kind_cli.go, kind_mcp.go. A new CLI kind
// is one more file and one more entry in kindDefs.
type Kind string

// The kinds.
const (
	KindClaudeCode Kind = "claude_code"
	KindCodex      Kind = "codex"
	KindCLI        Kind = "cli"
	KindMCP        Kind = "mcp"
)

// Kinds lists every kind, in the order listings show them.
var Kinds = []Kind{KindClaudeCode, KindCodex, KindCLI, KindMCP}

// kindDef is one kind's manners. Function fields may be nil where the kind
// has no such manner.
type kindDef struct {
	// namesCLI: the kind names one CLI and carries its manners.
	namesCLI bool
	// launchable: accounts of this kind run as seats in a terminal.
	launchable bool
	// command is the default launch line ("" = the account must give one).
	command string
	// resumeLine and newSessionLine are for display ("" = none).
	resumeLine, newSessionLine string
	// choosesOwnID: the CLI picks its session id; the app learns it after
	// the start (WatchSessionID).
	choosesOwnID bool
	// mintsID reports whether a fresh launch of acc gets an id minted by
	// the app.
	mintsID func(acc Account) bool
	// newArgs / resumeArgs place the session manners into argv (command
	// words of the account, first = program).
	newArgs, resumeArgs func(command []string, id string) []string
	// transcriptRoot is where the kind keeps its conversations for a child
	// with this environment; conversationExists answers the third resume
	// condition (transcript.go holds the file rules).
	transcriptRoot     func(getenv func(string) string, home string) string
	conversationExists func(root, dir, id string) bool
	// register prepares the sidecar's registration and the hooks that
	// report the seat's activity (hooks.go).
	register func(r registration) (registered, error)
	// resumeLoadedSignal: the CLI says when a resumed conversation really
	// loaded (a hook), so a failed resume is told by that signal rather
	// than by the roster (#127, ShouldDropOnExit).
	resumeLoadedSignal bool
	// reportsStart: the CLI reports its start by a hook (SessionStart) at
	// launch; a seat of a kind that does not is ready once it runs.
	reportsStart bool
	// promptSignal: the CLI reports each prompt it takes, with its text
	// (UserPromptSubmit), so a typed post's delivery mark can become
	// received (marks.go); without it the mark is unknown.
	promptSignal bool
	// receipts reads, in the transcript its hooks name, the tag ids of the
	// input given to the model from offset on (marks.go); nil: none read.
	receipts func(path string, offset int64) (ids []string, next int64)
	// interrupt is what the seat's stop sequence writes first so the CLI
	// can finish writing its turn (nil: straight to the signals).
	interrupt []byte
	// answeredToTurnEnd: posts held behind a prompt the person answered
	// wait for the turn's end, not the tool's (ActivityOptions).
	answeredToTurnEnd bool
	// turnEndSettle: a post's \r waits this long after the turn's end.
	turnEndSettle time.Duration
	// clearInput is the key that empties the CLI's input box and can never
	// quit it or answer anything (the person's release of unsent keys,
	// docs/decisions.md); nil: the kind has none measured, and such keys
	// are left for the person to clear.
	clearInput []byte
	// env is set in every seat of the kind before the account's own env,
	// which may say otherwise.
	env [][2]string
}

// kindDefs maps each kind to its definition (filled in init: the
// definitions' functions refer back to kinds).
var kindDefs map[Kind]*kindDef

func init() {
	kindDefs = map[Kind]*kindDef{
		KindClaudeCode: &claudeKind,
		KindCodex:      &codexKind,
		KindCLI:        &cliKind,
		KindMCP:        &mcpKind,
	}
}

var noKind = kindDef{}

func (k Kind) def() *kindDef {
	if d, ok := kindDefs[k]; ok {
		return d
	}
	return &noKind
}

// SessionIDPlaceholder is replaced by the session id in a command or resume
// line.
const SessionIDPlaceholder = "{session_id}"

// MCPConfigPlaceholder is replaced, in a cli account's command or resume line,
// by the path of the launch's MCP registration file.
const MCPConfigPlaceholder = "{mcp_config}"

// ClearKeys is what empties text, the person's unsent keys, in k's input
// box without quitting or answering anything: the kind's clear key once
// per line of text, with a Backspace between to join each line to the one
// before (Ctrl-U ends at a line's start in both CLIs: measured,
// docs/decisions.md "What u does for each hold"). ok is false for a kind
// with no clear key measured safe.
func (k Kind) ClearKeys(text string) (keys []byte, ok bool) {
	c := k.def().clearInput
	if c == nil {
		return nil, false
	}
	keys = append(keys, c...)
	for range strings.Count(strings.ReplaceAll(text, "\r\n", "\n"), "\n") + strings.Count(strings.ReplaceAll(text, "\r\n", ""), "\r") {
		keys = append(keys, 0x7f)
		keys = append(keys, c...)
	}
	return keys, true
}

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool { return slices.Contains(Kinds, k) }

// NamesCLI reports whether the kind names a particular CLI and so carries that
// CLI's manners (claude_code, codex).
func (k Kind) NamesCLI() bool { return k.def().namesCLI }

// Launchable reports whether accounts of this kind are started as seats in a
// terminal (every kind but mcp).
func (k Kind) Launchable() bool { return k.def().launchable }

// DefaultCommand is the command an account of this kind runs when its config
// names none: "claude", "codex"; "" for cli (required) and mcp.
func (k Kind) DefaultCommand() string { return k.def().command }

// ResumeLine is the kind's resume line, for display: "claude --resume
// {session_id}", "codex resume {session_id}"; "" for a kind whose accounts
// carry their own (cli) or that is not launched (mcp). Its first word stands
// for the account's command; resumeArgs says where the rest goes.
func (k Kind) ResumeLine() string { return k.def().resumeLine }

// NewSessionLine is how a fresh launch hands out the id the app minted, for
// display: "claude --session-id {session_id}"; "" when the kind hands out
// none (codex chooses its own id; a cli account writes the placeholder into
// its command).
func (k Kind) NewSessionLine() string { return k.def().newSessionLine }

// ChoosesOwnID reports whether the CLI picks its session id itself, so that
// the app learns it only after the start (Codex: from the rollout file it
// writes, see WatchCodexSession).
func (k Kind) ChoosesOwnID() bool { return k.def().choosesOwnID }

func (k Kind) resumeArgs(command []string, id string) []string {
	if f := k.def().resumeArgs; f != nil {
		return f(command, id)
	}
	return slices.Clone(command)
}

func (k Kind) newArgs(command []string, id string) []string {
	if f := k.def().newArgs; f != nil {
		return f(command, id)
	}
	return slices.Clone(command)
}

func (k Kind) mintsID(acc Account) bool {
	if f := k.def().mintsID; f != nil {
		return f(acc)
	}
	return false
}

func (k Kind) transcriptRoot(getenv func(string) string, home string) string {
	if f := k.def().transcriptRoot; f != nil {
		return f(getenv, home)
	}
	return ""
}

func (k Kind) conversationExists(root, dir, id string) bool {
	if f := k.def().conversationExists; f != nil {
		return f(root, dir, id)
	}
	return false
}

// String returns the kind as written in the config.
func (k Kind) String() string { return string(k) }

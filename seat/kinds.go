package seat

import "slices"

// Kind is an account's kind. A kind that names a CLI (claude_code, codex)
// knows that CLI's manners: its default command, how a new session gets its
// id, the resume line, where its transcripts live (transcript.go) and how the
// room's sidecar is registered (register.go). The cli kind takes the id and
// resume manners from the account; mcp accounts are local MCP servers and are
// never launched as seats. Spec 003 "トピック" (再開の一行, 新規セッションへ渡す
// id); #156 decision 6.
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

// SessionIDPlaceholder is replaced by the session id in a command or resume
// line.
const SessionIDPlaceholder = "{session_id}"

// MCPConfigPlaceholder is replaced, in a cli account's command or resume line,
// by the path of the launch's MCP registration file.
const MCPConfigPlaceholder = "{mcp_config}"

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool { return slices.Contains(Kinds, k) }

// NamesCLI reports whether the kind names a particular CLI and so carries that
// CLI's manners (claude_code, codex).
func (k Kind) NamesCLI() bool { return k == KindClaudeCode || k == KindCodex }

// Launchable reports whether accounts of this kind are started as seats in a
// terminal (every kind but mcp).
func (k Kind) Launchable() bool { return k == KindClaudeCode || k == KindCodex || k == KindCLI }

// DefaultCommand is the command an account of this kind runs when its config
// names none: "claude", "codex"; "" for cli (required) and mcp.
func (k Kind) DefaultCommand() string {
	switch k {
	case KindClaudeCode:
		return "claude"
	case KindCodex:
		return "codex"
	}
	return ""
}

// ResumeLine is the kind's resume line, for display: "claude --resume
// {session_id}", "codex resume {session_id}"; "" for a kind whose accounts
// carry their own (cli) or that is not launched (mcp). Its first word stands
// for the account's command; resumeArgs says where the rest goes.
func (k Kind) ResumeLine() string {
	switch k {
	case KindClaudeCode:
		return "claude --resume " + SessionIDPlaceholder
	case KindCodex:
		return "codex resume " + SessionIDPlaceholder
	}
	return ""
}

// NewSessionLine is how a fresh launch hands out the id the app minted, for
// display: "claude --session-id {session_id}"; "" when the kind hands out
// none (codex chooses its own id; a cli account writes the placeholder into
// its command).
func (k Kind) NewSessionLine() string {
	if k == KindClaudeCode {
		return "claude --session-id " + SessionIDPlaceholder
	}
	return ""
}

// ChoosesOwnID reports whether the CLI picks its session id itself, so that
// the app learns it only after the start (Codex: from the rollout file it
// writes, see WatchCodexSession).
func (k Kind) ChoosesOwnID() bool { return k == KindCodex }

// resumeArgs places the resume manners into argv (command words of the
// account, first = program): Claude takes "--resume ID" after its options,
// Codex takes the TUI subcommand "resume ID" right after the program, where
// a subcommand belongs.
func (k Kind) resumeArgs(command []string, id string) []string {
	switch k {
	case KindClaudeCode:
		return append(slices.Clone(command), "--resume", id)
	case KindCodex:
		out := []string{command[0], "resume", id}
		return append(out, command[1:]...)
	}
	return slices.Clone(command)
}

// newArgs places the new-session manners into argv: Claude takes
// "--session-id ID"; Codex takes nothing.
func (k Kind) newArgs(command []string, id string) []string {
	if k == KindClaudeCode && id != "" {
		return append(slices.Clone(command), "--session-id", id)
	}
	return slices.Clone(command)
}

// String returns the kind as written in the config.
func (k Kind) String() string { return string(k) }

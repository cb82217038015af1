package seat

// Registration of the room's sidecar, per launch and never in the user's
// project (spec 003 README: the bug of #103/#208). The sidecar is the running
// pullcept binary (absolute path) with the argument "sidecar"; it learns its
// room from PULLCEPT_* variables (sidecar/config.go).
//
//   - Claude Code: --mcp-config FILE, a JSON file (mode 0600, unique to the
//     launch, under the runtime folder) whose server entry carries the whole
//     env, token included; plus --allowedTools for the sidecar's three tools,
//     so that the room never stalls on a permission prompt for its own tools.
//   - Codex: -c mcp_servers.NAME.* flags. Codex does not pass its own env on
//     to MCP servers, so the variables must be named in the server entry; the
//     non-secret ones go into the inline env table, but the token would then
//     be in argv, readable by every user through ps. Codex 0.171.0 has no
//     flag that reads a config file (--profile layers a file inside
//     CODEX_HOME, the user's own folder), so the token travels in Codex's
//     own environment and the entry forwards it by name:
//     env_vars = ["PULLCEPT_ROOM_TOKEN"] (verified against the real CLI by
//     TestRealCodex...). Tools are approved (default_tools_approval_mode) and
//     the server is required (else a slow start silently drops it);
//     --disable daemon_auto_start keeps a per-HOME app-server from
//     outliving the seat, and --no-daemon keeps the seat off one the
//     person started (whose other clients could drive the seat's thread:
//     docs/decisions.md "Seats cannot go around the room").
//   - cli: the same JSON file as Claude's, named by PULLCEPT_MCP_CONFIG in
//     the child's env and by {mcp_config} in its command line.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"pullcept/seat/hook"
)

// MCPServerName is the name the sidecar is registered under in every
// launch. One launch registers one sidecar, so the name needs no account
// part; it is distinct enough not to collide with a server the person
// configured. Claude names its tools mcp__pullcept__<tool>.
const MCPServerName = "pullcept"

// SidecarCommand is the argument that makes the pullcept binary the sidecar.
const SidecarCommand = "sidecar"

// SidecarTools are the sidecar's tools: the room's three and the session
// operations' three (allowed like them: no prompt per call, spec 003 AI か
// らのセッション操作).
var SidecarTools = []string{"say_to_room", "read_room_history", "my_usage", "list_account_sessions", "control_account_session", "account_session_status"}

// EnvMCPConfig names, in a cli account's environment, the launch's MCP
// registration file.
const EnvMCPConfig = "PULLCEPT_MCP_CONFIG"

// The variables the sidecar reads (mirrors sidecar/config.go; a test keeps
// them equal).
const (
	envRoomURL       = "PULLCEPT_ROOM_URL"
	envRoomToken     = "PULLCEPT_ROOM_TOKEN"
	envAgentName     = "PULLCEPT_AGENT_NAME"
	envAgentFullName = "PULLCEPT_AGENT_FULL_NAME"
	envRoomID        = "PULLCEPT_ROOM_ID"
	envAgentHue      = "PULLCEPT_AGENT_HUE"
	envAccountID     = "PULLCEPT_ACCOUNT_ID"
	envUnseenHistory = "PULLCEPT_UNSEEN_HISTORY"
)

// EnvOperationCapability carries a launch's operation capability (session
// operations) in the CLI's own environment, which its sidecar inherits
// (Claude, cli) or is forwarded by name (Codex's env_vars). It is never
// written into a registration file or argv.
const EnvOperationCapability = "PULLCEPT_OPERATION_CAPABILITY"

// sidecarEnvNames are removed from the environment a child inherits, so a
// value from around the app never reaches a sidecar that did not get one.
var sidecarEnvNames = []string{envRoomURL, envRoomToken, envAgentName, envAgentFullName, envRoomID, envAgentHue, envAccountID, envUnseenHistory}

// ClaudeToolName is the name Claude Code gives a tool of the MCP server.
func ClaudeToolName(server, tool string) string { return "mcp__" + server + "__" + tool }

// ClaudeAllowedTools is the --allowedTools value for the sidecar's tools.
func ClaudeAllowedTools(server string) string {
	names := make([]string, len(SidecarTools))
	for i, t := range SidecarTools {
		names[i] = ClaudeToolName(server, t)
	}
	return strings.Join(names, ",")
}

// sidecarEnv is the sidecar's environment for one launch, in a fixed order.
// PULLCEPT_UNSEEN_HISTORY is there only when true: the registration is
// rewritten for every launch, so no earlier value lingers.
func sidecarEnv(req LaunchRequest, unseen bool) [][2]string {
	env := [][2]string{
		{envRoomURL, req.RoomURL},
		{envRoomToken, req.Token},
		{envAgentName, req.Account.CallName()},
		{envRoomID, req.Topic},
		{envAccountID, req.Account.ID},
	}
	if full := req.Account.Name; full != "" && full != req.Account.CallName() {
		env = append(env, [2]string{envAgentFullName, full})
	}
	if req.Account.Hue != nil {
		env = append(env, [2]string{envAgentHue, strconv.FormatFloat(*req.Account.Hue, 'f', -1, 64)})
	}
	if unseen {
		env = append(env, [2]string{envUnseenHistory, "1"})
	}
	return env
}

// registration is what a kind's register needs.
type registration struct {
	exe, runtimeDir, server string
	env                     [][2]string     // the sidecar's
	hook                    hook.HookTarget // where the seat's hooks report
	// argv is the launch line so far (the account's words and the
	// session manners); a kind may rewrite it (Claude's --settings).
	argv []string
	// getenv reads the child's environment; home and dir are the
	// person's home and the launch's working directory.
	getenv    func(string) string
	home, dir string
	// capability: the launch has an operation capability in its env
	// (EnvOperationCapability), to be forwarded where the CLI does not
	// pass its env on.
	capability bool
}

// registered is how a launch carries the registration.
type registered struct {
	argv    []string    // the whole launch line
	env     [][2]string // added to the child's env
	mcpFile string      // the MCP registration file, "" for none
	files   []string    // every file written for the launch
}

func (k Kind) register(r registration) (registered, error) {
	if f := k.def().register; f != nil {
		return f(r)
	}
	return registered{}, fmt.Errorf("kind %q: %w", k, ErrNotLaunchable)
}

// MCPConfig is the JSON of a registration file: {"mcpServers": {NAME:
// {"type": "stdio", "command", "args", "env"}}}, the form of `claude
// --mcp-config` and of most MCP clients.
type MCPConfig struct {
	MCPServers map[string]MCPServerEntry `json:"mcpServers"`
}

// MCPServerEntry is one stdio server in an MCPConfig.
type MCPServerEntry struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
	// AlwaysLoad keeps the server's tools in Claude's prompt (not
	// deferred behind ToolSearch).
	AlwaysLoad bool `json:"alwaysLoad,omitempty"`
}

// writeMCPConfig writes the MCP registration file (writeRuntimeFile). Claude
// Code 2.1.332 defers MCP tools behind its ToolSearch tool (one more model
// round trip for every answer to the room) unless the server entry asks for
// them to load: alwaysLoad, which 2.1.197 accepts and ignores.
func writeMCPConfig(r registration, alwaysLoad bool) (path string, err error) {
	env := make(map[string]string, len(r.env))
	for _, kv := range r.env {
		env[kv[0]] = kv[1]
	}
	cfg := MCPConfig{MCPServers: map[string]MCPServerEntry{
		r.server: {Type: "stdio", Command: r.exe, Args: []string{SidecarCommand}, Env: env, AlwaysLoad: alwaysLoad},
	}}
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return "", err
	}
	return writeRuntimeFile(r.runtimeDir, "mcp-*.json", data)
}

// writeRuntimeFile writes a per-launch file: mode 0600 from its creation, a
// name no other launch has, in the runtime folder (created 0700).
func writeRuntimeFile(dir, pattern string, data []byte) (path string, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("runtime folder: %w", err)
	}
	f, err := os.CreateTemp(dir, pattern) // created 0600
	if err != nil {
		return "", fmt.Errorf("per-launch file: %w", err)
	}
	path = f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(path)
		}
	}()
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return "", fmt.Errorf("per-launch file: %w", err)
	}
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		return "", fmt.Errorf("per-launch file: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("per-launch file: %w", err)
	}
	return path, nil
}

// codexRegistration is Codex's flags and the env that carries the token.
func codexRegistration(r registration) (args []string, env [][2]string) {
	key := "mcp_servers." + r.server + "."
	var inline []string
	var forwarded []string
	for _, kv := range r.env {
		if kv[0] == envRoomToken {
			forwarded = append(forwarded, tomlString(kv[0]))
			env = append(env, kv)
			continue
		}
		inline = append(inline, tomlString(kv[0])+" = "+tomlString(kv[1]))
	}
	if r.capability {
		// The operation capability is in Codex's own environment
		// (Resolve): forwarded by name, its value never in argv.
		forwarded = append(forwarded, tomlString(EnvOperationCapability))
	}
	args = []string{"--disable", "daemon_auto_start", "--no-daemon",
		"-c", key + "command=" + tomlString(r.exe),
		"-c", key + "args=[" + tomlString(SidecarCommand) + "]",
		"-c", key + "env={ " + strings.Join(inline, ", ") + " }",
		"-c", key + "env_vars=[" + strings.Join(forwarded, ", ") + "]",
		"-c", key + `default_tools_approval_mode="approve"`,
		"-c", key + "required=true",
	}
	return args, env
}

// tomlString quotes s as a TOML basic string. JSON's escapes are valid TOML
// (\", \\, \n, \uXXXX ...); HTML characters are left as they are.
func tomlString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	// TOML also forbids a raw DEL, which JSON leaves as it is.
	return strings.ReplaceAll(strings.TrimSuffix(b.String(), "\n"), "\x7f", `\u007f`)
}

package seat

// A cli account's manners: any CLI. The account gives its own command and
// resume line; {session_id} in the command makes the app mint an id;
// {mcp_config} (and PULLCEPT_MCP_CONFIG in its env) name the per-launch MCP
// registration file. Its record is trusted as a conversation (no storage is
// known), and a resume that fails is caught when the session ends without
// reaching the room (ShouldDropOnExit). It reports its activity, if it has
// command hooks, with `pullcept hook EVENT` (docs/hooks.md), which reads the
// PULLCEPT_HOOK_* variables of its environment.

import (
	"slices"
	"strings"
)

var cliKind = kindDef{
	launchable: true,
	mintsID:    func(acc Account) bool { return strings.Contains(acc.CommandLine(), SessionIDPlaceholder) },
	conversationExists: func(string, string, string) bool {
		return true
	},
	register: func(r registration) (registered, error) {
		file, err := writeMCPConfig(r, false)
		if err != nil {
			return registered{}, err
		}
		argv := slices.Clone(r.argv)
		for i := range argv {
			argv[i] = strings.ReplaceAll(argv[i], MCPConfigPlaceholder, file)
		}
		env := append([][2]string{{EnvMCPConfig, file}, {EnvHookBin, r.exe}}, hookEnv(r.hook)...)
		return registered{argv: argv, env: env, mcpFile: file, files: []string{file}}, nil
	},
}

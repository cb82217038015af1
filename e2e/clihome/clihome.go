// Package clihome prepares throwaway HOME directories in which the real
// `claude` and `codex` CLIs run offline against e2e/fakemodel without any
// first-run screen, and finds the CLIs that .ci/install-clis.sh puts in
// .cache/npm (the oldest supported Claude Code) and .cache/npm-latest (the
// newest, which the e2e scenarios run).
package clihome

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// DefaultAPIKey is the fake Anthropic key; any key starting with sk- works.
const DefaultAPIKey = "sk-test-pullcept-fake-key-0000000000"

// Options says what to seed.
type Options struct {
	// BaseURL is the fake model server, e.g. http://127.0.0.1:PORT (no /v1).
	BaseURL string
	// Cwd is the absolute directory the CLIs will run in; it is marked
	// trusted for both. Empty: no trust entry.
	Cwd string
	// MCPServers are the MCP server names Claude may call without asking
	// (settings permissions allow "mcp__<name>").
	MCPServers []string
	// CodexMCP are MCP servers written into Codex's config.toml. (Codex can
	// also get them as -c flags, see MCPServer.CodexFlags.)
	CodexMCP []MCPServer
	// APIKey defaults to DefaultAPIKey.
	APIKey string
}

func (o Options) key() string {
	if o.APIKey == "" {
		return DefaultAPIKey
	}
	return o.APIKey
}

// Home is a seeded throwaway HOME.
type Home struct {
	Dir string
	// Env is the whole environment for the CLIs: PATH and locale from this
	// process, nothing else of it, plus the variables of Env().
	Env []string
}

// New seeds a HOME in a fresh temp dir for both CLIs.
func New(tb testing.TB, o Options) Home {
	tb.Helper()
	dir := tb.TempDir()
	if err := SeedClaude(dir, o); err != nil {
		tb.Fatal(err)
	}
	if err := SeedCodex(dir, o); err != nil {
		tb.Fatal(err)
	}
	return Home{Dir: dir, Env: Env(dir, o)}
}

// Env returns a clean environment for running the CLIs with HOME=home: PATH,
// TMPDIR and locale variables are taken from this process, everything else
// (real API keys, a surrounding Claude/Codex session) is left out.
func Env(home string, o Options) []string {
	env := []string{
		"HOME=" + home,
		"CODEX_HOME=" + filepath.Join(home, ".codex"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"ANTHROPIC_API_KEY=" + o.key(),
		"ANTHROPIC_BASE_URL=" + o.BaseURL,
		"FAKE_API_KEY=" + o.key(),
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"IS_SANDBOX=1", // lets root use --dangerously-skip-permissions
	}
	for _, k := range []string{"PATH", "TMPDIR", "LANG", "LC_ALL", "LC_CTYPE", "USER", "LOGNAME", "SHELL"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// SeedClaude writes ~/.claude.json and ~/.claude/settings.json so that the
// interactive Claude Code TUI starts straight at its prompt: onboarding done,
// the API key approved, o.Cwd trusted, o.MCPServers' tools allowed, no
// auto-update.
func SeedClaude(home string, o Options) error {
	key := o.key()
	if len(key) > 20 {
		key = key[len(key)-20:]
	}
	projects := map[string]any{}
	if o.Cwd != "" {
		projects[o.Cwd] = map[string]any{"hasTrustDialogAccepted": true}
	}
	state := map[string]any{
		"hasCompletedOnboarding": true,
		"customApiKeyResponses":  map[string]any{"approved": []string{key}, "rejected": []string{}},
		"projects":               projects,
	}
	allow := []string{}
	for _, s := range o.MCPServers {
		allow = append(allow, "mcp__"+s)
	}
	settings := map[string]any{
		"permissions": map[string]any{"allow": allow},
		"autoUpdates": false,
	}
	if err := writeJSON(filepath.Join(home, ".claude.json"), state); err != nil {
		return err
	}
	return writeJSON(filepath.Join(home, ".claude", "settings.json"), settings)
}

// SeedCodex writes ~/.codex/config.toml: the fake model provider pointing at
// o.BaseURL+"/v1" (key from FAKE_API_KEY, no retries), o.Cwd trusted and
// o.CodexMCP servers.
func SeedCodex(home string, o Options) error {
	var b strings.Builder
	fmt.Fprintf(&b, "model = %s\nmodel_provider = \"fake\"\n", q("fake-model"))
	fmt.Fprintf(&b, "check_for_update_on_startup = false\n\n")
	fmt.Fprintf(&b, "[model_providers.fake]\nname = \"fake\"\nbase_url = %s\n", q(o.BaseURL+"/v1"))
	b.WriteString("wire_api = \"responses\"\nenv_key = \"FAKE_API_KEY\"\nrequest_max_retries = 0\nstream_max_retries = 0\n\n")
	for _, s := range o.CodexMCP {
		fmt.Fprintf(&b, "[mcp_servers.%s]\n", q(s.Name))
		for _, kv := range s.codexKeys() {
			fmt.Fprintf(&b, "%s = %s\n", kv[0], kv[1])
		}
		b.WriteString("\n")
	}
	if o.Cwd != "" {
		fmt.Fprintf(&b, "[projects.%s]\ntrust_level = \"trusted\"\n", q(o.Cwd))
	}
	dir := filepath.Join(home, ".codex")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "config.toml"), []byte(b.String()), 0o644)
}

// MCPServer is a stdio MCP server to hand to a CLI.
type MCPServer struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string // Codex does not pass its own env on: put what the server needs here
}

// ClaudeConfig is the JSON for `claude --mcp-config FILE`.
func ClaudeConfig(servers ...MCPServer) []byte {
	m := map[string]any{}
	for _, s := range servers {
		// alwaysLoad: 2.1.332 would defer the tools behind ToolSearch (as
		// the seat's registration, seat/register.go; 2.1.197 ignores it).
		e := map[string]any{"type": "stdio", "command": s.Command, "args": nonNil(s.Args), "alwaysLoad": true}
		if len(s.Env) > 0 {
			e["env"] = s.Env
		}
		m[s.Name] = e
	}
	b, _ := json.MarshalIndent(map[string]any{"mcpServers": m}, "", "  ")
	return b
}

// WriteClaudeConfig writes ClaudeConfig(servers...) to path.
func WriteClaudeConfig(path string, servers ...MCPServer) error {
	return os.WriteFile(path, ClaudeConfig(servers...), 0o644)
}

// CodexFlags are the `-c mcp_servers.<name>.<key>=<toml>` flags that give
// Codex this server, tools approved and the server required (else a slow
// server is silently dropped).
func (s MCPServer) CodexFlags() []string {
	var out []string
	for _, kv := range s.codexKeys() {
		out = append(out, "-c", fmt.Sprintf("mcp_servers.%s.%s=%s", s.Name, kv[0], kv[1]))
	}
	return out
}

func (s MCPServer) codexKeys() [][2]string {
	args := make([]string, len(s.Args))
	for i, a := range s.Args {
		args[i] = q(a)
	}
	keys := make([]string, 0, len(s.Env))
	for k := range s.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	env := make([]string, len(keys))
	for i, k := range keys {
		env[i] = q(k) + " = " + q(s.Env[k])
	}
	return [][2]string{
		{"command", q(s.Command)},
		{"args", "[" + strings.Join(args, ", ") + "]"},
		{"env", "{ " + strings.Join(env, ", ") + " }"},
		{"default_tools_approval_mode", q("approve")},
		{"required", "true"},
	}
}

// q quotes s as a TOML basic string (JSON's escapes are valid TOML).
func q(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func writeJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// Bins are the installed CLIs.
type Bins struct {
	Dir    string // .cache/npm/node_modules/.bin
	Claude string
	Codex  string
}

// BinDirEnv overrides where the CLIs are looked for.
const BinDirEnv = "PULLCEPT_CLI_BIN"

// LatestBinDirEnv overrides where the newest CLIs are looked for.
const LatestBinDirEnv = "PULLCEPT_LATEST_CLI_BIN_DIR"

// FindBins locates the CLIs installed by .ci/install-clis.sh: $PULLCEPT_CLI_BIN
// if set, else <repo root>/.cache/npm/node_modules/.bin, the repo root being
// the nearest parent of the working directory holding go.mod.
func FindBins() (Bins, error) { return findBins(BinDirEnv, "npm") }

// FindLatestBins is FindBins for the newest CLIs that .ci/install-clis.sh
// puts in .cache/npm-latest ($PULLCEPT_LATEST_CLI_BIN_DIR if set).
func FindLatestBins() (Bins, error) { return findBins(LatestBinDirEnv, "npm-latest") }

// findBins looks in $env if set, else in <repo root>/.cache/<prefix>/node_modules/.bin.
func findBins(env, prefix string) (Bins, error) {
	dir := os.Getenv(env)
	if dir == "" {
		root, err := RepoRoot()
		if err != nil {
			return Bins{}, err
		}
		dir = filepath.Join(root, ".cache", prefix, "node_modules", ".bin")
	}
	b := Bins{Dir: dir, Claude: filepath.Join(dir, "claude"), Codex: filepath.Join(dir, "codex")}
	for _, p := range []string{b.Claude, b.Codex} {
		if _, err := os.Stat(p); err != nil {
			return b, fmt.Errorf("clihome: %s missing (run `bash .ci/install-clis.sh`): %w", p, err)
		}
	}
	if _, err := exec.LookPath("node"); err != nil {
		return b, fmt.Errorf("clihome: node not on PATH (codex's launcher is a node script): %w", err)
	}
	return b, nil
}

// RequireBins is FindBins, skipping the test when the CLIs are absent —
// unless PULLCEPT_REQUIRE_CLIS is set (CI), where absence fails the test.
func RequireBins(tb testing.TB) Bins {
	tb.Helper()
	return require(tb, FindBins)
}

// RequireLatestBins is RequireBins for the newest CLIs (FindLatestBins).
func RequireLatestBins(tb testing.TB) Bins {
	tb.Helper()
	return require(tb, FindLatestBins)
}

func require(tb testing.TB, find func() (Bins, error)) Bins {
	tb.Helper()
	b, err := find()
	if err != nil {
		if os.Getenv("PULLCEPT_REQUIRE_CLIS") != "" {
			tb.Fatalf("real CLIs required (PULLCEPT_REQUIRE_CLIS) but not installed: %v", err)
		}
		tb.Skipf("real CLIs not installed, skipping: %v", err)
	}
	return b
}

// RepoRoot is the nearest parent of the working directory that holds go.mod.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("clihome: no go.mod above the working directory")
		}
		dir = parent
	}
}

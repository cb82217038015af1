package clihome

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSeedClaude(t *testing.T) {
	home := t.TempDir()
	o := Options{BaseURL: "http://127.0.0.1:1", Cwd: "/w/proj", MCPServers: []string{"room"}}
	if err := SeedClaude(home, o); err != nil {
		t.Fatal(err)
	}
	var state struct {
		HasCompletedOnboarding bool `json:"hasCompletedOnboarding"`
		CustomAPIKeyResponses  struct {
			Approved []string `json:"approved"`
		} `json:"customApiKeyResponses"`
		Projects map[string]struct {
			HasTrustDialogAccepted bool `json:"hasTrustDialogAccepted"`
		} `json:"projects"`
	}
	readJSON(t, filepath.Join(home, ".claude.json"), &state)
	if !state.HasCompletedOnboarding || !state.Projects["/w/proj"].HasTrustDialogAccepted {
		t.Errorf("state = %+v", state)
	}
	if a := state.CustomAPIKeyResponses.Approved; len(a) != 1 || len(a[0]) != 20 || !strings.HasSuffix(DefaultAPIKey, a[0]) {
		t.Errorf("approved = %q, want the key's last 20 characters", a)
	}
	var settings struct {
		Permissions struct {
			Allow []string `json:"allow"`
		} `json:"permissions"`
		AutoUpdates *bool `json:"autoUpdates"`
	}
	readJSON(t, filepath.Join(home, ".claude", "settings.json"), &settings)
	if !slices.Equal(settings.Permissions.Allow, []string{"mcp__room"}) || settings.AutoUpdates == nil || *settings.AutoUpdates {
		t.Errorf("settings = %+v", settings)
	}
}

func TestSeedCodexAndFlags(t *testing.T) {
	home := t.TempDir()
	room := MCPServer{Name: "room", Command: "/bin/x", Args: []string{"sidecar"}, Env: map[string]string{"B": "2", "A": `q"1`}}
	if err := SeedCodex(home, Options{BaseURL: "http://127.0.0.1:9", Cwd: "/w/proj", CodexMCP: []MCPServer{room}}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(home, ".codex", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`base_url = "http://127.0.0.1:9/v1"`, `wire_api = "responses"`, `env_key = "FAKE_API_KEY"`,
		`[mcp_servers."room"]`, `args = ["sidecar"]`, `env = { "A" = "q\"1", "B" = "2" }`,
		`default_tools_approval_mode = "approve"`, `required = true`,
		`[projects."/w/proj"]`, `trust_level = "trusted"`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("config.toml lacks %s:\n%s", want, b)
		}
	}
	flags := strings.Join(room.CodexFlags(), " ")
	if !strings.Contains(flags, `-c mcp_servers.room.command="/bin/x"`) || !strings.Contains(flags, `-c mcp_servers.room.required=true`) {
		t.Errorf("flags = %s", flags)
	}
}

func TestClaudeConfigAndEnv(t *testing.T) {
	var cfg struct {
		MCPServers map[string]struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(ClaudeConfig(MCPServer{Name: "room", Command: "/bin/x", Env: map[string]string{"K": "v"}}), &cfg); err != nil {
		t.Fatal(err)
	}
	if s := cfg.MCPServers["room"]; s.Command != "/bin/x" || s.Args == nil || s.Env["K"] != "v" {
		t.Errorf("mcp config = %+v", cfg)
	}

	t.Setenv("ANTHROPIC_AUTH_TOKEN", "real-secret")
	env := Env("/h", Options{BaseURL: "http://127.0.0.1:5"})
	for _, want := range []string{"HOME=/h", "ANTHROPIC_BASE_URL=http://127.0.0.1:5", "ANTHROPIC_API_KEY=" + DefaultAPIKey,
		"FAKE_API_KEY=" + DefaultAPIKey, "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "IS_SANDBOX=1"} {
		if !slices.Contains(env, want) {
			t.Errorf("env lacks %s: %q", want, env)
		}
	}
	for _, kv := range env {
		if strings.HasPrefix(kv, "ANTHROPIC_AUTH_TOKEN=") {
			t.Errorf("env leaks the caller's %s", kv)
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

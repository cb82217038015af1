package tui

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"pullcept/app"
	"pullcept/attach"
)

// mcpBackend is the test run with local MCP servers: a list, a log, and a
// record of the operations asked for.
type mcpFake struct {
	*testBackend
	servers []app.MCPServer
	calls   []string
	created []app.MCPForm
}

func (b *mcpFake) MCPServers() []app.MCPServer { return b.servers }
func (b *mcpFake) MCPLog(name string) []app.MCPLogLine {
	return []app.MCPLogLine{{At: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC), Text: "[github-webhook-mcp] WebSocket: connected"},
		{At: time.Date(2026, 5, 1, 12, 1, 0, 0, time.UTC), App: true, Text: "ended: exit 1"}}
}
func (b *mcpFake) MCPConfigFile() string { return "/cfg/mcp-servers.json" }
func (b *mcpFake) RestartMCPServer(name string) (bool, error) {
	b.calls = append(b.calls, "restart "+name)
	for _, s := range b.servers {
		if s.Name == name {
			return !s.InFile, nil
		}
	}
	return false, nil
}
func (b *mcpFake) ReloadMCPServers() string { b.calls = append(b.calls, "reload"); return "" }
func (b *mcpFake) MCPFormText(f app.MCPForm) string {
	return app.MCPFormTextFor(f, "/cfg/mcp-servers.json")
}
func (b *mcpFake) CreateMCPServer(f app.MCPForm) (string, error) {
	b.created = append(b.created, f)
	return "Web-Hooks", nil
}
func (b *mcpFake) DeleteMCPServer(name string) error {
	b.calls = append(b.calls, "delete "+name)
	return nil
}

func newMCPHarness(t *testing.T) (*harness, *mcpFake) {
	seats := newFakeSeats(Account{ID: "claude", Name: "Claude", Kind: "claude_code"}, Account{ID: "mcp-hooks", Name: "Hooks", Kind: "mcp"})
	hs := newHarness(t, seats, 120, 30)
	hue := 200.0
	b := &mcpFake{testBackend: hs.m.app.(*testBackend), servers: []app.MCPServer{
		{Name: "hooks", Account: "mcp-hooks", CallName: "Hooks", Hue: &hue, State: "running", InFile: true, Differs: true},
		{Name: "gone", Account: "mcp-gone", CallName: "gone", State: "running"},
	}}
	hs.m.app = b
	hs.send(appEventMsg{app.Event{Kind: app.EventMCP}})
	return hs, b
}

// The participants have an MCP section: each server with its state and
// what the file says, the mcp accounts not listed as seats.
func TestMCPSection(t *testing.T) {
	hs, _ := newMCPHarness(t)
	scr := hs.screen()
	for _, want := range []string{"MCP", "Hooks", "file differs: R", "left file: R stops"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("no %q in the participants:\n%s", want, scr)
		}
	}
	rows := hs.m.partRows()
	var names []string
	for _, r := range rows {
		names = append(names, r.name+"/"+r.mcp)
	}
	if !slices.Equal(names, []string{"you/", "Claude/", "Hooks/hooks", "gone/gone"}) {
		t.Fatalf("rows = %q", names)
	}
	lines, owner := hs.m.partLines(30)
	if i := slices.Index(owner, 2); i < 0 || !strings.Contains(lines[i], "MCP") {
		t.Fatalf("the MCP header is not the section's first line: %q", lines)
	}
}

func TestMCPKeys(t *testing.T) {
	hs, b := newMCPHarness(t)
	var c capture
	hs.m.program = c.program
	hs.prefix('a', "a")
	hs.m.psel = 2 // Hooks
	hs.send(tea.KeyPressMsg{Code: 'R', Text: "R"})
	hs.m.psel = 3 // gone: R stops it
	hs.send(tea.KeyPressMsg{Code: 'R', Text: "R"})
	if !slices.Equal(b.calls, []string{"restart hooks", "restart gone"}) || !strings.Contains(hs.m.status, "stopped") {
		t.Fatalf("calls %q, status %q", b.calls, hs.m.status)
	}
	if slices.Contains(hs.seats.calls, "restart mcp-hooks") {
		t.Fatal("an MCP server was restarted as a seat")
	}
	// D asks first, then deletes.
	hs.m.psel = 2
	hs.send(tea.KeyPressMsg{Code: 'D', Text: "D"})
	if hs.m.dlg == nil || hs.m.dlg.mcp != "hooks" || !strings.Contains(strings.Join(hs.m.dlg.lines, "\n"), "/cfg/mcp-servers.json") {
		t.Fatalf("dialog %+v", hs.m.dlg)
	}
	hs.send(tea.KeyPressMsg{Code: 'y', Text: "y"})
	if b.calls[len(b.calls)-1] != "delete hooks" {
		t.Fatalf("calls %q", b.calls)
	}
	// L shows the log in the pager; E edits the file, then it is read.
	hs.send(tea.KeyPressMsg{Code: 'L', Text: "L"})
	if len(c.argv) != 1 || c.argv[0][0] != attach.RolePager {
		t.Fatalf("ran %q", c.argv)
	}
	logFile := c.argv[0][len(c.argv[0])-1]
	data, _ := os.ReadFile(logFile)
	if !strings.Contains(string(data), "12:00:00.000 stderr   [github-webhook-mcp] WebSocket: connected") || !strings.Contains(string(data), "pullcept ended: exit 1") {
		t.Fatalf("log file:\n%s", data)
	}
	hs.send(mcpDoneMsg{what: "log", path: logFile})
	if _, err := os.Stat(logFile); !os.IsNotExist(err) {
		t.Fatal("the log's temporary file stays")
	}
	hs.send(tea.KeyPressMsg{Code: 'E', Text: "E"})
	if len(c.argv) != 2 || !slices.Equal(c.argv[1], []string{attach.RoleEditor, "/cfg/mcp-servers.json"}) {
		t.Fatalf("ran %q", c.argv)
	}
	hs.send(mcpDoneMsg{what: "config"})
	if b.calls[len(b.calls)-1] != "reload" || !strings.Contains(hs.m.status, "2 server(s)") {
		t.Fatalf("calls %q status %q", b.calls, hs.m.status)
	}
}

// + edits a new server's fields; a refused text keeps it for the next +,
// a good one creates the server.
func TestMCPCreate(t *testing.T) {
	hs, b := newMCPHarness(t)
	var c capture
	hs.m.program = c.program
	hs.prefix('a', "a")
	hs.send(tea.KeyPressMsg{Code: '+', Text: "+"})
	path := c.argv[0][len(c.argv[0])-1]
	text, _ := os.ReadFile(path)
	bad := strings.Replace(string(text), "name = \n", "name = Web Hooks\n", 1)
	bad = strings.Replace(bad, "command = \n", "command = node\n", 1)
	bad = strings.Replace(bad, "[env]\n", "[env]\nNO_EQUALS\n", 1)
	os.WriteFile(path, []byte(bad), 0o600)
	hs.send(mcpDoneMsg{what: "new", path: path})
	if len(b.created) != 0 || !strings.Contains(hs.m.status, "env: no =") || !strings.Contains(hs.m.status, "line ") {
		t.Fatalf("created %v, status %q", b.created, hs.m.status)
	}
	hs.send(tea.KeyPressMsg{Code: '+', Text: "+"})
	path = c.argv[1][len(c.argv[1])-1]
	if again, _ := os.ReadFile(path); string(again) != bad {
		t.Fatal("the refused text was not given back")
	}
	os.WriteFile(path, []byte(strings.Replace(bad, "NO_EQUALS", "URL=https://w", 1)), 0o600)
	hs.send(mcpDoneMsg{what: "new", path: path})
	if len(b.created) != 1 || b.created[0].Name != "Web Hooks" || b.created[0].Command != "node" || b.created[0].Env["URL"] != "https://w" {
		t.Fatalf("created %+v (status %q)", b.created, hs.m.status)
	}
}

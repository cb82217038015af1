package tui

// The MCP section of the participants (spec 003 "ローカル MCP サーバ"): one
// row a local MCP server of mcp-servers.json with its state, and the
// operations of a terminal user's "server" pane — restart (a stop when the
// entry left the file), the log in $PAGER, mcp-servers.json in $EDITOR,
// a new server (its fields edited in $EDITOR, like `git commit`), delete.
// Programs run on the person's terminal through Options.Program, as ctrl+g
// does. The reading of the fields is the app's (mcpserv): the screen
// shows the text and hands back what was typed.

import (
	"errors"
	"fmt"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"

	"pullcept/app"
	"pullcept/attach"
)

// MCPBackend is what the MCP section needs of the run (*app.App); a
// Backend without it shows no section.
type MCPBackend interface {
	MCPServers() []app.MCPServer
	MCPLog(name string) []app.MCPLogLine
	MCPConfigFile() string
	RestartMCPServer(name string) (stopped bool, err error)
	ReloadMCPServers() string
	MCPFormText(f app.MCPForm) string
	CreateMCPServer(f app.MCPForm) (string, error)
	DeleteMCPServer(name string) error
}

func (m *model) mcpBackend() (MCPBackend, bool) {
	b, ok := m.app.(MCPBackend)
	return b, ok
}

// refreshMCP reads the servers again (on EventMCP, a resync, start).
func (m *model) refreshMCP() {
	if b, ok := m.mcpBackend(); ok {
		m.mcpServers = b.MCPServers()
	}
}

// mcpRows are the participants' rows of the MCP section.
func (m *model) mcpRows() []partRow {
	var rows []partRow
	for _, s := range m.mcpServers {
		var hue *int
		if s.Hue != nil {
			h := int(*s.Hue + 0.5)
			hue = &h
		}
		row := partRow{name: s.CallName, account: s.Account, kind: "mcp", state: s.State, hue: hue, mcp: s.Name}
		switch {
		case !s.InFile && (s.State == "running" || s.State == "starting"):
			row.notes = []string{"left file: R stops"}
		case !s.InFile:
			row.notes = []string{"left the file"}
		case s.Differs:
			row.notes = []string{"file differs: R"}
		}
		if (s.State == "ended" || s.State == "failed") && s.Reason != "" {
			row.notes = append(row.notes, s.Reason)
		}
		rows = append(rows, row)
	}
	return rows
}

// selectedMCP is the server of the selected participant row ("" for none).
func (m *model) selectedMCP() (app.MCPServer, bool) {
	rows := m.partRows()
	if m.psel < 0 || m.psel >= len(rows) || rows[m.psel].mcp == "" {
		return app.MCPServer{}, false
	}
	for _, s := range m.mcpServers {
		if s.Name == rows[m.psel].mcp {
			return s, true
		}
	}
	return app.MCPServer{}, false
}

// mcpKey runs a participants key on an MCP row (ok false: not one).
func (m *model) mcpKey(act action) (tea.Cmd, bool) {
	switch act {
	case actMCPNew:
		return m.newMCP(), true
	case actMCPConfig:
		return m.editMCPConfig(), true
	}
	s, ok := m.selectedMCP()
	if !ok {
		switch act {
		case actMCPLog, actMCPDelete:
			m.status = "select a server in the MCP section of the participants first"
			return nil, true
		}
		return nil, false
	}
	b, _ := m.mcpBackend()
	switch act {
	case actStartSeat, actRestartSeat:
		verb := "restarting"
		if !s.InFile {
			verb = "stopping"
		}
		m.status = verb + " " + s.CallName
		return func() tea.Msg {
			stopped, err := b.RestartMCPServer(s.Name)
			switch {
			case err != nil:
				return noteMsg{err: fmt.Errorf("%s %s: %w", verb, s.CallName, err)}
			case stopped:
				return noteMsg{note: s.CallName + " stopped: it is no longer in " + b.MCPConfigFile()}
			}
			return noteMsg{note: s.CallName + " restarted from " + b.MCPConfigFile()}
		}, true
	case actStopSeat:
		m.status = "a server of the file runs until it is restarted (R) or deleted (D)"
		return nil, true
	case actMCPLog:
		return m.showMCPLog(s), true
	case actMCPDelete:
		lines := []string{fmt.Sprintf("Delete the MCP server “%s”?", s.CallName)}
		if s.InFile {
			lines = append(lines, "Its entry "+s.Name+" is removed from "+b.MCPConfigFile()+" (nothing else of the file changes).")
		}
		if s.State == "running" || s.State == "starting" {
			lines = append(lines, "The running server is stopped.")
		}
		lines = append(lines, "Its account "+s.Account+" is removed from config.json.", "", "[y] delete    [n] cancel")
		m.dlg = &dialog{mcp: s.Name, lines: lines}
		return nil, true
	case actNickname, actReleaseSeat:
		if act == actReleaseSeat {
			m.status = "an MCP server holds no posts"
			return nil, true
		}
	}
	return nil, false
}

// deleteMCP runs the deletion: entry, server, account.
func (m *model) deleteMCP(name string) tea.Cmd {
	b, _ := m.mcpBackend()
	m.status = "deleting the MCP server " + name
	return func() tea.Msg {
		if err := b.DeleteMCPServer(name); err != nil {
			return noteMsg{err: fmt.Errorf("delete %s: %w", name, err)}
		}
		return noteMsg{note: "deleted the MCP server " + name, list: true}
	}
}

// mcpDoneMsg ends a program run for the MCP section.
type mcpDoneMsg struct {
	what string // log, config, new
	path string
	err  error
}

func (m *model) showMCPLog(s app.MCPServer) tea.Cmd {
	b, _ := m.mcpBackend()
	var out strings.Builder
	fmt.Fprintf(&out, "%s (%s) — %s\n", s.CallName, s.Name, s.State)
	for _, l := range b.MCPLog(s.Name) {
		who := "stderr"
		if l.App {
			who = "pullcept"
		}
		fmt.Fprintf(&out, "%s %-8s %s\n", l.At.In(m.loc).Format("2006-01-02 15:04:05.000"), who, l.Text)
	}
	path, err := tempText("pullcept-mcp-log-*.txt", out.String())
	if err != nil {
		m.status = "log: " + err.Error()
		return nil
	}
	return m.onTerminal(attach.RolePager, []string{path}, func(err error) tea.Msg {
		return mcpDoneMsg{what: "log", path: path, err: err}
	})
}

func (m *model) editMCPConfig() tea.Cmd {
	b, ok := m.mcpBackend()
	if !ok {
		m.status = "this screen runs no MCP servers"
		return nil
	}
	path := b.MCPConfigFile()
	return m.onTerminal(attach.RoleEditor, []string{path}, func(err error) tea.Msg {
		return mcpDoneMsg{what: "config", err: err}
	})
}

func (m *model) newMCP() tea.Cmd {
	b, ok := m.mcpBackend()
	if !ok {
		m.status = "this screen runs no MCP servers"
		return nil
	}
	text := m.mcpDraft
	if text == "" {
		text = b.MCPFormText(app.MCPForm{})
	}
	path, err := tempText("pullcept-mcp-new-*.txt", text)
	if err != nil {
		m.status = "new MCP server: " + err.Error()
		return nil
	}
	return m.onTerminal(attach.RoleEditor, []string{path}, func(err error) tea.Msg {
		return mcpDoneMsg{what: "new", path: path, err: err}
	})
}

// tempText writes text to a new private temp file.
func tempText(pattern, text string) (string, error) {
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// mcpDone takes a program's end.
func (m *model) mcpDone(msg mcpDoneMsg) tea.Cmd {
	if msg.path != "" {
		defer os.Remove(msg.path)
	}
	b, _ := m.mcpBackend()
	switch msg.what {
	case "log":
		if msg.err != nil {
			m.status = fmt.Sprintf("the pager failed: %v", msg.err)
		}
		return nil
	case "config":
		if msg.err != nil {
			m.status = fmt.Sprintf("the editor failed: %v", msg.err)
			return nil
		}
		n := b.ReloadMCPServers()
		m.refreshMCP()
		differ := 0
		for _, s := range m.mcpServers {
			if s.Differs || (!s.InFile && (s.State == "running" || s.State == "starting")) {
				differ++
			}
		}
		switch {
		case n != "":
			m.status = "mcp-servers.json: " + n
		case differ > 0:
			m.status = fmt.Sprintf("mcp-servers.json read: %d server(s) run from what the file no longer says; R on one applies the file", differ)
		default:
			m.status = "mcp-servers.json read: the servers run what it says (a new entry starts with R on its row)"
		}
		return nil
	}
	// new
	if msg.err != nil {
		m.status = fmt.Sprintf("the editor failed (%v): nothing was created", msg.err)
		return nil
	}
	data, err := os.ReadFile(msg.path)
	if err != nil {
		m.status = "new MCP server: " + err.Error()
		return nil
	}
	form, errs := app.ParseMCPForm(string(data))
	if strings.TrimSpace(form.Name) == "" && len(errs) == 0 {
		m.mcpDraft = ""
		m.status = "no name: no MCP server was created"
		return nil
	}
	if strings.TrimSpace(form.Name) == "" {
		errs = append(errs, errors.New("name: empty"))
	}
	if len(errs) > 0 {
		m.mcpDraft = string(data)
		var msgs []string
		for _, e := range errs {
			msgs = append(msgs, e.Error())
		}
		m.status = "not created (" + strings.Join(msgs, "; ") + "); + again edits it"
		return nil
	}
	m.mcpDraft = ""
	m.status = "creating the MCP server " + form.Name
	return func() tea.Msg {
		name, err := b.CreateMCPServer(form)
		if err != nil {
			return noteMsg{err: fmt.Errorf("new MCP server: %w", err)}
		}
		return noteMsg{note: fmt.Sprintf("created the MCP server %s (entry %s)", form.Name, name), list: true}
	}
}

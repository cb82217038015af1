package tui

// Confirmation dialogs, quitting and detaching.

import (
	"fmt"

	tea "charm.land/bubbletea/v2"
)

// dialog is the delete confirmation.
type dialog struct {
	topic string
	lines []string
	// reopen: the dialog asks to bring the topic's sessions back; quit:
	// to quit while sessions run (else it asks to delete the topic).
	reopen, quit bool
	// mcp: it asks to delete this local MCP server (mcp.go).
	mcp string
	// seat: it asks to stop or restart this seat (seatOp).
	seat *seatAsk
	// title is the box's title when the kind's own does not fit.
	title string
	// release: it asks to clear a seat's unsent keys and type its held
	// posts (releaseSeat).
	release *releaseAskMsg
}

// seatAsk is a seat action waiting for the person's y.
type seatAsk struct {
	act                  action
	topic, account, name string
}

// askQuit quits at once when no session runs and no other terminal is
// attached; else it asks first, since quitting stops every running session
// and the server, and offers to detach instead.
func (m *model) askQuit() tea.Cmd {
	n, topics := 0, 0
	for _, c := range m.running {
		if c > 0 {
			n += c
			topics++
		}
	}
	others := 0
	if m.clients != nil {
		others = m.clients()
	}
	if n == 0 && others == 0 {
		return tea.Quit
	}
	var lines []string
	if n > 0 {
		lines = append(lines, fmt.Sprintf("Quitting stops %d running session(s) in %d topic(s).", n, topics),
			"Topics whose sessions can resume bring them back when opened again.")
	}
	if others > 0 {
		lines = append(lines, fmt.Sprintf("Quitting also ends the %d other attached client(s) (pullcept ls lists them).", others))
	}
	if m.server {
		lines = append(lines, "Detaching leaves everything running; pullcept attaches again.",
			"", "[y] quit    [d] detach    [n] cancel")
	} else {
		lines = append(lines, "", "[y] quit    [n] cancel")
	}
	m.dlg = &dialog{quit: true, lines: lines}
	return nil
}

// detach ends this screen and leaves the sessions running (prefix d).
func (m *model) detach() tea.Cmd {
	if !m.server {
		m.status = "detach needs the pullcept server; this screen runs without one"
		return nil
	}
	m.detached = true
	return tea.Quit
}

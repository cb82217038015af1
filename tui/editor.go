package tui

// ctrl+g in the input line: the person's editor on the text, on the
// person's terminal (a program run through Options.Program, which the
// server runs on the attached client), like Claude Code's ctrl+g.

import (
	"fmt"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"

	"pullcept/attach"
)

// editedMsg brings the edited file back.
type editedMsg struct {
	path string
	err  error
}

// onTerminal runs the person's program of role (attach.RoleEditor, ...) on
// paths on the person's terminal, then done's message. The client
// resolves the role from its own environment ($EDITOR, $PAGER, ...): the
// screen names no program (docs/protocol.md, Exec).
func (m *model) onTerminal(role string, paths []string, done tea.ExecCallback) tea.Cmd {
	x := attach.Exec{Role: role, Paths: paths}
	if m.program != nil {
		return tea.Exec(m.program(x), done)
	}
	cmd, err := x.Command()
	if err != nil {
		return func() tea.Msg { return done(err) }
	}
	return tea.ExecProcess(cmd, done)
}

func (m *model) editInput() tea.Cmd {
	f, err := os.CreateTemp("", "pullcept-post-*.md")
	if err != nil {
		m.status = "editor: " + err.Error()
		return nil
	}
	_, err = f.WriteString(m.input.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		m.status = "editor: " + err.Error()
		return nil
	}
	path := f.Name()
	m.draftFile = path
	return m.onTerminal(attach.RoleEditor, []string{path}, func(err error) tea.Msg {
		return editedMsg{path: path, err: err}
	})
}

// edited puts the file's text in the input line (an editor that failed
// leaves the input as it was).
func (m *model) edited(msg editedMsg) {
	defer os.Remove(msg.path)
	if m.draftFile == msg.path {
		m.draftFile = ""
	}
	if msg.err != nil {
		m.status = fmt.Sprintf("the editor failed (%v): the input is as it was", msg.err)
		return
	}
	b, err := os.ReadFile(msg.path)
	if err != nil {
		m.status = "editor: " + err.Error()
		return
	}
	m.input = newEditor()
	m.input.Insert(strings.TrimRight(string(b), "\n"))
	m.focus = focusInput
	m.status = "edited: Enter sends"
}

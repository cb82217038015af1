package tui

// The file picker (ctrl+o in the input line): bubbles' filepicker, drawn
// over the room. Its lines are drawn without its styles and through
// wire.Visible, so a file name carrying escape sequences is shown, never
// sent to the terminal; the selected line is drawn reversed here.

import (
	"os"
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/filepicker"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"pullcept/room/wire"
)

// picker is an open file picker.
type picker struct {
	fp filepicker.Model
}

// pickerCursor marks the selected line of the picker's view.
const pickerCursor = "▶"

// openPicker opens the file picker in the folder of the last attached
// file, else where the person ran pullcept (the client's PWD), else the
// home folder.
func (m *model) openPicker() tea.Cmd {
	if m.attacher() == nil {
		m.status = "attachments: this screen cannot save files"
		return nil
	}
	dir := ""
	for _, d := range []string{m.att.pickDir, m.envVar("PWD"), m.home()} {
		if st, err := os.Stat(d); d != "" && err == nil && st.IsDir() {
			dir = d
			break
		}
	}
	fp := filepicker.New()
	fp.CurrentDirectory = dir
	fp.Cursor = pickerCursor
	fp.ShowPermissions = false
	fp.AutoHeight = false
	plain := lipgloss.NewStyle()
	fp.Styles = filepicker.Styles{
		DisabledCursor: plain, Cursor: plain, Symlink: plain, Directory: plain, File: plain,
		DisabledFile: plain, Permission: plain, Selected: plain, DisabledSelected: plain,
		FileSize:       plain.Width(7).Align(lipgloss.Right),
		EmptyDirectory: plain.SetString("  (nothing here: ← goes to the folder above)"),
	}
	fp.SetHeight(m.pickerHeight())
	m.att.picker = &picker{fp: fp}
	return fp.Init()
}

// pickerHeight is how many entries the picker shows.
func (m *model) pickerHeight() int { return max(m.lay.Body.H-4, 3) }

// pickerKey gives a key to the picker; a file chosen becomes a chip and the
// picker closes.
func (m *model) pickerKey(msg tea.KeyPressMsg) tea.Cmd {
	if act, ok := lookup(ctxPicker, msg.String(), m.prefix); ok {
		return m.do(act, ctxPicker)
	}
	return m.pickerMsg(msg)
}

// pickerMsg runs a message through the picker.
func (m *model) pickerMsg(msg tea.Msg) tea.Cmd {
	p := m.att.picker
	p.fp.SetHeight(m.pickerHeight())
	var cmd tea.Cmd
	p.fp, cmd = p.fp.Update(msg)
	if ok, path := p.fp.DidSelectFile(msg); ok {
		m.att.picker = nil
		if m.attachPath(path) {
			m.status = "attached " + wire.OneLine(filepath.Base(path)) + " (sent with the post; ctrl+x removes it)"
		}
		return nil
	}
	return cmd
}

// overlayPicker draws the picker over the body.
func (m *model) overlayPicker(rows []string) {
	p := m.att.picker
	body := m.lay.Body.H
	if body <= 0 {
		body = m.h
	}
	w := min(m.w-2, 100)
	h := max(min(body-1, p.fp.Height()+2), 3)
	head := " Attach a file — " + wire.OneLine(p.fp.CurrentDirectory) + " — Enter attaches, Esc closes"
	lines := []string{style(fit(ellipsis(head, w), w), "1", "7")}
	for _, l := range strings.Split(strings.TrimRight(p.fp.View(), "\n"), "\n") {
		if len(lines) >= h {
			break
		}
		sel := strings.HasPrefix(l, pickerCursor)
		l = fit(ellipsis(" "+wire.OneLine(l), w), w)
		if sel {
			lines = append(lines, style(l, "7"))
		} else {
			lines = append(lines, style(l, "48;5;235"))
		}
	}
	for len(lines) < h {
		lines = append(lines, style(fit("", w), "48;5;235"))
	}
	overlay(rows, Rect{X: (m.w - w) / 2, Y: min(1, max(body-h, 0)), W: w, H: h}, lines, m.w)
}

package tui

// Attachments in the input line (spec 003 "添付は保存したファイルのパスで届く",
// #223): chips above the input line — from the file picker (ctrl+o), a
// pasted or dropped path, or the clipboard's image (ctrl+v) — that nothing
// writes until the post is sent; then the app saves them under the topic
// and the body names them (app.PostWith). A post that comes back (refused
// by the floor, a failed save) brings its chips back with where they were
// saved.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"pullcept/app"
	"pullcept/room/wire"
)

// attachBackend is what attachments need of the run (*app.App has it): an
// optional part of Backend, so a Backend without it simply has no
// attachments.
type attachBackend interface {
	PostWith(topic, text, lastSeen string, atts []app.Attachment) (app.Outcome, []app.Attachment, error)
	ResolveAttachment(path string) (app.AttachmentFile, error)
	OpenAttachment(path string) (*os.File, app.AttachmentFile, error)
}

// chip is one attachment in the input line.
type chip struct {
	att  app.Attachment
	typ  string
	size int64
}

// label is what a chip shows: name · type · size (the name made safe to
// draw).
func (c chip) label() string {
	return wire.OneLine(c.att.Name) + " · " + wire.OneLine(c.typ) + " · " + app.AttachmentSize(c.size)
}

// attachState is the screen's part of attachments.
type attachState struct {
	chips []chip
	// chipSel is the chip selected while the chips have the keys (chipMode).
	chipSel  int
	chipMode bool
	// undo is the paste that last became chips: ctrl+z puts it back as text.
	undo *pasteUndo
	// picker is the file picker while open; pickDir the folder it opens in
	// next time (the last file's).
	picker  *picker
	pickDir string
	// clipFile is the file a clipboard read under way writes to.
	clipFile string
	// env is the person's terminal's environment (Options.Env).
	env []string
	// view reads posts' blocks for the room (resolver answers, thumbnails).
	view *attachView
}

// pasteUndo is a paste that became chips.
type pasteUndo struct {
	text  string
	chips int // how many chips it added (the last ones)
}

func newAttachState(env []string) attachState {
	if env == nil {
		env = os.Environ()
	}
	return attachState{env: env, view: newAttachView(env)}
}

// attacher is the backend's attachment part, or nil.
func (m *model) attacher() attachBackend {
	b, _ := m.app.(attachBackend)
	return b
}

// addChip puts a file on the input line.
func (m *model) addChip(a app.Attachment, typ string, size int64) {
	m.att.chips = append(m.att.chips, chip{att: a, typ: typ, size: size})
}

// attachPath adds the file at path as a chip; false (and the status says
// why) when it is no regular file that can be read.
func (m *model) attachPath(path string) bool {
	if m.attacher() == nil {
		m.status = "attachments: this screen cannot save files"
		return false
	}
	f, err := app.StatAttachment(path)
	if err != nil {
		m.status = "attach: " + err.Error()
		return false
	}
	m.addChip(app.Attachment{Name: f.Name, Source: path}, f.Type, f.Size)
	m.att.pickDir = filepath.Dir(path)
	return true
}

// chipRows is how many rows the chips take above the input line.
func (m *model) chipRows() int {
	if len(m.att.chips) == 0 {
		return 0
	}
	return 1
}

// drawChips is the chip row at width w: each chip in brackets, the
// selected one reversed while the chips have the keys; what does not fit
// is counted at the end.
func (m *model) drawChips(w int) string {
	var b strings.Builder
	b.WriteString(style("📎 ", "2"))
	used := 3
	for i, c := range m.att.chips {
		l := "[" + c.label() + "]"
		lw := ansi.StringWidth(l) + 1
		if used+lw > w && i > 0 {
			b.WriteString(style(fmt.Sprintf("+%d", len(m.att.chips)-i), "2"))
			break
		}
		switch {
		case m.att.chipMode && i == m.att.chipSel:
			b.WriteString(style(l, "7"))
		default:
			b.WriteString(style(l, "36"))
		}
		b.WriteString(" ")
		used += lw
	}
	return fit(b.String(), w)
}

// takeChips empties the input line's chips and gives their attachments.
func (m *model) takeChips() []app.Attachment {
	var out []app.Attachment
	for _, c := range m.att.chips {
		out = append(out, c.att)
	}
	m.att.chips, m.att.chipMode, m.att.undo = nil, false, nil
	return out
}

// restoreChips puts a post's attachments back on the input line, before
// any added since, remembering where they were saved.
func (m *model) restoreChips(atts []app.Attachment, old []chip) {
	var back []chip
	for i, a := range atts {
		c := chip{att: a}
		if i < len(old) {
			c.typ, c.size = old[i].typ, old[i].size
		}
		back = append(back, c)
	}
	m.att.chips = append(back, m.att.chips...)
}

// doAttach runs the attachment actions; ok false for any other.
func (m *model) doAttach(act action, ctx keyCtx) (tea.Cmd, bool) {
	switch ctx {
	case ctxChips:
		n := len(m.att.chips)
		switch act {
		case actLeft:
			m.att.chipSel = max(m.att.chipSel-1, 0)
		case actRight:
			m.att.chipSel = min(m.att.chipSel+1, max(n-1, 0))
		case actRemoveChip:
			if m.att.chipSel < n {
				m.status = "removed " + wire.OneLine(m.att.chips[m.att.chipSel].att.Name)
				m.att.chips = append(m.att.chips[:m.att.chipSel], m.att.chips[m.att.chipSel+1:]...)
				m.att.undo = nil
			}
			m.att.chipSel = min(m.att.chipSel, max(len(m.att.chips)-1, 0))
			if len(m.att.chips) == 0 {
				m.att.chipMode = false
			}
		case actClose:
			m.att.chipMode = false
		}
		return nil, true
	case ctxPicker:
		if act == actClose {
			m.att.picker = nil
		}
		return nil, true
	case ctxInput:
		switch act {
		case actAttachFile:
			return m.openPicker(), true
		case actAttachImage:
			return m.clipboardImage(), true
		case actChips:
			if len(m.att.chips) == 0 {
				m.status = "no attachments: ctrl+o attaches a file, ctrl+v the clipboard's image"
				return nil, true
			}
			m.att.chipMode, m.att.chipSel = true, len(m.att.chips)-1
			return nil, true
		case actUnpaste:
			u := m.att.undo
			if u == nil || u.chips > len(m.att.chips) {
				m.status = "nothing to keep as text: ctrl+z works right after a paste became attachments"
				return nil, true
			}
			m.att.chips = m.att.chips[:len(m.att.chips)-u.chips]
			m.att.undo = nil
			m.input.Insert(u.text)
			m.status = "kept the paste as text"
			return nil, true
		}
	case ctxRoom:
		if act == actOpenAttachment {
			return m.openAttachments(), true
		}
	}
	return nil, false
}

// pasteAttach turns a paste that is one or more existing files' paths
// (what a terminal pastes when files are dropped on it: quoted or
// backslash-escaped, or file:// URIs) into chips; false leaves the paste
// to be typed as text.
func (m *model) pasteAttach(s string) bool {
	if m.attacher() == nil {
		return false
	}
	paths, ok := pastedPaths(s, m.home())
	if !ok {
		return false
	}
	var files []app.AttachmentFile
	for _, p := range paths {
		f, err := app.StatAttachment(p)
		if err != nil {
			return false // one is not a file: the paste is text
		}
		files = append(files, f)
	}
	for i, f := range files {
		m.addChip(app.Attachment{Name: f.Name, Source: paths[i]}, f.Type, f.Size)
	}
	m.att.undo = &pasteUndo{text: s, chips: len(files)}
	m.att.pickDir = filepath.Dir(paths[len(paths)-1])
	m.status = fmt.Sprintf("attached %d pasted file(s); ctrl+z keeps the paste as text instead", len(files))
	return true
}

// home is the person's home folder (the server runs as the same user).
func (m *model) home() string {
	if h := m.envVar("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// envVar is a variable of the person's terminal ("" when unset).
func (m *model) envVar(name string) string {
	for _, kv := range m.att.env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

// pastedPaths splits a paste into the paths it names, the way a shell
// reads words: 'single' and "double" quotes, backslash escapes, file://
// URIs (percent-decoded), ~/ for home. ok is false unless every word is
// an absolute path (or ~/…): a sentence with a path in it stays text.
func pastedPaths(s, home string) ([]string, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, false
	}
	var words []string
	var cur strings.Builder
	in := false
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\\' && i+1 < len(rs):
			i++
			cur.WriteRune(rs[i])
			in = true
		case r == '\'' || r == '"':
			j := i + 1
			for j < len(rs) && rs[j] != r {
				if r == '"' && rs[j] == '\\' && j+1 < len(rs) {
					j++
				}
				cur.WriteRune(rs[j])
				j++
			}
			if j >= len(rs) {
				return nil, false // an open quote: not a path list
			}
			i = j
			in = true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	var out []string
	for _, w := range words {
		switch {
		case strings.HasPrefix(w, "file://"):
			p, ok := fileURI(w)
			if !ok {
				return nil, false
			}
			w = p
		case strings.HasPrefix(w, "~/") && home != "":
			w = filepath.Join(home, w[2:])
		}
		if !filepath.IsAbs(w) {
			return nil, false
		}
		out = append(out, filepath.Clean(w))
	}
	return out, len(out) > 0
}

// fileURI is the path of a file:// URI on this machine.
func fileURI(u string) (string, bool) {
	rest := strings.TrimPrefix(u, "file://")
	if i := strings.IndexByte(rest, '/'); i > 0 {
		if host := rest[:i]; host != "localhost" {
			return "", false // another machine's file
		}
		rest = rest[i:]
	}
	var b strings.Builder
	for i := 0; i < len(rest); i++ {
		if rest[i] == '%' && i+2 < len(rest) {
			var v byte
			if _, err := fmt.Sscanf(rest[i+1:i+3], "%02x", &v); err == nil {
				b.WriteByte(v)
				i += 2
				continue
			}
		}
		b.WriteByte(rest[i])
	}
	return b.String(), strings.HasPrefix(b.String(), "/")
}

// sendWith is the Cmd that posts text with the chips' attachments.
func (m *model) sendWith(topic, text, last string) tea.Cmd {
	old := m.att.chips
	atts := m.takeChips()
	if len(atts) == 0 {
		return nil
	}
	b := m.attacher()
	return func() tea.Msg {
		out, back, err := b.PostWith(topic, text, last, atts)
		return postResultMsg{topic: topic, text: text, out: out, err: err, atts: back, chips: old}
	}
}

// attachMsg takes the messages of attachments (and the picker's own);
// others are ignored.
func (m *model) attachMsg(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case clipDoneMsg:
		return m.clipDone(msg)
	case openedMsg:
		if msg.err != nil {
			m.status = "open: " + msg.err.Error()
		}
		return nil
	case imageSentMsg:
		m.att.view.sent(msg)
		return nil
	}
	if m.att.picker != nil {
		return m.pickerMsg(msg)
	}
	return nil
}

package tui

// Programs run on the person's terminal for attachments, like ctrl+g's
// editor (Options.Program: the server runs them on the attached client,
// where the person's clipboard and desktop are): reading the clipboard's
// image (ctrl+v) and opening a post's attachments (o in the room).

import (
	"bytes"
	"fmt"
	"os"

	tea "charm.land/bubbletea/v2"

	"pullcept/app"
	"pullcept/attach"
)

// clipDoneMsg brings the clipboard's image back.
type clipDoneMsg struct {
	path string
	err  error
}

// openedMsg says how opening attachments ended.
type openedMsg struct{ err error }

// pngMagic starts every PNG file.
var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// clipboardImage reads the clipboard's image on the person's terminal into
// a temporary file; it becomes a chip named image.png (nothing is saved
// in the topic until the post is sent).
func (m *model) clipboardImage() tea.Cmd {
	if m.attacher() == nil {
		m.status = "attachments: this screen cannot save files"
		return nil
	}
	f, err := os.CreateTemp("", "pullcept-clip-*.png")
	if err != nil {
		m.status = "clipboard: " + err.Error()
		return nil
	}
	f.Close()
	path := f.Name()
	m.att.clipFile = path
	return m.onTerminal(attach.RoleClipboard, []string{path}, func(err error) tea.Msg {
		return clipDoneMsg{path: path, err: err}
	})
}

func (m *model) clipDone(msg clipDoneMsg) tea.Cmd {
	defer os.Remove(msg.path)
	if m.att.clipFile == msg.path {
		m.att.clipFile = ""
	}
	b, err := os.ReadFile(msg.path)
	switch {
	case msg.err != nil && msg.err.Error() == "exit status 3":
		m.status = "clipboard: no tool reads images on your terminal's machine (pngpaste, wl-paste or xclip; or set PULLCEPT_CLIPBOARD_IMAGE)"
	case msg.err != nil:
		m.status = "clipboard: the clipboard holds no image (" + msg.err.Error() + ")"
	case err != nil:
		m.status = "clipboard: " + err.Error()
	case !bytes.HasPrefix(b, pngMagic):
		m.status = "clipboard: the clipboard holds no PNG image"
	default:
		m.addChip(app.Attachment{Name: "image.png", Data: b}, "image/png", int64(len(b)))
		m.status = "attached the clipboard's image as image.png (sent with the post; ctrl+x removes it)"
	}
	return nil
}

// openAttachments opens the selected post's attachments on the person's
// terminal: only a block the resolver reads, each path as it resolved;
// anything else is refused without a word.
func (m *model) openAttachments() tea.Cmd {
	sel, ok := m.selectedPost()
	if !ok || m.attacher() == nil || len(sel.posts) != 1 {
		return nil
	}
	files, ok := m.att.view.block(m.attacher(), sel.posts[0].Content)
	if !ok {
		return nil
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	m.status = fmt.Sprintf("opening %d attachment(s) on your terminal", len(files))
	return m.onTerminal(attach.RoleOpener, paths, func(err error) tea.Msg { return openedMsg{err: err} })
}

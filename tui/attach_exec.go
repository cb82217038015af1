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
)

// clipScript writes the clipboard's image as PNG to "$1", with the
// person's own command ($PULLCEPT_CLIPBOARD_IMAGE, its stdout) or the
// platform's tool; exit 3: no tool.
const clipScript = `out=$1
if [ -n "$PULLCEPT_CLIPBOARD_IMAGE" ]; then exec sh -c "$PULLCEPT_CLIPBOARD_IMAGE" >"$out"; fi
if command -v pngpaste >/dev/null 2>&1; then exec pngpaste "$out"; fi
if [ -n "$WAYLAND_DISPLAY" ] && command -v wl-paste >/dev/null 2>&1; then exec wl-paste --no-newline --type image/png >"$out"; fi
if [ -n "$DISPLAY" ] && command -v xclip >/dev/null 2>&1; then exec xclip -selection clipboard -t image/png -o >"$out"; fi
exit 3`

// openScript opens its arguments on the person's terminal: the person's
// own command ($PULLCEPT_OPEN), the desktop's opener where there is a
// desktop, else the pager.
const openScript = `if [ -n "$PULLCEPT_OPEN" ]; then exec sh -c "$PULLCEPT_OPEN \"\$@\"" sh "$@"; fi
if [ "$(uname)" = Darwin ]; then exec open "$@"; fi
if [ -n "$DISPLAY$WAYLAND_DISPLAY" ] && command -v xdg-open >/dev/null 2>&1; then for f; do xdg-open "$f" >/dev/null 2>&1; done; exit 0; fi
exec ${PAGER:-less} "$@"`

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
	return m.onTerminal([]string{"sh", "-c", clipScript, "sh", path}, func(err error) tea.Msg {
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
	argv := []string{"sh", "-c", openScript, "sh"}
	for _, f := range files {
		argv = append(argv, f.Path)
	}
	m.status = fmt.Sprintf("opening %d attachment(s) on your terminal", len(files))
	return m.onTerminal(argv, func(err error) tea.Msg { return openedMsg{err: err} })
}

package uv

// PATCH(pullcept): a cell holding a control character, or a link holding
// one, is written without it (pullcept_controls.go).

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/colorprofile"
)

func TestPullceptRendererWritesNoControl(t *testing.T) {
	cells := []Cell{
		{Content: "\u009d", Width: 1},             // OSC as UTF-8
		{Content: "A\u009b", Width: 1},            // CSI after a letter
		{Content: "\x1b]52;c;aGk=\x07", Width: 1}, // OSC 52, 7-bit
		{Content: "\x9b", Width: 1},               // a raw 8-bit CSI
		{Content: "\x1b", Width: 1},               // a lone ESC
		{Content: "\u009c", Width: 1},             // ST
		{Content: "K", Width: 1, Link: Link{URL: "http://x/✳"}},
		{Content: "L", Width: 1, Link: Link{URL: "http://x\u009c\x1b]0;t\x07"}},
		{Content: "✳", Width: 1}, // E2 9C B3: 0x9C inside a character stays
		{Content: "\r\n\b", Width: 1},
	}
	var buf bytes.Buffer
	r := NewTerminalRenderer(&buf, []string{"TERM=xterm-256color", "COLORTERM=truecolor"})
	r.SetColorProfile(colorprofile.TrueColor) // not NoTTY, which drops links
	r.SetFullscreen(true)
	scr := NewScreenBuffer(len(cells)+2, 2)
	for x := range cells {
		scr.SetCell(x, 0, &cells[x])
	}
	r.Render(scr.RenderBuffer)
	if err := r.Flush(); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	// The one OSC: the link without controls, as the renderer writes links.
	const link = "\x1b]8;;http://x/✳\aK\x1b]8;;\a"
	if !strings.Contains(out, link) {
		t.Errorf("the link without controls is lost: %q", out)
	}
	out = strings.Replace(out, link, "K", 1)
	if !strings.Contains(out, "✳") || !strings.Contains(out, " A") || !strings.Contains(out, "KL") {
		t.Errorf("the text around the controls is lost: %q", out)
	}
	if !utf8.ValidString(out) {
		t.Errorf("an invalid byte in %q", out)
	}
	for i, c := range out {
		switch {
		case c >= 0x80 && c < 0xA0:
			t.Errorf("C1 control U+%04X at %d in %q", c, i, out)
		case c == 0x1b && (i+1 >= len(out) || out[i+1] != '['):
			t.Errorf("an ESC that does not start a CSI at %d in %q", i, out)
		case c < 0x20 && c != 0x1b && c != '\r' && c != '\n':
			t.Errorf("C0 control %q at %d in %q", c, i, out)
		}
	}
}

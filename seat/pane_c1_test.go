package seat

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// A program in a real PTY writing each C1 control (U+0080-U+009F) as UTF-8,
// and the OSC 52, OSC 0 and CSI they would start: the pane's screen (live
// and scrolled back) shows the text around them and holds none of them,
// neither drawn nor acted on (issue 32 finding 2; tmux drops them too).
// Before: every one stayed in a cell after a cursor move, and the screen's
// renderer wrote "\u009d52;c;aGk=\u009c" and "\u009b2J" out whole.
func TestPaneDropsC1Controls(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	for r := rune(0x80); r < 0xA0; r++ {
		fmt.Fprintf(&out, "x%c\x1b[C", r)
		if r%8 == 7 {
			out.WriteString("|\r\n")
		}
	}
	out.WriteString("\u009d0;title\u009c\x1b[C|\r\n\u009d52;c;aGk=\u009c\x1b[C|\r\n\u009b2J\x1b[C|\r\nend of output")
	p := startPane(t, PaneSpec{Argv: []string{"printf", "%s", out.String()}, Cols: 40, Rows: 6})
	waitScreen(t, p, "end of output")
	waitDone(t, p)
	screen := p.RenderScrolled(p.ScrollbackLen())
	for i, r := range screen {
		if r >= 0x80 && r < 0xA0 || r == utf8.RuneError {
			t.Fatalf("the screen holds %U at %d:\n%q", r, i, screen)
		}
	}
	for _, want := range []string{"x x x x x x x x |", "0;title |", "52;c;aGk= |", "2J |"} {
		if !strings.Contains(screen+p.Render(), want) {
			t.Errorf("the screen lost %q:\n%s", want, screen+"\n--\n"+p.Render())
		}
	}
}

package uv

// PATCH(pullcept): the wide-cell repaint defect. Bubble Tea clears its
// buffer and draws the whole view every frame, which touches every row; the
// renderer then repainted every touched row holding a wide cell. With the
// patch only the row that changed is written.

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func TestPullceptUnchangedWideRowsAreNotRepainted(t *testing.T) {
	for _, tc := range []struct {
		name string
		text string
	}{
		{"english", "the quick brown fox jumps over the lazy dog"},
		{"japanese", "日本語のテキストが画面にある場合の再描画"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			r := NewTerminalRenderer(&buf, []string{"TERM=xterm-256color", "COLORTERM=truecolor"})
			r.SetFullscreen(true)
			r.SaveCursor()
			r.Erase()
			scr := NewScreenBuffer(80, 24)
			frame := func(n int) int {
				buf.Reset()
				lines := make([]string, 24)
				for i := range lines {
					lines[i] = fmt.Sprintf("%02d %s", i, tc.text)
				}
				lines[23] = fmt.Sprintf("frame %d", n)
				scr.Clear() // what Bubble Tea does every frame
				NewStyledString(strings.Join(lines, "\n")).Draw(scr, scr.Bounds())
				r.Render(scr.RenderBuffer)
				if err := r.Flush(); err != nil {
					t.Fatal(err)
				}
				return buf.Len()
			}
			first := frame(0)
			second := frame(1)
			if second > 64 {
				t.Errorf("one changed row cost %d bytes (first frame %d); unchanged rows were repainted", second, first)
			}
			// The screen must still be right: a fresh renderer of the final
			// buffer is what the terminal shows.
			if got := scr.Line(0).String(); !strings.HasPrefix(got, "00 "+tc.text) {
				t.Errorf("row 0 = %q", got)
			}
		})
	}
}

package vt

import (
	"strings"
	"testing"
)

// TestOSCTitleWithByte9C fails on the released table: the title is cut at
// the 0x9C inside ✳ / 本 and its tail lands on the screen.
func TestOSCTitleWithByte9C(t *testing.T) {
	for _, title := range []string{"✳ Claude Code", "日本語のタイトル"} {
		e := NewEmulator(40, 3)
		var got string
		e.SetCallbacks(Callbacks{Title: func(s string) { got = s }})
		e.Write([]byte("\x1b]0;" + title + "\x07Hi"))
		row := strings.TrimRight(plainRows(e)[0], " ")
		if row != "Hi" || got != title {
			t.Errorf("title %q: row 0 = %q, title callback = %q", title, row, got)
		}
	}
}

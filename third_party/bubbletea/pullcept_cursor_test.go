package tea

// PATCH(pullcept): tests of Cursor.Hidden (see README.md).

import (
	"bytes"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// A hidden cursor is placed where the view says and never shown; a shown
// one is shown. Without the patch a cursor is either placed and shown or
// neither, so an input method composes where the last frame ended.
func TestHiddenCursorIsPlacedNotShown(t *testing.T) {
	var out bytes.Buffer
	r := newCursedRenderer(&out, nil, 20, 5)
	r.start()
	v := NewView("line one\nline two\nline three")
	v.AltScreen = true
	v.Cursor = &Cursor{Position: Position{X: 5, Y: 1}, Hidden: true}
	r.render(v)
	if _, err := r.flush(false); err != nil {
		t.Fatal(err)
	}
	if x, y := r.scr.Position(); x != 5 || y != 1 {
		t.Fatalf("the hidden cursor is at %d,%d, want 5,1", x, y)
	}
	if strings.Contains(out.String(), ansi.SetModeTextCursorEnable) {
		t.Fatalf("a hidden cursor was shown: %q", out.String())
	}
	// The same place, shown now: the cursor is made visible.
	out.Reset()
	v.Cursor = &Cursor{Position: Position{X: 5, Y: 1}}
	r.render(v)
	if _, err := r.flush(false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), ansi.SetModeTextCursorEnable) {
		t.Fatalf("a shown cursor was not shown: %q", out.String())
	}
}

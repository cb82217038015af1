package uv

// PATCH(pullcept): the terminal renderer writes no control character from a
// cell's content or link. A cell's content is text to draw, but nothing
// stopped one holding ESC, a C0 control or a C1 control (U+0080 to U+009F,
// which some terminals act on in UTF-8): written out, a cell could move the
// cursor, start an OSC 52 clipboard write or set the title. Defence in depth
// for a program drawing cells it got from elsewhere (a terminal emulator's).

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// isControl reports a C0 control, DEL or a C1 control.
func isControl(r rune) bool {
	return r < 0x20 || r >= 0x7F && r < 0xA0
}

// hasControl reports whether s holds a control character, or a byte that is
// not part of a valid UTF-8 character (a raw 0x9B is CSI to a terminal not
// in UTF-8).
func hasControl(s string) bool {
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b < 0x20 || b == 0x7F {
				return true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || isControl(r) {
			return true
		}
		i += n
	}
	return false
}

// printable is what the renderer writes for c: its content without escape
// sequences and control characters (an invalid byte as U+FFFD), or spaces
// over its width when what is left is not as wide as the cell (the
// renderer's model of the cursor counts on it).
func printable(m ansi.Method, c *Cell) string {
	if !hasControl(c.Content) {
		return c.Content
	}
	kept := strings.Map(func(r rune) rune {
		if isControl(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(ansi.Strip(c.Content), "\uFFFD"))
	if w := max(c.Width, 1); kept == "" || m.StringWidth(kept) != w {
		return strings.Repeat(" ", w)
	}
	return kept
}

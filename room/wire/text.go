package wire

import "strings"

// TypedBody is a post's body as typed into a terminal (spec 003 "本文は送信
// キーを持たない"): \r\n and \r become \n, every other control character
// (C0 including tab and ESC, DEL, C1) is dropped, so the body can carry no
// key and no escape sequence; only the typist's final \r submits.
func TypedBody(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\r' || r == '\n':
			return '\n'
		case isControl(r):
			return -1
		}
		return r
	}, s)
}

// Visible is post text made safe to draw on the person's terminal: line
// breaks stay, a tab becomes spaces, and every other control character is
// shown as a visible symbol (␛ for ESC, ␇ for BEL, … and ¿ for C1), never
// written raw. Invalid UTF-8 becomes U+FFFD.
func Visible(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteByte('\n')
		case r == '\t':
			b.WriteString("    ")
		case r < 0x20:
			b.WriteRune(0x2400 + r) // control pictures
		case r == 0x7f:
			b.WriteRune('\u2421')
		case r >= 0x80 && r <= 0x9f:
			b.WriteRune('\u00bf')
		default:
			b.WriteRune(r) // ranging over s already turned bad bytes into U+FFFD
		}
	}
	return b.String()
}

// OneLine is Visible with line breaks shown as ⏎, for single-line places.
func OneLine(s string) string { return strings.ReplaceAll(Visible(s), "\n", "⏎") }

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) }

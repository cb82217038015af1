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

// NeutraliseTagLines quotes ("> ") every body line that, after leading
// blanks, begins like the tag line ("[pullcept]"). Only for a terminal that
// reads line by line (canonical mode), where each body line arrives as an
// input of its own and a forged tag would stand first in one (spec 003 "本物
// の札は一行目だけである"; docs/decisions.md). Claude Code and Codex read raw
// keys and get the body as said.
func NeutraliseTagLines(body string) string {
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimLeft(l, " \t"), strings.TrimSpace(TagPrefix)) {
			lines[i] = "> " + l
		}
	}
	return strings.Join(lines, "\n")
}

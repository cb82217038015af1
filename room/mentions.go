package room

// Mentions: `@name` in a body becomes an addressee (spec 003 "宛先は本文の中の
// @ で指定する", #206). The longest participant name that matches at the `@`
// (case-insensitive) wins, the name must end at a space, punctuation or the
// end of the text, and the matched text leaves the body: with the spaces after
// it, with the spaces before it at the end of a line, and a line holding only
// mentions goes whole. Unmatched `@…` stays as written.

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrOnlyMentionsText is the room's answer to a body that is only mentions
// (the spec's wording).
const ErrOnlyMentionsText = "宛先の @名前 のほかに本文がありません。"

// TakeMentions moves participant mentions out of body. It returns the new
// body and the matched names in the room's spelling, in order, without
// repeats.
func TakeMentions(body string, names []string) (string, []string) {
	if !strings.ContainsAny(body, "@＠") || len(names) == 0 {
		return body, nil
	}
	var found []string
	seen := map[string]bool{}
	lines := strings.SplitAfter(body, "\n")
	var out strings.Builder
	for _, line := range lines {
		nl := ""
		if strings.HasSuffix(line, "\n") {
			line, nl = line[:len(line)-1], "\n"
		}
		kept, took := takeLine(line, names, func(n string) {
			if !seen[n] {
				seen[n] = true
				found = append(found, n)
			}
		})
		if took && strings.TrimFunc(kept, isHSpace) == "" {
			continue // a line of mentions only goes whole, newline included
		}
		out.WriteString(kept)
		out.WriteString(nl)
	}
	if len(found) == 0 {
		return body, nil
	}
	return strings.TrimRight(out.String(), "\n"), found
}

// takeLine removes the mentions of one line.
func takeLine(line string, names []string, add func(string)) (string, bool) {
	var b strings.Builder
	took := false
	i := 0
	for i < len(line) {
		r, size := utf8.DecodeRuneInString(line[i:])
		if r != '@' && r != '＠' {
			b.WriteString(line[i : i+size])
			i += size
			continue
		}
		name, n := matchName(line[i+size:], names)
		if name == "" {
			b.WriteString(line[i : i+size])
			i += size
			continue
		}
		add(name)
		took = true
		j := i + size + n
		for j < len(line) {
			r, s := utf8.DecodeRuneInString(line[j:])
			if !isHSpace(r) {
				break
			}
			j += s
		}
		if j == len(line) || line[j] == '\r' {
			// At the end of the line the space before goes too.
			trimmed := strings.TrimRightFunc(b.String(), isHSpace)
			b.Reset()
			b.WriteString(trimmed)
		}
		i = j
	}
	return b.String(), took
}

// matchName finds the longest name that s starts with (ignoring case) and
// that ends at a space, punctuation or the end. It returns the name and the
// number of bytes of s it covers.
func matchName(s string, names []string) (string, int) {
	best, bestLen := "", 0
	for _, name := range names {
		if name == "" {
			continue
		}
		n, ok := prefixFold(s, name)
		if !ok || utf8.RuneCountInString(name) <= utf8.RuneCountInString(best) {
			continue
		}
		if n < len(s) {
			r, _ := utf8.DecodeRuneInString(s[n:])
			if !unicode.IsSpace(r) && !unicode.IsPunct(r) {
				continue
			}
		}
		best, bestLen = name, n
	}
	return best, bestLen
}

// prefixFold reports whether s starts with name ignoring case, and how many
// bytes of s the match covers (case folding can change byte lengths).
func prefixFold(s, name string) (int, bool) {
	i := 0
	for _, nr := range name {
		if i >= len(s) {
			return 0, false
		}
		sr, size := utf8.DecodeRuneInString(s[i:])
		if sr != nr && !strings.EqualFold(string(sr), string(nr)) {
			return 0, false
		}
		i += size
	}
	return i, true
}

func isHSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\u3000' }

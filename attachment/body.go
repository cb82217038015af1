package attachment

import (
	"path/filepath"
	"strings"
)

// Header is the line that starts the block of attached paths.
const Header = "添付:"

// Body is a post's body with attachments (spec: 本文の形): the text, one
// blank line, the Header line and one path a line, in the order given.
// Trailing blank lines and spaces of the text go, so exactly one blank
// line parts it from the block; a text with nothing in it leaves the block
// alone. Without paths the body is the text as given.
func Body(text string, paths []string) string {
	if len(paths) == 0 {
		return text
	}
	block := Header + "\n" + strings.Join(paths, "\n")
	text = strings.TrimRight(text, " \t\r\n\u3000")
	if strings.TrimSpace(text) == "" {
		return block
	}
	return text + "\n\n" + block
}

// Parse finds the block of attached paths at the end of body: a Header
// line that starts the body or follows a blank line, then one absolute
// path a line up to the end (at least one). ok is false when the body
// ends in no such block; text is the body before it (without the blank
// line). Whether the paths are attachments is the Resolver's to say.
func Parse(body string) (text string, paths []string, ok bool) {
	lines := strings.Split(body, "\n")
	for h := len(lines) - 2; h >= 0; h-- {
		if lines[h] != Header {
			if !isPath(lines[h]) {
				return "", nil, false
			}
			continue
		}
		if h > 0 && lines[h-1] != "" {
			return "", nil, false
		}
		for _, p := range lines[h+1:] {
			if !isPath(p) {
				return "", nil, false
			}
		}
		if h > 0 {
			text = strings.Join(lines[:h-1], "\n")
		}
		return text, lines[h+1:], true
	}
	return "", nil, false
}

// isPath reports whether a block line is an absolute path.
func isPath(l string) bool { return l != "" && filepath.IsAbs(l) }

package seat

// The unsent-key tracker (spec 003 "発言は端末へ入る", terminal_input::Unsent).
//
// A room post typed into a terminal while the person has half-typed input
// there would be joined to that input, and the tag would no longer start the
// first line. So the app watches the keys the person's pane writes to the PTY
// and holds posts while input not yet sent remains. It reads keys, not the
// CLI's input box, and each write is judged whole:
//
//   - a write that is exactly "\r" is the send key: the input is empty;
//   - Ctrl+C (0x03), Ctrl+U (0x15) and two Esc in a row (one write "\x1b\x1b",
//     or a lone "\x1b" write right after another) clear it;
//   - Backspace (0x7f or 0x08) deletes one character (a grapheme cluster),
//     Ctrl+W deletes one word (trailing blanks, then non-blanks);
//   - any other control key and every escape sequence (arrows, CSI, SS3, OSC,
//     DCS, Alt+key) change nothing;
//   - everything else is text. A paste arriving in one write stays text even
//     with line breaks: inside a write of several bytes \r, \n and \t are text.
//     Bracketed-paste markers (ESC[200~ … ESC[201~) are dropped and what they
//     wrap is text, control bytes included. A paste is one write: a missing
//     end marker ends at the end of the write, so no state can stick.
//
// The app's own send key (the typist's \r) also sends whatever the person
// typed meanwhile, so after it the input reads empty ([Unsent.Clear]).
//
// What cannot be read (accepted in the spec): a history entry recalled with
// the up arrow fills the input without any text key, and an answer key to a
// prompt on the screen looks like text (posts then wait until the next send
// or clear). Cursor moves are not followed, so Backspace at the start of the
// line still counts as deleting one character.

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

const (
	keyCtrlC     = 0x03
	keyBackspace = 0x08
	keyCtrlU     = 0x15
	keyCtrlW     = 0x17
	keyEsc       = 0x1b
	keyDel       = 0x7f
)

var (
	pasteStart = []byte("\x1b[200~")
	pasteEnd   = []byte("\x1b[201~")
)

// Unsent tracks whether the person has typed input into a terminal that has
// not been sent yet. The zero value is an empty input. It is not safe for
// concurrent use; [Pane] guards its own.
type Unsent struct {
	text    []rune // what is typed, as far as the keys tell
	lastEsc bool   // the last key was a lone Esc
	inPaste bool   // inside a bracketed paste (within one write)
}

// Pending reports whether typed input remains unsent.
func (u *Unsent) Pending() bool { return len(u.text) > 0 }

// Text is what the keys tell is typed and unsent (a paste's line breaks
// included; control keys applied).
func (u *Unsent) Text() string { return string(u.text) }

// Clear empties the input: the app's own send key was written (it sends
// whatever was typed with it).
func (u *Unsent) Clear() {
	u.text = u.text[:0]
	u.lastEsc = false
	u.inPaste = false
}

// Feed reads one write of the person's keys.
func (u *Unsent) Feed(p []byte) {
	if len(p) == 0 {
		return
	}
	switch {
	case len(p) == 1 && p[0] == '\r':
		u.Clear()
		return
	case len(p) == 2 && p[0] == keyEsc && p[1] == keyEsc:
		u.Clear()
		return
	case len(p) == 1 && p[0] == '\n', len(p) == 1 && p[0] == '\t':
		u.lastEsc = false // a single control key changes nothing
		return
	}
	u.feedSeq(p)
	u.inPaste = false
}

// feedSeq reads a write token by token: escape sequences, control keys and
// runs of text.
func (u *Unsent) feedSeq(p []byte) {
	for len(p) > 0 {
		if u.inPaste {
			end := bytes.Index(p, pasteEnd)
			if end < 0 {
				u.addText(p)
				return
			}
			u.addText(p[:end])
			p = p[end+len(pasteEnd):]
			u.inPaste = false
			continue
		}
		c := p[0]
		switch {
		case c == keyEsc:
			n := escLen(p)
			if n == 1 { // a lone Esc key
				if u.lastEsc {
					u.Clear()
				} else {
					u.lastEsc = true
				}
				p = p[1:]
				continue
			}
			if bytes.HasPrefix(p, pasteStart) {
				u.inPaste = true
			}
			// pasteEnd outside a paste, and every other sequence: nothing.
			u.lastEsc = false
			p = p[n:]
		case c == '\r' || c == '\n' || c == '\t':
			// Part of a write of several bytes: a paste's line breaks.
			u.lastEsc = false
			u.text = append(u.text, rune(c))
			p = p[1:]
		case c < 0x20 || c == keyDel:
			u.lastEsc = false
			u.control(c)
			p = p[1:]
		default:
			i := 1
			for i < len(p) && p[i] >= 0x20 && p[i] != keyDel {
				i++
			}
			u.addText(p[:i])
			p = p[i:]
		}
	}
}

// control applies one control key.
func (u *Unsent) control(c byte) {
	switch c {
	case keyCtrlC, keyCtrlU:
		u.Clear()
	case keyBackspace, keyDel:
		u.deleteCluster()
	case keyCtrlW:
		u.deleteWord()
	}
}

func (u *Unsent) addText(p []byte) {
	u.lastEsc = false
	for len(p) > 0 {
		r, n := utf8.DecodeRune(p)
		u.text = append(u.text, r)
		p = p[n:]
	}
}

// deleteCluster drops the last grapheme cluster (an emoji with joiners is
// one Backspace in a CLI). Only a short tail is segmented, so a long paste
// followed by many Backspaces stays linear.
func (u *Unsent) deleteCluster() {
	if len(u.text) == 0 {
		return
	}
	start := max(0, len(u.text)-32)
	tail := string(u.text[start:])
	last := 0 // byte offset of the last cluster in tail
	state := -1
	for rest, off := tail, 0; rest != ""; {
		var c string
		c, rest, _, state = uniseg.FirstGraphemeClusterInString(rest, state)
		last = off
		off += len(c)
	}
	u.text = u.text[:start+utf8.RuneCountInString(tail[:last])]
}

// deleteWord is Ctrl+W as readline's unix-word-rubout: blanks before the
// cursor, then the word before them.
func (u *Unsent) deleteWord() {
	i := len(u.text)
	for i > 0 && unicode.IsSpace(u.text[i-1]) {
		i--
	}
	for i > 0 && !unicode.IsSpace(u.text[i-1]) {
		i--
	}
	u.text = u.text[:i]
}

// escLen is the length of the escape sequence at the start of p (p[0] is
// ESC). A lone ESC, or ESC followed by another ESC, is 1. A sequence cut off
// by the end of the write runs to the end.
func escLen(p []byte) int {
	if len(p) < 2 || p[1] == keyEsc {
		return 1
	}
	switch p[1] {
	case '[': // CSI: parameters and intermediates, then a final byte
		for i := 2; i < len(p); i++ {
			if p[i] >= 0x40 && p[i] <= 0x7e {
				return i + 1
			}
			if p[i] < 0x20 || p[i] > 0x7e {
				return i // malformed: end before the odd byte
			}
		}
		return len(p)
	case 'O': // SS3: one more byte
		return min(3, len(p))
	case ']', 'P', 'X', '^', '_': // OSC, DCS, SOS, PM, APC: to BEL or ST
		for i := 2; i < len(p); i++ {
			if p[i] == 0x07 {
				return i + 1
			}
			if p[i] == keyEsc && i+1 < len(p) && p[i+1] == '\\' {
				return i + 2
			}
		}
		return len(p)
	}
	// Alt+key and two-byte escapes (ESC 7, ESC =): the next rune.
	_, n := utf8.DecodeRune(p[1:])
	return 1 + n
}

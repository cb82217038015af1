package tui

// The input line: a small multi-line editor and the @ candidates
// (spec 003 "宛先は本文の中の @ で指定する").

import (
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"

	"pullcept/app"
)

// editor is a multi-line text buffer with a cursor, in runes.
type editor struct {
	buf []rune
	cur int
	// dismissed is the index of the @ whose candidates Esc closed (-1:
	// none); that @ stays closed while it stays.
	dismissed int
	// sel is the selected candidate.
	sel int
}

func newEditor() editor { return editor{dismissed: -1} }

func (e *editor) String() string { return string(e.buf) }

// Set replaces the text and puts the cursor at the end.
func (e *editor) Set(s string) {
	e.buf = []rune(s)
	e.cur = len(e.buf)
	e.dismissed = -1
	e.sel = 0
}

// cleanInput makes typed or pasted text fit the buffer: line breaks become
// \n and other control characters are dropped (tab stays).
func cleanInput(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\r' || r == '\n':
			return '\n'
		case r == '\t':
			return r
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			return -1
		}
		return r
	}, s)
}

// Insert puts s at the cursor.
func (e *editor) Insert(s string) {
	rs := []rune(cleanInput(s))
	if len(rs) == 0 {
		return
	}
	for _, r := range rs {
		if isAt(r) {
			e.dismissed = -1 // a new @ opens again
		}
	}
	nb := make([]rune, 0, len(e.buf)+len(rs))
	nb = append(nb, e.buf[:e.cur]...)
	nb = append(nb, rs...)
	nb = append(nb, e.buf[e.cur:]...)
	e.buf = nb
	e.cur += len(rs)
	e.sel = 0
}

func (e *editor) Left() {
	if e.cur > 0 {
		e.cur--
	}
}

func (e *editor) Right() {
	if e.cur < len(e.buf) {
		e.cur++
	}
}

func (e *editor) lineStart() int {
	i := e.cur
	for i > 0 && e.buf[i-1] != '\n' {
		i--
	}
	return i
}

func (e *editor) lineEnd() int {
	i := e.cur
	for i < len(e.buf) && e.buf[i] != '\n' {
		i++
	}
	return i
}

func (e *editor) Home() { e.cur = e.lineStart() }
func (e *editor) End()  { e.cur = e.lineEnd() }

// Up moves to the same column of the line above; false at the first line.
func (e *editor) Up() bool {
	start := e.lineStart()
	if start == 0 {
		return false
	}
	col := e.cur - start
	prevEnd := start - 1
	prevStart := prevEnd
	for prevStart > 0 && e.buf[prevStart-1] != '\n' {
		prevStart--
	}
	e.cur = min(prevStart+col, prevEnd)
	return true
}

// Down moves to the same column of the line below; false at the last line.
func (e *editor) Down() bool {
	end := e.lineEnd()
	if end == len(e.buf) {
		return false
	}
	col := e.cur - e.lineStart()
	nextStart := end + 1
	nextEnd := nextStart
	for nextEnd < len(e.buf) && e.buf[nextEnd] != '\n' {
		nextEnd++
	}
	e.cur = min(nextStart+col, nextEnd)
	return true
}

func (e *editor) deleteRange(a, b int) {
	if a >= b {
		return
	}
	e.buf = append(e.buf[:a:a], e.buf[b:]...)
	e.cur = a
	e.sel = 0
}

func (e *editor) Backspace() {
	if e.cur > 0 {
		e.deleteRange(e.cur-1, e.cur)
	}
}

func (e *editor) Delete() {
	if e.cur < len(e.buf) {
		c := e.cur
		e.deleteRange(c, c+1)
	}
}

func (e *editor) KillBefore() { e.deleteRange(e.lineStart(), e.cur) }
func (e *editor) KillAfter()  { c := e.cur; e.deleteRange(c, e.lineEnd()); e.cur = c }

func (e *editor) KillWord() {
	i := e.cur
	for i > 0 && unicode.IsSpace(e.buf[i-1]) {
		i--
	}
	for i > 0 && !unicode.IsSpace(e.buf[i-1]) {
		i--
	}
	e.deleteRange(i, e.cur)
}

func isAt(r rune) bool { return r == '@' || r == '＠' }

// mention finds the @ the cursor is completing: an @ (or ＠) at the start
// or after white space, followed by no white space up to the cursor.
func (e *editor) mention() (start int, query string, ok bool) {
	for i := e.cur - 1; i >= 0; i-- {
		r := e.buf[i]
		if unicode.IsSpace(r) {
			return 0, "", false
		}
		if isAt(r) {
			if i > 0 && !unicode.IsSpace(e.buf[i-1]) {
				return 0, "", false
			}
			return i, string(e.buf[i+1 : e.cur]), true
		}
	}
	return 0, "", false
}

// candidates are the roster's names for the open @ (none when closed):
// not the person, one row per calling name (ignoring case, as the room
// matches), by prefix ignoring case.
func (e *editor) candidates(roster []app.Participant) []string {
	start, q, ok := e.mention()
	if !ok || start == e.dismissed {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, p := range roster {
		key := strings.ToLower(p.Name) // the room matches names ignoring case
		if p.Person || p.Name == "" || seen[key] {
			continue
		}
		seen[key] = true
		if hasPrefixFold(p.Name, q) {
			out = append(out, p.Name)
		}
	}
	return out
}

// holders is how many participants (not the person) a calling name
// addresses: every one of that name, ignoring case (spec 003
// ニックネームと元の名前: 同名の全参加者宛て).
func holders(roster []app.Participant, name string) int {
	n := 0
	for _, p := range roster {
		if !p.Person && strings.EqualFold(p.Name, name) {
			n++
		}
	}
	return n
}

func hasPrefixFold(s, prefix string) bool {
	rs, ps := []rune(s), []rune(prefix)
	if len(ps) > len(rs) {
		return false
	}
	return strings.EqualFold(string(rs[:len(ps)]), prefix)
}

// Dismiss closes the candidates of the current @.
func (e *editor) Dismiss() {
	if start, _, ok := e.mention(); ok {
		e.dismissed = start
	}
}

// Pick replaces the @query at the cursor with @name and a space.
func (e *editor) Pick(name string) {
	start, _, ok := e.mention()
	if !ok {
		return
	}
	ins := []rune("@" + name + " ")
	nb := make([]rune, 0, len(e.buf)+len(ins))
	nb = append(nb, e.buf[:start]...)
	nb = append(nb, ins...)
	nb = append(nb, e.buf[e.cur:]...)
	e.buf = nb
	e.cur = start + len(ins)
	e.sel = 0
}

// layout wraps the text to width cells: the visual rows, and the cursor's
// row and column.
func (e *editor) layout(width int) (rows []string, cx, cy int) {
	width = max(width, 2)
	var row []rune
	w := 0
	flush := func() {
		rows = append(rows, string(row))
		row, w = nil, 0
	}
	for i := 0; i <= len(e.buf); i++ {
		var s string
		rw := 0
		if i < len(e.buf) && e.buf[i] != '\n' {
			s = string(e.buf[i])
			if e.buf[i] == '\t' {
				s = "    "
			}
			rw = ansi.StringWidth(s)
			if w+rw > width {
				flush()
			}
		}
		if i == e.cur {
			if w >= width {
				flush()
			}
			cx, cy = w, len(rows)
		}
		if i == len(e.buf) {
			break
		}
		if e.buf[i] == '\n' {
			flush()
			continue
		}
		row = append(row, []rune(s)...)
		w += rw
	}
	flush()
	return rows, cx, cy
}

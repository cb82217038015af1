package vt

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// malformedCases are malformed or unusual sequences between "A" and "Z",
// with the row tmux 3.3a shows for them (TestTmuxMalformed checks that
// against a real tmux). The comments say what the released parser did.
var malformedCases = []struct {
	name, seq, want string
	tmux            string // when tmux shows something else (README section 10)
}{
	// x/ansi went to ground at the parameter byte and printed the rest.
	{name: "parameter after intermediate", seq: "\x1b[ 1mX", want: "AXZ"},
	{name: "parameter after intermediate, then $", seq: "\x1b[1!2$pX", want: "AXZ"},
	// x/ansi ignored the marker and ran CUF 53.
	{name: "private marker after parameters", seq: "\x1b[5?3CX", want: "AXZ"},
	// A UTF-8 character inside a CSI aborted it and was printed with the rest.
	{name: "UTF-8 inside CSI", seq: "\x1b[0あmX", want: "AXZ"},
	{name: "UTF-8 inside CSI before its final", seq: "\x1b[3あCX", want: "A   XZ"},
	// A raw C1 byte inside a CSI or after ESC ran (0x9C went to ground,
	// 0x9B started a CSI that ate the X).
	{name: "0x9C inside CSI", seq: "\x1b[5\x9cmX", want: "AXZ"},
	{name: "0x9B inside ESC", seq: "\x1b\x9b7X", want: "AXZ"},
	// An overflowing value kept 31 bits and moved the cursor.
	{name: "parameter over 2^31", seq: "\x1b[99999999999CX", want: "AXZ"},
	{name: "parameter over 2^64", seq: "\x1b[1;99999999999999999999999HX", want: "AXZ"},
	// The parameter list ran out of slots and the first ones were used.
	{name: "40 parameters", seq: "\x1b[1;30;" + strings.Repeat("1;", 38) + "1HX", want: "AXZ"},
	// ESC right after ESC P was taken as data: the DCS swallowed the rest.
	{name: "empty DCS", seq: "\x1bP\x1b\\X", want: "AXZ"},
	// A UTF-8 character inside APC/PM/SOS left the string and printed.
	{name: "APC with UTF-8", seq: "\x1b_✳ apc\x1b\\X", want: "AXZ"},
	{name: "PM with UTF-8", seq: "\x1b^日本\x1b\\X", want: "AXZ"},
	// Unchanged and already right; kept so they stay so.
	{name: "ESC in DCS parameters", seq: "\x1bP1\x1b[2CX", want: "A  XZ"},
	{name: "private marker after parameters, SGR", seq: "\x1b[12<3mX", want: "AXZ"},
	{name: "stray ESC inside CSI", seq: "\x1b[31\x1b[2CX", want: "A  XZ"},
	{name: "CAN inside CSI", seq: "\x1b[31\x18mX", want: "AmXZ"},
	{name: "DEL inside CSI", seq: "\x1b[2\x7f1CX", want: "A" + strings.Repeat(" ", 21) + "XZ"},
	{name: "many intermediates", seq: "\x1b[1 !\"#mX", want: "AXZ"},
	{name: "ESC inside OSC", seq: "\x1b]0;ti\x1bxtleX", want: "AtleXZ"},
	{name: "OSC with UTF-8 and 0x9C", seq: "\x1b]0;✳ 本\x07X", want: "AXZ"},
	{name: "unknown CSI", seq: "\x1b[1;2'zX", want: "AXZ"},
	{name: "31 parameters", seq: "\x1b[" + strings.Repeat("1;", 30) + "1mX", want: "AXZ"},
	// A C1 control as a UTF-8 character went into a cell of width 0 (the
	// next character overwrote it, a cursor move left it there); tmux drops
	// it (README change 19).
	{name: "UTF-8 C1 controls", seq: "\u009d0;t\u009c\x1b[C2J\u009b\x1b[CX", want: "A0;t 2J XZ"},
	// In UTF-8 tmux ignores a raw C1 byte; x/ansi (and this copy) runs it.
	{name: "raw 8-bit CSI", seq: "\x9b31mX", want: "AXZ", tmux: "A31mXZ"},
}

func TestPatchMalformedIgnored(t *testing.T) {
	t.Parallel()
	for _, tc := range malformedCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, chunk := range []int{1, 2, 1 << 20} {
				e := NewEmulator(40, 3)
				go func() { _, _ = io.Copy(io.Discard, e) }()
				in := "A" + tc.seq + "Z"
				for p := in; len(p) > 0; {
					n := min(chunk, len(p))
					_, _ = e.WriteString(p[:n])
					p = p[n:]
				}
				if got := plainRows(e)[0]; got != tc.want {
					t.Errorf("chunk %d: %q shows %q, want %q", chunk, in, got, tc.want)
				}
				_ = e.Close()
			}
		})
	}
}

// The same cases in a real tmux, one per row.
func TestTmuxMalformed(t *testing.T) {
	t.Parallel()
	var data strings.Builder
	for i, tc := range malformedCases {
		// CAN and ST end whatever the previous case left open.
		fmt.Fprintf(&data, "\x18\x1b\\\x1b[m\x1b[%d;1HA%sZ", i+1, tc.seq)
	}
	rows, _ := tmuxScreen(t, 40, len(malformedCases)+1, []byte(data.String()))
	for i, tc := range malformedCases {
		want := tc.want
		if tc.tmux != "" {
			want = tc.tmux
		}
		if got := rows[i]; got != want {
			t.Errorf("%s: tmux shows %q, the table says %q", tc.name, got, want)
		}
	}
}

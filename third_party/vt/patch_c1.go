package vt

import "unicode/utf8"

// PATCH(pullcept): README change 19.

// hasControl reports whether b holds a C0 control, DEL or a C1 control
// (U+0080 to U+009F), or a byte that is not part of a valid UTF-8
// character (a raw 0x9C is ST to a terminal not in UTF-8).
func hasControl(b []byte) bool {
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r < 0x20 || r >= 0x7F && r < 0xA0 || r == utf8.RuneError && n == 1 {
			return true
		}
		b = b[n:]
	}
	return false
}

package wire

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits on what a hello may declare. The room refuses a hello past them
// with an error frame (docs/decisions.md, "Room hardening").
const (
	// MaxNameRunes is the longest participant name, in characters (after
	// trimming spaces). It is seat.MaxNameRunes (the longest name an
	// account may have) and sidecar.MaxNameRunes (the longest name the
	// sidecar's instructions are sized for); a test keeps them equal.
	MaxNameRunes = 64
	// MaxAccountIDLen is the longest account_id, in bytes: seat's
	// MaxAccountIDLen (a test keeps them equal).
	MaxAccountIDLen = 64
)

// MaxLogText bounds one field of outside text (anything a socket peer
// chose) written to the app log.
const MaxLogText = 200

// Cut makes outside text safe to log or to echo: valid UTF-8 (a bad byte
// becomes U+FFFD), at most n bytes of it, then "…" and how many bytes were
// cut. The result is at most n+30 bytes.
func Cut(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	cut := max(n, 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d more bytes)", len(s)-cut)
}

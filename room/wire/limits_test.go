package wire_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"pullcept/room/wire"
	"pullcept/seat"
	"pullcept/sidecar"
)

// The room's hello limits are the accounts' and the sidecar's: a name the
// config accepts is never refused by the room, and the sidecar's
// instructions are sized for every name the room seats.
func TestLimitsMatchSeatAndSidecar(t *testing.T) {
	t.Parallel()
	// Compared as values: vet takes a comparison of constants for a typo.
	for _, tc := range []struct {
		what string
		got  []int // wire's, then the others'
	}{
		{"MaxNameRunes (wire, seat, sidecar)", []int{wire.MaxNameRunes, seat.MaxNameRunes, sidecar.MaxNameRunes}},
		{"MaxAccountIDLen (wire, seat)", []int{wire.MaxAccountIDLen, seat.MaxAccountIDLen}},
	} {
		for _, v := range tc.got[1:] {
			if v != tc.got[0] {
				t.Errorf("%s: %v differ", tc.what, tc.got)
			}
		}
	}
}

func TestCut(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdef", 3, "abc… (3 more bytes)"},
		{"éé", 3, "é… (2 more bytes)"}, // not inside a rune
		{"a\xffb", 10, "a\uFFFDb"},
		{"", 0, ""},
	} {
		if got := wire.Cut(tc.in, tc.n); got != tc.want || !utf8.ValidString(got) {
			t.Errorf("Cut(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
	if got := wire.Cut(strings.Repeat("\xff", 1<<20), wire.MaxLogText); len(got) > wire.MaxLogText+30 || !utf8.ValidString(got) {
		t.Errorf("a megabyte of bad bytes cut to %d bytes", len(got))
	}
}

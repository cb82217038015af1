package uv

// PATCH(pullcept): the keys table shared by every reader with the same
// flags (key_table.go, buildKeysTable).

import (
	"reflect"
	"strings"
	"testing"
)

// A terminal reader costs a few allocations, not a table of its own: a
// server builds one for every client that attaches.
func TestPullceptReaderSharesKeysTable(t *testing.T) {
	NewTerminalReader(strings.NewReader(""), "xterm-256color") // the first builds it
	allocs := testing.AllocsPerRun(20, func() {
		NewTerminalReader(strings.NewReader(""), "xterm-256color")
	})
	if allocs > 50 {
		t.Errorf("NewTerminalReader made %.0f allocations: the keys table is built again", allocs)
	}
	a := NewTerminalReader(strings.NewReader(""), "xterm-256color")
	b := NewTerminalReader(strings.NewReader(""), "linux")
	if reflect.ValueOf(a.table).Pointer() != reflect.ValueOf(b.table).Pointer() {
		t.Error("two readers with the same flags have tables of their own")
	}
}

// The shared table is the one a fresh build gives, for each set of flags,
// and a table with terminfo keys is still built for its term.
func TestPullceptSharedKeysTableIsFresh(t *testing.T) {
	for _, flags := range []LegacyKeyEncoding{0, flagCtrlAt | flagCtrlI, flagBackspace | flagFind | flagSelect} {
		if got, want := buildKeysTable(flags, "xterm", false), newKeysTable(flags, "xterm", false); !reflect.DeepEqual(got, want) {
			t.Errorf("flags %#x: the shared table differs from a fresh build", flags)
		}
	}
	x, y := buildKeysTable(0, "xterm-256color", true), buildKeysTable(0, "xterm-256color", true)
	if reflect.ValueOf(x).Pointer() == reflect.ValueOf(y).Pointer() {
		t.Error("a table with terminfo keys is shared")
	}
	if !reflect.DeepEqual(x, newKeysTable(0, "xterm-256color", true)) {
		t.Error("a table with terminfo keys differs from a fresh build")
	}
}

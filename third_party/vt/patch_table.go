package vt

import (
	"sync"

	"github.com/charmbracelet/x/ansi/parser"
)

// PATCH(pullcept): the emulator's parser reads its own transition table:
// x/ansi's default with the rules of utf8_strings.go (README change 6) and
// patch_parser.go (change 9). They used to be added to x/ansi's global
// parser.Table at init, which changed every x/ansi parser in the process and
// the functions reading that table (ansi.StringWidth, ansi.Strip,
// ansi.Truncate, the wrapping functions: a TUI's layout), not just this
// emulator's (README change 12). Built on first use and shared read-only by
// every emulator.
var parserTable = sync.OnceValue(func() parser.TransitionTable {
	t := parser.GenerateTransitionTable()
	addUTF8StringRules(t)
	addMalformedRules(t)
	return t
})

package vt

import "github.com/charmbracelet/x/ansi/parser"

// PATCH(pullcept): in UTF-8 the byte 0x9C is inside characters such as ✳
// (E2 9C B3) and 本 (E6 9C AC). x/ansi's transition table ends OSC and DCS
// strings at a raw 0x9C (the 8-bit ST), so Claude Code's title
// "ESC]0;✳ Claude Code BEL" was cut and " Claude Code" printed on the
// screen. xterm in UTF-8 mode and tmux take the byte as data; so does this.
// The rule goes into the emulator's own table (parserTable, patch_table.go),
// not x/ansi's global one.
func addUTF8StringRules(t parser.TransitionTable) {
	t.AddOne(0x9C, parser.OscStringState, parser.PutAction, parser.OscStringState)
	t.AddOne(0x9C, parser.DcsStringState, parser.PutAction, parser.DcsStringState)
}

package vt

import (
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
)

// PATCH(pullcept): malformed sequences are ignored, not printed (README
// section 9). The rules go into the emulator's own table (parserTable,
// patch_table.go), not x/ansi's global one.

// csiIgnoreState is vt100.net's "CSI ignore": a CSI gone wrong is consumed
// up to its final byte and not dispatched. x/ansi has no such state; its
// table has room for a 16th (TransitionStateMask is 15).
const csiIgnoreState parser.State = parser.Utf8State + 1

// maxCsiParams is where the parser's parameter slots run out: a list that
// long may have lost parameters (x/ansi drops the 32nd and later), so the
// sequence is not trusted. tmux ignores lists over 24.
const maxCsiParams = parser.MaxParamsSize - 1

func addMalformedRules(t parser.TransitionTable) {
	if int(csiIgnoreState) < len(parser.StateNames) {
		panic("vt: x/ansi now has a parser state numbered like csiIgnoreState")
	}

	// CSI ignore: C0 still executes, ESC/CAN/SUB abort as anywhere, the
	// final byte ends it silently.
	s := csiIgnoreState
	t.AddRange(0x00, 0x17, s, parser.ExecuteAction, s)
	t.AddOne(0x19, s, parser.ExecuteAction, s)
	t.AddRange(0x1C, 0x1F, s, parser.ExecuteAction, s)
	t.AddMany([]byte{0x18, 0x1A}, s, parser.ExecuteAction, parser.GroundState)
	t.AddOne(0x1B, s, parser.ClearAction, parser.EscapeState)
	t.AddRange(0x20, 0x3F, s, parser.IgnoreAction, s)
	t.AddRange(0x40, 0x7E, s, parser.IgnoreAction, parser.GroundState)
	t.AddRange(0x7F, 0xFF, s, parser.IgnoreAction, s)

	// A parameter byte after an intermediate, and a private marker after
	// parameters, make the CSI invalid (x/ansi went to ground and printed
	// the rest, or dispatched it).
	t.AddRange(0x30, 0x3F, parser.CsiIntermediateState, parser.IgnoreAction, s)
	t.AddRange(0x3C, 0x3F, parser.CsiParamState, parser.IgnoreAction, s)

	// Bytes 0x80-0xFF inside a sequence's header are ignored, as tmux
	// does: x/ansi let a UTF-8 lead byte abort the CSI and print, and ran a
	// raw C1 byte (0x9C inside a CSI went to ground, the rest printed).
	for _, st := range []parser.State{
		parser.CsiEntryState, parser.CsiParamState, parser.CsiIntermediateState,
		parser.EscapeState, parser.EscapeIntermediateState,
		parser.DcsEntryState, parser.DcsParamState, parser.DcsIntermediateState,
	} {
		t.AddRange(0x80, 0xFF, st, parser.IgnoreAction, st)
	}

	// ESC inside a DCS header aborts it like anywhere else; x/ansi put it
	// in the string, so "ESC P ESC \" swallowed everything up to the next
	// ESC.
	for _, st := range []parser.State{parser.DcsEntryState, parser.DcsParamState, parser.DcsIntermediateState} {
		t.AddOne(0x1B, st, parser.ClearAction, parser.EscapeState)
	}

	// SOS, PM and APC strings keep UTF-8 (as OSC and DCS already do, and
	// utf8_strings.go for 0x9C): a lead byte left the string and printed it.
	for _, st := range []parser.State{parser.SosStringState, parser.PmStringState, parser.ApcStringState} {
		t.AddRange(0x80, 0xFF, st, parser.PutAction, st)
	}
}

// csiMalformed reports a CSI whose parameters the parser could not hold:
// a value over 2^31-1 (x/ansi keeps 31 bits, and the rest set the
// sub-parameter flag) or a list that filled every slot. tmux ignores both.
func csiMalformed(params ansi.Params) bool {
	if len(params) >= maxCsiParams {
		return true
	}
	for _, p := range params {
		v := int(p)
		if v&parser.HasMoreFlag == parser.HasMoreFlag {
			continue // a sub-parameter: the flag fills the high bits
		}
		if v < 0 || v > parser.ParamMask {
			return true
		}
	}
	return false
}

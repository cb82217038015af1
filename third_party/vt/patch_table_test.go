package vt

import (
	"bytes"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
)

// TestPatchParserTableIsLocal: the emulator's rules (changes 6 and 9) reach
// its own parser and no other. Fails with the rules added to parser.Table at
// init (the table differs from x/ansi's default, and a plain x/ansi parser
// keeps the 0x9C inside ✳ in its OSC string).
func TestPatchParserTableIsLocal(t *testing.T) {
	e := NewEmulator(20, 2)
	_, _ = e.Write([]byte("\x1b]0;\u2733 x\x07\x1b[5?3CA"))
	if row := plainRows(e)[0]; row != "A" {
		t.Errorf("emulator row 0 = %q, want %q (its rules apply)", row, "A")
	}

	if !bytes.Equal(parser.Table, parser.GenerateTransitionTable()) {
		t.Error("x/ansi's global parser.Table is not its default: this package changed it")
	}
	if len(parser.StateNames) != int(parser.Utf8State)+1 {
		t.Errorf("parser.StateNames has %d names, x/ansi defines %d", len(parser.StateNames), parser.Utf8State+1)
	}
	var osc []string
	p := ansi.NewParser()
	p.SetHandler(ansi.Handler{HandleOsc: func(_ int, data []byte) { osc = append(osc, string(data)) }})
	p.Parse([]byte("\x1b]0;\u2733 x\x07"))
	if len(osc) != 1 || osc[0] != "0;\xe2" {
		t.Errorf("a plain x/ansi parser read OSC %q, want x/ansi's default cut at 0x9C", osc)
	}
}

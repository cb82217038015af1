package ansi

// PATCH(pullcept): tests for Parser.SetTransitionTable (README.md).

import (
	"bytes"
	"testing"

	"github.com/charmbracelet/x/ansi/parser"
)

// oscData parses in with p and returns the data of the OSC strings it
// dispatched.
func oscData(p *Parser, in string) []string {
	var got []string
	p.SetHandler(Handler{HandleOsc: func(cmd int, data []byte) {
		got = append(got, string(data))
	}})
	p.Parse([]byte(in))
	return got
}

// A table where the raw byte 0x9C (the 8-bit ST, but also inside UTF-8
// characters such as ✳, E2 9C B3) is data in an OSC string.
func utf8OscTable() parser.TransitionTable {
	t := parser.GenerateTransitionTable()
	t.AddOne(0x9C, parser.OscStringState, parser.PutAction, parser.OscStringState)
	return t
}

func TestSetTransitionTableIsPerParser(t *testing.T) {
	before := bytes.Clone(parser.Table)
	const title = "\x1b]0;\u2733 title\x07"

	own := NewParser()
	own.SetTransitionTable(utf8OscTable())
	if got := oscData(own, title); len(got) != 1 || got[0] != "0;\u2733 title" {
		t.Errorf("parser with its own table: OSC data %q, want the whole title", got)
	}

	// Another parser, the package's table and the functions that read it
	// are unchanged: 0x9C still ends the OSC there.
	def := NewParser()
	if got := oscData(def, title); len(got) != 1 || got[0] != "0;\xe2" {
		t.Errorf("default parser: OSC data %q, want it cut at 0x9C", got)
	}
	if !bytes.Equal(parser.Table, before) {
		t.Error("SetTransitionTable changed parser.Table")
	}

	// nil goes back to the package's table.
	own.SetTransitionTable(nil)
	if got := oscData(own, title); len(got) != 1 || got[0] != "0;\xe2" {
		t.Errorf("after SetTransitionTable(nil): OSC data %q, want the default cut", got)
	}
}

func TestPutParserForgetsTable(t *testing.T) {
	p := GetParser()
	p.SetTransitionTable(utf8OscTable())
	PutParser(p)
	for range 8 { // the pool may hand out another parser; none has the table
		q := GetParser()
		if q.table != nil {
			t.Fatal("a pooled parser kept the table of its previous user")
		}
		defer PutParser(q)
	}
}

func TestStateNameOfAnOwnState(t *testing.T) {
	const extra = parser.Utf8State + 1 // the last named state is Utf8State
	tab := parser.GenerateTransitionTable()
	tab.AddOne('!', parser.GroundState, parser.IgnoreAction, extra)
	p := NewParser()
	p.SetTransitionTable(tab)
	p.Advance('!')
	if p.State() != extra || p.StateName() != "State15" {
		t.Errorf("state %d %q, want %d \"State15\"", p.State(), p.StateName(), extra)
	}
}

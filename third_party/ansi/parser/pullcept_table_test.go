package parser

// PATCH(pullcept): tests of the transition table kept as data (table.go,
// made by ../gen.go) instead of built in init.

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// table.go is GenerateTransitionTable's table: run "go generate" in the
// ansi folder when this fails.
func TestTableIsGenerated(t *testing.T) {
	want := GenerateTransitionTable()
	if len(Table) != len(want) {
		t.Fatalf("len(Table) = %d, GenerateTransitionTable has %d entries: regenerate table.go (go generate in the ansi folder)", len(Table), len(want))
	}
	for i := range want {
		if Table[i] != want[i] {
			t.Fatalf("Table[%#x] = %#02x, GenerateTransitionTable gives %#02x: regenerate table.go (go generate in the ansi folder)", i, Table[i], want[i])
		}
	}
}

// No program pays for the table at start-up: the package's initialisation
// allocates nothing (upstream built the table there: 3 allocations, 4 KB,
// about 0.05 ms). Checked in a fresh process, this test binary run again
// with GODEBUG=inittrace=1 and no test to run.
func TestTableNotBuiltAtInit(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("fresh process: %v\n%s", err, stderr.Bytes())
	}
	if !bytes.Contains(stderr.Bytes(), []byte("init runtime @")) {
		t.Fatalf("no GODEBUG=inittrace=1 output:\n%s", stderr.Bytes())
	}
	// This package's line, printed only when its initialisation does any
	// work: "init PKG @0.51 ms, 0.010 ms clock, 1392 bytes, 14 allocs". (A
	// regexp at package level would be compiled in this test binary's init.)
	initLine := regexp.MustCompile(`(?m)^init github\.com/charmbracelet/x/ansi/parser @\S+ \S+, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)
	if m := initLine.FindSubmatch(stderr.Bytes()); m != nil {
		if n, _ := strconv.Atoi(string(m[2])); n > 0 {
			t.Errorf("the package's initialisation allocates %s times (%s bytes): the transition table is built at start-up again", m[2], m[1])
		}
	}
}

// The table is still a variable a program may read and change.
func TestTableIsWritable(t *testing.T) {
	old := Table[0x41]
	Table.AddOne(0x41, GroundState, ExecuteAction, GroundState)
	defer func() { Table[0x41] = old }()
	if s, a := Table.Transition(GroundState, 0x41); s != GroundState || a != ExecuteAction {
		t.Errorf("after AddOne: %s %s", StateNames[s], ActionNames[a])
	}
}

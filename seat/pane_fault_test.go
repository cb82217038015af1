package seat

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// An emulator that panics on some output must not end the server: feed
// recovers, resets the pane's screen and returns the fault.
func TestEmulatorPanicIsRecoveredAndTheScreenReset(t *testing.T) {
	p := startPane(t, PaneSpec{Argv: []string{"sh", "-c", "printf before; read x"}})
	waitScreen(t, p, "before")
	var wrote []string
	write := func(b []byte) {
		wrote = append(wrote, string(b))
		if len(wrote) == 1 {
			panic("boom")
		}
		_, _ = p.emu.Write(b)
	}
	p.emuMu.Lock()
	p.written++ // as the reader does before feeding: the render cache is stale
	fault := p.feed(write, []byte("hostile"))
	p.emuMu.Unlock()
	if fault == nil || !strings.Contains(fault.Error(), "boom") {
		t.Fatalf("fault = %v, want the panic's value", fault)
	}
	if len(wrote) != 2 || wrote[1] != "\x1bc" {
		t.Fatalf("writes after the panic = %q, want the reset (RIS)", wrote)
	}
	if s := ansi.Strip(p.Render()); strings.Contains(s, "before") {
		t.Fatalf("screen not reset after the fault:\n%s", s)
	}
	// A reset that panics too is swallowed: feed still returns the fault.
	if fault := p.feed(func([]byte) { panic("again") }, []byte("x")); fault == nil {
		t.Fatal("no fault for a panic during the reset")
	}
}

// Output that drove the emulator past its screen (margins past the width
// and height, then inserts and deletes; the input a random search found
// panicking) leaves the pane running and drawing. With the emulator fixed
// OnFault is not called; without the fix it is, and either way nothing
// panics out of the reader.
func TestHostileMarginsLeaveThePaneRunning(t *testing.T) {
	faults := make(chan error, 16)
	hostile := "\x1b[90G\x1b[?1049l\x1b[129@\x1b[?6l\x1b[65Z\x1b[27T\x1b[105b\x1bM\x1b[?69h\x1b[4l\x1b[?69h\x1b[104;92r\x1bM\x1b[76P\x1b[?6h" +
		"\x1b[95G\x1b[4h\x1bD\x1b[33T\x1b[9'}\x1b[?1049l\x1b[46S\x1b[46;98sabc\x1b[103'}\x1b[20b\x1b[111M\x1b[1@\x1b[?6h\x1b[?6h\x1b[?6l" +
		"\x1b[5'~\x1b[4l\x1b[91@\x1bM\r\n\x1b[23'}\x1b[?69h\x1b[K"
	file := filepath.Join(t.TempDir(), "hostile")
	if err := os.WriteFile(file, []byte(hostile+"\x1bcfirst"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startPane(t, PaneSpec{Argv: []string{"sh", "-c", "cat \"$0\"; read x; printf alive; read y", file}, OnFault: func(err error) { faults <- err }})
	// Fixed, the chunk draws "first"; not fixed, the rest of the chunk is
	// lost with the fault. Then the pane must still take input and draw.
	deadline := time.After(testWait)
	for !strings.Contains(ansi.Strip(p.Render()), "first") {
		select {
		case <-p.Dirty():
			continue
		case err := <-faults:
			t.Logf("the emulator failed and was reset: %v", err)
		case <-deadline:
			t.Fatalf("neither the output nor a fault:\n%s", ansi.Strip(p.Render()))
		}
		break
	}
	if _, err := p.Write([]byte("\r")); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, p, "alive")
}

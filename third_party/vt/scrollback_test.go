package vt

import (
	"fmt"
	"strings"
	"testing"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

func TestScrollback(t *testing.T) {
	t.Run("basic push and len", func(t *testing.T) {
		sb := NewScrollback(100)
		if sb.Len() != 0 {
			t.Errorf("expected len 0, got %d", sb.Len())
		}
		if sb.MaxLines() != 100 {
			t.Errorf("expected max 100, got %d", sb.MaxLines())
		}
	})

	t.Run("scrollback in emulator", func(t *testing.T) {
		// Create a small terminal
		e := NewEmulator(10, 5)

		// Fill the screen with numbered lines and force scrolling
		for i := 0; i < 10; i++ {
			e.WriteString("\r\n") // Scroll up
		}

		// Check scrollback has captured some lines
		sbLen := e.ScrollbackLen()
		t.Logf("scrollback length after 10 newlines: %d", sbLen)

		if sbLen == 0 {
			t.Error("expected scrollback to have captured lines, got 0")
		}
	})

	t.Run("scrollback with content", func(t *testing.T) {
		e := NewEmulator(20, 5)

		// Write content that will scroll
		for i := 0; i < 10; i++ {
			e.WriteString("line\r\n")
		}

		// Verify scrollback captured the scrolled content
		sb := e.Scrollback()
		if sb == nil {
			t.Fatal("scrollback is nil")
		}

		// Should have captured lines (at least 5, since screen is 5 tall and we wrote 10 lines)
		if sb.Len() < 5 {
			t.Errorf("expected at least 5 lines in scrollback, got %d", sb.Len())
		}
	})

	t.Run("scrollback max lines", func(t *testing.T) {
		sb := NewScrollback(5)

		// Push more lines than max
		for i := 0; i < 10; i++ {
			sb.Push(nil)
		}

		if sb.Len() != 5 {
			t.Errorf("expected len 5 after overflow, got %d", sb.Len())
		}
	})

	t.Run("clear scrollback", func(t *testing.T) {
		e := NewEmulator(20, 5)

		// Write content that will scroll
		for i := 0; i < 10; i++ {
			e.WriteString("line\r\n")
		}

		// Verify we have scrollback
		if e.ScrollbackLen() == 0 {
			t.Error("expected scrollback before clear")
		}

		// Clear it
		e.ClearScrollback()

		if e.ScrollbackLen() != 0 {
			t.Errorf("expected empty scrollback after clear, got %d", e.ScrollbackLen())
		}
	})

	t.Run("alt screen does not have scrollback", func(t *testing.T) {
		e := NewEmulator(20, 5)

		// Write some content to main screen
		for i := 0; i < 10; i++ {
			e.WriteString("line\r\n")
		}

		mainScrollbackLen := e.ScrollbackLen()
		if mainScrollbackLen == 0 {
			t.Error("expected scrollback on main screen")
		}

		// Enter alt screen
		e.WriteString("\x1b[?1049h") // DECSET alt screen

		// Scrollback should still be from main screen
		if e.ScrollbackLen() != mainScrollbackLen {
			t.Errorf("expected scrollback len %d in alt screen, got %d",
				mainScrollbackLen, e.ScrollbackLen())
		}

		// Write to alt screen - should not affect main scrollback
		for i := 0; i < 10; i++ {
			e.WriteString("alt\r\n")
		}

		// Main screen scrollback should be unchanged
		if e.ScrollbackLen() != mainScrollbackLen {
			t.Errorf("expected scrollback len %d after alt screen writes, got %d",
				mainScrollbackLen, e.ScrollbackLen())
		}
	})

	t.Run("ED 2 saves to scrollback", func(t *testing.T) {
		e := NewEmulator(20, 5)

		// Write some content (not enough to scroll)
		e.WriteString("line 1\r\n")
		e.WriteString("line 2\r\n")
		e.WriteString("line 3\r\n")

		// Should have no scrollback yet (didn't scroll)
		initialLen := e.ScrollbackLen()

		// Clear screen with ED 2 (ESC[2J)
		e.WriteString("\x1b[2J")

		// Should have saved lines to scrollback
		newLen := e.ScrollbackLen()
		if newLen <= initialLen {
			t.Errorf("expected scrollback to grow after ED 2, was %d now %d", initialLen, newLen)
		}
		t.Logf("scrollback after ED 2: %d lines", newLen)
	})

	t.Run("ED 3 clears scrollback", func(t *testing.T) {
		e := NewEmulator(20, 5)

		// Write content that will scroll
		for i := 0; i < 10; i++ {
			e.WriteString("line\r\n")
		}

		// Verify we have scrollback
		if e.ScrollbackLen() == 0 {
			t.Error("expected scrollback before ED 3")
		}

		// ED 3 (ESC[3J) should clear scrollback
		e.WriteString("\x1b[3J")

		if e.ScrollbackLen() != 0 {
			t.Errorf("expected empty scrollback after ED 3, got %d", e.ScrollbackLen())
		}
	})
}

// numbered is a line whose text is n, in a colour that changes with n.
func numbered(n int) uv.Line {
	return cells(fmt.Sprintf("line %d", n), uv.Style{Fg: ansi.IndexedColor(n % 256)}, uv.Link{})
}

// wantNumbered fails unless sb holds lines first..first+Len()-1, in order.
func wantNumbered(t *testing.T, sb *Scrollback, first, n int) {
	t.Helper()
	if sb.Len() != n {
		t.Fatalf("len = %d, want %d", sb.Len(), n)
	}
	lines := sb.Lines()
	for i := range n {
		sameCells(t, fmt.Sprintf("Line(%d)", i), sb.Line(i), numbered(first+i))
		sameCells(t, fmt.Sprintf("Lines()[%d]", i), lines[i], numbered(first+i))
	}
}

// The limit, the order (oldest first) and SetMaxLines (shrinking keeps the
// newest, growing keeps all) hold whether or not the ring has wrapped.
func TestScrollbackLimitAndOrder(t *testing.T) {
	t.Parallel()
	sb := NewScrollback(5)
	for i := range 3 {
		sb.Push(numbered(i))
	}
	wantNumbered(t, sb, 0, 3)
	for i := 3; i < 12; i++ { // wraps: the oldest go
		sb.Push(numbered(i))
	}
	wantNumbered(t, sb, 7, 5)
	sb.SetMaxLines(3) // wrapped ring shrinks to the newest 3
	wantNumbered(t, sb, 9, 3)
	sb.Push(numbered(12))
	wantNumbered(t, sb, 10, 3)
	sb.SetMaxLines(6) // grows: keeps what it has, then fills
	for i := 13; i < 20; i++ {
		sb.Push(numbered(i))
	}
	wantNumbered(t, sb, 14, 6)
	if sb.MaxLines() != 6 {
		t.Fatalf("MaxLines = %d, want 6", sb.MaxLines())
	}
	sb.Clear()
	wantNumbered(t, sb, 0, 0)
	sb.Push(numbered(40))
	wantNumbered(t, sb, 40, 1)
	if sb.Line(-1) != nil || sb.Line(1) != nil || sb.CellAt(0, 1) != nil || sb.CellAt(-1, 0) != nil {
		t.Fatal("out-of-range reads are not nil")
	}
	var none *Scrollback
	none.Push(numbered(1))
	if none.Len() != 0 || none.Line(0) != nil || none.Lines() != nil || none.CellAt(0, 0) != nil {
		t.Fatal("a nil scrollback is not empty")
	}
}

// Fix 3b: pushing onto a full scrollback does not move the lines it keeps
// (upstream's slices.Delete moved all of them down one place on every push)
// and, with the lines encoded into shared chunks, allocates nothing
// (upstream cloned each line's cells: one allocation of 112 bytes a cell).
func TestPatchScrollbackPushDoesNotShift(t *testing.T) { // not parallel: AllocsPerRun
	const size = 1000
	sb := NewScrollback(size)
	for i := range size {
		sb.Push(numbered(i))
	}
	table := &sb.ring[0]
	line := numbered(7)
	if n := testing.AllocsPerRun(2*size, func() { sb.Push(line) }); n != 0 {
		t.Errorf("a push onto a full scrollback makes %v allocations, want 0", n)
	}
	if &sb.ring[0] != table {
		t.Errorf("pushes onto a full scrollback moved its line table")
	}
	for i := range size {
		sb.Push(numbered(size + i))
	}
	wantNumbered(t, sb, size, size)
}

// Lines handed out are copies: changing one changes neither the scrollback
// nor a later read.
func TestScrollbackLinesAreCopies(t *testing.T) {
	t.Parallel()
	sb := NewScrollback(10)
	sb.Push(numbered(1))
	l := sb.Line(0)
	l[0].Content = "X"
	sb.CellAt(1, 0).Content = "Y"
	sameCells(t, "after changing a read line", sb.Line(0), numbered(1))
}

// Colours of types the encoding does not know are held in a side table
// only while a line uses them.
func TestScrollbackSideTableFreed(t *testing.T) {
	t.Parallel()
	sb := NewScrollback(3)
	for i := range 50 {
		odd := &oddColor{uint8(i), 0, 0}
		line := cells("odd", uv.Style{Fg: odd, Bg: odd}, uv.Link{})
		sb.Push(line)
		sameCells(t, "odd colours", sb.Line(sb.Len()-1), line)
	}
	if sb.ext.used != 3*2 || len(sb.ext.colors) > 4*2 {
		t.Errorf("side table: %d used, %d slots; want 6 used (3 lines × 2) and slots reused", sb.ext.used, len(sb.ext.colors))
	}
	sb.SetMaxLines(1)
	if sb.ext.used != 2 {
		t.Errorf("after SetMaxLines(1): %d used, want 2", sb.ext.used)
	}
	sb.Clear()
	if sb.ext.used != 0 {
		t.Errorf("after Clear: %d used, want 0", sb.ext.used)
	}
}

// Chunks go with their last line, also chunks of a line longer than the
// usual chunk, and lines read back whole.
func TestScrollbackFreesChunks(t *testing.T) {
	t.Parallel()
	sb := NewScrollback(100)
	text := cells(strings.Repeat("0123456789", 10), uv.Style{}, uv.Link{})
	for range 20000 {
		sb.Push(text)
	}
	// 100 lines of about 102 bytes fit in one chunk; the oldest may still
	// be in the one before it.
	if n := len(sb.chunks); n > 2 {
		t.Errorf("100 short lines hold %d chunks, want at most 2", n)
	}
	sameCells(t, "short line", sb.Line(99), text)

	sb = NewScrollback(3)
	long := cells(strings.Repeat("端末x", 3*arenaChunk/4), uv.Style{}, uv.Link{})
	for i := range 20 {
		sb.Push(long)
		sb.Push(numbered(i))
	}
	if n := len(sb.chunks); n > 4 {
		t.Errorf("3 lines hold %d chunks, want at most 4", n)
	}
	sameCells(t, "long line", sb.Line(1), long)
	sameCells(t, "after it", sb.Line(2), numbered(19))
}

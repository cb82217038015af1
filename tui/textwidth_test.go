package tui

import (
	"math/rand/v2"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// textWidth agrees with ansi.StringWidth on every string: ASCII with SGR
// (the fast path), and wide, combining, control and broken-escape text
// (the fallback).
func TestTextWidthIsStringWidth(t *testing.T) {
	t.Parallel()
	pieces := []string{"a", "Z", " ", "~", "\x1b[1m", "\x1b[38;2;1;2;3m", "\x1b[0m", "\x1b[", "\x1b[12", "\x1b]0;t\x07",
		"あ", "é", "e\u0301", "👍🏽", "\t", "\n", "\x7f", "\x1b", "\x1b[?25l", "\x1b[ q", "─", "▶"}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		s := ""
		for n := r.IntN(12); n > 0; n-- {
			s += pieces[r.IntN(len(pieces))]
		}
		if got, want := textWidth(s), ansi.StringWidth(s); got != want {
			t.Fatalf("textWidth(%q) = %d, ansi.StringWidth = %d", s, got, want)
		}
	}
}

func BenchmarkFitLine(b *testing.B) {
	line := "\x1b[2m12:00\x1b[0m \x1b[38;2;200;100;50;1mLin\x1b[0m → Master, a line of plain words to fit"
	for b.Loop() {
		fit(line, 80)
	}
}

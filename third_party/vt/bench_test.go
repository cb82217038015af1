package vt

import "testing"

// BenchmarkScrollMixed measures the parse rate of mixed coloured ASCII and
// Japanese output scrolling through an 80x24 screen whose 10,000-line
// scrollback is already full, the steady state of a long-running pane. Bytes
// go in 4 KiB writes, like PTY reads; "long lines" averages about 220 bytes
// a line, "short lines" about 50. internal/relbench runs the same
// benchmark against the released v0.1.0 (see README.md).
func BenchmarkScrollMixed(b *testing.B) {
	for _, in := range []struct {
		name         string
		lines, words int
	}{
		{"long lines", 5000, 30},
		{"short lines", 20000, 4},
	} {
		b.Run(in.name, func(b *testing.B) {
			data := benchInput(in.lines, in.words)
			e := NewEmulator(80, 24)
			for e.ScrollbackLen() < DefaultScrollbackSize {
				_, _ = e.Write(data)
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				for p := data; len(p) > 0; {
					n := min(4096, len(p))
					_, _ = e.Write(p[:n])
					p = p[n:]
				}
			}
		})
	}
}

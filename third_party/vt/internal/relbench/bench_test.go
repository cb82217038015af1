package vt

import (
	"testing"

	released "github.com/charmbracelet/x/vt"
)

// BenchmarkScrollMixed is ../../bench_test.go run against the released
// v0.1.0.
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
			e := released.NewEmulator(80, 24)
			for e.ScrollbackLen() < released.DefaultScrollbackSize {
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

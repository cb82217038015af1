package vt

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// paneBenchInput is the text of Pullcept's `bench/run.sh pane` (the
// generator of bench/pcbench/gen.go, n bytes or a little more), with the CR
// LF line ends a PTY turns its LF into: words of ASCII and Japanese (kana,
// kanji, half-width kana), most after a 16-colour, bright bold, 256-colour
// or true-colour foreground, a 256-colour background or a reset; lines from
// empty to a few hundred columns. With ja false, the Japanese words are
// ASCII ones too.
func paneBenchInput(n int, ja bool) []byte {
	asciiWords := []string{"terminal", "pane", "room", "the", "seat", "floor", "scrollback", "render", "cursor",
		"pullcept", "go", "build", "test", "ok", "fail", "main.go:42", "error:", "warning", "0x1f3a", "done", "…"}
	jaWords := []string{"日本語", "ターミナル", "画面", "部屋", "発言", "床", "トピック", "ログ", "を", "の", "に", "は",
		"表示します", "読み込み中", "完了", "エラー", "ファイル", "コーディング", "全角文字", "ｶﾀｶﾅ", "一二三四五六七八九十"}
	r := rand.New(rand.NewPCG(2026, 6))
	var b []byte
	for line := 0; len(b) < n; line++ {
		if line%500 == 0 {
			b = fmt.Appendf(b, "\x1b[1;36m==== section %d ====\x1b[0m", line/500)
		}
		words := r.IntN(40)
		if r.IntN(10) == 0 {
			words = 0
		}
		for i := range words {
			if i > 0 {
				b = append(b, ' ')
			}
			switch r.IntN(8) {
			case 0:
				b = fmt.Appendf(b, "\x1b[%dm", 30+r.IntN(8))
			case 1:
				b = fmt.Appendf(b, "\x1b[%d;1m", 90+r.IntN(8))
			case 2:
				b = fmt.Appendf(b, "\x1b[38;5;%dm", r.IntN(256))
			case 3:
				b = fmt.Appendf(b, "\x1b[38;2;%d;%d;%dm", r.IntN(256), r.IntN(256), r.IntN(256))
			case 4:
				b = fmt.Appendf(b, "\x1b[48;5;%dm", r.IntN(256))
			case 5:
				b = append(b, "\x1b[0m"...)
			}
			if r.IntN(2) == 0 && ja {
				b = append(b, jaWords[r.IntN(len(jaWords))]...)
			} else {
				b = append(b, asciiWords[r.IntN(len(asciiWords))]...)
			}
		}
		b = append(b, "\x1b[0m\r\n"...)
	}
	return b
}

// BenchmarkPaneMixed is the parse rate on the pane benchmark's text (see
// paneBenchInput): a 100x30 emulator whose 10,000-line scrollback is
// already full, 4 KiB writes (a PTY read). "ascii" is the same generator's
// shape with ASCII words only, the case the printable-ASCII run helps most.
func BenchmarkPaneMixed(b *testing.B) {
	for _, in := range []struct {
		name string
		data []byte
	}{
		{"mixed", paneBenchInput(2<<20, true)},
		{"ascii", paneBenchInput(2<<20, false)},
	} {
		b.Run(in.name, func(b *testing.B) {
			e := NewEmulator(100, 30)
			for e.ScrollbackLen() < DefaultScrollbackSize {
				_, _ = e.Write(in.data)
			}
			b.SetBytes(int64(len(in.data)))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				for p := in.data; len(p) > 0; {
					n := min(4096, len(p))
					_, _ = e.Write(p[:n])
					p = p[n:]
				}
			}
		})
	}
}

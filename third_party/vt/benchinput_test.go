package vt

// benchInput is shared, through a symbolic link, with internal/relbench,
// which measures the released v0.1.0 on the same bytes. Keep it free of
// anything but the standard library.

import (
	"fmt"
	"math/rand"
	"strings"
)

// benchInput returns lines of mixed output, as a build or a chat CLI prints
// it: ASCII and Japanese text, 16-, 256- and true-colour SGR, every line
// ending in CR LF. A line has 1 to maxWords words: with 30 many lines are
// longer than 80 columns and wrap, with 4 they are short, as in a log.
func benchInput(lines, maxWords int) []byte {
	rng := rand.New(rand.NewSource(42))
	words := []string{
		"build", "ok", "error:", "main.go:42:", "func", "return", "nil",
		"日本語", "テキスト", "端末", "エミュレータ", "の", "を", "表示",
		"確認しました", "折り返し", "スクロール", "、", "。", "🙂",
	}
	var b strings.Builder
	for i := range lines {
		fmt.Fprintf(&b, "\x1b[2m%05d\x1b[m ", i)
		n := 1 + rng.Intn(maxWords)
		for j := range n {
			w := words[rng.Intn(len(words))]
			switch rng.Intn(8) {
			case 0:
				fmt.Fprintf(&b, "\x1b[3%dm%s\x1b[39m", rng.Intn(8), w)
			case 1:
				fmt.Fprintf(&b, "\x1b[1;38;5;%dm%s\x1b[m", rng.Intn(256), w)
			case 2:
				fmt.Fprintf(&b, "\x1b[38;2;%d;%d;%dm%s\x1b[m", rng.Intn(256), rng.Intn(256), rng.Intn(256), w)
			default:
				b.WriteString(w)
			}
			if j%3 == 0 {
				b.WriteByte(' ')
			}
		}
		b.WriteString("\r\n")
	}
	return []byte(b.String())
}

package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// endMarker is what the pane command prints after the file. The file holds
// none of its characters (no capital letters, no "-"), so a renderer that skips cells equal to the last frame's still has
// to write the marker whole, and it can be looked for in a terminal's
// output stream.
const endMarker = "END-MARKER"

// mixedFile returns the file of mixed text (50 MB; scale.mixedSize), making
// it when it is not there (it is the same bytes every time: a fixed seed).
func mixedFile() (string, error) {
	mixedSize := scale.mixedSize
	path := filepath.Join(opts.work, fmt.Sprintf("mixed-%dmb.txt", mixedSize/1_000_000))
	if st, err := os.Stat(path); err == nil && st.Size() >= int64(mixedSize) && st.Size() < int64(mixedSize)+4096 {
		return path, nil
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return "", err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	n, err := writeMixed(w, mixedSize)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	fmt.Printf("  generated %s (%d bytes)\n", path, n)
	return path, os.Rename(tmp, path)
}

// Words of the text: ASCII, kana, kanji, a few with symbols.
var (
	asciiWords = []string{"terminal", "pane", "room", "the", "seat", "floor", "scrollback", "render", "cursor",
		"pullcept", "go", "build", "test", "ok", "fail", "main.go:42", "error:", "warning", "0x1f3a", "done", "…"}
	jaWords = []string{"日本語", "ターミナル", "画面", "部屋", "発言", "床", "トピック", "ログ", "を", "の", "に", "は",
		"表示します", "読み込み中", "完了", "エラー", "ファイル", "コーディング", "全角文字", "ｶﾀｶﾅ", "一二三四五六七八九十"}
)

// writeMixed writes lines of mixed text until at least size bytes, and
// returns how many it wrote. Lines vary from empty to a few hundred
// columns (wrapping in a 100-column pane), with 16-colour, bright, bold,
// 256-colour and truecolour SGR, foreground and background, and resets.
func writeMixed(w *bufio.Writer, size int) (int, error) {
	r := rand.New(rand.NewPCG(2026, 6))
	n := 0
	for line := 0; n < size; line++ {
		var b []byte
		if line%500 == 0 {
			b = fmt.Appendf(b, "\x1b[1;36m==== section %d ====\x1b[0m", line/500)
		}
		words := r.IntN(40)
		if r.IntN(10) == 0 {
			words = 0 // empty lines too
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
			if r.IntN(2) == 0 {
				b = append(b, jaWords[r.IntN(len(jaWords))]...)
			} else {
				b = append(b, asciiWords[r.IntN(len(asciiWords))]...)
			}
		}
		b = append(b, "\x1b[0m\n"...)
		m, err := w.Write(b)
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

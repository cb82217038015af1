package attachment

import (
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
)

// netHTTP is net/http's answer without its parameters.
func netHTTP(data []byte) string {
	t, _, _ := strings.Cut(http.DetectContentType(data), ";")
	return t
}

// sniffCorpus: every signature, cut short, with white space before it,
// in other case, and followed by text or binary bytes.
func sniffCorpus() [][]byte {
	var heads []string
	for _, h := range htmlSigs {
		heads = append(heads, h+">", h+" x", strings.ToLower(h)+">", " \n\t"+h+">", h+"x", h)
	}
	for _, s := range sniffSigs {
		heads = append(heads, s.pat, s.pat[:len(s.pat)/2], " "+s.pat, s.pat+"text", s.pat+"\x00\x01")
	}
	heads = append(heads, "", "plain text\n", "ünïcode テキスト", "tab\tand\x1b[31mescape", "\x00\x00\x00", "\x7f\x80\xff",
		"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp41isom", "\x00\x00\x00\x18ftypisom\x00\x00\x00\x00isomiso2",
		"\x00\x00\x00\x14ftypqt  \x00\x00\x00\x00mp4 ", "\x00\x00\x00\x13ftypmp42", strings.Repeat("a", 600)+"\x00")
	out := make([][]byte, len(heads))
	for i, h := range heads {
		out[i] = []byte(h)
	}
	return out
}

func TestSniffIsNetHTTP(t *testing.T) {
	corpus := sniffCorpus()
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 20000 { // signatures followed by random bytes, and random bytes alone
		b := []byte(nil)
		if rnd.IntN(3) > 0 {
			b = append(b, corpus[rnd.IntN(len(corpus))]...)
		}
		for n := rnd.IntN(40); n > 0; n-- {
			b = append(b, byte(rnd.IntN(256)))
		}
		corpus = append(corpus, b)
	}
	for _, c := range corpus {
		if got, want := sniff(c), netHTTP(c); got != want {
			t.Fatalf("sniff(%q) = %s, net/http says %s", c, got, want)
		}
	}
}

func FuzzSniffIsNetHTTP(f *testing.F) {
	for _, c := range sniffCorpus() {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, c []byte) {
		if got, want := sniff(c), netHTTP(c); got != want {
			t.Fatalf("sniff(%q) = %s, net/http says %s", c, got, want)
		}
	})
}

func TestTypeOfSniffsWithoutExtension(t *testing.T) {
	for name, head := range map[string]string{"shot": "\x89PNG\r\n\x1a\n....", "notes": "hello\n", "blob": "\x00\x01\x02"} {
		want := map[string]string{"shot": "image/png", "notes": "text/plain", "blob": "application/octet-stream"}[name]
		if got := TypeOf(name, []byte(head)); got != want {
			t.Errorf("TypeOf(%q) = %s, want %s", name, got, want)
		}
	}
}

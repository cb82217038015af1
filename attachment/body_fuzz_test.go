package attachment

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Any participant writes post bodies: Parse never panics, finds only
// absolute paths, and a body Body makes of them parses to the same paths.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"hi\n\n添付:\n/a/b.png", "添付:\n/x", "添付:\nrel", "a\n添付:\n/x", "\n\n添付:\n/x\n/y", "添付:", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		text, paths, ok := Parse(body)
		if !ok {
			return
		}
		if len(paths) == 0 {
			t.Fatalf("Parse(%q): ok with no paths", body)
		}
		for _, p := range paths {
			if !filepath.IsAbs(p) || strings.Contains(p, "\n") {
				t.Fatalf("Parse(%q): path %q", body, p)
			}
		}
		if _, again, ok := Parse(Body(text, paths)); !ok || !slices.Equal(again, paths) {
			t.Fatalf("Parse(Body(%q, %q)) lost the paths: %q %v", text, paths, again, ok)
		}
	})
}

package tui

import (
	"path/filepath"
	"testing"
)

// A paste is outside input: pastedPaths never panics, and what it takes
// for paths are absolute, one word each.
func FuzzPastedPaths(f *testing.F) {
	for _, s := range []string{`'/a/x y.png' "/b/q\"r.txt"`, `/a/x\ y.png /c`, "file:///a/x%20y.png\r\nfile://localhost/b", `~/doc.pdf`, "'/open", "file://host/a", "/a and more"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		paths, ok := pastedPaths(s, "/home/me")
		if !ok {
			return
		}
		if len(paths) == 0 {
			t.Fatalf("pastedPaths(%q): ok with no paths", s)
		}
		for _, p := range paths {
			if !filepath.IsAbs(p) {
				t.Fatalf("pastedPaths(%q): %q is not absolute", s, p)
			}
		}
	})
}

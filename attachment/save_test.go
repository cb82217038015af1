package attachment

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestSaveNumbersTakenNames(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "attachments", "topic")
	var got []string
	for i := range 3 {
		p, err := Save(dir, "image.png", strings.NewReader(fmt.Sprint("picture ", i)))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, filepath.Base(p))
		if !filepath.IsAbs(p) || filepath.Dir(p) != dir {
			t.Errorf("saved at %s, want an absolute path in %s", p, dir)
		}
	}
	if want := []string{"image.png", "image (2).png", "image (3).png"}; !slices.Equal(got, want) {
		t.Fatalf("names %q, want %q", got, want)
	}
	for i, n := range got {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil || string(b) != fmt.Sprint("picture ", i) {
			t.Errorf("%s holds %q (%v): a save replaced another", n, b, err)
		}
		if info, _ := os.Stat(filepath.Join(dir, n)); info.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", n, info.Mode().Perm())
		}
	}
	p, err := Save(dir, "memo @Lin.txt", strings.NewReader("x"))
	if err != nil || filepath.Base(p) != "memo _Lin.txt" {
		t.Fatalf("Save of memo @Lin.txt = %s, %v", p, err)
	}
}

// TestSaveConcurrent: saves of one name at once each get a name of their
// own and keep their own bytes (O_EXCL).
func TestSaveConcurrent(t *testing.T) {
	dir := t.TempDir()
	const n = 24
	paths := make([]string, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			p, err := Save(dir, "image.png", strings.NewReader(fmt.Sprint("copy ", i)))
			if err != nil {
				t.Error(err)
			}
			paths[i] = p
		})
	}
	close(start)
	wg.Wait()
	names := map[string]bool{}
	for i, p := range paths {
		names[filepath.Base(p)] = true
		b, err := os.ReadFile(p)
		if err != nil || string(b) != fmt.Sprint("copy ", i) {
			t.Errorf("save %d at %s holds %q (%v)", i, p, b, err)
		}
	}
	if len(names) != n {
		t.Fatalf("%d saves took %d names", n, len(names))
	}
	for k := 1; k <= n; k++ {
		if !names[Numbered("image.png", k)] {
			t.Errorf("%s not taken: the numbers have a gap", Numbered("image.png", k))
		}
	}
}

type failReader struct{}

func (failReader) Read([]byte) (int, error) { return 0, fmt.Errorf("disk on fire") }

func TestSaveFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	if _, err := Save(dir, "a.txt", failReader{}); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("err = %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("a failed save left %v", ents)
	}
}

func TestBodyAndParse(t *testing.T) {
	paths := []string{"/d/logs/main/attachments/t/image.png", "/d/logs/main/attachments/t/memo (2).txt"}
	for _, c := range []struct{ text, want, back string }{
		{"look at this", "look at this\n\n添付:\n" + paths[0] + "\n" + paths[1], "look at this"},
		{"two\nlines\n\n\n", "two\nlines\n\n添付:\n" + paths[0] + "\n" + paths[1], "two\nlines"},
		{"", "添付:\n" + paths[0] + "\n" + paths[1], ""},
		{"  \n ", "添付:\n" + paths[0] + "\n" + paths[1], ""},
	} {
		got := Body(c.text, paths)
		if got != c.want {
			t.Errorf("Body(%q) = %q, want %q", c.text, got, c.want)
		}
		text, ps, ok := Parse(got)
		if !ok || text != c.back || !slices.Equal(ps, paths) {
			t.Errorf("Parse(%q) = %q, %q, %v", got, text, ps, ok)
		}
	}
	if Body("plain", nil) != "plain" {
		t.Error("a body without attachments changed")
	}
	for _, body := range []string{
		"plain text",
		"text\n添付:\n/a/b",                  // no blank line before the block
		"text\n\n添付:",                      // no path
		"text\n\n添付:\n/a/b\nnot a path",    // a line after the paths
		"text\n\n添付:\nrelative/path",       // not absolute
		"text\n\n添付:\n/a/b\n",              // a trailing newline
		"添付:\n/a\n\n",                      // blank lines after
		"text\n\n添付:\n/a\n\n添付:\nrelative", // the last block is what counts
	} {
		if _, _, ok := Parse(body); ok {
			t.Errorf("Parse(%q) found a block", body)
		}
	}
	if text, ps, ok := Parse("a\n\n添付:\n/x\n\n添付:\n/y"); !ok || text != "a\n\n添付:\n/x" || !slices.Equal(ps, []string{"/y"}) {
		t.Errorf("the last block: %q %q %v", text, ps, ok)
	}
}

package topicstore

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// benchLines is the length of the topic the benchmarks read.
const benchLines = 1_000_000

// bench holds the 1,000,000-line topic, made once per test process.
var bench struct {
	once sync.Once
	root string
	s    *Store
	id   string
	size int64
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bench.root != "" {
		_ = os.RemoveAll(bench.root)
	}
	os.Exit(code)
}

// benchTopic returns a store holding a 1,000,000-line topic.
func benchTopic(b *testing.B) (*Store, string) {
	b.Helper()
	bench.once.Do(func() {
		bench.root, bench.err = os.MkdirTemp("", "topicstore-bench-")
		if bench.err != nil {
			return
		}
		bench.s, bench.err = Open(filepath.Join(bench.root, "logs", "main"))
		if bench.err != nil {
			return
		}
		bench.id = NewID()
		bench.size = writeTopic(b, bench.s.topicPath(bench.id), benchLines, 0, func(i int) string {
			return fmt.Sprintf("post number %d: a sentence or two of ordinary chat, about the length people type", i)
		})
	})
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	return bench.s, bench.id
}

// BenchmarkLastPage reads the last 50 posts of a 1,000,000-line topic.
func BenchmarkLastPage(b *testing.B) {
	s, id := benchTopic(b)
	for b.Loop() {
		page, err := s.Page(id, 50, "")
		if err != nil || len(page.Posts) != 50 {
			b.Fatalf("Page: %d posts, %v", len(page.Posts), err)
		}
	}
	b.ReportMetric(float64(bench.size)/(1<<20), "file-MiB")
}

// BenchmarkTailN50 runs `tail -n 50` on the same file, for comparison (it
// includes starting a process; it only prints the lines, parsing nothing).
func BenchmarkTailN50(b *testing.B) {
	tail, err := exec.LookPath("tail")
	if err != nil {
		b.Skip("tail not found")
	}
	s, id := benchTopic(b)
	path := s.topicPath(id)
	for b.Loop() {
		out, err := exec.Command(tail, "-n", "50", path).Output()
		if err != nil || len(out) == 0 {
			b.Fatalf("tail: %v", err)
		}
	}
}

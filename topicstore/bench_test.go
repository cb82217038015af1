package topicstore

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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

// appendRun appends n room-sized posts to topics topics, one goroutine per
// topic (a room appends under its own lock, so one room is one appender),
// and returns the time the appends took, the fsyncs made until the store
// was closed and each append's time. mode: "off" never syncs, "syncer" is the store's
// default, "fsync-each" syncs in every Append before it returns (a closed
// store), for reference.
func appendRun(b *testing.B, mode string, topics, n int) (took time.Duration, syncs int64, lat []time.Duration) {
	b.Helper()
	s, err := Open(filepath.Join(b.TempDir(), "logs", "main"))
	if err != nil {
		b.Fatal(err)
	}
	var count atomic.Int64
	real := s.sy.fsync
	s.sy.fsync = func(path string) error { count.Add(1); return real(path) }
	switch mode {
	case "off":
		s.sy.delay = 0
	case "fsync-each":
		_ = s.Close()
	}
	ids := make([]string, topics)
	for i := range ids {
		ids[i] = NewID()
	}
	body := strings.Repeat("a sentence or two of ordinary chat, ", 4)
	lats := make([][]time.Duration, topics)
	start := time.Now()
	var wg sync.WaitGroup
	for k, id := range ids {
		wg.Go(func() {
			lats[k] = make([]time.Duration, 0, n/topics)
			for i := range n / topics {
				p := Post{MessageID: NewID(), Speaker: "Lin", Account: "claude", Content: body, TS: "2026-12-01T09:58:00Z"}
				if i == 0 {
					p.Content = "first"
				}
				t0 := time.Now()
				if _, err := s.Append(id, p); err != nil {
					b.Error(err)
					return
				}
				lats[k] = append(lats[k], time.Since(t0))
			}
		})
	}
	wg.Wait()
	took = time.Since(start)
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	return took, count.Load(), slices.Concat(lats...)
}

// BenchmarkAppendSync measures appends per second without syncing, with
// the store's syncer, and with an fsync in every append, under the room's
// load: one room (one appender) and eight rooms at once, 20,000 appends as
// fast as they go (far above what a room says: the worst case for the
// syncer). ratio is syncer ÷ off (1 = the syncer costs appends nothing);
// p99 is the 99th percentile of one Append's time. Run:
//
//	go test -run XXX -bench AppendSync -benchtime 5x ./topicstore/
func BenchmarkAppendSync(b *testing.B) {
	const n = 20000
	for _, topics := range []int{1, 8} {
		b.Run(fmt.Sprintf("rooms=%d", topics), func(b *testing.B) {
			took := map[string]time.Duration{}
			syncs := map[string]int64{}
			lat := map[string][]time.Duration{}
			runs := 0
			for b.Loop() {
				for _, mode := range []string{"off", "syncer", "fsync-each"} {
					d, k, l := appendRun(b, mode, topics, n)
					took[mode] += d
					syncs[mode] += k
					lat[mode] = append(lat[mode], l...)
				}
				runs++
			}
			p99 := func(mode string) float64 {
				l := lat[mode]
				slices.Sort(l)
				return float64(l[len(l)*99/100].Microseconds())
			}
			rate := func(mode string) float64 { return float64(n*runs) / took[mode].Seconds() }
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(rate("off"), "appends/s-off")
			b.ReportMetric(rate("syncer"), "appends/s-syncer")
			b.ReportMetric(rate("fsync-each"), "appends/s-fsync-each")
			b.ReportMetric(rate("syncer")/rate("off"), "ratio")
			b.ReportMetric(float64(syncs["syncer"])/float64(runs), "fsyncs/run-syncer")
			b.ReportMetric(p99("off"), "p99-µs-off")
			b.ReportMetric(p99("syncer"), "p99-µs-syncer")
			b.ReportMetric(float64(slices.Max(lat["off"]).Microseconds()), "max-µs-off")
			b.ReportMetric(float64(slices.Max(lat["syncer"]).Microseconds()), "max-µs-syncer")
		})
	}
}

// BenchmarkPageMiddle reads the 50 posts before the middle post of the
// 1,000,000-line topic: the search reads the newer half backwards, and the
// check that no newer post holds the id the page hands on reads it again.
func BenchmarkPageMiddle(b *testing.B) {
	s, id := benchTopic(b)
	before := fmt.Sprintf("m%d", benchLines/2)
	for b.Loop() {
		page, err := s.Page(id, 50, before)
		if err != nil || len(page.Posts) != 50 {
			b.Fatalf("Page: %d posts, %v", len(page.Posts), err)
		}
	}
}

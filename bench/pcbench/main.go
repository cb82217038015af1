// Command pcbench runs Pullcept's whole-program benchmarks, each next to a
// reference measured in the same run (tmux, tail, the raw room socket), and
// prints the figures, their ratio and a summary table. bench/run.sh builds
// it and pullcept and calls it; see bench/README.md.
//
// It measures processes from the outside: wall time, CPU time and resident
// size come from /proc/<pid>/stat and /proc/<pid>/status of the measured
// process itself (never its children: the commands in the panes are the
// same for both sides).
package main

import (
	"cmp"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"
)

// opts are the command line.
var opts struct {
	bin  string // the pullcept binary
	root string // the repository (for go test references)
	work string // scratch folder (bench/.out)
	runs int    // runs of each side for the pane benchmark
	tui  bool   // also the TUI path where there is one
}

// scale is how much work each benchmark does. -quick shrinks it so that the
// test suite can check that every benchmark still runs to its end
// (TestQuickRunsEveryBenchmark); its figures then measure nothing.
var scale = struct {
	mixedSize       int           // bytes of the pane benchmark's file
	idleWindow      time.Duration // how long idle CPU is measured
	echoSamples     int           // keys timed on each side, a run
	roundTrips      int           // say_to_room calls of one sidecar alone
	postsPerSidecar int           // posts of each of the 8 at once
	topicPosts      int           // posts of the topic benchmark's topic
	benchtime       []string      // -benchtime of the in-process references (nil: their own)
}{50_000_000, 30 * time.Second, 300, 1000, 250, 1_000_000, nil}

func quickScale() {
	scale.mixedSize = 2_000_000
	scale.idleWindow = 2 * time.Second
	scale.echoSamples = 20
	scale.roundTrips = 50
	scale.postsPerSidecar = 10
	scale.topicPosts = 20_000
	scale.benchtime = []string{"-benchtime", "1x"}
	opts.runs = 1
}

// row is one line of the summary table.
type row struct {
	bench, what, pc, ref, ratio string
}

var (
	summaryMu sync.Mutex
	summary   []row
)

// record adds a summary row and prints it.
func record(bench, what, pc, ref, ratio string) {
	summaryMu.Lock()
	summary = append(summary, row{bench, what, pc, ref, ratio})
	summaryMu.Unlock()
	fmt.Printf("  %-44s pullcept %-18s reference %-18s ratio %s\n", what, pc, ref, ratio)
}

// ratio is a/b as "N.N×" ("—" when b is zero).
func ratio(a, b float64) string {
	if b == 0 {
		return "—"
	}
	if a == 0 {
		return "0×"
	}
	r := a / b
	switch {
	case r >= 100:
		return fmt.Sprintf("%.0f×", r)
	case r >= 10:
		return fmt.Sprintf("%.1f×", r)
	default:
		return fmt.Sprintf("%.2f×", r)
	}
}

type benchmark struct {
	name string
	what string
	run  func() error
}

var benchmarks = []benchmark{
	{"pane", "pane throughput: cat of a 50 MB ANSI + Japanese file until the pane shows the end", benchPane},
	{"idle", "idle CPU over 30 s with 4 idle seats", benchIdle},
	{"echo", "key echo through the TUI (client + server), p50/p99", benchEcho},
	{"room", "say_to_room round trip and posts/s with 8 sidecars", benchRoom},
	{"topic", "last 50 posts of a 1,000,000-post topic", benchTopic},
	{"memory", "resident size with 8 seats of 10,000 scrollback lines", benchMemory},
}

func main() {
	flag.StringVar(&opts.bin, "bin", "bench/.out/pullcept", "the pullcept binary")
	flag.StringVar(&opts.root, "root", ".", "the repository root")
	flag.StringVar(&opts.work, "work", "bench/.out", "scratch folder")
	flag.IntVar(&opts.runs, "runs", 3, "paired runs of each side for pane, echo and memory (medians reported)")
	flag.BoolVar(&opts.tui, "tui", true, "also measure the TUI path (pane, idle)")
	quick := flag.Bool("quick", false, "little work and one run of each: checks that the benchmarks run, measures nothing")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: pcbench [flags] [name ...]\nnames:\n")
		for _, b := range benchmarks {
			fmt.Fprintf(os.Stderr, "  %-7s %s\n", b.name, b.what)
		}
		flag.PrintDefaults()
	}
	flag.Parse()
	if *quick {
		quickScale()
	}
	for _, p := range []*string{&opts.bin, &opts.root, &opts.work} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			fatal(err)
		}
		*p = abs
	}
	if err := os.MkdirAll(opts.work, 0o755); err != nil {
		fatal(err)
	}

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		fmt.Fprintln(os.Stderr, "\npcbench: interrupted; cleaning up")
		runCleanups()
		os.Exit(130)
	}()

	names := flag.Args()
	if len(names) == 0 || slices.Contains(names, "all") {
		names = nil
		for _, b := range benchmarks {
			names = append(names, b.name)
		}
	}
	var todo []benchmark
	for _, n := range names {
		i := slices.IndexFunc(benchmarks, func(b benchmark) bool { return b.name == n })
		if i < 0 {
			flag.Usage()
			fatal(fmt.Errorf("unknown benchmark %q", n))
		}
		todo = append(todo, benchmarks[i])
	}

	fmt.Printf("machine: %s, %d cores, %s; %s\n", cpuModel(), numCPU(), memTotal(), time.Now().Format(time.RFC1123))
	failed := 0
	for _, b := range todo {
		fmt.Printf("\n== %s: %s\n", b.name, b.what)
		start := time.Now()
		err := b.run()
		runCleanups()
		if err != nil {
			failed++
			fmt.Printf("  FAILED: %v\n", err)
			record(b.name, "(failed)", "—", "—", "—")
		}
		fmt.Printf("  (%s took %.0f s)\n", b.name, time.Since(start).Seconds())
	}
	printSummary()
	if failed > 0 {
		os.Exit(1)
	}
}

func printSummary() {
	fmt.Printf("\n== summary (ratio = pullcept ÷ reference; above 1 means pullcept takes more, except posts/s)\n\n")
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "bench\twhat\tpullcept\treference\tratio")
	for _, r := range summary {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.bench, r.what, r.pc, r.ref, r.ratio)
	}
	tw.Flush()
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "pcbench:", err)
	runCleanups()
	os.Exit(2)
}

// Cleanups run after each benchmark (and on interrupt), last first.
var (
	cleanMu  sync.Mutex
	cleanups []func()
)

func atCleanup(f func()) {
	cleanMu.Lock()
	cleanups = append(cleanups, f)
	cleanMu.Unlock()
}

func runCleanups() {
	cleanMu.Lock()
	fs := cleanups
	cleanups = nil
	cleanMu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
}

// tempHome makes a fresh PULLCEPT_HOME under the work folder with the given
// config.json (nil: none).
func tempHome(name string, config []byte) (string, error) {
	dir, err := os.MkdirTemp(opts.work, "home-"+name+"-")
	if err != nil {
		return "", err
	}
	atCleanup(func() { os.RemoveAll(dir) })
	if config != nil {
		if err := os.WriteFile(filepath.Join(dir, "config.json"), config, 0o600); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// cliAccounts is a config.json with one cli account per (id, command).
func cliAccounts(pairs ...string) []byte {
	var b strings.Builder
	b.WriteString(`{"accounts":[`)
	for i := 0; i+1 < len(pairs); i += 2 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":%q,"name":%q,"kind":"cli","command":%q}`, pairs[i], strings.ToUpper(pairs[i][:1])+pairs[i][1:], pairs[i+1])
	}
	b.WriteString("]}\n")
	return []byte(b.String())
}

// waitUntil calls f every interval until it reports done, fails, or the
// deadline passes.
func waitUntil(what string, timeout, interval time.Duration, f func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := f()
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not done after %s", what, timeout)
		}
		time.Sleep(interval)
	}
}

// percentile of sorted durations (p in 0..100).
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted)-1) * p / 100)
	return sorted[i]
}

// medianBy is the median of f over runs (the lower of the two middle ones
// for an even count, as percentile gives).
func medianBy[R any, V cmp.Ordered](runs []R, f func(R) V) V {
	v := make([]V, len(runs))
	for i, r := range runs {
		v[i] = f(r)
	}
	slices.Sort(v)
	return v[(len(v)-1)/2]
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return percentile(s, 50)
}

// fmtDur prints a duration with a unit fitting its size.
func fmtDur(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= 10*time.Millisecond:
		return fmt.Sprintf("%.0f ms", float64(d)/1e6)
	case d >= time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/1e6)
	default:
		return fmt.Sprintf("%.0f µs", float64(d)/1e3)
	}
}

// thousands writes n with commas: 1,000,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func fmtMiB(kb int64) string { return fmt.Sprintf("%.1f MiB", float64(kb)/1024) }

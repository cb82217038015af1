package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestQuickRunsEveryBenchmark runs `pcbench -quick` (every benchmark with
// little work, the real binaries, tmux as the reference) and checks that each
// one ran to its end: a benchmark that breaks when the program it drives
// changes (an answer worded differently, a key moved) fails here, not in the
// next person's `bench/run.sh`. It checks no figure.
func TestQuickRunsEveryBenchmark(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	if testing.Short() {
		t.Skip("-short")
	}
	dir := t.TempDir()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	// pullcept from the root's module, the driver from this one.
	for _, b := range []struct{ dir, out, pkg string }{{root, "pullcept", "."}, {filepath.Join(root, "bench"), "pcbench", "./pcbench"}} {
		build := exec.Command("go", "build", "-o", filepath.Join(dir, b.out), b.pkg)
		build.Dir = b.dir
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", b.out, err, out)
		}
	}
	work := filepath.Join(dir, "work")
	cmd := exec.Command(filepath.Join(dir, "pcbench"), "-quick", "-bin", filepath.Join(dir, "pullcept"), "-root", root, "-work", work)
	out, err := cmd.CombinedOutput()
	text := string(out)
	if err != nil || strings.Contains(text, "FAILED") {
		t.Fatalf("pcbench -quick: %v\n%s", err, text)
	}
	_, table, ok := strings.Cut(text, "== summary")
	if !ok {
		t.Fatalf("no summary table:\n%s", text)
	}
	for _, b := range benchmarks {
		if !strings.Contains(text, "\n== "+b.name+": ") {
			t.Errorf("benchmark %s did not run", b.name)
		}
		if !strings.Contains(table, "\n"+b.name+" ") {
			t.Errorf("benchmark %s has no row in the summary", b.name)
		}
	}
	// Every home and server it made is gone.
	left, _ := filepath.Glob(filepath.Join(work, "home-*"))
	if len(left) > 0 {
		t.Errorf("homes left behind: %v", left)
	}
}

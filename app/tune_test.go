package app

import (
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

// TestTuneServerRuntime runs in a fresh process (this test binary again),
// since it changes process-wide settings: one processor and a GC target of
// ServerGCPercent, unless GOMAXPROCS or GOGC say otherwise.
func TestTuneServerRuntime(t *testing.T) {
	if os.Getenv("PULLCEPT_TUNE_CHECK") != "" {
		TuneServerRuntime()
		procs, gc := runtime.GOMAXPROCS(0), debug.SetGCPercent(-1)
		want := os.Getenv("PULLCEPT_TUNE_CHECK")
		if got := strconv.Itoa(procs) + " " + strconv.Itoa(gc); got != want {
			t.Errorf("GOMAXPROCS, GC percent = %s, want %s", got, want)
		}
		return
	}
	t.Parallel()
	for _, c := range []struct {
		env  []string
		want string
	}{
		{nil, "1 50"},
		{[]string{"GOMAXPROCS=2", "GOGC=100"}, "2 100"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestTuneServerRuntime$", "-test.count=1", "-test.v")
		env := []string{"PULLCEPT_TUNE_CHECK=" + c.want}
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "GOMAXPROCS=") && !strings.HasPrefix(kv, "GOGC=") {
				env = append(env, kv)
			}
		}
		cmd.Env = append(env, c.env...)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS") {
			t.Errorf("env %v: %v\n%s", c.env, err, out)
		}
	}
}

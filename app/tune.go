package app

// The server process's runtime settings (docs/decisions.md, "The server's
// memory between collections").

import (
	"os"
	"runtime"
	"runtime/debug"
)

// ServerGCPercent is the garbage collector's target for the server
// process: the heap may grow to 1.5 times what is live between collections
// instead of Go's default 2 times. A server's live heap is mostly the panes'
// scrollback, which holds no pointers to follow, so a collection is cheap
// (under 1 % of the CPU of a 50 MB cat in a pane), while the default's
// headroom was a third of the server's peak resident size during that cat
// (docs/performance.md "Memory").
const ServerGCPercent = 50

// TuneServerRuntime sets the server process's garbage-collector target
// (ServerGCPercent) unless the person set GOGC, and runs its goroutines on
// one processor, as tmux's server is one thread, unless the person set
// GOMAXPROCS. A key's echo passes through half a dozen goroutines; with two
// processors each hand-off could wake a thread on the other CPU (on a VM an
// idle virtual CPU is slow to wake): one processor put the server on a CPU
// 12 times a key instead of 19 and its echo's median from 1.63x to 1.47x
// tmux's, while a 50 MB cat stayed at 0.4-0.7x tmux's time (docs/performance.md
// "Key echo").
func TuneServerRuntime() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(ServerGCPercent)
	}
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
}

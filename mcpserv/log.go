package mcpserv

import (
	"sync"
	"time"
)

// LogLines is how many lines a server's log keeps, across its restarts.
const LogLines = 1000

// Line is one line of a server's log.
type Line struct {
	At time.Time
	// App is true for the app's own line about the server (its start,
	// an event posted nowhere, how it ended); false for its stderr.
	App  bool
	Text string
}

// ring keeps the last LogLines lines.
type ring struct {
	mu    sync.Mutex
	lines []Line
	next  int
	full  bool
}

func (r *ring) add(l Line) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lines == nil {
		r.lines = make([]Line, 0, 64)
	}
	if !r.full {
		r.lines = append(r.lines, l)
		if len(r.lines) == LogLines {
			r.full = true
		}
		return
	}
	r.lines[r.next] = l
	r.next = (r.next + 1) % LogLines
}

// snapshot is the lines, oldest first.
func (r *ring) snapshot() []Line {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.full {
		return append([]Line(nil), r.lines...)
	}
	out := make([]Line, 0, LogLines)
	out = append(out, r.lines[r.next:]...)
	return append(out, r.lines[:r.next]...)
}

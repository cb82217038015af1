package seat

// Sleeping seats (issue 35; docs/decisions.md "Sleeping seats"): an idle
// seat whose conversation can be resumed natively is stopped with its
// normal stop sequence, its resume record kept, and started again (resumed)
// when a post needs it. The manager says whether a seat may sleep and
// stops it; the app keeps the sleeping seat in the room (app/hibernate.go).

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ErrAwake says why a seat may not sleep now.
var ErrAwake = errors.New("may not sleep")

// Sleepable says whether account's seat in topic may sleep now, having
// been idle for idle: it runs, its conversation can be resumed natively
// (ResumeCheck), its CLI is ready (or stopped at its usage limit: it
// sleeps until the reset) with no turn, prompt, tool or subagent, no
// background work or scheduled wake-up its last Stop reported, and has
// been so, with no key typed into its pane, for idle; it holds no post
// and the person has no unsent keys in it. A nil error: it may.
func (m *Manager) Sleepable(topic, account string, idle time.Duration) error {
	if _, err := m.ResumeCheck(topic, account); err != nil {
		return fmt.Errorf("%w: %v", ErrAwake, err)
	}
	s, ok := m.Seat(topic, account)
	if !ok {
		return fmt.Errorf("%w: no seat", ErrAwake)
	}
	snap := s.Activity.Snapshot()
	if snap.State != ActReady && snap.State != ActLimited {
		return fmt.Errorf("%w: it is %s", ErrAwake, snap.State)
	}
	if snap.Background > 0 {
		// Its end or its schedule starts a turn; a stop would end it.
		return fmt.Errorf("%w: its CLI reports %d background task(s) or scheduled wake-up(s)", ErrAwake, snap.Background)
	}
	p := s.Terminal()
	if p == nil {
		return fmt.Errorf("%w: no terminal", ErrAwake)
	}
	if p.Pending() {
		return fmt.Errorf("%w: unsent keys in its pane", ErrAwake)
	}
	if m.o.Typist != nil {
		if held, _ := m.o.Typist.HeldReason(topic, account); held > 0 {
			return fmt.Errorf("%w: it holds %s", ErrAwake, posts(held))
		}
	}
	if n := m.marks.Awaiting(topic, account); n > 0 {
		return fmt.Errorf("%w: %d typed post(s) not yet taken by its CLI", ErrAwake, n)
	}
	last := snap.Since
	if t := p.LastInput(); t.After(last) {
		last = t
	}
	if d := time.Since(last); d < idle {
		return fmt.Errorf("%w: idle for %s only", ErrAwake, d.Round(time.Second))
	}
	return nil
}

// Sleep stops account's seat in topic with its stop sequence, keeping its
// resume record (a requested stop never drops it), and answers its last
// screen and the resident memory its process tree held (bytes; 0 when
// unknown).
func (m *Manager) Sleep(topic, account string) (screen string, rss int64, err error) {
	s, ok := m.Seat(topic, account)
	if !ok || s.State() == StateExited {
		return "", 0, fmt.Errorf("%s in topic %s: %w", account, topic, ErrNoSeat)
	}
	if p := s.Terminal(); p != nil {
		screen = p.Render()
		rss = TreeRSS(p.Pid())
	}
	m.stop(s, "asleep")
	return screen, rss, nil
}

// TreeRSS is the resident memory of pid and its descendants, in bytes
// (Linux /proc; 0 elsewhere or when pid is gone).
func TreeRSS(pid int) int64 {
	if pid <= 0 {
		return 0
	}
	kids := map[int][]int{}
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range procs {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parens.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		fs := strings.Fields(string(b[i+1:]))
		if len(fs) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(fs[1])
		me, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		kids[ppid] = append(kids[ppid], me)
	}
	var total int64
	todo := []int{pid}
	for len(todo) > 0 {
		p := todo[0]
		todo = append(todo[1:], kids[p]...)
		total += procRSS(p)
	}
	return total
}

// procRSS is one process's VmRSS in bytes.
func procRSS(pid int) int64 {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

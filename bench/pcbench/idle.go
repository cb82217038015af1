package main

import (
	"fmt"
	"strings"
	"time"
)

// idleSide is one measured program: its processes (named, for the TUI
// paths: server and client) and, for the TUI paths, its outer terminal.
type idleSide struct {
	name  string
	pids  []int
	names []string // one per pid when there are several
	term  *term
	cpu   time.Duration
	wakes int64 // times its threads were put on a CPU
	out   int64 // bytes written to the terminal in the window
	// each pid's own share, in the order of pids
	cpus      []time.Duration
	wakesEach []int64
}

// benchIdle: 4 seats (cli accounts running sh, prompt shown) and nothing
// happening. Window 1: `pullcept serve` vs a tmux server with 4 panes and no
// client. Window 2 (TUI path): pullcept's UI in a 160x40 terminal with the
// 4 seats started by keys vs a tmux client attached in the same kind of
// terminal; pullcept's client plus the server it started, the tmux server
// plus its client, each shown alone and summed. The two sides of a window are
// measured over the same 30 s: idle processes do not disturb each other.
func benchIdle() error {
	const shell = "env 'PS1=idle> ' sh" // the same prompt for root and others
	accounts := cliAccounts("s1", shell, "s2", shell, "s3", shell, "s4", shell)

	// Window 1: serve vs tmux server.
	home, err := tempHome("idle", accounts)
	if err != nil {
		return err
	}
	s, err := startServe(home)
	if err != nil {
		return err
	}
	for _, a := range []string{"s1", "s2", "s3", "s4"} {
		if err := s.Start(a); err != nil {
			return err
		}
	}
	for _, a := range []string{"s1", "s2", "s3", "s4"} {
		if err := s.WaitScreen(a, "idle>", 10*time.Second, 20*time.Millisecond); err != nil {
			return err
		}
	}
	tm, err := newTmux()
	if err != nil {
		return err
	}
	if _, err := tm.Run("new-session", "-d", "-s", "idle", "-x", "100", "-y", "30", shell); err != nil {
		return err
	}
	for range 3 {
		if _, err := tm.Run("new-window", "-t", "idle", shell); err != nil {
			return err
		}
	}
	for i := range 4 {
		if err := tm.WaitCapture(fmt.Sprintf("idle:%d", i), "idle>", 10*time.Second, 20*time.Millisecond); err != nil {
			return err
		}
	}
	tpid, err := tm.Pid()
	if err != nil {
		return err
	}
	sides := []*idleSide{{name: "serve", pids: []int{s.Pid()}}, {name: "tmux server", pids: []int{tpid}}}
	if err := measureIdle(sides); err != nil {
		return err
	}
	record("idle", "CPU in "+idleSpan()+", 4 idle seats: serve vs tmux server", idleCPU(sides[0]), idleCPU(sides[1]),
		ratio(sides[0].cpu.Seconds(), sides[1].cpu.Seconds()))
	s.Close()
	tm.Kill()

	if !opts.tui {
		return nil
	}
	// Window 2: the TUI vs a tmux client.
	home, err = tempHome("idle-tui", accounts)
	if err != nil {
		return err
	}
	t, err := pullceptTUI(home, tuiCols, tuiRows)
	if err != nil {
		return err
	}
	if err := t.startSeatsByKeys(4); err != nil {
		return err
	}
	if err := t.WaitScreen("4 prompts", 10*time.Second, func(scr string) bool {
		return strings.Count(scr, "idle>") >= 4
	}); err != nil {
		return err
	}
	if err := t.Keys("\x02i"); err != nil { // the focus back on the input line
		return err
	}
	tm, err = newTmux()
	if err != nil {
		return err
	}
	if _, err := tm.Run("new-session", "-d", "-s", "idle", "-x", fmt.Sprint(tuiCols), "-y", fmt.Sprint(tuiRows-1), shell); err != nil {
		return err
	}
	for range 3 {
		if _, err := tm.Run("new-window", "-t", "idle", shell); err != nil {
			return err
		}
	}
	for i := range 4 {
		if err := tm.WaitCapture(fmt.Sprintf("idle:%d", i), "idle>", 10*time.Second, 20*time.Millisecond); err != nil {
			return err
		}
	}
	tpid, err = tm.Pid()
	if err != nil {
		return err
	}
	tc, err := startTerm(tuiCols, tuiRows, append(tmuxEnv(), "TERM=xterm-256color"), tm.argv("attach-session", "-t", "idle")...)
	if err != nil {
		return err
	}
	if err := tc.WaitScreen("the tmux client's status line", 10*time.Second, func(s string) bool {
		return strings.Contains(s, "[idle]")
	}); err != nil {
		return err
	}
	for _, x := range []*term{t.term, tc} {
		if err := x.WaitQuiet(time.Now(), 300*time.Millisecond, 10*time.Second); err != nil {
			return err
		}
		x.emulate.Store(false)
	}
	sides = []*idleSide{
		{name: "pullcept server+client", pids: []int{t.Server, t.Pid()}, names: []string{"server", "client"}, term: t.term},
		{name: "tmux server+client", pids: []int{tpid, tc.Pid()}, names: []string{"server", "client"}, term: tc},
	}
	if err := measureIdle(sides); err != nil {
		return err
	}
	record("idle", "CPU in "+idleSpan()+", 4 idle seats: TUI (server+client) vs tmux server+client", idleCPU(sides[0]), idleCPU(sides[1]),
		ratio(sides[0].cpu.Seconds(), sides[1].cpu.Seconds()))
	for i, n := range sides[0].names {
		record("idle", "  of which the "+n, idleShare(sides[0], i), idleShare(sides[1], i),
			ratio(sides[0].cpus[i].Seconds(), sides[1].cpus[i].Seconds()))
	}
	record("idle", "bytes to the terminal in "+idleSpan()+" (TUI path)", fmt.Sprint(sides[0].out), fmt.Sprint(sides[1].out),
		ratio(float64(sides[0].out), float64(sides[1].out)))
	return nil
}

// idleSpan is the idle window as the labels say it: "30 s".
func idleSpan() string { return fmt.Sprintf("%.0f s", scale.idleWindow.Seconds()) }

func idleCPU(s *idleSide) string {
	return fmt.Sprintf("%s (%.3f%%), %.0f wake-ups/s", fmtDur(s.cpu), 100*s.cpu.Seconds()/scale.idleWindow.Seconds(), float64(s.wakes)/scale.idleWindow.Seconds())
}

// idleShare is the i-th process's own part of idleCPU.
func idleShare(s *idleSide, i int) string {
	return fmt.Sprintf("%s, %.1f wake-ups/s", fmtDur(s.cpus[i]), float64(s.wakesEach[i])/scale.idleWindow.Seconds())
}

// measureIdle measures every side's CPU (and terminal output) over the
// same scale.idleWindow. CPU is the threads' time on a CPU from schedstat (in
// ns: the 10 ms ticks of /proc/<pid>/stat round an idle program to zero),
// with how often they were woken.
func measureIdle(sides []*idleSide) error {
	type snap struct {
		run    time.Duration
		wakes  int64
		ticks  time.Duration
		output int64
		runs   []time.Duration // each pid's
		wakesN []int64
	}
	take := func(s *idleSide) (snap, error) {
		var n snap
		for _, pid := range s.pids {
			r, w, err := schedStat(pid)
			if err != nil {
				return n, fmt.Errorf("%s: %w", s.name, err)
			}
			t, err := procCPU(pid)
			if err != nil {
				return n, fmt.Errorf("%s: %w", s.name, err)
			}
			n.run, n.wakes, n.ticks = n.run+r, n.wakes+w, n.ticks+t
			n.runs, n.wakesN = append(n.runs, r), append(n.wakesN, w)
		}
		if s.term != nil {
			n.output = s.term.Bytes.Load()
		}
		return n, nil
	}
	before := make([]snap, len(sides))
	for i, s := range sides {
		n, err := take(s)
		if err != nil {
			return err
		}
		before[i] = n
	}
	fmt.Printf("  measuring %d s of idle…\n", int(scale.idleWindow.Seconds()))
	time.Sleep(scale.idleWindow) // the one fixed wait: the window itself
	for i, s := range sides {
		n, err := take(s)
		if err != nil {
			return err
		}
		s.cpu = n.run - before[i].run
		s.wakes = n.wakes - before[i].wakes
		s.out = n.output - before[i].output
		s.cpus, s.wakesEach = nil, nil
		for j := range s.pids {
			s.cpus = append(s.cpus, n.runs[j]-before[i].runs[j])
			s.wakesEach = append(s.wakesEach, n.wakesN[j]-before[i].wakesN[j])
		}
		fmt.Printf("  %-24s CPU %s in %s (stat ticks: %s), %.1f wake-ups/s, %d bytes to the terminal\n",
			s.name, fmtDur(s.cpu), scale.idleWindow, fmtDur(n.ticks-before[i].ticks), float64(s.wakes)/scale.idleWindow.Seconds(), s.out)
		if len(s.pids) > 1 {
			for j, pid := range s.pids {
				name := fmt.Sprint(pid)
				if j < len(s.names) {
					name = s.names[j] + " (pid " + name + ")"
				}
				fmt.Printf("    %-22s CPU %s, %.1f wake-ups/s\n", name, fmtDur(s.cpus[j]), float64(s.wakesEach[j])/scale.idleWindow.Seconds())
			}
		}
	}
	return nil
}

package main

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// paneRun is one side's figures for one cat of the file.
type paneRun struct {
	wall, cpu time.Duration
	hwmKB     int64 // peak resident size of the measured process (the sum, TUI paths)
	termBytes int64 // bytes written to the outer terminal (TUI paths)
	// TUI paths: the server's and the client's shares of cpu and hwmKB
	// (pullcept's server and `pullcept`, the tmux server and client).
	srvCPU, cliCPU time.Duration
	srvHWM, cliHWM int64
}

// split is "sum (server A + client B)" for a TUI path's two processes.
func split(sum, srv, cli string) string {
	return fmt.Sprintf("%s (server %s + client %s)", sum, srv, cli)
}

// cpuString and hwmString are a run's CPU and peak RSS, with the two
// processes' shares on a TUI path.
func (r paneRun) cpuString() string {
	if r.cliCPU == 0 && r.srvCPU == 0 {
		return fmtDur(r.cpu)
	}
	return split(fmtDur(r.cpu), fmtDur(r.srvCPU), fmtDur(r.cliCPU))
}

func (r paneRun) hwmString() string {
	if r.cliHWM == 0 && r.srvHWM == 0 {
		return fmtMiB(r.hwmKB)
	}
	return split(fmtMiB(r.hwmKB), fmtMiB(r.srvHWM), fmtMiB(r.cliHWM))
}

// benchPane: cat the 50 MB file in a pane until the pane shows the marker
// printed after it. Serve path: `pullcept serve` starting the seat and
// polling "screen" vs a detached tmux session polled with capture-pane
// through one control-mode client; CPU of pullcept itself vs the tmux
// server. TUI path: pullcept's UI in a 160x40 terminal this program holds,
// the seat started and zoomed by keys and waiting on `read`, Enter starting
// the cat; vs a tmux client attached in the same kind of terminal; CPU and
// peak RSS of pullcept's client plus its server (the thin client relays the
// screen the server draws) vs the tmux client plus its server, each shown
// alone and summed.
func benchPane() error {
	file, err := mixedFile()
	if err != nil {
		return err
	}
	st, err := os.Stat(file)
	if err != nil {
		return err
	}
	mb := float64(st.Size()) / 1e6
	command := fmt.Sprintf("sh -c 'cat %s; printf %s; sleep 600'", file, endMarker)
	fmt.Printf("  pane command: %s (%.1f MB)\n", command, mb)

	var pc, tm []paneRun
	for i := range opts.runs {
		p, err := paneServe(command)
		if err != nil {
			return fmt.Errorf("pullcept serve run %d: %w", i+1, err)
		}
		t, err := paneTmux(command)
		if err != nil {
			return fmt.Errorf("tmux run %d: %w", i+1, err)
		}
		fmt.Printf("  run %d: pullcept serve wall %s cpu %s (peak RSS %s) | tmux server wall %s cpu %s (peak RSS %s)\n",
			i+1, fmtDur(p.wall), fmtDur(p.cpu), fmtMiB(p.hwmKB), fmtDur(t.wall), fmtDur(t.cpu), fmtMiB(t.hwmKB))
		pc, tm = append(pc, p), append(tm, t)
	}
	reportPane("serve path", mb, pc, tm)

	if !opts.tui {
		return nil
	}
	tuiCommand := fmt.Sprintf("sh -c 'read x; cat %s; printf %s; sleep 600'", file, endMarker)
	pc, tm = nil, nil
	for i := range opts.runs {
		p, err := paneTUI(tuiCommand)
		if err != nil {
			return fmt.Errorf("pullcept TUI run %d: %w", i+1, err)
		}
		t, err := paneTmuxClient(tuiCommand)
		if err != nil {
			return fmt.Errorf("tmux client run %d: %w", i+1, err)
		}
		fmt.Printf("  run %d: pullcept client+server wall %s cpu %s, peak RSS %s, %.1f MB to the terminal\n",
			i+1, fmtDur(p.wall), p.cpuString(), p.hwmString(), float64(p.termBytes)/1e6)
		fmt.Printf("         tmux server+client    wall %s cpu %s, peak RSS %s, %.1f MB to the terminal\n",
			fmtDur(t.wall), t.cpuString(), t.hwmString(), float64(t.termBytes)/1e6)
		pc, tm = append(pc, p), append(tm, t)
	}
	reportPane("TUI path (client+server), 160x40", mb, pc, tm)
	return nil
}

func reportPane(path string, mb float64, pc, tm []paneRun) {
	med := medianBy[paneRun, time.Duration]
	wall := func(r paneRun) time.Duration { return r.wall }
	pw, tw := med(pc, wall), med(tm, wall)
	// CPU: the median run by the sum, shown with its two shares.
	medRun := func(rs []paneRun) paneRun {
		s := slices.Clone(rs)
		slices.SortFunc(s, func(a, b paneRun) int { return cmp.Compare(a.cpu, b.cpu) })
		return s[(len(s)-1)/2]
	}
	pcpu, tcpu := medRun(pc), medRun(tm)
	record("pane", fmt.Sprintf("wall, %s (median of %d)", path, len(pc)),
		fmt.Sprintf("%s (%.1f MB/s)", fmtDur(pw), mb/pw.Seconds()), fmt.Sprintf("%s (%.1f MB/s)", fmtDur(tw), mb/tw.Seconds()),
		ratio(pw.Seconds(), tw.Seconds()))
	record("pane", fmt.Sprintf("CPU, %s", path), pcpu.cpuString(), tcpu.cpuString(), ratio(pcpu.cpu.Seconds(), tcpu.cpu.Seconds()))
	// Peak RSS: the largest run by the sum.
	ph, th := pc[0], tm[0]
	for i := range pc {
		if pc[i].hwmKB > ph.hwmKB {
			ph = pc[i]
		}
		if tm[i].hwmKB > th.hwmKB {
			th = tm[i]
		}
	}
	record("pane", fmt.Sprintf("peak RSS, %s (1 pane, full scrollback)", path), ph.hwmString(), th.hwmString(), ratio(float64(ph.hwmKB), float64(th.hwmKB)))
}

// tuiFigures fills r's CPU (since cpu0) and peak RSS from the server and
// client processes of a TUI path.
func tuiFigures(r *paneRun, srv, cli int, cpu0 [2]time.Duration) error {
	s, err := procCPU(srv)
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	c, err := procCPU(cli)
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}
	r.srvCPU, r.cliCPU = s-cpu0[0], c-cpu0[1]
	r.cpu = r.srvCPU + r.cliCPU
	r.srvHWM, _ = procKB(srv, "VmHWM")
	r.cliHWM, _ = procKB(cli, "VmHWM")
	r.hwmKB = r.srvHWM + r.cliHWM
	return nil
}

// cpuOf is the CPU of server and client now.
func cpuOf(srv, cli int) ([2]time.Duration, error) {
	s, err := procCPU(srv)
	if err != nil {
		return [2]time.Duration{}, fmt.Errorf("server: %w", err)
	}
	c, err := procCPU(cli)
	if err != nil {
		return [2]time.Duration{}, fmt.Errorf("client: %w", err)
	}
	return [2]time.Duration{s, c}, nil
}

func paneServe(command string) (paneRun, error) {
	home, err := tempHome("pane", cliAccounts("cat", command))
	if err != nil {
		return paneRun{}, err
	}
	s, err := startServe(home)
	if err != nil {
		return paneRun{}, err
	}
	defer s.Close()
	cpu0, err := procCPU(s.Pid())
	if err != nil {
		return paneRun{}, err
	}
	t0 := time.Now()
	if err := s.Start("cat"); err != nil {
		return paneRun{}, err
	}
	if err := s.WaitScreen("cat", endMarker, 2*time.Minute, 20*time.Millisecond); err != nil {
		return paneRun{}, err
	}
	r := paneRun{wall: time.Since(t0)}
	cpu1, err := procCPU(s.Pid())
	if err != nil {
		return paneRun{}, err
	}
	r.cpu = cpu1 - cpu0
	r.hwmKB, _ = procKB(s.Pid(), "VmHWM")
	return r, nil
}

func paneTmux(command string) (paneRun, error) {
	t, err := newTmux()
	if err != nil {
		return paneRun{}, err
	}
	defer t.Kill()
	if _, err := t.Run("new-session", "-d", "-s", "ctl", "-x", "100", "-y", "30", "sleep 600"); err != nil {
		return paneRun{}, err
	}
	pid, err := t.Pid()
	if err != nil {
		return paneRun{}, err
	}
	ctl, err := controlRetry(t, "ctl")
	if err != nil {
		return paneRun{}, err
	}
	defer ctl.Close()
	cpu0, err := procCPU(pid)
	if err != nil {
		return paneRun{}, err
	}
	t0 := time.Now()
	if _, err := ctl.Do("new-session -d -s cat -x 100 -y 30 " + tmuxQuote(command)); err != nil {
		return paneRun{}, err
	}
	if err := ctl.WaitCapture("cat", endMarker, 2*time.Minute, 20*time.Millisecond); err != nil {
		return paneRun{}, err
	}
	r := paneRun{wall: time.Since(t0)}
	cpu1, err := procCPU(pid)
	if err != nil {
		return paneRun{}, err
	}
	r.cpu = cpu1 - cpu0
	r.hwmKB, _ = procKB(pid, "VmHWM")
	return r, nil
}

// controlRetry attaches a control client to session, starting a fresh one
// when an attach fails: tmux 3.3a sometimes answers a control client's
// first commands with "no current client" beyond what Control retries
// (seen once in a pane run), and one failed attach should not fail the
// benchmark. Retries are reported on stderr; the failed clients are closed
// with the run's cleanups.
func controlRetry(t *tmuxServer, session string) (*tmuxCtl, error) {
	var err error
	for try := 1; try <= 3; try++ {
		var c *tmuxCtl
		if c, err = t.Control(session); err == nil {
			return c, nil
		}
		fmt.Fprintf(os.Stderr, "pcbench: tmux control attach %d of 3 failed: %v\n", try, err)
	}
	return nil, err
}

// tmuxQuote quotes s in double quotes for tmux's command parser.
func tmuxQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `\$`)
	return `"` + r.Replace(s) + `"`
}

const tuiCols, tuiRows = 160, 40

func paneTUI(command string) (paneRun, error) {
	home, err := tempHome("pane-tui", cliAccounts("cat", command))
	if err != nil {
		return paneRun{}, err
	}
	t, err := pullceptTUI(home, tuiCols, tuiRows)
	if err != nil {
		return paneRun{}, err
	}
	defer t.Close() // kill-server: the server and its seat end with the run
	if err := t.startSeatsByKeys(1); err != nil {
		return paneRun{}, err
	}
	if err := t.focusFirstPane(); err != nil {
		return paneRun{}, err
	}
	if err := t.Keys("\x02z"); err != nil { // zoom: the pane gets the whole body
		return paneRun{}, err
	}
	t.emulate.Store(false)
	pos, bytes0 := t.Pos(), t.Bytes.Load()
	cpu0, err := cpuOf(t.Server, t.Pid())
	if err != nil {
		return paneRun{}, err
	}
	t0 := time.Now()
	if err := t.Type("\r"); err != nil {
		return paneRun{}, err
	}
	if _, err := t.WaitText(endMarker, pos, 2*time.Minute); err != nil {
		return paneRun{}, err
	}
	r := paneRun{wall: time.Since(t0), termBytes: t.Bytes.Load() - bytes0}
	if err := tuiFigures(&r, t.Server, t.Pid(), cpu0); err != nil {
		return paneRun{}, err
	}
	return r, nil
}

func paneTmuxClient(command string) (paneRun, error) {
	tm, err := newTmux()
	if err != nil {
		return paneRun{}, err
	}
	defer tm.Kill()
	if _, err := tm.Run("new-session", "-d", "-s", "cat", "-x", fmt.Sprint(tuiCols), "-y", fmt.Sprint(tuiRows-1), command); err != nil {
		return paneRun{}, err
	}
	pid, err := tm.Pid()
	if err != nil {
		return paneRun{}, err
	}
	t, err := startTerm(tuiCols, tuiRows, append(tmuxEnv(), "TERM=xterm-256color"), tm.argv("attach-session", "-t", "cat")...)
	if err != nil {
		return paneRun{}, err
	}
	defer t.Close()
	if err := t.WaitScreen("the tmux client's status line", 10*time.Second, func(s string) bool {
		return strings.Contains(s, "[cat]")
	}); err != nil {
		return paneRun{}, err
	}
	if err := t.WaitQuiet(time.Now(), 150*time.Millisecond, 5*time.Second); err != nil {
		return paneRun{}, err
	}
	t.emulate.Store(false)
	pos, bytes0 := t.Pos(), t.Bytes.Load()
	cpu0, err := cpuOf(pid, t.Pid())
	if err != nil {
		return paneRun{}, err
	}
	t0 := time.Now()
	if err := t.Type("\r"); err != nil {
		return paneRun{}, err
	}
	if _, err := t.WaitText(endMarker, pos, 2*time.Minute); err != nil {
		return paneRun{}, err
	}
	r := paneRun{wall: time.Since(t0), termBytes: t.Bytes.Load() - bytes0}
	if err := tuiFigures(&r, pid, t.Pid(), cpu0); err != nil {
		return paneRun{}, err
	}
	return r, nil
}

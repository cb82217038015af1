package main

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// paneRun is one side's figures for one cat of the file.
type paneRun struct {
	wall, cpu time.Duration
	hwmKB     int64 // peak resident size of the measured process
	termBytes int64 // bytes written to the outer terminal (TUI paths)
}

// benchPane: cat the 50 MB file in a pane until the pane shows the marker
// printed after it. Serve path: `pullcept serve` starting the seat and
// polling "screen" vs a detached tmux session polled with capture-pane
// through one control-mode client; CPU of pullcept itself vs the tmux
// server. TUI path: pullcept's UI in a 160x40 terminal this program holds,
// the seat started and zoomed by keys and waiting on `read`, Enter starting
// the cat; vs a tmux client attached in the same kind of terminal; CPU of
// pullcept vs the tmux server plus client.
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
		fmt.Printf("  run %d: pullcept TUI wall %s cpu %s (%.1f MB to the terminal) | tmux server+client wall %s cpu %s (%.1f MB to the terminal)\n",
			i+1, fmtDur(p.wall), fmtDur(p.cpu), float64(p.termBytes)/1e6, fmtDur(t.wall), fmtDur(t.cpu), float64(t.termBytes)/1e6)
		pc, tm = append(pc, p), append(tm, t)
	}
	reportPane("TUI path, 160x40", mb, pc, tm)
	return nil
}

func reportPane(path string, mb float64, pc, tm []paneRun) {
	med := func(rs []paneRun, f func(paneRun) time.Duration) time.Duration {
		var ds []time.Duration
		for _, r := range rs {
			ds = append(ds, f(r))
		}
		return median(ds)
	}
	wall := func(r paneRun) time.Duration { return r.wall }
	cpu := func(r paneRun) time.Duration { return r.cpu }
	pw, tw := med(pc, wall), med(tm, wall)
	pcpu, tcpu := med(pc, cpu), med(tm, cpu)
	record("pane", fmt.Sprintf("wall, %s (median of %d)", path, len(pc)),
		fmt.Sprintf("%s (%.1f MB/s)", fmtDur(pw), mb/pw.Seconds()), fmt.Sprintf("%s (%.1f MB/s)", fmtDur(tw), mb/tw.Seconds()),
		ratio(pw.Seconds(), tw.Seconds()))
	record("pane", fmt.Sprintf("CPU, %s", path), fmtDur(pcpu), fmtDur(tcpu), ratio(pcpu.Seconds(), tcpu.Seconds()))
	var ph, th int64
	for i := range pc {
		ph, th = max(ph, pc[i].hwmKB), max(th, tm[i].hwmKB)
	}
	record("pane", fmt.Sprintf("peak RSS, %s (1 pane, full scrollback)", path), fmtMiB(ph), fmtMiB(th), ratio(float64(ph), float64(th)))
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
	ctl, err := t.Control("ctl")
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
	defer t.Close()
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
	cpu0, err := procCPU(t.Pid())
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
	cpu1, err := procCPU(t.Pid())
	if err != nil {
		return paneRun{}, err
	}
	r.cpu = cpu1 - cpu0
	r.hwmKB, _ = procKB(t.Pid(), "VmHWM")
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
	cpu0, err := sumCPU(pid, t.Pid())
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
	cpu1, err := sumCPU(pid, t.Pid())
	if err != nil {
		return paneRun{}, err
	}
	r.cpu = cpu1 - cpu0
	r.hwmKB, _ = procKB(pid, "VmHWM")
	return r, nil
}

package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

const memSeats = 8

// benchMemory: resident size (VmRSS) with 8 seats whose panes (100x30) have
// each printed 12,000 lines, so each holds a full 10,000-line scrollback;
// `pullcept serve` vs a tmux server with 8 windows (history-limit 10000).
// Both are also measured before the seats start (serve: after its ready
// line; tmux: one session running sleep), to give the cost per seat.
func benchMemory() error {
	const command = "sh -c 'seq 1 12000; sleep 600'"
	var pairs []string
	for i := range memSeats {
		pairs = append(pairs, fmt.Sprintf("m%d", i+1), command)
	}
	home, err := tempHome("memory", cliAccounts(pairs...))
	if err != nil {
		return err
	}
	s, err := startServe(home)
	if err != nil {
		return err
	}
	pcBase, err := procKB(s.Pid(), "VmRSS")
	if err != nil {
		return err
	}
	for i := range memSeats {
		if err := s.Start(fmt.Sprintf("m%d", i+1)); err != nil {
			return err
		}
	}
	for i := range memSeats {
		if err := s.WaitScreen(fmt.Sprintf("m%d", i+1), "12000", 30*time.Second, 50*time.Millisecond); err != nil {
			return err
		}
	}
	pcRSS, err := procKB(s.Pid(), "VmRSS")
	if err != nil {
		return err
	}
	pcHWM, _ := procKB(s.Pid(), "VmHWM")
	s.Close()

	tm, err := newTmux()
	if err != nil {
		return err
	}
	if _, err := tm.Run("new-session", "-d", "-s", "mem", "-x", "100", "-y", "30", "sleep 600"); err != nil {
		return err
	}
	pid, err := tm.Pid()
	if err != nil {
		return err
	}
	tmBase, err := procKB(pid, "VmRSS")
	if err != nil {
		return err
	}
	for range memSeats {
		if _, err := tm.Run("new-window", "-t", "mem", command); err != nil {
			return err
		}
	}
	hist := 0
	for i := range memSeats {
		target := fmt.Sprintf("mem:%d", i+1)
		if err := tm.WaitCapture(target, "12000", 30*time.Second, 50*time.Millisecond); err != nil {
			return err
		}
		h, err := tm.Run("display-message", "-p", "-t", target, "#{history_size}")
		if err != nil {
			return err
		}
		// tmux drops a tenth of the limit at once when the history is
		// full, so it holds between 9,000 and 10,000 lines.
		n, err := strconv.Atoi(strings.TrimSpace(h))
		if err != nil || n < 9000 {
			return fmt.Errorf("tmux window %s holds %q history lines, want 9,000–10,000", target, strings.TrimSpace(h))
		}
		hist = n
	}
	tmRSS, err := procKB(pid, "VmRSS")
	if err != nil {
		return err
	}
	tmHWM, _ := procKB(pid, "VmHWM")
	tm.Kill()

	fmt.Printf("  pullcept serve: RSS %s before, %s with 8 seats (peak %s)\n", fmtMiB(pcBase), fmtMiB(pcRSS), fmtMiB(pcHWM))
	fmt.Printf("  tmux server:    RSS %s before, %s with 8 panes (peak %s); each pane holds %d history lines\n", fmtMiB(tmBase), fmtMiB(tmRSS), fmtMiB(tmHWM), hist)
	record("memory", "RSS with 8 seats × 10,000 scrollback lines", fmtMiB(pcRSS), fmtMiB(tmRSS), ratio(float64(pcRSS), float64(tmRSS)))
	pcPer, tmPer := (pcRSS-pcBase)/memSeats, (tmRSS-tmBase)/memSeats
	record("memory", "RSS per seat (growth ÷ 8)", fmtMiB(pcPer), fmtMiB(tmPer), ratio(float64(pcPer), float64(tmPer)))
	return nil
}

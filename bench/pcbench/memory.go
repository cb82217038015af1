package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

const (
	memSeats = 8
	memLines = 12000 // printed by each seat; 10,000 are kept
	memCols  = 100
)

// memRun is one side's resident sizes in one run.
type memRun struct {
	base, rss, hwm int64 // KiB: before the seats, with them, peak
	// RssAnon (KiB) before the seats and with them: the resident pages not
	// backed by a file. VmRSS also counts the binary's clean file-backed
	// pages (shared, reclaimable), most of serve's RSS before the seats
	// (an 18 MB binary), which tmux's small binary does not have.
	baseAnon, anon int64
	// settled, settledAnon: VmRSS and RssAnon memSettle after the last
	// line, once the output has stopped (what a server holds between
	// bursts; pullcept gives its free heap pages back after 2 s of quiet).
	settled, settledAnon int64
	hist                 int // tmux: history lines a pane holds
}

// memSettle is how long after the last line the settled sizes are read.
const memSettle = 3 * time.Second

// settle reads pid's settled sizes memSettle from now.
func (r *memRun) settle(pid int) (err error) {
	time.Sleep(memSettle) // the quiet being measured, not a synchronisation
	if r.settled, err = procKB(pid, "VmRSS"); err != nil {
		return err
	}
	r.settledAnon, err = procKB(pid, "RssAnon")
	return err
}

// benchMemory: resident size (VmRSS, and RssAnon beside it) with 8 seats
// whose panes (100x30) have each printed 12,000 lines, so each holds a full
// 10,000-line scrollback; `pullcept serve` vs a tmux server with 8 windows
// (history-limit 10000), each case as opts.runs paired runs (pullcept, then
// tmux), medians reported. Two cases: short lines (`seq`) and long coloured lines (exactly
// 100 columns of words in 16-, 256- and true colour, some bold or on a
// background). Both sides are also measured before the seats start (serve:
// after its ready line; tmux: one session running sleep), to give the cost
// per seat.
func benchMemory() error {
	file, err := colouredFile(true)
	if err != nil {
		return err
	}
	file16, err := colouredFile(false)
	if err != nil {
		return err
	}
	cat := func(f string) string { return fmt.Sprintf("sh -c 'cat %s; printf %s; sleep 600'", f, endMarker) }
	cases := []struct{ name, command, needle string }{
		{"short lines (seq 1 12000)", "sh -c 'seq 1 12000; sleep 600'", "12000"},
		{"long coloured lines (12,000 × 100 columns)", cat(file), endMarker},
		{"long lines, 16/256 colours only", cat(file16), endMarker},
	}
	for _, c := range cases {
		fmt.Printf("  %s: %s\n", c.name, c.command)
		var pc, tm []memRun
		for i := range opts.runs {
			p, err := memServe(c.command, c.needle)
			if err != nil {
				return fmt.Errorf("%s, pullcept run %d: %w", c.name, i+1, err)
			}
			t, err := memTmux(c.command, c.needle)
			if err != nil {
				return fmt.Errorf("%s, tmux run %d: %w", c.name, i+1, err)
			}
			fmt.Printf("  run %d: pullcept serve RSS %s before, %s with 8 seats, %s settled (peak %s; RssAnon %s before, %s with 8 seats, %s settled) | tmux server %s before, %s with 8 panes, %s settled (peak %s; RssAnon %s before, %s with 8 panes, %s settled), %d history lines a pane\n",
				i+1, fmtMiB(p.base), fmtMiB(p.rss), fmtMiB(p.settled), fmtMiB(p.hwm), fmtMiB(p.baseAnon), fmtMiB(p.anon), fmtMiB(p.settledAnon),
				fmtMiB(t.base), fmtMiB(t.rss), fmtMiB(t.settled), fmtMiB(t.hwm), fmtMiB(t.baseAnon), fmtMiB(t.anon), fmtMiB(t.settledAnon), t.hist)
			pc, tm = append(pc, p), append(tm, t)
		}
		med := medianBy[memRun, int64]
		rss := func(r memRun) int64 { return r.rss }
		hwm := func(r memRun) int64 { return r.hwm }
		per := func(r memRun) int64 { return (r.rss - r.base) / memSeats }
		anon := func(r memRun) int64 { return r.anon }
		baseAnon := func(r memRun) int64 { return r.baseAnon }
		perAnon := func(r memRun) int64 { return (r.anon - r.baseAnon) / memSeats }
		n := fmt.Sprintf(" (median of %d)", len(pc))
		record("memory", "RSS, 8 seats × 10,000 lines, "+c.name+n, fmtMiB(med(pc, rss)), fmtMiB(med(tm, rss)), ratio(float64(med(pc, rss)), float64(med(tm, rss))))
		settled := func(r memRun) int64 { return r.settled }
		settledAnon := func(r memRun) int64 { return r.settledAnon }
		record("memory", "RSS 3 s after the last line, "+c.name+n, fmtMiB(med(pc, settled)), fmtMiB(med(tm, settled)), ratio(float64(med(pc, settled)), float64(med(tm, settled))))
		record("memory", "RssAnon 3 s after the last line, "+c.name, fmtMiB(med(pc, settledAnon)), fmtMiB(med(tm, settledAnon)), ratio(float64(med(pc, settledAnon)), float64(med(tm, settledAnon))))
		record("memory", "peak RSS, "+c.name, fmtMiB(med(pc, hwm)), fmtMiB(med(tm, hwm)), ratio(float64(med(pc, hwm)), float64(med(tm, hwm))))
		record("memory", "RSS per seat (growth ÷ 8), "+c.name, fmtMiB(med(pc, per)), fmtMiB(med(tm, per)), ratio(float64(med(pc, per)), float64(med(tm, per))))
		record("memory", "RssAnon, 8 seats, "+c.name+n, fmtMiB(med(pc, anon)), fmtMiB(med(tm, anon)), ratio(float64(med(pc, anon)), float64(med(tm, anon))))
		record("memory", "RssAnon before the seats, "+c.name, fmtMiB(med(pc, baseAnon)), fmtMiB(med(tm, baseAnon)), ratio(float64(med(pc, baseAnon)), float64(med(tm, baseAnon))))
		record("memory", "RssAnon per seat (growth ÷ 8), "+c.name, fmtMiB(med(pc, perAnon)), fmtMiB(med(tm, perAnon)), ratio(float64(med(pc, perAnon)), float64(med(tm, perAnon))))
	}
	return nil
}

func memServe(command, needle string) (memRun, error) {
	var pairs []string
	for i := range memSeats {
		pairs = append(pairs, fmt.Sprintf("m%d", i+1), command)
	}
	home, err := tempHome("memory", cliAccounts(pairs...))
	if err != nil {
		return memRun{}, err
	}
	s, err := startServe(home)
	if err != nil {
		return memRun{}, err
	}
	defer s.Close()
	var r memRun
	if r.base, err = procKB(s.Pid(), "VmRSS"); err != nil {
		return memRun{}, err
	}
	if r.baseAnon, err = procKB(s.Pid(), "RssAnon"); err != nil {
		return memRun{}, err
	}
	for i := range memSeats {
		if err := s.Start(fmt.Sprintf("m%d", i+1)); err != nil {
			return memRun{}, err
		}
	}
	for i := range memSeats {
		if err := s.WaitScreen(fmt.Sprintf("m%d", i+1), needle, time.Minute, 50*time.Millisecond); err != nil {
			return memRun{}, err
		}
	}
	if r.rss, err = procKB(s.Pid(), "VmRSS"); err != nil {
		return memRun{}, err
	}
	if r.anon, err = procKB(s.Pid(), "RssAnon"); err != nil {
		return memRun{}, err
	}
	r.hwm, _ = procKB(s.Pid(), "VmHWM")
	return r, r.settle(s.Pid())
}

func memTmux(command, needle string) (memRun, error) {
	tm, err := newTmux()
	if err != nil {
		return memRun{}, err
	}
	defer tm.Kill()
	if _, err := tm.Run("new-session", "-d", "-s", "mem", "-x", fmt.Sprint(memCols), "-y", "30", "sleep 600"); err != nil {
		return memRun{}, err
	}
	pid, err := tm.Pid()
	if err != nil {
		return memRun{}, err
	}
	var r memRun
	if r.base, err = procKB(pid, "VmRSS"); err != nil {
		return memRun{}, err
	}
	if r.baseAnon, err = procKB(pid, "RssAnon"); err != nil {
		return memRun{}, err
	}
	for range memSeats {
		if _, err := tm.Run("new-window", "-t", "mem", command); err != nil {
			return memRun{}, err
		}
	}
	for i := range memSeats {
		target := fmt.Sprintf("mem:%d", i+1)
		if err := tm.WaitCapture(target, needle, time.Minute, 50*time.Millisecond); err != nil {
			return memRun{}, err
		}
		h, err := tm.Run("display-message", "-p", "-t", target, "#{history_size}")
		if err != nil {
			return memRun{}, err
		}
		// tmux drops a tenth of the limit at once when the history is
		// full, so it holds between 9,000 and 10,000 lines.
		n, err := strconv.Atoi(strings.TrimSpace(h))
		if err != nil || n < 9000 {
			return memRun{}, fmt.Errorf("tmux window %s holds %q history lines, want 9,000–10,000", target, strings.TrimSpace(h))
		}
		r.hist = n
	}
	if r.rss, err = procKB(pid, "VmRSS"); err != nil {
		return memRun{}, err
	}
	if r.anon, err = procKB(pid, "RssAnon"); err != nil {
		return memRun{}, err
	}
	r.hwm, _ = procKB(pid, "VmHWM")
	return r, r.settle(pid)
}

// colouredFile returns a long-lines file: memLines lines of exactly
// memCols columns (so no line wraps), ASCII words in 16-, bright, 256- and
// (with rgb) true colour, some bold, some on a 256-colour background (rgb
// only), reset at the end of each word; no capital letters (the end
// marker). The same bytes every time: a fixed seed. tmux keeps a cell with
// an RGB colour or a 256-colour background in a larger side entry, so the
// two files show both of its costs.
func colouredFile(rgb bool) (string, error) {
	path := filepath.Join(opts.work, fmt.Sprintf("coloured-12000x100-rgb%v.txt", rgb))
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	words := []string{"terminal", "pane", "room", "the", "seat", "floor", "scrollback", "render", "cursor",
		"pullcept", "go", "build", "test", "ok", "fail", "main.go:42", "error:", "warning", "0x1f3a", "done"}
	r := rand.New(rand.NewPCG(2026, 12))
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return "", err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for line := range memLines {
		head := fmt.Sprintf("%05d", line+1)
		fmt.Fprintf(w, "\x1b[2m%s\x1b[0m", head)
		col := len(head)
		for col < memCols {
			w.WriteByte(' ')
			col++
			word := words[r.IntN(len(words))]
			word = word[:min(len(word), memCols-col)]
			kind := r.IntN(6)
			if !rgb && kind >= 3 {
				kind = r.IntN(3) // 16, bright or 256-colour foreground
			}
			switch kind {
			case 0:
				fmt.Fprintf(w, "\x1b[%dm", 30+r.IntN(8))
			case 1:
				fmt.Fprintf(w, "\x1b[%d;1m", 90+r.IntN(8))
			case 2:
				fmt.Fprintf(w, "\x1b[38;5;%dm", r.IntN(256))
			case 3:
				fmt.Fprintf(w, "\x1b[38;2;%d;%d;%dm", r.IntN(256), r.IntN(256), r.IntN(256))
			case 4:
				fmt.Fprintf(w, "\x1b[48;5;%dm", r.IntN(256))
			}
			fmt.Fprintf(w, "%s\x1b[0m", word)
			col += len(word)
		}
		w.WriteString("\n") // the pty adds the CR
	}
	err = w.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	return path, os.Rename(tmp, path)
}

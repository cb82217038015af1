package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"
)

// echoWarm keys are typed before the scale.scale.echoSamples timed on each side.
const echoWarm = 10

// echoSlow (PCBENCH_ECHO_SLOW set) prints every key over 4 ms with what
// its terminal last received before it.
var echoSlow = os.Getenv("PCBENCH_ECHO_SLOW") != ""

// echoKeys are the keys typed: capital letters the screens' other text
// hardly uses, so a redraw of something else is not taken for the echo.
const echoKeys = "QXZJVKWY"

// benchEcho: the time from a key written to the outer terminal to its echo
// (by the pane's line discipline; cat is reading) appearing in what the
// program writes back to that terminal. Pullcept's UI in a 160x40 terminal
// with a seat running cat, started and focused by keys: the key goes from
// the thin client over the attach socket to the server, into the seat's
// PTY, and its echo, drawn by the server's screen, back over the socket to
// the client, which writes it to the terminal; vs a tmux client attached in
// the same kind of terminal to a session whose pane runs cat (tmux 3.3a's
// client hands its terminal to the tmux server, which reads the key and
// writes the echo itself: no relay hop). The pullcept server is ended
// (kill-server) before tmux is measured.
// One key at a time, each after the screen went quiet and a random pause of
// 0–50 ms; ^U clears the line every 40 keys.
func benchEcho() error {
	home, err := tempHome("echo", cliAccounts("cat", "cat"))
	if err != nil {
		return err
	}
	t, err := pullceptTUI(home, tuiCols, tuiRows)
	if err != nil {
		return err
	}
	defer t.Close() // kill-server: the server and its seat end
	if err := t.startSeatsByKeys(1); err != nil {
		return err
	}
	if err := t.focusFirstPane(); err != nil {
		return err
	}

	tm, err := newTmux()
	if err != nil {
		return err
	}
	if _, err := tm.Run("new-session", "-d", "-s", "echo", "-x", fmt.Sprint(tuiCols), "-y", fmt.Sprint(tuiRows-1), "cat"); err != nil {
		return err
	}
	tc, err := startTerm(tuiCols, tuiRows, append(tmuxEnv(), "TERM=xterm-256color"), tm.argv("attach-session", "-t", "echo")...)
	if err != nil {
		return err
	}
	if err := tc.WaitScreen("the tmux client's status line", 10*time.Second, func(s string) bool {
		return strings.Contains(s, "[echo]")
	}); err != nil {
		return err
	}
	// Key by key, pullcept and tmux in turn (which goes first alternates):
	// both see the same machine, whose latencies move by tens of per cent
	// within a minute (hypervisor steal time). Each server's CPU and its
	// threads' times on a CPU over the keys (the other side's keys leave
	// it idle: no output reaches it) are a key's cost.
	tpid, err := tm.Pid()
	if err != nil {
		return err
	}
	// opts.runs paired runs on the same two screens: the figure is
	// the median of the runs' p50 ratios and of their p99s over tmux's.
	var runs []echoRun
	for r := range opts.runs {
		run, err := echoPair(t, tc, tpid)
		if err != nil {
			return fmt.Errorf("run %d: %w", r+1, err)
		}
		run.print(fmt.Sprintf("run %d", r+1))
		runs = append(runs, run)
	}
	// The same keys into the input line: the UI's own part of the echo,
	// without the pane.
	if echoSlow {
		fmt.Println("    -- the input line's keys")
	}
	t.emulate.Store(true)
	if err := t.Keys("\x02i"); err != nil {
		return err
	}
	inl, err := echoLatencies([]*term{t.term})
	if err != nil {
		return fmt.Errorf("pullcept input line: %w", err)
	}
	in := inl[0]
	fmt.Printf("  pullcept client+server, keys into the UI's own input line (no pane): min %s p50 %s p99 %s\n", fmtDur(in[0]), fmtDur(percentile(in, 50)), fmtDur(percentile(in, 99)))

	med := func(f func(echoRun) float64) float64 { return medianBy(runs, f) }
	n := fmt.Sprintf("median of %d paired runs of %d keys", len(runs), scale.echoSamples)
	p50, r50 := time.Duration(med(func(r echoRun) float64 { return float64(r.p50()) })), time.Duration(med(func(r echoRun) float64 { return float64(r.r50()) }))
	p99, r99 := time.Duration(med(func(r echoRun) float64 { return float64(r.p99()) })), time.Duration(med(func(r echoRun) float64 { return float64(r.r99()) }))
	x50 := med(func(r echoRun) float64 { return r.p50().Seconds() / r.r50().Seconds() })
	over := time.Duration(med(func(r echoRun) float64 { return float64(r.p99() - r.r99()) }))
	record("echo", "key → echo drawn, client+server, p50 ("+n+")", fmtDur(p50), fmtDur(r50), ratio(p50.Seconds(), r50.Seconds()))
	record("echo", "  p50 ÷ tmux's p50, median of the runs' ratios (limit 2×)", fmt.Sprintf("%.2f×", x50), "—", "—")
	record("echo", "key → echo drawn, client+server, p99 ("+n+")", fmtDur(p99), fmtDur(r99), ratio(p99.Seconds(), r99.Seconds()))
	record("echo", "  p99 over tmux's p99, median of the runs' (limit +1 ms)", fmtSigned(over), "—", "—")
	cpu, tcpu := time.Duration(med(func(r echoRun) float64 { return float64(r.cpu) })), time.Duration(med(func(r echoRun) float64 { return float64(r.tcpu) }))
	wake, twake := med(func(r echoRun) float64 { return r.wake }), med(func(r echoRun) float64 { return r.twake })
	record("echo", "server CPU a key (threads' time on a CPU over the keys)", fmtDur(cpu), fmtDur(tcpu), ratio(cpu.Seconds(), tcpu.Seconds()))
	record("echo", "server threads put on a CPU a key", fmt.Sprintf("%.1f", wake), fmt.Sprintf("%.1f", twake), ratio(wake, twake))
	i50 := percentile(in, 50)
	record("echo", "key → drawn in pullcept's input line, p50", fmtDur(i50), fmtDur(r50)+" (pane echo)", ratio(i50.Seconds(), r50.Seconds()))
	return nil
}

// echoRun is one paired run: each side's sorted latencies and its server's
// cost a key.
type echoRun struct {
	pc, ref     []time.Duration
	cpu, tcpu   time.Duration
	wake, twake float64
}

func (r echoRun) p50() time.Duration { return percentile(r.pc, 50) }
func (r echoRun) p99() time.Duration { return percentile(r.pc, 99) }
func (r echoRun) r50() time.Duration { return percentile(r.ref, 50) }
func (r echoRun) r99() time.Duration { return percentile(r.ref, 99) }

func (r echoRun) print(name string) {
	pc, ref := r.pc, r.ref
	fmt.Printf("  %s: pullcept client+server min %s p50 %s p90 %s p99 %s max %s\n", name, fmtDur(pc[0]), fmtDur(r.p50()), fmtDur(percentile(pc, 90)), fmtDur(r.p99()), fmtDur(pc[len(pc)-1]))
	fmt.Printf("  %*s  tmux client+server     min %s p50 %s p90 %s p99 %s max %s\n", len(name), "", fmtDur(ref[0]), fmtDur(r.r50()), fmtDur(percentile(ref, 90)), fmtDur(r.r99()), fmtDur(ref[len(ref)-1]))
	fmt.Printf("  %*s  p50 %s tmux's, p99 %s over tmux's; server CPU a key pullcept %s (%.1f times on a CPU), tmux %s (%.1f)\n", len(name), "",
		ratio(r.p50().Seconds(), r.r50().Seconds()), fmtSigned(r.p99()-r.r99()), fmtDur(r.cpu), r.wake, fmtDur(r.tcpu), r.twake)
}

// echoPair types the keys into pullcept's (t) and tmux's (tc) screens in
// turn and reads each server's cost over them (tpid: tmux's server).
func echoPair(t *pcTUI, tc *term, tpid int) (echoRun, error) {
	pcCost, err := startCost(t.Server)
	if err != nil {
		return echoRun{}, err
	}
	tmCost, err := startCost(tpid)
	if err != nil {
		return echoRun{}, err
	}
	lats, err := echoLatencies([]*term{t.term, tc})
	if err != nil {
		return echoRun{}, err
	}
	r := echoRun{pc: lats[0], ref: lats[1]}
	if r.cpu, r.wake, err = pcCost(scale.echoSamples + echoWarm); err != nil {
		return echoRun{}, err
	}
	if r.tcpu, r.twake, err = tmCost(scale.echoSamples + echoWarm); err != nil {
		return echoRun{}, err
	}
	return r, nil
}

// fmtSigned is d with its sign: +0.65 ms, -0.10 ms.
func fmtSigned(d time.Duration) string {
	if d < 0 {
		return "-" + fmtDur(-d)
	}
	return "+" + fmtDur(d)
}

// startCost reads pid's threads' time on a CPU now; the function returned
// gives the time and the times put on a CPU since, each divided by n.
func startCost(pid int) (func(n int) (time.Duration, float64, error), error) {
	run0, slices0, err := schedStat(pid)
	if err != nil {
		return nil, err
	}
	return func(n int) (time.Duration, float64, error) {
		run1, slices1, err := schedStat(pid)
		if err != nil {
			return 0, 0, err
		}
		return (run1 - run0) / time.Duration(n), float64(slices1-slices0) / float64(n), nil
	}, nil
}

// echoLatencies types scale.echoSamples keys into each of ts's focused cats, one
// key into each in turn (the first of a round alternating), and returns
// each one's sorted times to their echo.
func echoLatencies(ts []*term) ([][]time.Duration, error) {
	for _, t := range ts {
		if err := t.WaitQuiet(time.Now(), 300*time.Millisecond, 10*time.Second); err != nil {
			return nil, err
		}
		t.emulate.Store(false)
	}
	jitter := rand.New(rand.NewPCG(6, 6))
	lat := make([][]time.Duration, len(ts))
	for i := range scale.echoSamples + echoWarm {
		for n := range ts {
			j := (n + i) % len(ts)
			d, err := echoOne(ts[j], i)
			if err != nil {
				return nil, fmt.Errorf("terminal %d: %w", j, err)
			}
			if i >= echoWarm {
				lat[j] = append(lat[j], d)
			}
			// A random pause: keys must not fall into step with a renderer
			// that draws on a fixed frame clock.
			time.Sleep(time.Duration(jitter.IntN(50_000)) * time.Microsecond)
		}
	}
	for _, l := range lat {
		slices.Sort(l)
	}
	return lat, nil
}

// echoOne types the i-th key into t and returns the time to its echo, then
// waits for t to be quiet.
func echoOne(t *term, i int) (time.Duration, error) {
	if i%40 == 39 {
		typed := time.Now()
		if err := t.Type("\x15"); err != nil { // ^U: kill the line
			return 0, err
		}
		if err := t.WaitQuiet(typed, 100*time.Millisecond, 5*time.Second); err != nil {
			return 0, err
		}
	}
	key := string(echoKeys[i%len(echoKeys)])
	pos := t.Pos()
	var before time.Time
	var chunk string
	if echoSlow {
		t.mu.Lock()
		before, chunk = t.lastData, string(t.lastChunk)
		t.mu.Unlock()
	}
	t0 := time.Now()
	if err := t.Type(key); err != nil {
		return 0, err
	}
	seen, err := t.WaitText(key, pos, 5*time.Second)
	if err != nil {
		return 0, fmt.Errorf("key %d: %w", i, err)
	}
	if err := t.WaitQuiet(seen, 40*time.Millisecond, 5*time.Second); err != nil {
		return 0, err
	}
	if d := seen.Sub(t0); echoSlow && d > 4*time.Millisecond {
		fmt.Printf("    slow key %d: %s; last output %s before the key\n", i, fmtDur(d), fmtDur(t0.Sub(before)))
		fmt.Printf("      %q\n", chunk)
	}
	return seen.Sub(t0), nil
}

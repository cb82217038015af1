package seat

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/creack/pty"
)

// testWait bounds every wait in these tests.
const testWait = 15 * time.Second

// buildScriptCLI builds testdata/scriptcli into t's temp dir.
func buildScriptCLI(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "scriptcli")
	out, err := exec.Command("go", "build", "-o", bin, "./testdata/scriptcli").CombinedOutput()
	if err != nil {
		t.Fatalf("go build ./testdata/scriptcli: %v\n%s", err, out)
	}
	return bin
}

func startPane(t testing.TB, spec PaneSpec) *Pane {
	t.Helper()
	p, err := StartPane(context.Background(), spec)
	if err != nil {
		t.Fatalf("StartPane(%q): %v", spec.Argv, err)
	}
	t.Cleanup(func() {
		p.Stop("test over")
		select {
		case <-p.Done():
		case <-time.After(testWait):
			t.Errorf("pane %q did not end after Stop", spec.Argv)
		}
	})
	return p
}

// waitDone waits for the pane to end and returns its status.
func waitDone(t testing.TB, p *Pane) ExitStatus {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(testWait):
		t.Fatalf("pane did not end; screen:\n%s", ansi.Strip(p.Render()))
	}
	st, ok := p.ExitStatus()
	if !ok {
		t.Fatal("ExitStatus not ok after Done")
	}
	return st
}

// waitScreen waits on Dirty until the plain screen contains want.
func waitScreen(t testing.TB, p *Pane, want string) string {
	t.Helper()
	deadline := time.After(testWait)
	for {
		s := ansi.Strip(p.Render())
		if strings.Contains(s, want) {
			return s
		}
		select {
		case <-p.Dirty():
		case <-deadline:
			t.Fatalf("screen never showed %q:\n%s", want, s)
		}
	}
}

// recEntry is one line of scriptcli's record.
type recEntry struct {
	at   time.Time
	kind string // ready, in, winch, said
	data []byte // in: the bytes of one read
	text string // the rest of the line
}

func readRecord(t testing.TB, path string) []recEntry {
	t.Helper()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []recEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		ns, rest, ok := strings.Cut(line, " ")
		if !ok {
			continue // a torn last line: read again later
		}
		n, err := strconv.ParseInt(ns, 10, 64)
		if err != nil {
			t.Fatalf("record line %q", line)
		}
		kind, text, _ := strings.Cut(rest, " ")
		e := recEntry{at: time.Unix(0, n), kind: kind, text: text}
		if kind == "in" {
			if e.data, err = hex.DecodeString(text); err != nil {
				continue // torn
			}
		}
		out = append(out, e)
	}
	return out
}

// waitRecord waits, watching the record file grow, until cond holds.
func waitRecord(t testing.TB, path string, what string, cond func([]recEntry) bool) []recEntry {
	t.Helper()
	deadline := time.Now().Add(testWait)
	var size int64 = -1
	for {
		if st, err := os.Stat(path); err == nil && st.Size() != size {
			size = st.Size()
			if rec := readRecord(t, path); cond(rec) {
				return rec
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("record never showed %s; it holds:\n%s", what, dumpRecord(readRecord(t, path)))
		}
		time.Sleep(5 * time.Millisecond) // polling the file, not waiting for time
	}
}

func dumpRecord(rec []recEntry) string {
	var b strings.Builder
	for _, e := range rec {
		if e.kind == "in" {
			fmt.Fprintf(&b, "%s in %q\n", e.at.Format("15:04:05.000"), e.data)
		} else {
			fmt.Fprintf(&b, "%s %s %s\n", e.at.Format("15:04:05.000"), e.kind, e.text)
		}
	}
	return b.String()
}

// inputs is the reads of the record.
func inputs(rec []recEntry) []recEntry {
	var out []recEntry
	for _, e := range rec {
		if e.kind == "in" {
			out = append(out, e)
		}
	}
	return out
}

func hasKind(kind string) func([]recEntry) bool {
	return func(rec []recEntry) bool {
		for _, e := range rec {
			if e.kind == kind {
				return true
			}
		}
		return false
	}
}

// startScriptCLI starts scriptcli in a pane and waits until it is in raw
// mode. It returns the pane and the record's path.
func startScriptCLI(t testing.TB, bin string, env ...string) (*Pane, string) {
	t.Helper()
	rec := filepath.Join(t.TempDir(), "record")
	p := startPane(t, PaneSpec{
		Argv: []string{bin},
		Env:  append(append(os.Environ(), "SCRIPTCLI_RECORD="+rec), env...),
		Cols: 80, Rows: 24,
	})
	waitRecord(t, rec, "ready", hasKind("ready"))
	return p, rec
}

func TestPaneRendersJapaneseColoursAndEnv(t *testing.T) {
	t.Parallel()
	p := startPane(t, PaneSpec{
		Argv: []string{"sh", "-c", `printf '\033[31m赤い日本語\033[0m と \033[38;2;10;20;30m真色\033[0m\n'; printf '%s %s\n' "$TERM" "$COLORTERM"`},
		Env:  append(os.Environ(), "TERM=dumb", "COLORTERM="),
		Cols: 40, Rows: 5,
	})
	st := waitDone(t, p)
	if st.Code != 0 || st.Signal != 0 || st.Requested {
		t.Errorf("status %+v, want exit 0 not requested", st)
	}
	screen := p.Render()
	lines := strings.Split(screen, "\n")
	if len(lines) != 5 {
		t.Errorf("Render has %d lines, want 5:\n%q", len(lines), screen)
	}
	if !strings.Contains(lines[0], "\x1b[31m赤い日本語") {
		t.Errorf("line 0 lacks red Japanese: %q", lines[0])
	}
	if !strings.Contains(lines[0], "38;2;10;20;30m真色") {
		t.Errorf("line 0 lacks the true colour: %q", lines[0])
	}
	if got := strings.TrimRight(ansi.Strip(lines[0]), " "); got != "赤い日本語 と 真色" {
		t.Errorf("plain line 0 = %q", got)
	}
	if got := strings.TrimRight(ansi.Strip(lines[1]), " "); got != "xterm-256color truecolor" {
		t.Errorf("child's TERM COLORTERM = %q", got)
	}
	if x, y, _ := p.Cursor(); x != 0 || y != 2 {
		t.Errorf("cursor at %d,%d, want 0,2", x, y)
	}
	if _, err := p.Write([]byte("x")); !errors.Is(err, ErrPaneClosed) {
		t.Errorf("Write after exit: %v, want ErrPaneClosed", err)
	}
	if err := p.TypeRoom(context.Background(), []byte("x")); !errors.Is(err, ErrPaneClosed) {
		t.Errorf("TypeRoom after exit: %v, want ErrPaneClosed", err)
	}
}

func TestPaneExitCodeNotRequested(t *testing.T) {
	t.Parallel()
	p := startPane(t, PaneSpec{Argv: []string{"sh", "-c", "exit 7"}})
	st := waitDone(t, p)
	if st.Code != 7 || st.Signal != 0 || st.Requested || st.Err != nil {
		t.Errorf("status %+v, want exit 7, not requested", st)
	}
	p.Stop("late") // after the exit: changes nothing
	if st2, _ := p.ExitStatus(); st2 != st {
		t.Errorf("Stop after exit changed the status to %+v", st2)
	}
	if st.String() != "exit 7" {
		t.Errorf("String() = %q", st.String())
	}
}

func TestPaneStopHangsUp(t *testing.T) {
	t.Parallel()
	p := startPane(t, PaneSpec{Argv: []string{"sleep", "100"}, Grace: 10 * time.Second})
	start := time.Now()
	p.Stop("closed by the person")
	st := waitDone(t, p)
	if st.Signal != syscall.SIGHUP || !st.Requested || st.Reason != "closed by the person" {
		t.Errorf("status %+v, want SIGHUP, requested", st)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("SIGHUP took %v", d)
	}
}

func TestPaneStopEscalatesToKill(t *testing.T) {
	t.Parallel()
	const grace = 600 * time.Millisecond
	p := startPane(t, PaneSpec{
		Argv:  []string{"sh", "-c", `trap "" HUP TERM; echo ready; sleep 100`},
		Grace: grace,
	})
	waitScreen(t, p, "ready")
	start := time.Now()
	p.Stop("test")
	st := waitDone(t, p)
	d := time.Since(start)
	if st.Signal != syscall.SIGKILL || !st.Requested || st.Code != -1 {
		t.Errorf("status %+v, want SIGKILL, requested", st)
	}
	if d < grace {
		t.Errorf("killed after %v, before the grace of %v", d, grace)
	}
	if got := st.String(); got != "signal: killed (stopped: test)" {
		t.Errorf("String() = %q", got)
	}
}

func TestPaneStopsWithContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	p, err := StartPane(ctx, PaneSpec{Argv: []string{"sleep", "100"}})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	st := waitDone(t, p)
	if !st.Requested || st.Signal != syscall.SIGHUP {
		t.Errorf("status %+v, want SIGHUP, requested", st)
	}
}

// TestPaneChildSignalsDefaultWhenIgnored runs the test binary again with
// SIGHUP and SIGINT ignored, as nohup or a service manager starts a server:
// the pane's child must still get both at their default action, so that
// Stop's hang-up ends it and Ctrl-C reaches it.
func TestPaneChildSignalsDefaultWhenIgnored(t *testing.T) {
	if os.Getenv("PULLCEPT_SEAT_SIGNALS_IGNORED") == "1" {
		paneChildSignalsDefault(t)
		return
	}
	t.Parallel()
	cmd := exec.Command("sh", "-c", `trap "" HUP INT; exec "$0" -test.run='^TestPaneChildSignalsDefaultWhenIgnored$' -test.v -test.count=1`, os.Args[0])
	cmd.Env = append(os.Environ(), "PULLCEPT_SEAT_SIGNALS_IGNORED=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("with SIGHUP and SIGINT ignored: %v\n%s", err, out)
	}
}

func paneChildSignalsDefault(t *testing.T) {
	if !signal.Ignored(syscall.SIGHUP) || !signal.Ignored(syscall.SIGINT) {
		t.Fatal("the test process was not started with SIGHUP and SIGINT ignored")
	}
	p := startPane(t, PaneSpec{
		Argv:  []string{"sh", "-c", `grep SigIgn /proc/self/status; echo ready; exec sleep 100`},
		Grace: 20 * time.Second,
	})
	screen := waitScreen(t, p, "ready")
	_, mask, _ := strings.Cut(screen, "SigIgn:")
	mask, _, _ = strings.Cut(strings.TrimSpace(mask), "\n")
	ign, err := strconv.ParseUint(strings.TrimSpace(mask), 16, 64)
	if err != nil {
		t.Fatalf("SigIgn not read from %q: %v", screen, err)
	}
	if ign&(1<<(syscall.SIGHUP-1)) != 0 || ign&(1<<(syscall.SIGINT-1)) != 0 {
		t.Errorf("the child ignores SIGHUP or SIGINT: SigIgn %#x", ign)
	}
	p.Stop("closed by the person")
	if st := waitDone(t, p); st.Signal != syscall.SIGHUP {
		t.Errorf("status %+v, want SIGHUP", st)
	}
	if !signal.Ignored(syscall.SIGHUP) {
		// Notify makes Ignored false; the process must still not die of one.
		if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
	}
}

func TestPaneStartErrors(t *testing.T) {
	t.Parallel()
	if _, err := StartPane(context.Background(), PaneSpec{}); !errors.Is(err, ErrNoCommand) {
		t.Errorf("empty Argv: %v", err)
	}
	if _, err := StartPane(context.Background(), PaneSpec{Argv: []string{"/nonexistent/cli"}}); err == nil {
		t.Error("missing command started")
	}
}

func TestPaneResize(t *testing.T) {
	t.Parallel()
	bin := buildScriptCLI(t)
	p, rec := startScriptCLI(t, bin)
	if err := p.Resize(100, 30); err != nil {
		t.Fatal(err)
	}
	waitRecord(t, rec, "winch 30 100", func(r []recEntry) bool {
		for _, e := range r {
			if e.kind == "winch" && e.text == "30 100" {
				return true
			}
		}
		return false
	})
	if c, r := p.Size(); c != 100 || r != 30 {
		t.Errorf("Size() = %d,%d", c, r)
	}
	waitScreen(t, p, "size 30 100")
	if n := len(strings.Split(p.Render(), "\n")); n != 30 {
		t.Errorf("Render has %d lines after resize, want 30", n)
	}
	if err := p.Resize(0, 10); err == nil {
		t.Error("Resize(0, 10) accepted")
	}
}

func TestPaneAnswersQueries(t *testing.T) {
	t.Parallel()
	bin := buildScriptCLI(t)
	p, rec := startScriptCLI(t, bin, "SCRIPTCLI_DSR=1")
	// The query was the first thing written, so the cursor was at 1;1.
	waitRecord(t, rec, "the cursor position report", func(r []recEntry) bool {
		for _, e := range inputs(r) {
			if bytes.Contains(e.data, []byte("\x1b[1;1R")) {
				return true
			}
		}
		return false
	})
	waitScreen(t, p, "scriptcli READY")
	if _, err := p.Write([]byte("still alive")); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, p, "still alive")
}

// A child that floods queries and never reads its input fills the PTY's
// input buffer with replies: the pane keeps drawing and still stops.
func TestPaneDoesNotFreezeOnUnreadReplies(t *testing.T) {
	t.Parallel()
	p := startPane(t, PaneSpec{
		Argv:  []string{"sh", "-c", `stty raw -echo; i=0; while [ $i -lt 20000 ]; do printf '\033[6n'; i=$((i+1)); done; echo all-asked; sleep 100`},
		Grace: time.Second,
	})
	waitScreen(t, p, "all-asked")
	// 20,000 replies (~150 KB) do not fit in the PTY's buffers: the input
	// writer is blocked and replies wait in the reply queue.
	p.inMu.Lock()
	queued := len(p.replies)
	p.inMu.Unlock()
	if queued == 0 {
		t.Error("no reply waits: the test did not fill the PTY's input")
	}
	for range 100 { // keys queue up behind the replies; Write never blocks
		if _, err := p.Write([]byte("k")); err != nil {
			t.Fatal(err)
		}
	}
	p.Stop("test")
	if st := waitDone(t, p); !st.Requested {
		t.Errorf("status %+v", st)
	}
}

// A grandchild that keeps the terminal open does not keep the pane alive
// after the child exits.
func TestPaneEndsWhenGrandchildHoldsTerminal(t *testing.T) {
	t.Parallel()
	p := startPane(t, PaneSpec{Argv: []string{"sh", "-c", `trap "" HUP; sleep 3 & echo started; exit 3`}})
	start := time.Now()
	st := waitDone(t, p)
	if st.Code != 3 {
		t.Errorf("status %+v, want exit 3", st)
	}
	if d := time.Since(start); d > 2500*time.Millisecond {
		t.Errorf("Done after %v: the grandchild's terminal kept the pane", d)
	}
	if !strings.Contains(ansi.Strip(p.Render()), "started") {
		t.Errorf("output lost:\n%s", p.Render())
	}
}

func TestPaneScrollback(t *testing.T) {
	t.Parallel()
	p := startPane(t, PaneSpec{
		Argv: []string{"sh", "-c", `seq 1 50; printf '\033[?1049h'; seq 100 300`},
		Cols: 20, Rows: 10, Scrollback: 1000,
	})
	waitDone(t, p)
	// 50 lines and a final line feed on 10 rows: 41 lines scrolled off. The
	// alternate screen's 201 lines keep none.
	if n := p.ScrollbackLen(); n != 41 {
		t.Fatalf("ScrollbackLen() = %d, want 41", n)
	}
	if got := p.ScrollbackLine(0); got != "1" {
		t.Errorf("ScrollbackLine(0) = %q", got)
	}
	if got := p.ScrollbackLine(40); got != "41" {
		t.Errorf("ScrollbackLine(40) = %q", got)
	}
	if got := p.ScrollbackLine(41); got != "" {
		t.Errorf("ScrollbackLine(41) = %q", got)
	}
	if !p.AltScreen() {
		t.Fatal("not on the alternate screen")
	}
	if got := p.RenderScrolled(5); got != p.Render() {
		t.Errorf("RenderScrolled on the alternate screen differs from Render")
	}

	q := startPane(t, PaneSpec{Argv: []string{"sh", "-c", `seq 1 50`}, Cols: 20, Rows: 10})
	waitDone(t, q)
	lines := strings.Split(q.RenderScrolled(3), "\n")
	want := []string{"39", "40", "41", "42", "43", "44", "45", "46", "47", "48"}
	for i := range lines {
		if len(lines[i]) != 20 {
			t.Errorf("RenderScrolled line %d is %q, not 20 cells", i, lines[i])
		}
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	if strings.Join(lines, ",") != strings.Join(want, ",") {
		t.Errorf("RenderScrolled(3) = %q, want %q", lines, want)
	}
	if top := strings.Split(q.RenderScrolled(1000), "\n")[0]; strings.TrimRight(top, " ") != "1" {
		t.Errorf("RenderScrolled(1000) starts %q", top)
	}
}

func TestPaneModes(t *testing.T) {
	t.Parallel()
	p := startPane(t, PaneSpec{Argv: []string{"sh", "-c", `printf '\033[?1h\033[?2004h\033[?1002h\033[?1006h\033[?2004l'; echo set`}})
	waitDone(t, p)
	want := InputModes{CursorKeys: true, BracketedPaste: false, Mouse: true, MouseSGR: true}
	if got := p.Modes(); got != want {
		t.Errorf("Modes() = %+v, want %+v", got, want)
	}
}

func TestPaneEnv(t *testing.T) {
	t.Parallel()
	got := paneEnv([]string{"A=1", "TERM=screen", "COLUMNS=10", "LINES=3", "COLORTERM=x", "B=2"})
	want := []string{"A=1", "B=2", "TERM=xterm-256color", "COLORTERM=truecolor"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("paneEnv = %q, want %q", got, want)
	}
}

// TestPaneNoLeakedGoroutines is not parallel: parallel tests are paused
// while it runs, so the goroutine count is its own.
func TestPaneNoLeakedGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, argv := range [][]string{
		{"sh", "-c", "echo hi"},
		{"sleep", "100"},
		{"sh", "-c", `printf '\033[6n'; sleep 100`},
	} {
		p, err := StartPane(context.Background(), PaneSpec{Argv: argv, Grace: 200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		p.Write([]byte("abc"))
		p.Stop("test")
		waitDone(t, p)
	}
	deadline := time.Now().Add(testWait)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		runtime.Gosched()
		time.Sleep(10 * time.Millisecond) // the runtime's own exits, not ours
	}
}

// mixedText is n bytes of ANSI-coloured ASCII and Japanese lines.
func mixedText(n int) []byte {
	var b bytes.Buffer
	words := []string{"hello", "世界", "ターミナル", "emulator", "日本語のテキスト", "pane", "色", "scroll"}
	for i := 0; b.Len() < n; i++ {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "\x1b[3%dm", i%8)
		case 1:
			fmt.Fprintf(&b, "\x1b[38;5;%dm", i%256)
		case 2:
			fmt.Fprintf(&b, "\x1b[38;2;%d;%d;%dm", i%256, (i*7)%256, (i*13)%256)
		}
		for w := range 1 + i%12 {
			b.WriteString(words[(i+w)%len(words)])
			b.WriteByte(' ')
		}
		b.WriteString("\x1b[0m\n")
	}
	return b.Bytes()
}

// BenchmarkPaneThroughput cats the same mixed text through a pane and
// through a bare PTY (read and discarded) and reports both rates and their
// ratio.
func BenchmarkPaneThroughput(b *testing.B) {
	const size = 4 << 20
	file := filepath.Join(b.TempDir(), "mixed.txt")
	if err := os.WriteFile(file, mixedText(size), 0o600); err != nil {
		b.Fatal(err)
	}
	var paneTime, bareTime time.Duration
	for b.Loop() {
		start := time.Now()
		p, err := StartPane(context.Background(), PaneSpec{Argv: []string{"cat", file}, Cols: 120, Rows: 40})
		if err != nil {
			b.Fatal(err)
		}
		<-p.Done()
		paneTime += time.Since(start)

		start = time.Now()
		cmd := exec.Command("cat", file)
		f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 120, Rows: 40})
		if err != nil {
			b.Fatal(err)
		}
		buf := make([]byte, 64*1024)
		for {
			if _, err := f.Read(buf); err != nil {
				break
			}
		}
		_ = cmd.Wait()
		f.Close()
		bareTime += time.Since(start)
	}
	mb := float64(size) * float64(b.N) / 1e6
	b.ReportMetric(mb/paneTime.Seconds(), "pane-MB/s")
	b.ReportMetric(mb/bareTime.Seconds(), "bare-MB/s")
	b.ReportMetric(bareTime.Seconds()/paneTime.Seconds(), "pane/bare")
}

// A pane given OnDirty calls it from its reader for every change of the
// screen, and Dirty stays quiet (the manager then needs no goroutine to
// forward the change).
func TestPaneOnDirtyIsCalledInsteadOfDirty(t *testing.T) {
	changed := make(chan struct{}, 64)
	p := startPane(t, PaneSpec{Argv: []string{"sh", "-c", "printf 'on dirty'; read x"}, OnDirty: func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}})
	deadline := time.After(testWait)
	for !strings.Contains(p.Render(), "on dirty") {
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("OnDirty was not called for the output; screen %q", p.Render())
		}
	}
	select {
	case <-p.Dirty():
		t.Fatal("Dirty signalled with OnDirty set")
	default:
	}
}

// Keys typed while the child does not read its input: the first are
// written at once (writeNow), the rest wait in the queue once the PTY
// takes no more, Write never blocks, and the child reads every byte in
// order once it reads.
func TestPaneKeysWrittenAtOnceOrQueuedInOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	start, out := filepath.Join(dir, "start"), filepath.Join(dir, "out")
	p := startPane(t, PaneSpec{
		Argv:  []string{"sh", "-c", `stty raw -echo; echo waiting; while [ ! -e "$1" ]; do sleep 0.01; done; exec cat > "$2"`, "sh", start, out},
		Grace: time.Second,
	})
	waitScreen(t, p, "waiting")
	var want bytes.Buffer
	for i := range 4000 { // ~30 KB: more than the PTY's input buffer holds
		k := fmt.Sprintf("k%d,", i)
		want.WriteString(k)
		if _, err := p.Write([]byte(k)); err != nil {
			t.Fatal(err)
		}
	}
	p.inMu.Lock()
	queued := len(p.inq)
	p.inMu.Unlock()
	if queued == 0 {
		t.Error("nothing queued: the keys all fit in the PTY, the test did not fill it")
	}
	if err := os.WriteFile(start, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(testWait)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		got, _ := os.ReadFile(out)
		if len(got) >= want.Len() {
			if !bytes.Equal(got, want.Bytes()) {
				t.Fatalf("the child read %d bytes, not the keys in order (first difference at %d)", len(got), firstDiff(got, want.Bytes()))
			}
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("the child read %d of %d bytes", len(got), want.Len())
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

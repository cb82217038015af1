package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"
)

// term is the outer terminal of a program under test: a PTY this process
// holds. Everything the program writes is read at once; its text (escape
// sequences and control characters stripped) is kept for waiting on, and
// while emulate is on it also goes through a terminal emulator, which
// answers the program's queries like a real terminal and gives a screen to
// check set-up steps against. The timed phases turn the emulator off so the
// reader costs next to nothing.
type term struct {
	cmd  *exec.Cmd
	f    *os.File
	emu  *vt.SafeEmulator
	Cols int
	Rows int

	emulate atomic.Bool
	Bytes   atomic.Int64 // everything read, escape sequences included

	mu        sync.Mutex
	text      []byte // stripped text from base on
	base      int64
	strip     stripper
	lastData  time.Time
	lastChunk []byte
	changed   chan struct{} // closed and replaced on every read
	closed    bool
	done      chan struct{}
}

// startTerm runs argv in a new PTY of cols x rows with env.
func startTerm(cols, rows int, env []string, argv ...string) (*term, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
	if err != nil {
		return nil, err
	}
	t := &term{cmd: cmd, f: f, emu: vt.NewSafeEmulator(cols, rows), Cols: cols, Rows: rows,
		changed: make(chan struct{}), done: make(chan struct{}), lastData: time.Now()}
	t.emulate.Store(true)
	go t.readLoop()
	go t.replyLoop()
	atCleanup(t.Close)
	return t, nil
}

func (t *term) readLoop() {
	buf := make([]byte, 64<<10)
	for {
		n, err := t.f.Read(buf)
		if n > 0 {
			if t.emulate.Load() {
				_, _ = t.emu.Write(buf[:n])
			}
			t.Bytes.Add(int64(n))
			t.mu.Lock()
			t.text = t.strip.feed(t.text, buf[:n])
			if len(t.text) > 1<<20 {
				keep := 64 << 10
				t.base += int64(len(t.text) - keep)
				t.text = append(t.text[:0], t.text[len(t.text)-keep:]...)
			}
			t.lastData = time.Now()
			if echoSlow { // what a slow key waited behind (echo.go)
				t.lastChunk = append(t.lastChunk[:0], buf[:n]...)
			}
			close(t.changed)
			t.changed = make(chan struct{})
			t.mu.Unlock()
		}
		if err != nil {
			t.mu.Lock()
			t.closed = true
			close(t.changed)
			t.changed = make(chan struct{})
			t.mu.Unlock()
			close(t.done)
			return
		}
	}
}

// replyLoop sends the emulator's answers (cursor position, device
// attributes…) back to the program, as a terminal does.
func (t *term) replyLoop() {
	buf := make([]byte, 4096)
	for {
		n, err := t.emu.Read(buf)
		if n > 0 {
			_, _ = t.f.Write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// Pid is the program's process id.
func (t *term) Pid() int { return t.cmd.Process.Pid }

// Pos is the end of the text read so far.
func (t *term) Pos() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.base + int64(len(t.text))
}

// Type writes keys to the program, as typed on the keyboard.
func (t *term) Type(keys string) error {
	_, err := t.f.Write([]byte(keys))
	return err
}

// WaitText waits until the text read after from holds needle, and returns
// when it was seen.
func (t *term) WaitText(needle string, from int64, timeout time.Duration) (time.Time, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		t.mu.Lock()
		start := max(from-t.base, 0)
		found := bytes.Contains(t.text[start:], []byte(needle))
		ch, closed := t.changed, t.closed
		t.mu.Unlock()
		if found {
			return time.Now(), nil
		}
		if closed {
			return time.Time{}, fmt.Errorf("terminal closed before %q was drawn", needle)
		}
		select {
		case <-ch:
		case <-deadline.C:
			return time.Time{}, fmt.Errorf("%q not drawn after %s", needle, timeout)
		}
	}
}

// WaitQuiet waits until nothing has been written for quiet, counting from
// since at the earliest (when keys were typed: their answer may not have
// started yet).
func (t *term) WaitQuiet(since time.Time, quiet, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		t.mu.Lock()
		last := t.lastData
		t.mu.Unlock()
		if since.After(last) {
			last = since
		}
		idle := time.Since(last)
		if idle >= quiet {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("terminal output did not stop for %s within %s", quiet, timeout)
		}
		time.Sleep(quiet - idle)
	}
}

// Screen is the emulator's screen as plain text.
func (t *term) Screen() string { return t.emu.String() }

// WaitScreen waits until the emulated screen satisfies ok.
func (t *term) WaitScreen(what string, timeout time.Duration, ok func(screen string) bool) error {
	err := waitUntil(what, timeout, 20*time.Millisecond, func() (bool, error) {
		return ok(t.Screen()), nil
	})
	if err != nil {
		return fmt.Errorf("%w; screen:\n%s", err, t.Screen())
	}
	return nil
}

// CursorRow is the emulated cursor's row.
func (t *term) CursorRow() int { return t.emu.CursorPosition().Y }

// Close ends the program (SIGTERM, then SIGKILL after 10 s) and the PTY.
func (t *term) Close() {
	if t.cmd.ProcessState == nil {
		_ = t.cmd.Process.Signal(syscall.SIGTERM)
		exited := make(chan struct{})
		go func() { _ = t.cmd.Wait(); close(exited) }()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = t.cmd.Process.Kill()
			<-exited
		}
	}
	_ = t.f.Close()
	_ = t.emu.Close()
}

// stripper drops escape sequences and control characters from a byte
// stream, keeping the printed text (UTF-8 passes through), across reads.
type stripper struct{ st int }

const (
	sGround = iota
	sEsc
	sEscInter
	sCSI
	sStr
	sStrEsc
)

func (s *stripper) feed(dst, src []byte) []byte {
	for _, c := range src {
		switch s.st {
		case sGround:
			switch {
			case c == 0x1b:
				s.st = sEsc
			case c >= 0x20 && c != 0x7f:
				dst = append(dst, c)
			}
		case sEsc:
			switch {
			case c == '[':
				s.st = sCSI
			case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
				s.st = sStr
			case c >= 0x20 && c <= 0x2f:
				s.st = sEscInter
			default:
				s.st = sGround
			}
		case sEscInter:
			if c >= 0x30 && c <= 0x7e {
				s.st = sGround
			}
		case sCSI:
			if c >= 0x40 && c <= 0x7e {
				s.st = sGround
			}
		case sStr:
			switch c {
			case 0x07:
				s.st = sGround
			case 0x1b:
				s.st = sStrEsc
			}
		case sStrEsc:
			if c == '\\' {
				s.st = sGround
			} else {
				s.st = sStr
			}
		}
	}
	return dst
}

// pcTUI is pullcept's terminal UI under test: `pullcept`, a thin client,
// in a terminal this program holds (term), and the home's server the
// client started in the background (setsid, so not a child of the client's
// terminal), which holds the app, the seats' PTYs and the screen. Server
// is the server's pid, read from the home's lock file once the screen is
// up. Close ends the server and its seats with `pullcept kill-server`.
type pcTUI struct {
	*term
	home   string
	Server int

	closeOnce sync.Once
}

// pullceptTUI starts `pullcept` (the terminal UI) in a terminal of cols x
// rows with PULLCEPT_HOME=home, waits for its input line and finds its
// server.
func pullceptTUI(home string, cols, rows int) (*pcTUI, error) {
	env := append(os.Environ(), "PULLCEPT_HOME="+home, "TERM=xterm-256color", "COLORTERM=truecolor")
	t, err := startTerm(cols, rows, env, opts.bin)
	if err != nil {
		return nil, err
	}
	p := &pcTUI{term: t, home: home}
	atCleanup(p.Close) // after startTerm's: runs before it, and before the home goes
	if err := t.WaitScreen("the TUI's input line", 15*time.Second, func(s string) bool {
		return strings.Contains(s, "say something")
	}); err != nil {
		return nil, err
	}
	pid, err := serverPID(home)
	if err != nil {
		return nil, err
	}
	if pid == t.Pid() {
		return nil, fmt.Errorf("the home's lock names the client itself (pid %d), not a server", pid)
	}
	p.Server = pid
	return p, nil
}

// Close ends the home's server and every seat with `pullcept kill-server`
// (the person's way; it returns once the seats' stop sequence ran), then
// the client (told by the server, else by Close), and makes sure nothing
// of the home is left: the server's pid and any process carrying the home
// in its environment (the seats) are killed if still there.
func (p *pcTUI) Close() {
	p.closeOnce.Do(func() {
		pid := p.Server
		if pid == 0 {
			pid, _ = serverPID(p.home) // the screen never came up
		}
		kill := exec.Command(opts.bin, "kill-server")
		kill.Env = append(os.Environ(), "PULLCEPT_HOME="+p.home)
		done := make(chan []byte, 1)
		var out []byte
		var err error
		go func() { b, e := kill.CombinedOutput(); err = e; done <- b }()
		select {
		case out = <-done:
		case <-time.After(30 * time.Second):
			_ = kill.Process.Kill()
			out = <-done
			err = errors.New("no answer after 30 s")
		}
		if err != nil && pid > 0 {
			fmt.Fprintf(os.Stderr, "pcbench: pullcept kill-server (home %s): %v: %s\n", p.home, err, bytes.TrimSpace(out))
		}
		if pid > 0 && !waitGone(pid, 15*time.Second) {
			fmt.Fprintf(os.Stderr, "pcbench: the pullcept server (pid %d) outlived kill-server by 15 s; killing it\n", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
			waitGone(pid, 5*time.Second)
		}
		p.term.Close()
		for _, q := range homeProcs(p.home) {
			fmt.Fprintf(os.Stderr, "pcbench: pid %d (%s) of home %s outlived its server; killing it\n", q, procName(q), p.home)
			_ = syscall.Kill(q, syscall.SIGKILL)
		}
	})
}

// serverPID is the pid in the home's lock file (state/pullcept.lock, one
// line), checked to be a living `pullcept server`.
func serverPID(home string) (int, error) {
	path := filepath.Join(home, "state", "pullcept.lock")
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("the server's pid: %w", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("the server's pid: %s holds %q", path, b)
	}
	argv, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return 0, fmt.Errorf("the server's pid %d (from %s): %w", pid, path, err)
	}
	if args := strings.Split(strings.TrimRight(string(argv), "\x00"), "\x00"); len(args) < 2 || args[1] != "server" {
		return 0, fmt.Errorf("pid %d in %s is %q, not `pullcept server`", pid, path, args)
	}
	return pid, nil
}

// waitGone waits until pid has ended (a zombie counts: a server whose
// parent, the client, ended first is reaped by whoever adopted it).
func waitGone(pid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return true
		}
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) && b[i+2] == 'Z' {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// homeProcs lists the living processes (not zombies, not this one) whose
// environment names home: PULLCEPT_HOME=home for client and server,
// PULLCEPT_SEAT_HOME=home/run for the seats and what they started.
func homeProcs(home string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			_, v, ok := bytes.Cut(kv, []byte("="))
			if ok && (string(v) == home || bytes.HasPrefix(v, []byte(home+"/"))) && !waitGone(pid, 0) {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// procName is a process's command name.
func procName(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return strings.TrimSpace(string(b))
}

// Keys types keys and waits until the screen has settled.
func (t *term) Keys(keys ...string) error {
	for _, k := range keys {
		typed := time.Now()
		if err := t.Type(k); err != nil {
			return err
		}
		if err := t.WaitQuiet(typed, 150*time.Millisecond, 5*time.Second); err != nil {
			return err
		}
	}
	return nil
}

// startSeatsByKeys starts the first n accounts' seats through the
// participants panel (prefix a, then j s per account) and waits until the
// panel says each is running.
func (t *term) startSeatsByKeys(n int) error {
	if err := t.Keys("\x02a"); err != nil {
		return err
	}
	for range n {
		if err := t.Keys("j", "s"); err != nil {
			return err
		}
	}
	return t.WaitScreen(fmt.Sprintf("%d seats running", n), 20*time.Second, func(s string) bool {
		// "running" in the participants panel; the pane titles say "cli · running".
		return strings.Count(s, "running")-strings.Count(s, "cli · running") >= n
	})
}

// focusFirstPane moves the focus to the first terminal pane (prefix i, then
// prefix o twice: input, room, pane) and checks that the cursor left the
// input line.
func (t *term) focusFirstPane() error {
	if err := t.Keys("\x02i", "\x02o", "\x02o"); err != nil {
		return err
	}
	err := waitUntil("the cursor in the pane", 3*time.Second, 20*time.Millisecond, func() (bool, error) {
		return t.CursorRow() < t.Rows-2, nil
	})
	if err != nil {
		return errors.New("the cursor is still in the input line after focusing the pane; screen:\n" + t.Screen())
	}
	return nil
}

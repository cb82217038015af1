package seat

// A Pane is one command in a real PTY with a terminal emulator fed by its
// output.
//
// Goroutines, all owned by the pane's run goroutine, which waits for every
// one of them before it closes Done:
//
//   - read:   PTY output -> emulator, then a coalesced Dirty signal;
//   - reply:  the emulator's answers to queries (cursor position, device
//     attributes...) -> the reply queue. The emulator's reply pipe is
//     unbuffered and its Write blocks holding its lock until the reply is
//     read, so without this goroutine a DSR query would freeze the pane.
//     The queue holds at most maxReplyBytes; a reply that does not fit is
//     dropped whole (a child that floods queries without reading its input
//     would not read the answers either);
//   - write:  the input queue -> PTY, one write per entry, in order, and
//     the reply queue's replies only when the input queue is empty. The
//     person's keys, the typist's post and \r and the emulator's replies all
//     go through it, so nothing interleaves inside the typist's one write, no
//     caller ever blocks on a child that does not read its input, and a post
//     waits behind one reply write at most, never the queue. A person's key
//     with nothing queued or being written is written by Write itself,
//     non-blocking, and what the PTY does not take goes to the queue's head
//     (writeNow);
//   - wait:   the child's exit status;
//   - stop:   Stop's escalation, SIGHUP -> SIGTERM -> SIGKILL.
//
// The PTY master is re-opened as a non-blocking file on Go's poller (creack/pty
// leaves it blocking), so deadlines end a read held open by a grandchild that
// outlived the child, and a write blocked on a full input buffer.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// DefaultGrace is how long Stop waits in all before SIGKILL.
const DefaultGrace = 3 * time.Second

// ErrPaneClosed is returned for input to a pane whose child has exited.
var ErrPaneClosed = errors.New("pane closed")

// ErrNoCommand is returned by StartPane for an empty Argv.
var ErrNoCommand = errors.New("no command")

// PaneSpec says what a pane runs.
type PaneSpec struct {
	// Argv is the command and its arguments; Argv[0] is looked up in PATH
	// unless it contains a slash.
	Argv []string
	// Env is the child's environment; nil means this process's. TERM and
	// COLORTERM are always replaced by xterm-256color and truecolor, and
	// LINES and COLUMNS are removed (the PTY carries the size).
	Env []string
	// Dir is the working directory; empty means this process's.
	Dir string
	// Cols and Rows are the size; zero means 80x24.
	Cols, Rows int
	// Scrollback is the main screen's scrollback in lines; zero means the
	// emulator's default (10,000). The alternate screen keeps none.
	Scrollback int
	// Grace is how long Stop waits in all before SIGKILL (SIGTERM comes at
	// half of it); zero means DefaultGrace.
	Grace time.Duration
	// OnDirty, when set, is called by the pane's reader each time its
	// screen changed (it must not block), instead of Dirty signalling: a
	// key's echo reaches the screen without a goroutine in between.
	OnDirty func()
	// OnFault, when set, is told when the emulator failed on the CLI's
	// output (a panic, recovered: the pane's screen is reset and the
	// server and every other session go on). It must not block.
	OnFault func(error)
}

// ExitStatus is how a pane's child ended.
type ExitStatus struct {
	// Code is the exit code, or -1 when a signal ended the child or it
	// could not be waited for.
	Code int
	// Signal is the signal that ended the child, or 0.
	Signal syscall.Signal
	// Requested is true when Stop (or the start context) asked for the end
	// before the child exited.
	Requested bool
	// Reason is Stop's reason when Requested.
	Reason string
	// Err is set when waiting for the child failed for another reason.
	Err error
}

// String is "exit 7", "signal: killed" and so on, with "(stopped: why)"
// when the stop was asked for.
func (s ExitStatus) String() string {
	var b strings.Builder
	switch {
	case s.Signal != 0:
		b.WriteString("signal: " + s.Signal.String())
	case s.Err != nil:
		b.WriteString("error: " + s.Err.Error())
	default:
		fmt.Fprintf(&b, "exit %d", s.Code)
	}
	if s.Requested {
		b.WriteString(" (stopped")
		if s.Reason != "" {
			b.WriteString(": " + s.Reason)
		}
		b.WriteString(")")
	}
	return b.String()
}

// Pane runs a command in a PTY with a terminal emulator. Its methods are
// safe for concurrent use.
type Pane struct {
	cmd   *exec.Cmd
	pty   *os.File // non-blocking, on the poller; never call Fd()
	emu   *vt.SafeEmulator
	grace time.Duration

	// emuMu orders the reader's Write and Resize (exclusive) against
	// scrollback reads (shared): vt's Scrollback() is the live buffer.
	emuMu sync.RWMutex
	modes atomic.Uint32

	dirty    chan struct{} // buffered 1: coalesced
	onDirty  func()        // PaneSpec.OnDirty: called instead of dirty
	onFault  func(error)   // PaneSpec.OnFault
	released chan struct{} // buffered 1: unsent input went empty

	inMu      sync.Mutex
	unsent    Unsent
	keyFilter atomic.Pointer[func([]byte) bool]
	inq       []inWrite
	replies   [][]byte // the emulator's answers, behind inq
	replyLen  int      // bytes in replies
	replyPeak int      // the most replyLen has been
	replyDrop int      // replies dropped for want of room
	inClosed  bool
	writing   bool          // a write to the PTY is under way (writeLoop's or enqueue's own)
	inReady   chan struct{} // buffered 1
	lastIn    atomic.Int64  // unix nanos of the last key written to the PTY
	lastOut   atomic.Int64  // unix nanos of the last output read from the PTY

	stopOnce sync.Once
	stopc    chan struct{} // closed by Stop
	reasonMu sync.Mutex
	reason   string

	frameTimer *time.Timer // readLoop's: marks dirty when a held frame expires

	rows    rowCache // Render's, under emuMu (exclusive)
	written uint64   // writes and resizes of the emulator, under emuMu

	exited chan struct{} // closed once the child is reaped
	done   chan struct{} // closed once every goroutine has ended
	status ExitStatus    // written before done closes
}

// StartPane starts spec's command in a new PTY of spec's size, with the
// child as session leader and the PTY as its controlling terminal. When ctx
// ends, the pane is stopped as by Stop.
func StartPane(ctx context.Context, spec PaneSpec) (*Pane, error) {
	if len(spec.Argv) == 0 {
		return nil, fmt.Errorf("start pane: %w", ErrNoCommand)
	}
	cols, rows := spec.Cols, spec.Rows
	if cols <= 0 || rows <= 0 {
		cols, rows = 80, 24
	}
	grace := spec.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	childSignalsDefault()
	env := paneEnv(spec.Env)
	// The program is found on the child's PATH (the person's), not this
	// process's.
	prog, err := LookPathIn(env, spec.Argv[0])
	if err != nil {
		return nil, fmt.Errorf("start pane: %w", err)
	}
	cmd := exec.Command(prog, spec.Argv[1:]...)
	cmd.Args[0] = spec.Argv[0]
	cmd.Env = env
	cmd.Dir = spec.Dir
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)})
	if err != nil {
		return nil, fmt.Errorf("start pane %q: %w", spec.Argv[0], err)
	}
	ptmx, err := pollable(f)
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("start pane %q: %w", spec.Argv[0], err)
	}

	p := &Pane{
		cmd:      cmd,
		pty:      ptmx,
		emu:      vt.NewSafeEmulator(cols, rows),
		grace:    grace,
		dirty:    make(chan struct{}, 1),
		onDirty:  spec.OnDirty,
		onFault:  spec.OnFault,
		released: make(chan struct{}, 1),
		inReady:  make(chan struct{}, 1),
		stopc:    make(chan struct{}),
		exited:   make(chan struct{}),
		done:     make(chan struct{}),
	}
	if spec.Scrollback > 0 {
		p.emu.SetScrollbackSize(spec.Scrollback)
	}
	// Set before any goroutine runs; called under the emulator's lock.
	p.emu.SetCallbacks(vt.Callbacks{
		EnableMode:  func(m ansi.Mode) { p.setMode(m, true) },
		DisableMode: func(m ansi.Mode) { p.setMode(m, false) },
	})
	go p.run(ctx)
	return p, nil
}

// childSignalsDefault makes a child start with SIGHUP and SIGINT at their
// default action, as tmux's children do, even when this process was started
// with them ignored (nohup, a service manager): an ignored disposition
// survives exec, and a CLI that ignores SIGHUP outlives Stop's hang-up and
// one that ignores SIGINT Ctrl-C. Go resets in a child only the signals it
// handles, and it does not handle these two when they were ignored at start,
// so they are handled here by a channel that is never read: this process
// still ignores them (a full channel drops the signal).
func childSignalsDefault() {
	for _, sig := range []os.Signal{syscall.SIGHUP, syscall.SIGINT} {
		if signal.Ignored(sig) {
			signal.Notify(ignoredSignals, sig)
		}
	}
}

// ignoredSignals takes the signals childSignalsDefault handles; never read.
var ignoredSignals = make(chan os.Signal, 1)

// paneEnv is env (or this process's) with the terminal's own variables.
func paneEnv(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "TERM", "COLORTERM", "LINES", "COLUMNS":
			continue
		}
		out = append(out, kv)
	}
	return append(out, "TERM=xterm-256color", "COLORTERM=truecolor")
}

// pollable re-opens the PTY master as a non-blocking file, which Go puts on
// its poller (creack/pty's ioctls called Fd(), which makes a file blocking
// for good). f is closed.
func pollable(f *os.File) (*os.File, error) {
	defer f.Close()
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("dup pty: %w", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd)
		return nil, fmt.Errorf("pty non-blocking: %w", err)
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}

// run owns every goroutine of the pane.
func (p *Pane) run(ctx context.Context) {
	var wg sync.WaitGroup
	readDone := make(chan struct{})
	wg.Go(func() {
		defer close(readDone)
		p.readLoop()
	})
	wg.Go(p.replyLoop)
	wg.Go(p.writeLoop)
	wg.Go(p.escalate)
	waited := make(chan error, 1)
	wg.Go(func() { waited <- p.cmd.Wait() })

	var werr error
	select {
	case werr = <-waited:
	case <-ctx.Done():
		p.Stop("context ended")
		werr = <-waited
	}
	requested := false
	select {
	case <-p.stopc:
		requested = true
	default:
	}
	p.reasonMu.Lock()
	st := exitStatus(p.cmd, werr)
	st.Requested = requested
	if requested {
		st.Reason = p.reason
	}
	p.reasonMu.Unlock()
	close(p.exited)

	// What the child wrote is still read; a grandchild holding the terminal
	// open does not keep the pane alive.
	timer := time.NewTimer(drainAfterExit)
	select {
	case <-readDone:
	case <-timer.C:
		_ = p.pty.SetReadDeadline(time.Now())
		<-readDone
	}
	timer.Stop()
	p.closeInput()
	_ = p.pty.SetWriteDeadline(time.Now()) // a write blocked on a full buffer
	_ = p.emu.Close()                      // ends replyLoop
	wg.Wait()
	_ = p.pty.Close()
	p.status = st
	close(p.done)
	p.markDirty()
}

func exitStatus(cmd *exec.Cmd, err error) ExitStatus {
	ps := cmd.ProcessState
	if ps == nil {
		return ExitStatus{Code: -1, Err: err}
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ExitStatus{Code: -1, Signal: ws.Signal()}
	}
	return ExitStatus{Code: ps.ExitCode()}
}

// Resize sets the emulator's and the PTY's size; the child gets SIGWINCH.
func (p *Pane) Resize(cols, rows int) error {
	if cols <= 0 || rows <= 0 || cols > 0xffff || rows > 0xffff {
		return fmt.Errorf("resize pane to %dx%d: bad size", cols, rows)
	}
	func() {
		p.emuMu.Lock()
		defer p.emuMu.Unlock() // a fault in the emulator leaves no lock held
		p.written++
		p.emu.Resize(cols, rows)
	}()
	p.markDirty()
	sc, err := p.pty.SyscallConn()
	if err != nil {
		return fmt.Errorf("resize pane: %w", ErrPaneClosed)
	}
	var ierr error
	if err := sc.Control(func(fd uintptr) {
		ierr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Row: uint16(rows), Col: uint16(cols)})
	}); err != nil {
		return fmt.Errorf("resize pane: %w", ErrPaneClosed)
	}
	if ierr != nil {
		return fmt.Errorf("resize pty: %w", ierr)
	}
	return nil
}

// Pid is the child's process id.
func (p *Pane) Pid() int { return p.cmd.Process.Pid }

// Stop ends the child: SIGHUP now, SIGTERM at half the grace period,
// SIGKILL at its end, each to the child's process group and the terminal's
// foreground group. It returns at once; wait on Done. After the child has
// exited it does nothing.
func (p *Pane) Stop(reason string) {
	p.stopOnce.Do(func() {
		select {
		case <-p.exited:
			return
		default:
		}
		p.reasonMu.Lock()
		p.reason = reason
		p.reasonMu.Unlock()
		close(p.stopc)
	})
}

func (p *Pane) escalate() {
	select {
	case <-p.stopc:
	case <-p.exited:
		return
	}
	steps := []struct {
		sig   syscall.Signal
		after time.Duration
	}{{unix.SIGHUP, 0}, {unix.SIGTERM, p.grace / 2}, {unix.SIGKILL, p.grace - p.grace/2}}
	for _, s := range steps {
		if s.after > 0 {
			t := time.NewTimer(s.after)
			select {
			case <-p.exited:
				t.Stop()
				return
			case <-t.C:
			}
		}
		select {
		case <-p.exited:
			return
		default:
		}
		p.sendSignal(s.sig)
	}
}

func (p *Pane) sendSignal(sig syscall.Signal) {
	pid := p.cmd.Process.Pid
	_ = unix.Kill(-pid, sig) // the child leads its session and group
	_ = unix.Kill(pid, sig)
	if sc, err := p.pty.SyscallConn(); err == nil {
		fg := 0
		_ = sc.Control(func(fd uintptr) { fg, _ = unix.IoctlGetInt(int(fd), unix.TIOCGPGRP) })
		if fg > 0 && fg != pid {
			_ = unix.Kill(-fg, sig)
		}
	}
}

// Done is closed once the child has exited and every goroutine of the pane
// has ended.
func (p *Pane) Done() <-chan struct{} { return p.done }

// ExitStatus is how the child ended; ok is false until Done is closed.
func (p *Pane) ExitStatus() (st ExitStatus, ok bool) {
	select {
	case <-p.done:
		return p.status, true
	default:
		return ExitStatus{}, false
	}
}

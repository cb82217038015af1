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
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image/color"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// DefaultGrace is how long Stop waits in all before SIGKILL.
const DefaultGrace = 3 * time.Second

// maxReplyBytes bounds the emulator's replies waiting for the child to
// read its input; more are dropped. 64 KiB is about 5,000 device-attribute
// answers, on top of what the kernel's terminal buffer already holds.
const maxReplyBytes = 64 << 10

// maxReplyWrite is how many queued replies' bytes one write carries.
const maxReplyWrite = 4096

// drainAfterExit bounds how long output is still read after the child
// exited, when something else (a grandchild) keeps the terminal open.
const drainAfterExit = 500 * time.Millisecond

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

// InputModes are the input modes the application in a pane has set, for a
// host that encodes keys, pastes and mouse events into Pane.Write. They
// follow the application's mode set/reset sequences (a full reset, ESC c,
// is not seen).
type InputModes struct {
	CursorKeys     bool // DECCKM: arrows as ESC O A rather than ESC [ A
	BracketedPaste bool // wrap pastes in ESC[200~ … ESC[201~
	Mouse          bool // any mouse tracking (9, 1000, 1002, 1003)
	MouseSGR       bool // SGR mouse encoding (1006)
}

const (
	modeCursorKeys uint32 = 1 << iota
	modeBracketedPaste
	modeMouseX10
	modeMouseNormal
	modeMouseButton
	modeMouseAny
	modeMouseSGR
)

var modeBits = map[ansi.Mode]uint32{
	ansi.ModeCursorKeys:       modeCursorKeys,
	ansi.ModeBracketedPaste:   modeBracketedPaste,
	ansi.ModeMouseX10:         modeMouseX10,
	ansi.ModeMouseNormal:      modeMouseNormal,
	ansi.ModeMouseButtonEvent: modeMouseButton,
	ansi.ModeMouseAnyEvent:    modeMouseAny,
	ansi.ModeMouseExtSgr:      modeMouseSGR,
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

type inWrite struct {
	b     []byte
	done  chan error // nil, or buffered 1
	reply bool       // the emulator's answer, not a key
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

func (p *Pane) setMode(m ansi.Mode, on bool) {
	bit, ok := modeBits[m]
	if !ok {
		return
	}
	for {
		old := p.modes.Load()
		nw := old &^ bit
		if on {
			nw |= bit
		}
		if p.modes.CompareAndSwap(old, nw) {
			return
		}
	}
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

func (p *Pane) readLoop() {
	defer func() {
		if p.frameTimer != nil {
			p.frameTimer.Stop()
		}
	}()
	buf := make([]byte, 64*1024)
	write := func(b []byte) { _, _ = p.emu.Write(b) }
	for {
		n, err := p.pty.Read(buf)
		if n > 0 {
			p.lastOut.Store(time.Now().UnixNano())
			p.emuMu.Lock()
			p.written++
			seq0, _, held0 := p.emu.FrameHeld()
			fault := p.feed(write, buf[:n])
			seq, until, held := p.emu.FrameHeld()
			p.emuMu.Unlock()
			// While one synchronized frame stays open the screen shown does
			// not change: no redraw until it ends or its hold runs out.
			if !held0 || !held || seq != seq0 {
				p.markDirty()
			}
			p.watchFrame(held, until)
			if fault != nil && p.onFault != nil {
				p.onFault(fault)
			}
		}
		if err != nil {
			// EIO once the child side is closed is end of file, as are
			// the deadline and a closed file.
			return
		}
	}
}

// feed writes the CLI's output b into the emulator with write. An emulator
// bug reached by some output must not end the server and every session:
// a panic is recovered, the screen reset (RIS, itself guarded) and
// returned as the fault.
func (p *Pane) feed(write func([]byte), b []byte) (fault error) {
	defer func() {
		if r := recover(); r != nil {
			fault = fmt.Errorf("the terminal emulator failed on the output (%v); the pane's screen was reset", r)
			func() {
				defer func() { _ = recover() }()
				write([]byte("\x1bc"))
			}()
		}
	}()
	write(b)
	return nil
}

// watchFrame arms a timer for the end of a held frame's hold, which no
// output may mark: the screen changes then without a write.
func (p *Pane) watchFrame(held bool, until time.Time) {
	if !held {
		if p.frameTimer != nil {
			p.frameTimer.Stop()
		}
		return
	}
	d := time.Until(until)
	if p.frameTimer == nil {
		p.frameTimer = time.AfterFunc(d, p.markDirty)
		return
	}
	p.frameTimer.Reset(d)
}

func (p *Pane) replyLoop() {
	buf := make([]byte, 16*1024) // a pipe read returns one reply write
	for {
		n, err := p.emu.Read(buf)
		if n > 0 {
			_ = p.enqueue(append([]byte(nil), buf[:n]...), inputReply, nil)
		}
		if err != nil {
			return
		}
	}
}

func (p *Pane) writeLoop() {
	for {
		w, ok := p.nextInput()
		if !ok {
			return
		}
		_, err := p.pty.Write(w.b)
		if !w.reply {
			p.lastIn.Store(time.Now().UnixNano())
		}
		p.inMu.Lock()
		p.writing = false
		p.inMu.Unlock()
		if w.done != nil {
			w.done <- err
		}
	}
}

func (p *Pane) nextInput() (inWrite, bool) {
	for {
		p.inMu.Lock()
		if p.inClosed {
			p.inMu.Unlock()
			return inWrite{}, false
		}
		if p.writing { // enqueue's own write: what it leaves comes first
			p.inMu.Unlock()
			<-p.inReady
			continue
		}
		if len(p.inq) > 0 {
			w := p.inq[0]
			p.inq[0] = inWrite{}
			p.inq = p.inq[1:]
			p.writing = true
			p.inMu.Unlock()
			return w, true
		}
		if len(p.replies) > 0 {
			w := inWrite{b: p.takeReplies(), reply: true}
			p.writing = true
			p.inMu.Unlock()
			return w, true
		}
		p.inMu.Unlock()
		<-p.inReady
	}
}

// takeReplies pops whole queued replies, up to maxReplyWrite bytes unless
// the first is longer. Called with inMu held.
func (p *Pane) takeReplies() []byte {
	b := p.replies[0]
	i := 1
	if len(p.replies) > 1 && len(b) < maxReplyWrite {
		b = append([]byte(nil), b...)
		for ; i < len(p.replies) && len(b)+len(p.replies[i]) <= maxReplyWrite; i++ {
			b = append(b, p.replies[i]...)
		}
	}
	clear(p.replies[:i])
	p.replies = p.replies[i:]
	if len(p.replies) == 0 {
		p.replies = nil // let the backing array go
	}
	p.replyLen -= len(b)
	return b
}

func (p *Pane) closeInput() {
	p.inMu.Lock()
	p.inClosed = true
	for _, w := range p.inq {
		if w.done != nil {
			w.done <- ErrPaneClosed
		}
	}
	p.inq = nil
	p.replies, p.replyLen = nil, 0
	p.inMu.Unlock()
	notifyChan(p.inReady)
}

type inputKind int

const (
	inputPerson inputKind = iota // the person's keys: read by the tracker
	inputRoom                    // the typist's post
	inputSubmit                  // the typist's \r: the input is empty after it
	inputReply                   // the emulator's answer to a query
)

// enqueue puts b on the input queue. The tracker reads the person's keys
// here, in queue order, so a key typed after the typist's \r was queued is
// not cleared by it.
func (p *Pane) enqueue(b []byte, kind inputKind, done chan error) error {
	p.inMu.Lock()
	if p.inClosed {
		p.inMu.Unlock()
		return ErrPaneClosed
	}
	was := p.unsent.Pending()
	switch kind {
	case inputPerson:
		if f := p.keyFilter.Load(); f == nil || !(*f)(b) {
			p.unsent.Feed(b)
		}
	case inputSubmit:
		p.unsent.Clear()
	}
	if was && !p.unsent.Pending() {
		notifyChan(p.released)
	}
	if kind == inputPerson && done == nil && len(p.inq) == 0 && !p.writing {
		p.writeNow(b)
		return nil
	}
	if kind == inputReply {
		if p.replyLen+len(b) > maxReplyBytes {
			p.replyDrop++
			p.inMu.Unlock()
			return nil
		}
		p.replies = append(p.replies, b)
		p.replyLen += len(b)
		p.replyPeak = max(p.replyPeak, p.replyLen)
	} else {
		p.inq = append(p.inq, inWrite{b: b, done: done})
	}
	p.inMu.Unlock()
	notifyChan(p.inReady)
	return nil
}

// writeNow writes a person's key to the PTY at once, from the caller's
// goroutine, when nothing is queued or being written: the key's echo then
// starts before the screen's Update returns, instead of after a hand-off to
// writeLoop, which waited behind that Update's View (issue 13, point 4;
// docs/performance.md "Key echo"). The write is
// non-blocking: what the PTY does not take now (a child not reading its
// input) goes to the head of the queue for writeLoop, so the caller still
// never blocks on the child. Called with inMu held; returns with it
// released.
func (p *Pane) writeNow(b []byte) {
	p.writing = true
	p.inMu.Unlock()
	n := 0
	if rc, err := p.pty.SyscallConn(); err == nil {
		_ = rc.Write(func(fd uintptr) bool {
			for n < len(b) {
				m, err := unix.Write(int(fd), b[n:])
				if err == unix.EINTR {
					continue
				}
				if m <= 0 || err != nil {
					break
				}
				n += m
			}
			return true // never wait for the poller: the queue does
		})
	}
	if n > 0 {
		p.lastIn.Store(time.Now().UnixNano())
	}
	p.inMu.Lock()
	p.writing = false
	if n < len(b) && !p.inClosed {
		p.inq = append([]inWrite{{b: b[n:]}}, p.inq...)
	}
	pending := len(p.inq) > 0 || len(p.replies) > 0
	p.inMu.Unlock()
	if pending {
		notifyChan(p.inReady)
	}
}

func notifyChan(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

func (p *Pane) markDirty() {
	if p.onDirty != nil {
		p.onDirty()
		return
	}
	notifyChan(p.dirty)
}

// Write queues the person's keys for the child's input and never blocks on
// the child. The unsent-key tracker reads them (see Unsent). It returns
// ErrPaneClosed once the child has exited.
func (p *Pane) Write(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if err := p.enqueue(append([]byte(nil), b...), inputPerson, nil); err != nil {
		return 0, err
	}
	return len(b), nil
}

// TypeRoom writes b to the child's input as one write, unseen by the
// unsent-key tracker, and returns once it is written (or ctx ends, or the
// pane closes). The typist's path.
func (p *Pane) TypeRoom(ctx context.Context, b []byte) error {
	return p.writeWait(ctx, append([]byte(nil), b...), inputRoom)
}

// SubmitRoom writes the typist's send key \r as its own write and returns
// once it is written. It sends whatever the person typed meanwhile too, so
// the unsent input reads empty after it.
func (p *Pane) SubmitRoom(ctx context.Context) error {
	return p.writeWait(ctx, []byte{'\r'}, inputSubmit)
}

func (p *Pane) writeWait(ctx context.Context, b []byte, kind inputKind) error {
	done := make(chan error, 1)
	if err := p.enqueue(b, kind, done); err != nil {
		return err
	}
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("pane input: %w", err)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// SetKeyFilter sets f to see the person's keys first, in order: keys for
// which it reports true are not input for the unsent-key tracker (answer
// keys to a prompt the seat waits on). f must not block.
func (p *Pane) SetKeyFilter(f func(b []byte) bool) { p.keyFilter.Store(&f) }

// CanonicalInput reports whether the application reads its terminal line by
// line (ICANON set): the kernel's line discipline then ends an input at
// every newline.
func (p *Pane) CanonicalInput() bool {
	sc, err := p.pty.SyscallConn()
	if err != nil {
		return false
	}
	canon := false
	_ = sc.Control(func(fd uintptr) {
		if t, err := unix.IoctlGetTermios(int(fd), ioctlGetTermios); err == nil {
			canon = t.Lflag&unix.ICANON != 0
		}
	})
	return canon
}

// Pending reports whether the person has typed input not yet sent.
func (p *Pane) Pending() bool {
	p.inMu.Lock()
	defer p.inMu.Unlock()
	return p.unsent.Pending()
}

// UnsentText is what the unsent-key tracker believes the person typed and
// has not sent ("" when nothing).
func (p *Pane) UnsentText() string {
	p.inMu.Lock()
	defer p.inMu.Unlock()
	return p.unsent.Text()
}

// ClearUnsent writes keys (a kind's clear keys) as the person's, so the
// tracker reads them, if the unsent input still reads text; it reports
// whether it wrote them.
func (p *Pane) ClearUnsent(text string, keys []byte) (bool, error) {
	if p.UnsentText() != text {
		return false, nil
	}
	if _, err := p.Write(keys); err != nil {
		return false, err
	}
	return true, nil
}

// InputReleased is signalled (coalesced) when the person's unsent input
// goes empty: sent or cleared.
func (p *Pane) InputReleased() <-chan struct{} { return p.released }

// LastInput is when the last keys written to the child's input (the
// person's or the typist's, not the emulator's replies) were written; zero
// if none yet.
func (p *Pane) LastInput() time.Time {
	if n := p.lastIn.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

// LastOutput is when the child last wrote to its terminal; zero if never.
func (p *Pane) LastOutput() time.Time {
	if n := p.lastOut.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
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

// Size is the pane's size in cells.
func (p *Pane) Size() (cols, rows int) { return p.emu.Width(), p.emu.Height() }

// Render is the screen: exactly Rows lines of Cols cells, joined by \n,
// with SGR styles. A row whose cells are those of the last Render keeps its
// text from then: a key's echo renders one row, not the screen (the
// emulator renders every cell of every row, about 60 ns a cell).
func (p *Pane) Render() string {
	// Exclusive: no output is written meanwhile, so the cells read one by
	// one below are one screen.
	p.emuMu.Lock()
	defer p.emuMu.Unlock()
	if _, _, held := p.emu.FrameHeld(); held {
		// The screen from before an open synchronized frame (the emulator
		// keeps it apart from its cells; the hold ends without a write).
		p.rows = rowCache{}
		return p.emu.Render()
	}
	if p.rows.screen != "" && p.rows.written == p.written {
		return p.rows.screen // nothing written since
	}
	p.rows.screen, p.rows.written = p.rows.render(p.emu.Emulator), p.written
	return p.rows.screen
}

// rowCache is the last Render, row by row: each row's key (its cells by
// value, rowKey) and its text. Keys, not copies of the cells: a copy was
// the screen again (100x30 cells of 112 bytes, 336 KB a pane); a row's key
// is a few bytes a cell.
type rowCache struct {
	keys  [][]byte
	text  []string
	valid []bool  // the row's key and text are filled in
	key   []byte  // scratch: the key of the row being compared
	cells uv.Line // scratch: a row whose cells are not one array
	// screen is the last Render, made when the pane's written count was
	// written.
	screen  string
	written uint64
	// marks is the array of the emulator's touched marks cleared at the
	// last render, of the main screen or (alt) the alternate one.
	marks **uv.LineData
	alt   bool
}

// render is e.Render() (every row rendered by uv.Line.Render, joined by
// "\n"), rendering again only the rows whose cells changed.
func (c *rowCache) render(e *vt.Emulator) string {
	w, h := e.Width(), e.Height()
	if len(c.keys) != h { // a new width changes every row's key
		c.keys, c.text, c.valid = make([][]byte, h), make([]string, h), make([]bool, h)
	}
	// The emulator marks the rows it changed (uv's touched lines, which its
	// own renderer draws by); the marks are cleared below, so a row with
	// none is as last rendered. Any doubt compares every row: another
	// screen shown, or the marks not the array cleared last time (a reset,
	// a resize or a synchronized frame drops them, and a new array grows
	// with the next change).
	touched, alt := e.Touched(), e.IsAltScreen()
	known := c.marks != nil && unsafe.SliceData(touched) == c.marks && c.alt == alt && len(touched) == h
	n := h
	for y := range h {
		if known && c.valid[y] && touched[y] == nil {
			n += len(c.text[y])
			continue
		}
		row := liveRow(e, y, w)
		if row == nil {
			if len(c.cells) != w {
				c.cells = make(uv.Line, w)
			}
			row = c.cells
			for x := range w {
				if cell := e.CellAt(x, y); cell != nil {
					row[x] = *cell
				} else {
					row[x] = uv.Cell{}
				}
			}
		}
		// Most touched rows are drawn again as they were: one key each.
		c.key = rowKey(c.key[:0], row)
		if !c.valid[y] || !bytes.Equal(c.key, c.keys[y]) {
			c.keys[y] = append(c.keys[y][:0], c.key...)
			c.text[y], c.valid[y] = uv.Line(row).Render(), true
		}
		n += len(c.text[y])
	}
	clear(touched)
	c.marks, c.alt = nil, alt
	if len(touched) == h {
		c.marks = unsafe.SliceData(touched)
	}
	var b strings.Builder
	b.Grow(n)
	for y, t := range c.text {
		if y > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(t)
	}
	return b.String()
}

// rowKey appends row's cells to b by value: each one's text, width, style,
// colours and link, each string after its length, so two rows have the
// same key exactly when they draw the same (whatever memory their strings
// and colours are in).
func rowKey(b []byte, row []uv.Cell) []byte {
	for i := range row {
		c := &row[i]
		b = appendKeyString(b, c.Content)
		b = binary.AppendUvarint(b, uint64(c.Width))
		b = append(b, c.Style.Attrs, byte(c.Style.Underline))
		b = appendKeyColor(b, c.Style.Fg)
		b = appendKeyColor(b, c.Style.Bg)
		b = appendKeyColor(b, c.Style.UnderlineColor)
		b = appendKeyString(b, c.Link.URL)
		b = appendKeyString(b, c.Link.Params)
	}
	return b
}

func appendKeyString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// appendKeyColor appends a colour's type and value: the same value in two
// types may be drawn differently (31 against 38;5;1).
func appendKeyColor(b []byte, c color.Color) []byte {
	switch c := c.(type) {
	case nil:
		return append(b, 0)
	case ansi.BasicColor:
		return append(b, 1, byte(c))
	case ansi.IndexedColor:
		return append(b, 2, byte(c))
	case ansi.TrueColor:
		return binary.BigEndian.AppendUint32(append(b, 3), uint32(c))
	case color.RGBA:
		return append(b, 4, c.R, c.G, c.B, c.A)
	}
	r, g, bl, a := c.RGBA()
	b = append(b, 5)
	for _, v := range [4]uint32{r, g, bl, a} {
		b = binary.BigEndian.AppendUint16(b, uint16(v))
	}
	return b
}

// liveRow is row y of e's screen as the cells it holds, or nil when its w
// cells are not one array (then each cell is read on its own).
func liveRow(e *vt.Emulator, y, w int) []uv.Cell {
	if w == 0 {
		return nil
	}
	first, last := e.CellAt(0, y), e.CellAt(w-1, y)
	if first == nil || last == nil {
		return nil
	}
	row := unsafe.Slice(first, w)
	if &row[w-1] != last {
		return nil
	}
	return row
}

// Cursor is the cursor's cell (0-based) and whether it is shown.
func (p *Pane) Cursor() (x, y int, visible bool) {
	pos := p.emu.CursorPosition()
	return pos.X, pos.Y, !p.emu.CursorHidden()
}

// AltScreen reports whether the application is on the alternate screen.
func (p *Pane) AltScreen() bool { return p.emu.IsAltScreen() }

// Modes are the input modes the application has set.
func (p *Pane) Modes() InputModes {
	m := p.modes.Load()
	return InputModes{
		CursorKeys:     m&modeCursorKeys != 0,
		BracketedPaste: m&modeBracketedPaste != 0,
		Mouse:          m&(modeMouseX10|modeMouseNormal|modeMouseButton|modeMouseAny) != 0,
		MouseSGR:       m&modeMouseSGR != 0,
	}
}

// ScrollbackLen is the number of lines in the main screen's scrollback.
func (p *Pane) ScrollbackLen() int {
	p.emuMu.RLock()
	defer p.emuMu.RUnlock()
	return p.emu.ScrollbackLen()
}

// ScrollbackLine is scrollback line i (0 is the oldest) with SGR styles,
// trailing blanks trimmed; "" when i is out of range.
func (p *Pane) ScrollbackLine(i int) string {
	line := func() uv.Line {
		p.emuMu.RLock()
		defer p.emuMu.RUnlock()
		return p.emu.Scrollback().Line(i)
	}()
	return line.Render() // a pushed line is never modified
}

// RenderScrolled is Render with the view moved offset lines back into the
// scrollback: the last offset scrollback lines (padded to the width, like
// the screen's), then the top of the screen.
// Offset is clamped to the scrollback; on the alternate screen (which keeps
// none) it is Render.
func (p *Pane) RenderScrolled(offset int) string {
	p.emuMu.RLock()
	defer p.emuMu.RUnlock()
	screen := p.emu.Render()
	if offset <= 0 || p.emu.IsAltScreen() {
		return screen
	}
	sb := p.emu.Scrollback()
	// While a synchronized frame is held, the lines it pushed are not shown
	// yet: the view stays the one from before the frame.
	n := max(0, sb.Len()-p.emu.FramePushed())
	offset = min(offset, n)
	cols, rows := p.emu.Width(), p.emu.Height()
	lines := make([]string, 0, rows)
	for i := n - offset; i < n && len(lines) < rows; i++ {
		l := sb.Line(i).Render()
		if w := ansi.StringWidth(l); w < cols {
			l += strings.Repeat(" ", cols-w) // as wide as the screen's lines
		}
		lines = append(lines, l)
	}
	for _, l := range strings.SplitN(screen, "\n", rows) {
		if len(lines) == rows {
			break
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
}

// Dirty is signalled when the screen may have changed: buffered 1 and
// coalesced, never one per read. A host redraws at its own frame rate.
func (p *Pane) Dirty() <-chan struct{} { return p.dirty }

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

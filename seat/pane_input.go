package seat

// A pane's input: the queue the person's keys, the typist's writes and the
// emulator's replies go through to the PTY in order (see pane.go), the
// unsent-key tracker's view, and the input modes the application set.

import (
	"context"
	"fmt"
	"time"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/sys/unix"
)

// maxReplyBytes bounds the emulator's replies waiting for the child to
// read its input; more are dropped. 64 KiB is about 5,000 device-attribute
// answers, on top of what the kernel's terminal buffer already holds.
const maxReplyBytes = 64 << 10

// maxReplyWrite is how many queued replies' bytes one write carries.
const maxReplyWrite = 4096

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

type inWrite struct {
	b     []byte
	done  chan error // nil, or buffered 1
	reply bool       // the emulator's answer, not a key
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

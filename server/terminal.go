package server

// A screen on the client's own terminal (attach.FrameTerminal): the
// screen's program reads the keys from it and draws on it, as tmux's server
// does, so a key and its echo cross no relay. The program makes its own
// cancelable readers of it (tea.InputSource), so running a program on the
// client (tea.Exec) stops the reading and the program gets every key.

import (
	"errors"
	"os"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/muesli/cancelreader"

	"pullcept/attach"
)

// terminal is a client's terminal, passed to the server.
type terminal struct {
	in, out *os.File
	onKey   func() // bytes were read: the client is the active one
	onEnded func() // the terminal went away (hung up, closed)
	// onFault is given a panic in a read (the reading goroutine is the
	// terminal reader's, which recovers nothing); the read then fails.
	onFault func(r any, stack []byte)
}

// errReadFault is a read that panicked (terminal.onFault).
var errReadFault = errors.New("the terminal's reader failed")

// Read reads the terminal (io.Reader; the program reads through
// NewCancelReader).
func (t *terminal) Read(p []byte) (int, error) { return t.in.Read(p) }

// NewCancelReader is a reader of the terminal that a cancel stops without
// taking what it did not return (tea.InputSource). The input is on Go's
// poller (attach.ReceiveTerminal), so a cancel is a read deadline; the
// flag is set again first, since a program run on the client meanwhile
// had the terminal blocking. Should the input not be on the poller (no
// deadlines), a cancelreader (its own epoll) reads it.
func (t *terminal) NewCancelReader() (cancelreader.CancelReader, error) {
	if t.in.SetReadDeadline(time.Time{}) == nil && attach.SetNonblock(t.in, true) == nil {
		return &terminalReader{CancelReader: &deadlineReader{f: t.in}, t: t}, nil
	}
	r, err := cancelreader.NewReader(t.in)
	if err != nil {
		return nil, err
	}
	return &terminalReader{CancelReader: r, t: t, blocking: true}, nil
}

type terminalReader struct {
	cancelreader.CancelReader
	t        *terminal
	blocking bool // a cancelreader, not the poller
}

func (r *terminalReader) Read(p []byte) (n int, err error) {
	defer func() {
		if r.t.onFault == nil {
			return
		}
		if v := recover(); v != nil {
			r.t.onFault(v, debug.Stack())
			n, err = 0, errReadFault
		}
	}()
	if r.blocking {
		// That reader blocks in epoll_wait, a system call that hands its
		// processor to another thread, which must first be woken to run
		// what the last read made ready (the key's way to the screen).
		// Yielding first runs that here, on this processor.
		runtime.Gosched()
	}
	n, err = r.CancelReader.Read(p)
	if n > 0 && r.t.onKey != nil {
		r.t.onKey()
	}
	if err != nil && !errors.Is(err, cancelreader.ErrCanceled) && r.t.onEnded != nil {
		r.t.onEnded()
	}
	return n, err
}

// deadlineReader is a cancelreader.CancelReader on a file on Go's poller:
// Cancel sets a read deadline in the past, which ends a pending Read
// without taking input.
type deadlineReader struct {
	f        *os.File
	canceled atomic.Bool
}

func (r *deadlineReader) Read(p []byte) (int, error) {
	n, err := r.f.Read(p)
	if err != nil && r.canceled.Load() && errors.Is(err, os.ErrDeadlineExceeded) {
		return n, cancelreader.ErrCanceled
	}
	return n, err
}

func (r *deadlineReader) Cancel() bool {
	r.canceled.Store(true)
	return r.f.SetReadDeadline(time.Now()) == nil
}

func (r *deadlineReader) Close() error { return nil }

// Write draws on the terminal. The terminal is not handed to Bubble Tea as
// an *os.File: it draws as it does for a relayed terminal.
func (t *terminal) Write(p []byte) (int, error) { return t.out.Write(p) }

// close closes the server's copies of the terminal, once the program that
// read and drew on it has ended, and leaves its open file blocking, as the
// person's shell expects it.
func (t *terminal) close() {
	_ = attach.SetNonblock(t.in, false)
	t.in.Close()
	t.out.Close()
}

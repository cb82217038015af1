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

	"github.com/muesli/cancelreader"
)

// terminal is a client's terminal, passed to the server.
type terminal struct {
	in, out *os.File
	onKey   func() // bytes were read: the client is the active one
	onEnded func() // the terminal went away (hung up, closed)
}

// Read reads the terminal (io.Reader; the program reads through
// NewCancelReader).
func (t *terminal) Read(p []byte) (int, error) { return t.in.Read(p) }

// NewCancelReader is a reader of the terminal that a cancel stops without
// taking what it did not return (tea.InputSource).
func (t *terminal) NewCancelReader() (cancelreader.CancelReader, error) {
	r, err := cancelreader.NewReader(t.in)
	if err != nil {
		return nil, err
	}
	return &terminalReader{CancelReader: r, t: t}, nil
}

type terminalReader struct {
	cancelreader.CancelReader
	t *terminal
}

func (r *terminalReader) Read(p []byte) (int, error) {
	// The reader blocks in epoll_wait, a system call that hands its
	// processor to another thread, which must first be woken to run what
	// the last read made ready (the key's way to the screen). Yielding
	// first runs that here, on this processor.
	runtime.Gosched()
	n, err := r.CancelReader.Read(p)
	if n > 0 && r.t.onKey != nil {
		r.t.onKey()
	}
	if err != nil && !errors.Is(err, cancelreader.ErrCanceled) && r.t.onEnded != nil {
		r.t.onEnded()
	}
	return n, err
}

// Write draws on the terminal. The terminal is not handed to Bubble Tea as
// an *os.File: it draws as it does for a relayed terminal.
func (t *terminal) Write(p []byte) (int, error) { return t.out.Write(p) }

// close closes the server's copies of the terminal, once the program that
// read and drew on it has ended.
func (t *terminal) close() {
	t.in.Close()
	t.out.Close()
}

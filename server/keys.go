package server

// The client's keys, on their way to the screen's program: an in-memory
// stream (tea.InputSource) instead of an os.Pipe. A pipe puts a file, the
// program's epoll reader and the thread blocked in it between a key and the
// screen; here the server's frame reader hands the bytes to the program's
// reader goroutine directly. Like the pipe, it loses no key when the program
// stops reading to run something on the client (tea.Exec cancels its reader
// and later makes a new one): a canceled reader returns nothing more, and
// what it did not return is the next reader's.

import (
	"io"
	"sync"

	"github.com/muesli/cancelreader"
)

// keyStream is the bytes the client typed and the screen has not read.
type keyStream struct {
	mu     sync.Mutex
	buf    []byte
	closed bool
	ready  chan struct{} // buffered 1: buf has bytes, or the stream closed
}

func newKeyStream() *keyStream { return &keyStream{ready: make(chan struct{}, 1)} }

// Write adds the client's bytes; it never blocks.
func (k *keyStream) Write(b []byte) (int, error) {
	k.mu.Lock()
	if k.closed {
		k.mu.Unlock()
		return 0, io.ErrClosedPipe
	}
	k.buf = append(k.buf, b...)
	k.mu.Unlock()
	k.signal()
	return len(b), nil
}

// Close ends the stream: its readers return io.EOF once it is read.
func (k *keyStream) Close() error {
	k.mu.Lock()
	k.closed = true
	k.mu.Unlock()
	k.signal()
	return nil
}

func (k *keyStream) signal() {
	select {
	case k.ready <- struct{}{}:
	default:
	}
}

// read waits for bytes (or the end), or for cancel to close.
func (k *keyStream) read(p []byte, cancel <-chan struct{}) (int, error) {
	for {
		select {
		case <-cancel:
			k.signal() // a wake-up this reader took is the next reader's
			return 0, cancelreader.ErrCanceled
		default:
		}
		k.mu.Lock()
		if len(k.buf) > 0 {
			n := copy(p, k.buf)
			k.buf = k.buf[n:]
			more := len(k.buf) > 0
			if !more {
				k.buf = k.buf[:0:0] // let a large paste's array go
			}
			k.mu.Unlock()
			if more {
				k.signal()
			}
			return n, nil
		}
		closed := k.closed
		k.mu.Unlock()
		if closed {
			return 0, io.EOF
		}
		select {
		case <-k.ready:
		case <-cancel:
		}
	}
}

// Read reads without a way to cancel (io.Reader, for tea.InputSource).
func (k *keyStream) Read(p []byte) (int, error) { return k.read(p, nil) }

// NewCancelReader is a reader of the stream that Cancel stops
// (tea.InputSource).
func (k *keyStream) NewCancelReader() (cancelreader.CancelReader, error) {
	return &keyReader{k: k, cancel: make(chan struct{})}, nil
}

type keyReader struct {
	k      *keyStream
	cancel chan struct{}
	once   sync.Once
}

func (r *keyReader) Read(p []byte) (int, error) { return r.k.read(p, r.cancel) }

// Cancel stops the reader's pending and later reads; it always succeeds.
func (r *keyReader) Cancel() bool {
	r.once.Do(func() { close(r.cancel) })
	return true
}

func (r *keyReader) Close() error { r.Cancel(); return nil }

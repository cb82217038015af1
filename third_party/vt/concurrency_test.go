package vt

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"testing"
	"time"
)

// The emulator's replies to queries (and keys, pastes and in-band resize
// reports) go into an unbuffered pipe read by Read. Nothing buffers them: a
// Write that makes a reply blocks, holding SafeEmulator's lock, until
// someone reads it. README.md says how a caller must drain it.
func TestQueryReplyBlocksUntilRead(t *testing.T) {
	t.Parallel()
	e := NewSafeEmulator(80, 24)
	t.Cleanup(func() { _ = e.Close() })

	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = e.Write([]byte("\x1b[3;5H\x1b[6n")) // cursor position report
	}()
	select {
	case <-done:
		t.Fatal("Write returned though nothing read the reply")
	case <-time.After(50 * time.Millisecond):
		// Still blocked, as documented. (Blocked stays blocked: this
		// cannot fail spuriously.)
	}

	// A reader goroutine, as every pane needs, releases it.
	buf := make([]byte, 64)
	n, err := e.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(buf[:n]), "\x1b[3;5R"; got != want {
		t.Errorf("reply = %q, want %q", got, want)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Write still blocked after the reply was read")
	}
}

// The pattern README.md documents: one goroutine copies what the emulator
// says (replies, keys) to the PTY; output goes in with Write; the screen is
// read with Render from another goroutine; Close ends the copy. Run with
// -race.
func TestSafeEmulatorPattern(t *testing.T) {
	t.Parallel()
	e := NewSafeEmulator(20, 5)
	var pty syncBuffer // stands in for the PTY's input side

	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, err := io.Copy(&pty, e)
		if err != nil && !errors.Is(err, io.EOF) {
			t.Errorf("copy replies: %v", err)
		}
	}()
	wg.Add(1)
	stopRender := make(chan struct{})
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stopRender:
				return
			default:
				_ = e.Render()
				_ = e.CursorPosition()
			}
		}
	}()

	for i := range 200 {
		_, _ = e.Write([]byte("日本語 text\r\n\x1b[c\x1b[6n"))
		if i%50 == 0 {
			e.SendText("k")
		}
	}
	close(stopRender)
	// Every Write has returned, so every reply has been read from the pipe;
	// the copier may still be writing the last one out.
	deadline := time.Now().Add(10 * time.Second)
	for bytes.Count(pty.Bytes(), []byte("R")) < 200 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if n := bytes.Count(pty.Bytes(), []byte("R")); n != 200 {
		t.Errorf("got %d cursor reports, want 200", n)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.b.Bytes())
}

// Close releases a Write blocked on an unread reply, so a pane can shut down
// even when its reply copier has already stopped.
func TestCloseReleasesBlockedWrite(t *testing.T) {
	t.Parallel()
	e := NewSafeEmulator(80, 24)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = e.Write([]byte("\x1b[6n"))
	}()
	select {
	case <-done:
		t.Fatal("Write returned though nothing read the reply")
	case <-time.After(50 * time.Millisecond):
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Write still blocked after Close")
	}
	if _, err := e.Read(make([]byte, 8)); !errors.Is(err, io.EOF) {
		t.Errorf("Read after Close = %v, want EOF", err)
	}
}

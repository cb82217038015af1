package uv

// PATCH(pullcept): tests of the input parsed in the goroutine that read it
// (sendBytes, StreamEvents).

import (
	"context"
	"io"
	"testing"
	"time"
)

// chunkReader returns one chunk a Read, blocking until the next is sent or
// ctx ends (then io.EOF). seen, when set, is called at the start of each Read
// with the number of Reads before it.
type chunkReader struct {
	ctx    context.Context
	chunks chan string
	reads  int
	seen   func(reads int)
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if r.seen != nil {
		r.seen(r.reads)
	}
	r.reads++
	select {
	case <-r.ctx.Done():
		return 0, io.EOF
	case c := <-r.chunks:
		return copy(p, c), nil
	}
}

// TestPullceptReadParsedBeforeNextRead: a read's keys are on the event
// channel before the next read starts, so no other goroutine stands between
// the terminal and the event channel. Upstream hands the bytes to
// StreamEvents' goroutine and reads again at once: some reads start before
// the keys of the one before are parsed.
func TestPullceptReadParsedBeforeNextRead(t *testing.T) {
	const keys = 100
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	eventc := make(chan Event, keys+1)
	chunks := make(chan string, keys)
	for range keys {
		chunks <- "a"
	}
	late, had := -1, 0 // the first read that started before the keys of the reads before it were sent
	allRead := make(chan struct{})
	r := &chunkReader{ctx: ctx, chunks: chunks, seen: func(reads int) {
		if late < 0 && len(eventc) != reads {
			late, had = reads, len(eventc)
		}
		if reads == keys {
			close(allRead) // the read after the last key
		}
	}}
	drv := NewTerminalReader(r, "dumb")
	done := make(chan error, 1)
	go func() { done <- drv.StreamEvents(ctx, eventc) }()
	select {
	case <-allRead:
	case <-time.After(10 * time.Second):
		t.Fatalf("%d of %d keys read after 10 s", len(eventc), keys)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("StreamEvents: %v", err)
	}
	if late >= 0 {
		t.Fatalf("read %d started with %d keys of its %d earlier reads sent", late, had, late)
	}
	for i := range keys {
		if ev := <-eventc; ev != (KeyPressEvent{Code: 'a', Text: "a"}) {
			t.Fatalf("event %d = %#v", i, ev)
		}
	}
}

// TestPullceptLoneEscAfterTimeout: an ESC with nothing after it is an Escape
// key once the ESC timeout passes, though the reader is blocked in its next
// read; a sequence split over two reads is one key.
func TestPullceptLoneEscAfterTimeout(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	eventc := make(chan Event, 8)
	chunks := make(chan string, 4)
	drv := NewTerminalReader(&chunkReader{ctx: ctx, chunks: chunks}, "dumb")
	drv.EscTimeout = 100 * time.Millisecond
	done := make(chan error, 1)
	go func() { done <- drv.StreamEvents(ctx, eventc) }()

	next := func() Event {
		t.Helper()
		select {
		case ev := <-eventc:
			return ev
		case <-time.After(10 * time.Second):
			t.Fatal("no event in 10 s")
			return nil
		}
	}
	chunks <- "\x1b"
	if ev := next(); ev != (KeyPressEvent{Code: KeyEscape}) {
		t.Fatalf("lone ESC: %#v", ev)
	}
	chunks <- "\x1b["
	chunks <- "A"
	if ev := next(); ev != (KeyPressEvent{Code: KeyUp}) {
		t.Fatalf("split ESC [ A: %#v", ev)
	}
	chunks <- "b"
	if ev := next(); ev != (KeyPressEvent{Code: 'b', Text: "b"}) {
		t.Fatalf("b: %#v", ev)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("StreamEvents: %v", err)
	}
	select {
	case ev := <-eventc:
		t.Fatalf("event after the end: %#v", ev)
	default:
	}
}

package server

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/muesli/cancelreader"
)

// A reader canceled while it waits returns ErrCanceled and takes nothing:
// the keys typed after it (and those it never read) are the next reader's,
// in order, and the stream's end is io.EOF once they are read.
func TestKeyStreamCancelLosesNoKey(t *testing.T) {
	t.Parallel()
	k := newKeyStream()
	r1, _ := k.NewCancelReader()
	got := make(chan error, 1)
	go func() {
		buf := make([]byte, 16)
		n, err := r1.Read(buf)
		if n > 0 {
			err = errors.New("the first reader read " + string(buf[:n]))
		}
		got <- err
	}()
	r1.Cancel()
	select {
	case err := <-got:
		if !errors.Is(err, cancelreader.ErrCanceled) {
			t.Fatalf("canceled reader: %v, want ErrCanceled", err)
		}
	case <-time.After(wait):
		t.Fatal("a canceled reader kept waiting")
	}
	if _, err := k.Write([]byte("ab")); err != nil {
		t.Fatal(err)
	}
	if n, err := r1.Read(make([]byte, 4)); n != 0 || !errors.Is(err, cancelreader.ErrCanceled) {
		t.Fatalf("canceled reader read again: %d, %v", n, err)
	}
	if _, err := k.Write([]byte("cd")); err != nil {
		t.Fatal(err)
	}
	r2, _ := k.NewCancelReader()
	buf := make([]byte, 3)
	n, err := r2.Read(buf)
	if err != nil || string(buf[:n]) != "abc" {
		t.Fatalf("next reader: %q, %v; want \"abc\"", buf[:n], err)
	}
	k.Close()
	n, err = r2.Read(buf)
	if err != nil || string(buf[:n]) != "d" {
		t.Fatalf("next reader after close: %q, %v; want \"d\"", buf[:n], err)
	}
	if _, err := r2.Read(buf); !errors.Is(err, io.EOF) {
		t.Fatalf("read past the end: %v, want io.EOF", err)
	}
	if _, err := k.Write([]byte("x")); err == nil {
		t.Fatal("a write after close succeeded")
	}
}

// Many writes from one goroutine and a reader replaced now and then (each
// canceled while it may be waiting) deliver every byte once, in order.
func TestKeyStreamOrderAcrossReaders(t *testing.T) {
	t.Parallel()
	k := newKeyStream()
	const total = 20000
	go func() {
		for i := range total {
			_, _ = k.Write([]byte{byte(i)})
		}
		k.Close()
	}()
	r, _ := k.NewCancelReader()
	buf := make([]byte, 7)
	next := 0
	for reads := 0; ; reads++ {
		if reads%50 == 49 {
			r.Cancel()
			r, _ = k.NewCancelReader()
		}
		n, err := r.Read(buf)
		for _, b := range buf[:n] {
			if b != byte(next) {
				t.Fatalf("byte %d is %d, want %d", next, b, byte(next))
			}
			next++
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if next != total {
		t.Fatalf("%d bytes read, want %d", next, total)
	}
}

package attach

// The hop a key and its echo take between the client and the server
// (issue "Sessions outlive the terminal": "the extra hop should add well
// under a millisecond at p99"), alone: a real Unix socket made by Listen,
// a Dial, NewConn on both ends; the client sends a key as a one-byte Input
// frame, the server answers with an Output frame of a typical echo (a
// character and the cursor moves around it). The reference is the same
// round trip over the same kind of socket without framing: a raw write of
// one byte, a raw answer of the same echo bytes.
//
//	go test -run x -bench Hop -benchtime 20000x ./attach/
//
// Benchmarks print figures; nothing here fails on a timing.

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// hopKey is the key typed; hopEcho is what the server draws for it (29
// bytes: hide the cursor, move, the character, move, show the cursor).
var (
	hopKey  = []byte("Q")
	hopEcho = []byte("\x1b[?25l\x1b[12;34HQ\x1b[12;35H\x1b[?25h")
)

// hopLink is one connected pair over a real Unix socket: the client end
// and a server goroutine answering every key with hopEcho.
type hopLink struct {
	roundTrip func() error // one key out, its echo back (client side)
	close     func()
}

// hopSocketDir is a short private folder for a socket (sun_path is 108
// bytes; a long TMPDIR falls back to /tmp).
func hopSocketDir(tb testing.TB) string {
	dir, err := os.MkdirTemp("", "hop")
	if err != nil || len(dir) > maxSocketPath-16 {
		if err == nil {
			os.RemoveAll(dir)
		}
		dir, err = os.MkdirTemp("/tmp", "hop")
		if err != nil {
			tb.Fatal(err)
		}
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// newHopLink listens on a socket in a fresh folder, dials it, and starts
// the answering side: framed (attach.Conn on both ends) or raw.
func newHopLink(tb testing.TB, framed bool) *hopLink {
	tb.Helper()
	path := filepath.Join(hopSocketDir(tb), "s.sock")
	l, err := Listen(path)
	if err != nil {
		tb.Fatal(err)
	}
	accepted := make(chan *os.File, 1)
	acceptErr := make(chan error, 1)
	go func() {
		sc, err := l.Accept()
		if err != nil {
			acceptErr <- err
			return
		}
		accepted <- sc
	}()
	uc, err := Dial(path)
	if err != nil {
		l.Close()
		tb.Fatal(err)
	}
	var sc *os.File
	select {
	case sc = <-accepted:
	case err := <-acceptErr:
		uc.Close()
		l.Close()
		tb.Fatal(err)
	}
	if err := CheckPeer(sc); err != nil { // as the server does, once
		tb.Fatal(err)
	}

	served := make(chan struct{})
	link := &hopLink{}
	if framed {
		go func() {
			defer close(served)
			c := NewConn(sc)
			for {
				typ, p, err := c.Read()
				if err != nil {
					return
				}
				if typ == FrameInput && len(p) == len(hopKey) {
					if c.Write(FrameOutput, hopEcho) != nil {
						return
					}
				}
			}
		}()
		c := NewConn(uc)
		link.roundTrip = func() error {
			if err := c.Write(FrameInput, hopKey); err != nil {
				return err
			}
			typ, p, err := c.Read()
			if err != nil {
				return err
			}
			if typ != FrameOutput || !bytes.Equal(p, hopEcho) {
				return fmt.Errorf("got a %q frame of %q, want an Output frame of the echo", typ, p)
			}
			return nil
		}
	} else {
		go func() {
			defer close(served)
			buf := make([]byte, len(hopKey))
			for {
				if _, err := io.ReadFull(sc, buf); err != nil {
					return
				}
				if _, err := sc.Write(hopEcho); err != nil {
					return
				}
			}
		}()
		buf := make([]byte, len(hopEcho))
		link.roundTrip = func() error {
			if _, err := uc.Write(hopKey); err != nil {
				return err
			}
			if _, err := io.ReadFull(uc, buf); err != nil {
				return err
			}
			if !bytes.Equal(buf, hopEcho) {
				return fmt.Errorf("got %q, want the echo", buf)
			}
			return nil
		}
	}
	link.close = func() {
		uc.Close()
		<-served
		sc.Close()
		l.Close()
	}
	tb.Cleanup(link.close)
	return link
}

// hopWarm is how many round trips run before the timed ones.
const hopWarm = 200

// timeRoundTrips runs n timed round trips on each link in turn (after a
// warm-up) and returns each link's sorted latencies.
func timeRoundTrips(tb testing.TB, n int, links ...*hopLink) [][]time.Duration {
	for _, l := range links {
		for range hopWarm {
			if err := l.roundTrip(); err != nil {
				tb.Fatal(err)
			}
		}
	}
	lat := make([][]time.Duration, len(links))
	for i := range lat {
		lat[i] = make([]time.Duration, 0, n)
	}
	if b, ok := tb.(*testing.B); ok {
		b.ResetTimer()
	}
	for i := range n {
		for j := range links {
			// Interleaved runs alternate which link goes first.
			k := (j + i) % len(links)
			t0 := time.Now()
			if err := links[k].roundTrip(); err != nil {
				tb.Fatal(err)
			}
			lat[k] = append(lat[k], time.Since(t0))
		}
	}
	if b, ok := tb.(*testing.B); ok {
		b.StopTimer()
	}
	for _, l := range lat {
		slices.Sort(l)
	}
	return lat
}

// hopPercentile of sorted latencies (p in 0..100).
func hopPercentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[int(float64(len(sorted)-1)*p/100)]
}

func micros(d time.Duration) float64 { return float64(d) / 1e3 }

// BenchmarkHop: framed is the attach hop (one key Input frame → one echo
// Output frame), raw the same bytes over a plain Unix socket; interleaved
// runs one of each per op, alternating which goes first, and reports the
// framed ÷ raw ratio of the p50 and the p99 (its ns/op is for both).
func BenchmarkHop(b *testing.B) {
	for _, side := range []struct {
		name   string
		framed bool
	}{{"framed", true}, {"raw", false}} {
		b.Run(side.name, func(b *testing.B) {
			link := newHopLink(b, side.framed)
			lat := timeRoundTrips(b, b.N, link)[0]
			b.ReportMetric(micros(hopPercentile(lat, 50)), "p50-µs")
			b.ReportMetric(micros(hopPercentile(lat, 99)), "p99-µs")
		})
	}
	b.Run("interleaved", func(b *testing.B) {
		framed, raw := newHopLink(b, true), newHopLink(b, false)
		lat := timeRoundTrips(b, b.N, framed, raw)
		f50, f99 := hopPercentile(lat[0], 50), hopPercentile(lat[0], 99)
		r50, r99 := hopPercentile(lat[1], 50), hopPercentile(lat[1], 99)
		b.ReportMetric(micros(f50), "framed-p50-µs")
		b.ReportMetric(micros(f99), "framed-p99-µs")
		b.ReportMetric(micros(r50), "raw-p50-µs")
		b.ReportMetric(micros(r99), "raw-p99-µs")
		if r50 > 0 && r99 > 0 {
			b.ReportMetric(float64(f50)/float64(r50), "p50-framed/raw")
			b.ReportMetric(float64(f99)/float64(r99), "p99-framed/raw")
		}
	})
}

// TestHopLink checks the benchmark's helper: both kinds of link carry the
// key and bring the whole echo back, many times over.
func TestHopLink(t *testing.T) {
	framed, raw := newHopLink(t, true), newHopLink(t, false)
	lat := timeRoundTrips(t, 50, framed, raw)
	for i, l := range lat {
		if len(l) != 50 {
			t.Errorf("link %d: %d latencies, want 50", i, len(l))
		}
		if !slices.IsSorted(l) {
			t.Errorf("link %d: latencies not sorted", i)
		}
	}
}

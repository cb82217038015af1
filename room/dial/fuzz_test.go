package dial

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"runtime"
	"testing"
	"time"
	"unicode/utf8"
)

// fakeConn is a net.Conn reading a fixed stream and discarding writes.
type fakeConn struct{ r io.Reader }

func (f *fakeConn) Read(p []byte) (int, error)       { return f.r.Read(p) }
func (f *fakeConn) Write(p []byte) (int, error)      { return len(p), nil }
func (f *fakeConn) Close() error                     { return nil }
func (f *fakeConn) LocalAddr() net.Addr              { return nil }
func (f *fakeConn) RemoteAddr() net.Addr             { return nil }
func (f *fakeConn) SetDeadline(time.Time) error      { return nil }
func (f *fakeConn) SetReadDeadline(time.Time) error  { return nil }
func (f *fakeConn) SetWriteDeadline(time.Time) error { return nil }

// fuzzLimit is the read limit of the fuzzed Conn: small enough for the
// fuzzer to reach, large enough that a frame's claimed length can exceed
// what the input holds.
const fuzzLimit = 1 << 20

// FuzzReadFrames: whatever the server sends, ReadMessage neither panics
// nor allocates much more than the stream holds (a length the header
// claims is not memory), and every message it returns is within the limit
// and, if text, UTF-8.
func FuzzReadFrames(f *testing.F) {
	for _, seed := range [][]byte{
		frame(0x81, []byte("hello")),
		append(append(frame(0x01, []byte("he")), frame(0x89, []byte("p"))...), frame(0x80, []byte("llo"))...),
		frame(0x82, make([]byte, 300)),
		frame(0x88, []byte{3, 232, 'b', 'y', 'e'}),
		frame(0x8a, nil),
		binary.BigEndian.AppendUint64([]byte{0x82, 127}, 1<<19), // a claimed length with no payload
		binary.BigEndian.AppendUint64([]byte{0x82, 127}, 1<<62),
		{0xc1, 0x00}, {0x81, 0x81, 1, 2, 3, 4, 5}, {0x09, 0x00}, {0x80, 0x00}, {0x81},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fc := &fakeConn{r: bytes.NewReader(data)}
		c := newConn(fc, bufio.NewReaderSize(fc, 4096))
		c.SetReadLimit(fuzzLimit)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range len(data) + 1 { // every message takes 2 bytes at least
			typ, msg, err := c.ReadMessage()
			if err != nil {
				break
			}
			if len(msg) > fuzzLimit {
				t.Fatalf("a %d-byte message over the limit", len(msg))
			}
			if typ == TextMessage && !utf8.Valid(msg) {
				t.Fatalf("a text message that is not UTF-8: %q", msg)
			}
		}
		runtime.ReadMemStats(&after)
		// The payload buffer grows by readChunk at most ahead of the
		// bytes read, and at most doubles: 3 × the input plus two steps
		// (and the error texts) bounds it.
		if grew, bound := after.TotalAlloc-before.TotalAlloc, uint64(3*len(data)+2*readChunk+16<<10); grew > bound {
			t.Fatalf("reading %d bytes allocated %d (bound %d)", len(data), grew, bound)
		}
		if _, _, err := c.ReadMessage(); err == nil {
			t.Fatal("a read after the end of the stream succeeded")
		}
	})
}

// FuzzReadResponse: whatever a server answers an HTTP request with, the
// head and body readers neither panic nor read past their bounds: the head
// stays within maxHeadBytes, the body within its limit, and a status code
// read is three digits.
func FuzzReadResponse(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}",
		"HTTP/1.1 401 Unauthorized\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n0\r\n\r\n",
		"HTTP/1.0 204\n\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\nuntil close",
		"HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n",
		"SSH-2.0-OpenSSH\r\n",
	} {
		f.Add([]byte(s))
	}
	const limit = 4 << 10
	f.Fuzz(func(t *testing.T, b []byte) {
		br := bufio.NewReader(bytes.NewReader(b))
		h, err := readHead(br)
		if err != nil {
			return
		}
		if h.code < 100 || h.code > 999 {
			t.Fatalf("status code %d from %q", h.code, b)
		}
		body, err := readBody(br, h, limit)
		if err == nil && len(body) > limit {
			t.Fatalf("a body of %d bytes over the limit %d", len(body), limit)
		}
	})
}

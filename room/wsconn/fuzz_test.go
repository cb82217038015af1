package wsconn

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"runtime"
	"strings"
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

// allocBounded runs read, which reads a stream of n bytes, and fails if it
// allocated more than the frame reader may: its payload buffer grows by
// readChunk at most ahead of the bytes read, and at most doubles, so 3 ×
// the input plus two steps and slack (the error texts) bounds it.
func allocBounded(t *testing.T, n int, slack uint64, read func()) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	read()
	runtime.ReadMemStats(&after)
	if grew, bound := after.TotalAlloc-before.TotalAlloc, uint64(3*n+2*readChunk)+slack; grew > bound {
		t.Fatalf("reading %d bytes allocated %d (bound %d)", n, grew, bound)
	}
}

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
		c := New(fc, bufio.NewReaderSize(fc, 4096), Client)
		c.SetReadLimit(fuzzLimit)
		allocBounded(t, len(data), 16<<10, func() {
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
		})
		if _, _, err := c.ReadMessage(); err == nil {
			t.Fatal("a read after the end of the stream succeeded")
		}
	})
}

// FuzzReadResponse: whatever a server answers an HTTP request with, the
// head and body readers neither panic nor read past their bounds: the head
// stays within MaxHeadBytes, the body within its limit, and a status code
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
		h, err := ReadResponseHead(br)
		if err != nil {
			return
		}
		if h.Code < 100 || h.Code > 999 {
			t.Fatalf("status code %d from %q", h.Code, b)
		}
		body, err := ReadResponseBody(br, h, limit)
		if err == nil && len(body) > limit {
			t.Fatalf("a body of %d bytes over the limit %d", len(body), limit)
		}
	})
}

// FuzzReadClientFrames is FuzzReadFrames for a server's Conn: whatever a
// client sends (masked or not), ReadMessageOrSkip neither panics nor keeps
// more than the limit, nor allocates much more than the stream holds.
func FuzzReadClientFrames(f *testing.F) {
	k := [4]byte{1, 2, 3, 4}
	for _, seed := range [][]byte{
		maskedFrame(0x81, []byte("hello"), k),
		append(append(maskedFrame(0x01, []byte("he"), k), maskedFrame(0x89, []byte("p"), k)...), maskedFrame(0x80, []byte("llo"), k)...),
		maskedFrame(0x82, make([]byte, 300), k),
		maskedFrame(0x88, []byte{3, 232, 'b', 'y', 'e'}, k),
		frame(0x81, []byte("unmasked")),
		binary.BigEndian.AppendUint64([]byte{0x82, 0xff}, 1<<19),
		binary.BigEndian.AppendUint64([]byte{0x82, 0xff}, 1<<62),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fc := &fakeConn{r: bytes.NewReader(data)}
		c := New(fc, bufio.NewReaderSize(fc, 4096), Server)
		c.SetReadLimit(fuzzLimit)
		allocBounded(t, len(data), 48<<10, func() {
			for range len(data) + 1 {
				typ, msg, size, err := c.ReadMessageOrSkip()
				if err != nil {
					break
				}
				if len(msg) > fuzzLimit || (msg == nil) != (size > fuzzLimit) {
					t.Fatalf("a %d-byte message of size %d, the limit %d", len(msg), size, fuzzLimit)
				}
				if typ == TextMessage && msg != nil && !utf8.Valid(msg) {
					t.Fatalf("a text message that is not UTF-8: %q", msg)
				}
			}
		})
	})
}

// FuzzReadRequest: whatever a client sends, the request reader neither
// panics nor reads past MaxHeadBytes, and what it returns is a request
// line's parts: a token method, a visible target, HTTP/1.0 or 1.1.
func FuzzReadRequest(f *testing.F) {
	for _, s := range []string{
		"GET /room HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
		"POST /hooks/status/t/a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
		"\r\nGET / HTTP/1.0\n\n",
		"GET / HTTP/2.0\r\n\r\n",
		"GET  / HTTP/1.1\r\n\r\n",
		"GET / HTTP/1.1\r\n folded\r\n\r\n",
		"GET / HTTP/1.1\r\nX: a\x00b\r\n\r\n",
		"SSH-2.0-OpenSSH\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		br := bufio.NewReader(bytes.NewReader(b))
		r, err := ReadRequestHead(br)
		consumed := len(b) - br.Buffered()
		if err != nil {
			if consumed > MaxHeadBytes+4096 {
				t.Fatalf("an error after reading %d bytes", consumed)
			}
			return
		}
		if consumed > MaxHeadBytes {
			t.Fatalf("a head of %d bytes taken", consumed)
		}
		if !IsToken(r.Method) || !visible(r.Target) || (r.Minor != 0 && r.Minor != 1) || len(r.Header) > maxFields {
			t.Fatalf("request %+v from %q", r, b)
		}
		for name, vs := range r.Header {
			if !IsToken(name) || strings.ToLower(name) != name {
				t.Fatalf("field name %q", name)
			}
			for _, v := range vs {
				if !fieldValue(v) {
					t.Fatalf("field value %q", v)
				}
			}
		}
		if r.Header.Get("transfer-encoding") == "chunked" {
			if body, err := ReadChunked(br, 1<<10); err == nil && len(body) > 1<<10 {
				t.Fatalf("a chunked body of %d bytes over its limit", len(body))
			}
		}
	})
}

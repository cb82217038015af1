package dial

// The frame reader against a fake server writing raw bytes: the frames no
// real server library would send.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/textproto"
	"runtime"
	"strings"
	"testing"
	"time"

	"pullcept/room/wsconn/wstest"
)

// frame builds a server frame; clientFrame reads one the client wrote
// (final and masked), unmasked.
var frame = wstest.Frame

func clientFrame(br *bufio.Reader) (op byte, payload []byte, err error) {
	return wstest.ReadFrame(br, true)
}

// acceptGUID is RFC 6455's key suffix, for the fake server's own
// Sec-WebSocket-Accept (computed here, not by the code under test).
const acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// rawServer accepts one connection, answers its handshake with a valid
// 101 and hands the connection to serve. It returns the ws:// address.
func rawServer(t *testing.T, serve func(c net.Conn, br *bufio.Reader)) string {
	t.Helper()
	return rawHandshake(t, func(key string) string {
		sum := sha1.Sum([]byte(key + acceptGUID))
		return "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + base64.StdEncoding.EncodeToString(sum[:]) + "\r\n\r\n"
	}, serve)
}

// rawHandshake is rawServer with the handshake's answer made by answer
// from the request's key.
func rawHandshake(t *testing.T, answer func(key string) string, serve func(c net.Conn, br *bufio.Reader)) string {
	t.Helper()
	return "ws://" + rawConn(t, func(c net.Conn) {
		c.SetDeadline(time.Now().Add(10 * time.Second))
		br := bufio.NewReader(c)
		tp := textproto.NewReader(br)
		if _, err := tp.ReadLine(); err != nil {
			return
		}
		h, err := tp.ReadMIMEHeader()
		if err != nil {
			return
		}
		io.WriteString(c, answer(h.Get("Sec-WebSocket-Key")))
		serve(c, br)
	}) + "/room"
}

// rawConn serves the first connection to a loopback port with serve (the
// connection closed after it) and returns the port's address; the test's
// end waits for serve.
func rawConn(t *testing.T, serve func(c net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() {
		ln.Close()
		<-done
	})
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		serve(c)
	}()
	return ln.Addr().String()
}

func dialRaw(t *testing.T, url string) *Conn {
	t.Helper()
	c, err := (&Dialer{HandshakeTimeout: 10 * time.Second}).Dial(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	return c
}

// Fragments with a ping between them make one message; the pong carries
// the ping's data, masked, and the client's frames unmask right.
func TestRawFragmentsAndInterleavedPing(t *testing.T) {
	t.Parallel()
	pong := make(chan []byte, 1)
	url := rawServer(t, func(c net.Conn, br *bufio.Reader) {
		var b []byte
		b = append(b, frame(0x01, []byte("he"))...)    // text, not final
		b = append(b, frame(0x89, []byte("pp"))...)    // ping, between the fragments
		b = append(b, frame(0x00, []byte("ll"))...)    // continuation
		b = append(b, frame(0x80, []byte("o ✓"))...)   // final continuation
		b = append(b, frame(0x82, []byte{0, 1, 2})...) // a binary message after it
		c.Write(b)
		op, p, err := clientFrame(br)
		if err != nil || op != PongMessage {
			pong <- nil
			return
		}
		pong <- p
	})
	c := dialRaw(t, url)
	if got := readText(t, c); got != "hello ✓" {
		t.Fatalf("reassembled %q", got)
	}
	if typ, data, err := c.ReadMessage(); err != nil || typ != BinaryMessage || !bytes.Equal(data, []byte{0, 1, 2}) {
		t.Fatalf("the next message: %d %v %v", typ, data, err)
	}
	if p := <-pong; string(p) != "pp" {
		t.Fatalf("the server read pong %q", p)
	}
}

// Each malformed stream fails the read with a clear error, without a
// panic; a protocol violation is answered with close 1002.
func TestRawMalformedFrames(t *testing.T) {
	t.Parallel()
	bigLen := binary.BigEndian.AppendUint64([]byte{0x82, 127}, 1<<40)
	msbLen := binary.BigEndian.AppendUint64([]byte{0x82, 127}, 1<<63)
	// A continuation whose length added to the message's would overflow.
	overflow := append(frame(0x02, []byte("x")), binary.BigEndian.AppendUint64([]byte{0x80, 127}, 1<<63-1)...)
	for _, tc := range []struct {
		name  string
		bytes []byte
		want  error  // errors.Is
		text  string // in the error's text
	}{
		{"RSV1 set", frame(0xc1, []byte("a")), ErrProtocol, "RSV bits set (0x40)"},
		{"RSV3 set", frame(0x91, []byte("a")), ErrProtocol, "RSV bits set (0x10)"},
		{"unknown data opcode", frame(0x83, nil), ErrProtocol, "unknown opcode 3"},
		{"unknown control opcode", frame(0x8b, nil), ErrProtocol, "unknown opcode 11"},
		{"masked frame", []byte{0x81, 0x81, 1, 2, 3, 4, 'a' ^ 1}, ErrProtocol, "masked frame"},
		{"control over 125 bytes", frame(0x89, bytes.Repeat([]byte("p"), 126)), ErrProtocol, "over 125 bytes"},
		{"fragmented control", frame(0x09, nil), ErrProtocol, "fragmented control frame"},
		{"continuation without start", frame(0x80, []byte("x")), ErrProtocol, "no message to continue"},
		{"new message inside a fragmented one", append(frame(0x01, []byte("a")), frame(0x81, []byte("b"))...), ErrProtocol, "before the last one ended"},
		{"64-bit length with MSB set", msbLen, ErrProtocol, "most significant bit"},
		{"close with 1 byte", frame(0x88, []byte{3}), ErrProtocol, "1-byte payload"},
		{"length over the limit", bigLen, ErrReadLimit, "the limit is 1048576"},
		{"fragments over the limit together", append(frame(0x02, make([]byte, 1<<19)), frame(0x80, make([]byte, 1<<19+1))...), ErrReadLimit, "at least 1048577 bytes"},
		{"a length that overflows the sum", overflow, ErrReadLimit, "at least 9223372036854775808 bytes"},
		{"truncated payload", []byte{0x81, 5, 'a', 'b'}, io.ErrUnexpectedEOF, "without a close frame"},
		{"truncated length", []byte{0x81, 126, 1}, io.ErrUnexpectedEOF, "without a close frame"},
		{"truncated header", []byte{0x81}, io.ErrUnexpectedEOF, "without a close frame"},
		{"text not UTF-8", frame(0x81, []byte{0xff, 0xfe}), nil, "not valid UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			answered := make(chan []byte, 1)
			url := rawServer(t, func(c net.Conn, br *bufio.Reader) {
				if tc.want == io.ErrUnexpectedEOF {
					c.Write(tc.bytes)
					answered <- nil
					return // the stream ends here
				}
				go c.Write(tc.bytes) // the client stops reading before the end of a long one
				op, p, err := clientFrame(br)
				if err != nil || op != CloseMessage {
					answered <- nil
					return
				}
				answered <- p
			})
			c := dialRaw(t, url)
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			_, data, err := c.ReadMessage()
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) || !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("read returned %d bytes, err %v; want %v with %q", len(data), err, tc.want, tc.text)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
				t.Fatalf("the read allocated %d bytes", grew)
			}
			p := <-answered
			switch {
			case tc.want == ErrProtocol && (len(p) < 2 || binary.BigEndian.Uint16(p) != CloseProtocolError):
				t.Fatalf("the client answered the violation with %v, want close 1002", p)
			case tc.want == ErrReadLimit && (len(p) < 2 || binary.BigEndian.Uint16(p) != CloseTooBig):
				t.Fatalf("the client answered the long message with %v, want close 1009", p)
			}
			if _, _, again := c.ReadMessage(); again != err {
				t.Fatalf("the next read returned %v, not the same error", again)
			}
		})
	}
}

// A close frame without a code is answered with an empty close.
func TestRawCloseWithoutCode(t *testing.T) {
	t.Parallel()
	answered := make(chan []byte, 1)
	url := rawServer(t, func(c net.Conn, br *bufio.Reader) {
		c.Write(frame(0x88, nil))
		_, p, _ := clientFrame(br)
		answered <- p
	})
	c := dialRaw(t, url)
	_, _, err := c.ReadMessage()
	var ce *CloseError
	if !errors.As(err, &ce) || ce.Code != CloseNoStatus {
		t.Fatalf("read: %v", err)
	}
	if p := <-answered; len(p) != 0 {
		t.Fatalf("the answer's payload %v, want none", p)
	}
}

// A 101 that is not an answer to this handshake is refused.
func TestRawBadHandshakeAnswers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		answer func(key string) string
		text   string
	}{
		{"wrong Sec-WebSocket-Accept", func(string) string {
			return "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
		}, "Sec-WebSocket-Accept"},
		{"no Upgrade", func(key string) string {
			sum := sha1.Sum([]byte(key + acceptGUID))
			return "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + base64.StdEncoding.EncodeToString(sum[:]) + "\r\n\r\n"
		}, "Upgrade is"},
		{"an extension not offered", func(key string) string {
			sum := sha1.Sum([]byte(key + acceptGUID))
			return "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + base64.StdEncoding.EncodeToString(sum[:]) + "\r\nSec-WebSocket-Extensions: permessage-deflate\r\n\r\n"
		}, "extensions"},
		{"not HTTP", func(string) string { return "SSH-2.0-OpenSSH\r\n\r\n" }, "not an HTTP/1.x status line"},
		{"endless header", func(string) string {
			return "HTTP/1.1 101 Switching Protocols\r\nX: " + strings.Repeat("a", 70<<10) + "\r\n\r\n"
		}, "over 64 KiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url := rawHandshake(t, tc.answer, func(net.Conn, *bufio.Reader) {})
			c, err := (&Dialer{HandshakeTimeout: 10 * time.Second}).Dial(context.Background(), url)
			if c != nil || err == nil || !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("conn %v, err %v; want an error with %q", c, err, tc.text)
			}
		})
	}
}

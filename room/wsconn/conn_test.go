package wsconn

// The Conn in the server's role against raw client bytes; the client's
// role is tested in pullcept/room/dial (against gorilla's server and a raw
// one), the server's against gorilla's client in pullcept/room/socket.

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"pullcept/room/wsconn/wstest"
)

var (
	frame       = wstest.Frame
	maskedFrame = wstest.MaskedFrame
)

// readServerFrame reads one frame the server wrote: it must be final and
// unmasked.
func readServerFrame(t *testing.T, br *bufio.Reader) (op byte, payload []byte) {
	t.Helper()
	op, payload, err := wstest.ReadFrame(br, false)
	if err != nil {
		t.Fatal(err)
	}
	return op, payload
}

// serverPair is a server Conn on one end of a loopback TCP connection and
// the raw other end with its reader.
func serverPair(t *testing.T) (*Conn, net.Conn, *bufio.Reader) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	nc := <-accepted
	if nc == nil {
		t.Fatal("no connection accepted")
	}
	t.Cleanup(func() { client.Close(); nc.Close() })
	deadline := time.Now().Add(10 * time.Second)
	nc.SetDeadline(deadline)
	client.SetDeadline(deadline)
	return New(nc, bufio.NewReader(nc), Server), client, bufio.NewReader(client)
}

// mask is RFC 6455's byte-wise XOR (5.3), whatever the length.
func TestMaskIsTheRFCs(t *testing.T) {
	t.Parallel()
	const k = 0x78563412
	key := [4]byte{0x12, 0x34, 0x56, 0x78} // k's bytes as they go on the wire
	for n := range 40 {
		p := make([]byte, n)
		for i := range p {
			p[i] = byte(i * 7)
		}
		want := bytes.Clone(p)
		for i := range want {
			want[i] ^= key[i%4]
		}
		mask(p, k)
		if !bytes.Equal(p, want) {
			t.Fatalf("%d bytes: % x, want % x", n, p, want)
		}
	}
}

// RFC 6455's own example (1.3), and keys that are not 16 bytes of base64.
func TestAcceptKeyAndValidKey(t *testing.T) {
	t.Parallel()
	if got := AcceptKey("dGhlIHNhbXBsZSBub25jZQ=="); got != "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" {
		t.Fatalf("AcceptKey: %q", got)
	}
	if !ValidKey("dGhlIHNhbXBsZSBub25jZQ==") {
		t.Fatal("the RFC's key refused")
	}
	for _, k := range []string{"", "dGhlIHNhbXBsZSBub25jZQ", "dGhlIHNhbXBsZSBub25jZQ==x", "dGhlIHNhbXBsZSBub25jZQ=!", "c2hvcnQ=", "dGhlIHNhbXBsZSBub25jZSE="} {
		if ValidKey(k) {
			t.Errorf("%q taken as a key", k)
		}
	}
}

// A server reads masked frames (fragments with different keys, a masked
// ping between them, a payload of several read steps whose length is not
// a multiple of 4), answers the ping with an unmasked pong carrying its
// data, writes unmasked, and hears pings and pongs.
func TestServerReadsMaskedWritesUnmasked(t *testing.T) {
	t.Parallel()
	s, c, cbr := serverPair(t)
	heard := 0
	s.SetPingPongHandler(func() { heard++ })
	big := bytes.Repeat([]byte("0123456789abcdefg"), 6000) // 102,000 bytes: 4 read steps
	var b []byte
	b = append(b, maskedFrame(0x01, []byte("he"), [4]byte{1, 2, 3, 4})...)
	b = append(b, maskedFrame(0x89, []byte("pp"), [4]byte{9, 9, 9, 9})...)
	b = append(b, maskedFrame(0x80, []byte("llo ✓"), [4]byte{0xa0, 0xb1, 0xc2, 0xd3})...)
	b = append(b, maskedFrame(0x8a, nil, [4]byte{5, 6, 7, 8})...)
	b = append(b, maskedFrame(0x82, big, [4]byte{0xff, 0x01, 0x7f, 0x80})...)
	go c.Write(b)
	typ, msg, err := s.ReadMessage()
	if err != nil || typ != TextMessage || string(msg) != "hello ✓" {
		t.Fatalf("%d %q %v", typ, msg, err)
	}
	if op, p := readServerFrame(t, cbr); op != PongMessage || string(p) != "pp" {
		t.Fatalf("answer to the ping: %d %q", op, p)
	}
	typ, msg, err = s.ReadMessage()
	if err != nil || typ != BinaryMessage || !bytes.Equal(msg, big) {
		t.Fatalf("the big message: %d, %d bytes, %v", typ, len(msg), err)
	}
	if heard != 2 {
		t.Fatalf("heard %d pings and pongs, want 2", heard)
	}
	for _, n := range []int{5, 300, 70000} {
		if err := s.WriteMessage(TextMessage, bytes.Repeat([]byte("x"), n)); err != nil {
			t.Fatal(err)
		}
		if op, p := readServerFrame(t, cbr); op != TextMessage || len(p) != n || p[0] != 'x' {
			t.Fatalf("a %d-byte message read back as %d, %d bytes", n, op, len(p))
		}
	}
}

// RFC 6455 5.1: a server closes with 1002 on an unmasked frame.
func TestServerRefusesUnmaskedFrame(t *testing.T) {
	t.Parallel()
	s, c, cbr := serverPair(t)
	go c.Write(frame(0x81, []byte("hi")))
	_, _, err := s.ReadMessage()
	if !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), "an unmasked frame from the client") {
		t.Fatalf("read: %v", err)
	}
	op, p := readServerFrame(t, cbr)
	if op != CloseMessage || len(p) < 2 || binary.BigEndian.Uint16(p) != CloseProtocolError {
		t.Fatalf("answer: %d % x, want close 1002", op, p)
	}
	if _, _, again := s.ReadMessage(); again != err {
		t.Fatalf("the next read: %v", again)
	}
}

// ReadMessageOrSkip drops a message over the limit (fragments included),
// says how long it was and reads on; ReadMessage fails with 1009.
func TestReadMessageOrSkip(t *testing.T) {
	t.Parallel()
	s, c, cbr := serverPair(t)
	s.SetReadLimit(100)
	k := [4]byte{1, 2, 3, 4}
	var b []byte
	b = append(b, maskedFrame(0x01, bytes.Repeat([]byte("a"), 60), k)...)
	b = append(b, maskedFrame(0x80, bytes.Repeat([]byte("a"), 60), k)...)
	b = append(b, maskedFrame(0x81, bytes.Repeat([]byte("b"), 100), k)...)
	b = append(b, maskedFrame(0x81, bytes.Repeat([]byte("c"), 101), k)...)
	go c.Write(b)
	typ, data, size, err := s.ReadMessageOrSkip()
	if err != nil || typ != TextMessage || data != nil || size != 120 {
		t.Fatalf("over the limit: %d %q %d %v", typ, data, size, err)
	}
	typ, data, size, err = s.ReadMessageOrSkip()
	if err != nil || typ != TextMessage || len(data) != 100 || size != 100 {
		t.Fatalf("at the limit: %d %d bytes, size %d, %v", typ, len(data), size, err)
	}
	if _, _, err := s.ReadMessage(); !errors.Is(err, ErrReadLimit) {
		t.Fatalf("ReadMessage over the limit: %v", err)
	}
	if op, p := readServerFrame(t, cbr); op != CloseMessage || binary.BigEndian.Uint16(p) != CloseTooBig {
		t.Fatalf("answer: %d % x, want close 1009", op, p)
	}
}

// The client's close is answered with the same code and returned.
func TestServerAnswersClose(t *testing.T) {
	t.Parallel()
	s, c, cbr := serverPair(t)
	go c.Write(maskedFrame(0x88, append(binary.BigEndian.AppendUint16(nil, 4000), "bye"...), [4]byte{7, 7, 7, 7}))
	_, _, err := s.ReadMessage()
	var ce *CloseError
	if !errors.As(err, &ce) || ce.Code != 4000 || ce.Text != "bye" || !strings.Contains(err.Error(), "the client closed") {
		t.Fatalf("read: %v", err)
	}
	if op, p := readServerFrame(t, cbr); op != CloseMessage || binary.BigEndian.Uint16(p) != 4000 {
		t.Fatalf("answer: %d % x", op, p)
	}
	if err := s.WriteMessage(TextMessage, []byte("late")); !errors.Is(err, ErrCloseSent) {
		t.Fatalf("a write after the close: %v", err)
	}
}

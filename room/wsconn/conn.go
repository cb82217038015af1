// Package wsconn is the room socket's wire without net/http, for both ends:
// RFC 6455 WebSocket frames over a Stream (a Conn knows whether it is the
// client or the server, which decides the masking), the opening handshake's
// key check, and the HTTP/1.1 heads and bodies the handshake and the hook
// calls travel in (a request's and a response's head, Content-Length and
// chunked bodies), each read within a byte budget.
//
// pullcept/room/dial (the sidecar's client, `pullcept hook`'s POST) and
// pullcept/room/socket (the room's server) both run on it: one frame
// reader, one header parser. It links neither net/http nor crypto/tls (the
// root's deps_test.go, TestLightPackagesLinkLittle): the front binary starts
// with every CLI launch and hook call, and the server's resident memory
// counts every package it links.
package wsconn

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"
	"unicode/utf8"
)

// Message types, RFC 6455's opcodes (the values gorilla/websocket uses).
const (
	TextMessage   = 1
	BinaryMessage = 2
	CloseMessage  = 8
	PingMessage   = 9
	PongMessage   = 10
)

const opContinuation = 0

// Close codes (RFC 6455, 7.4.1).
const (
	CloseNormal        = 1000
	CloseProtocolError = 1002
	CloseNoStatus      = 1005 // received only: the close frame had no code
	CloseInvalidData   = 1007
	CloseTooBig        = 1009
)

// DefaultReadLimit is a new Conn's read limit.
const DefaultReadLimit = 1 << 20

const (
	// maxControl is the largest control frame payload (RFC 6455, 5.5).
	maxControl = 125
	// readChunk is how much a frame's payload buffer grows at a time:
	// memory follows the bytes that arrive, not the length a header
	// claims. A multiple of 4, so that each step of a masked payload
	// starts at the key's first byte.
	readChunk = 32 << 10
	// defaultReplyTimeout bounds the write of a pong or close the reader
	// sends by itself.
	defaultReplyTimeout = 5 * time.Second
	// keepWrite is the largest write buffer kept between messages.
	keepWrite = 64 << 10
)

var (
	// ErrReadLimit: a message was longer than the read limit.
	ErrReadLimit = errors.New("websocket: message over the read limit")
	// ErrProtocol: the peer broke RFC 6455.
	ErrProtocol = errors.New("websocket: protocol violation")
	// ErrCloseSent: a close frame was already sent; nothing more can be.
	ErrCloseSent = errors.New("websocket: the close frame was already sent")
)

// Role is the end a Conn is: it decides the masking (RFC 6455, 5.1).
type Role uint8

const (
	// Client masks every frame it writes and refuses a masked frame.
	Client Role = iota + 1
	// Server requires every frame to be masked and writes unmasked.
	Server
)

// peer names the other end in errors.
func (r Role) peer() string {
	if r == Server {
		return "client"
	}
	return "server"
}

// CloseError is the peer's close frame: ReadMessage's error once the peer
// closed the connection.
type CloseError struct {
	Code int    // CloseNoStatus when the frame had none
	Text string // the reason it gave, if any
	by   string // who closed: "server" or "client"
}

func (e *CloseError) Error() string {
	by := e.by
	if by == "" {
		by = "peer"
	}
	if e.Text == "" {
		return fmt.Sprintf("websocket: the %s closed the connection (%d)", by, e.Code)
	}
	return fmt.Sprintf("websocket: the %s closed the connection (%d %s)", by, e.Code, e.Text)
}

// Stream is what a Conn runs on: a net.Conn (the room's server) or the
// *os.File of a socket (pullcept/room/dial, which links no package net).
type Stream interface {
	io.ReadWriteCloser
	SetReadDeadline(time.Time) error
	SetWriteDeadline(time.Time) error
}

// Conn is one end of a WebSocket.
//
// Concurrency: ReadMessage, ReadMessageOrSkip, SetReadLimit and
// SetPingPongHandler belong to one reading goroutine. The writes
// (WriteMessage, WriteControl, SetWriteDeadline, Close) may come from other
// goroutines: each frame is written whole under the Conn's own lock, which
// the reader also takes for the pongs and the close it answers with. A
// caller that sets a write deadline and then writes must still hold its own
// lock over the two, as the sidecar's writeMu does, or another writer's
// deadline may apply.
type Conn struct {
	nc   Stream
	br   *bufio.Reader
	role Role

	// Reader's state.
	readLimit    int64
	readErr      error  // sticky: once a read failed, the stream is lost
	heard        func() // called for each ping or pong read
	replyTimeout time.Duration

	wmu           sync.Mutex
	wbuf          []byte
	writeDeadline time.Time
	closeSent     bool
	writeErr      error // sticky: a failed write may have left half a frame
}

// New makes role's end of a WebSocket whose handshake is done on nc; br
// reads nc and may already hold the first frames (they can share the
// handshake's read).
func New(nc Stream, br *bufio.Reader, role Role) *Conn {
	if role != Server {
		role = Client
	}
	return &Conn{nc: nc, br: br, role: role, readLimit: DefaultReadLimit, replyTimeout: defaultReplyTimeout}
}

// SetReadLimit bounds a message's length; a longer one fails ReadMessage
// with ErrReadLimit and closes the connection with 1009 (ReadMessageOrSkip
// drops it instead). n ≤ 0 restores DefaultReadLimit.
func (c *Conn) SetReadLimit(n int64) {
	if n <= 0 {
		n = DefaultReadLimit
	}
	c.readLimit = n
}

// SetPingPongHandler has f called, in the reader, for each ping or pong
// read (after a ping's pong is written): a keepalive hears the peer through
// it. nil: none.
func (c *Conn) SetPingPongHandler(f func()) { c.heard = f }

// SetReplyTimeout bounds the write of each pong and close the reader
// answers with by itself (5 s unless set; d ≤ 0 restores it).
func (c *Conn) SetReplyTimeout(d time.Duration) {
	if d <= 0 {
		d = defaultReplyTimeout
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.replyTimeout = d
}

// SetReadDeadline bounds the reads; the zero time removes the bound. A
// read past it fails and the Conn is of no further use.
func (c *Conn) SetReadDeadline(t time.Time) error { return c.nc.SetReadDeadline(t) }

// SetWriteDeadline bounds the data frames' writes (WriteMessage).
func (c *Conn) SetWriteDeadline(t time.Time) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.writeDeadline = t
	return nil
}

// ReadMessage reads the next data message, reassembled from its frames.
// On the way it answers pings with pongs and skips pongs. A close frame is
// answered with a close and returned as a *CloseError. A message over the
// read limit is ErrReadLimit; a frame that breaks the protocol is
// ErrProtocol. After any error the Conn reads no more: every later call
// returns the same error.
func (c *Conn) ReadMessage() (messageType int, data []byte, err error) {
	messageType, data, _, err = c.read(false)
	return messageType, data, err
}

// ReadMessageOrSkip is ReadMessage for a reader that answers a message over
// the read limit instead of failing: such a message is read to its end and
// dropped, returned with nil data and no error; size is its length (for
// any message). Memory stays within the limit whatever the peer sends.
func (c *Conn) ReadMessageOrSkip() (messageType int, data []byte, size int64, err error) {
	return c.read(true)
}

func (c *Conn) read(skip bool) (int, []byte, int64, error) {
	if c.readErr != nil {
		return 0, nil, 0, c.readErr
	}
	typ, data, size, err := c.readMessage(skip)
	if err != nil {
		c.readErr = err
	}
	return typ, data, size, err
}

// frameHead is a frame's first bytes, decoded.
type frameHead struct {
	fin    bool
	op     byte
	masked bool
	key    uint32 // the masking key, its bytes in wire order (little-endian)
	length int64
}

func (c *Conn) readMessage(skip bool) (int, []byte, int64, error) {
	var msg []byte
	var size int64    // the message's bytes so far, kept or dropped
	dropping := false // the message is over the limit: its payload is discarded
	typ := 0          // the message's opcode, 0 until its first frame
	for {
		f, err := c.readFrameHead()
		if err != nil {
			return 0, nil, 0, err
		}
		if f.op >= CloseMessage {
			payload := make([]byte, f.length) // at most maxControl
			if _, err := io.ReadFull(c.br, payload); err != nil {
				return 0, nil, 0, endOfStream(err)
			}
			if f.masked {
				mask(payload, f.key)
			}
			switch f.op {
			case PingMessage:
				c.reply(PongMessage, payload) // a failure shows on the next read
			case CloseMessage:
				return 0, nil, 0, c.closed(payload)
			}
			if c.heard != nil {
				c.heard()
			}
			continue
		}
		switch {
		case f.op == opContinuation && typ == 0:
			return 0, nil, 0, c.fail(CloseProtocolError, "a continuation frame with no message to continue")
		case f.op != opContinuation && typ != 0:
			return 0, nil, 0, c.fail(CloseProtocolError, "a new message began before the last one ended")
		case f.op != opContinuation:
			typ = int(f.op)
		}
		if !dropping && f.length > c.readLimit-size { // not size+length: that may overflow
			if !skip {
				c.reply(CloseMessage, closePayload(CloseTooBig, "message too big"))
				return 0, nil, 0, fmt.Errorf("%w: at least %d bytes, the limit is %d", ErrReadLimit, uint64(size)+uint64(f.length), c.readLimit)
			}
			dropping, msg = true, nil
		}
		if dropping {
			if _, err := io.CopyN(io.Discard, c.br, f.length); err != nil {
				return 0, nil, 0, endOfStream(err)
			}
		} else if msg, err = c.readPayload(msg, f); err != nil {
			return 0, nil, 0, err
		}
		size = addSat(size, f.length)
		if !f.fin {
			continue
		}
		if dropping {
			return typ, nil, size, nil
		}
		if typ == TextMessage && !utf8.Valid(msg) {
			c.reply(CloseMessage, closePayload(CloseInvalidData, "text is not UTF-8"))
			return 0, nil, 0, errors.New("websocket: a text message that is not valid UTF-8")
		}
		if msg == nil {
			msg = []byte{}
		}
		return typ, msg, size, nil
	}
}

// addSat is a+b for non-negative lengths, at most math.MaxInt64.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// readFrameHead reads and checks a frame's header (RFC 6455, 5.2). No
// extension is ever negotiated, so the RSV bits must be clear; a client's
// frames are masked and a server's never (5.1).
func (c *Conn) readFrameHead() (frameHead, error) {
	var b [8]byte
	if _, err := io.ReadFull(c.br, b[:2]); err != nil {
		return frameHead{}, endOfStream(err)
	}
	f := frameHead{fin: b[0]&0x80 != 0, op: b[0] & 0x0f, masked: b[1]&0x80 != 0, length: int64(b[1] & 0x7f)}
	if rsv := b[0] & 0x70; rsv != 0 {
		return f, c.fail(CloseProtocolError, fmt.Sprintf("RSV bits set (0x%02x) and no extension negotiated", rsv))
	}
	switch f.op {
	case opContinuation, TextMessage, BinaryMessage:
	case CloseMessage, PingMessage, PongMessage:
		if !f.fin {
			return f, c.fail(CloseProtocolError, fmt.Sprintf("a fragmented control frame (opcode %d)", f.op))
		}
		if f.length > maxControl {
			return f, c.fail(CloseProtocolError, fmt.Sprintf("a control frame (opcode %d) over %d bytes", f.op, maxControl))
		}
	default:
		return f, c.fail(CloseProtocolError, fmt.Sprintf("unknown opcode %d", f.op))
	}
	switch {
	case f.masked && c.role == Client:
		return f, c.fail(CloseProtocolError, "a masked frame from the server")
	case !f.masked && c.role == Server:
		return f, c.fail(CloseProtocolError, "an unmasked frame from the client")
	}
	switch f.length {
	case 126:
		if _, err := io.ReadFull(c.br, b[:2]); err != nil {
			return f, endOfStream(err)
		}
		f.length = int64(binary.BigEndian.Uint16(b[:2]))
	case 127:
		if _, err := io.ReadFull(c.br, b[:8]); err != nil {
			return f, endOfStream(err)
		}
		n := binary.BigEndian.Uint64(b[:8])
		if n>>63 != 0 {
			return f, c.fail(CloseProtocolError, "a payload length with its most significant bit set")
		}
		f.length = int64(n)
	}
	if f.masked {
		if _, err := io.ReadFull(c.br, b[:4]); err != nil {
			return f, endOfStream(err)
		}
		f.key = binary.LittleEndian.Uint32(b[:4])
	}
	return f, nil
}

// readPayload appends f's payload to msg, unmasked, growing msg by
// readChunk at most at a time so that memory follows what arrives.
func (c *Conn) readPayload(msg []byte, f frameHead) ([]byte, error) {
	for n := f.length; n > 0; {
		step := int(min(n, readChunk))
		msg = slices.Grow(msg, step)
		start := len(msg)
		msg = msg[:start+step]
		if _, err := io.ReadFull(c.br, msg[start:]); err != nil {
			return nil, endOfStream(err)
		}
		if f.masked {
			mask(msg[start:], f.key) // every step but the last is readChunk bytes: the key lines up
		}
		n -= int64(step)
	}
	return msg, nil
}

// closed answers the peer's close frame with one of its own (the same
// code) and makes the error ReadMessage returns.
func (c *Conn) closed(payload []byte) error {
	switch {
	case len(payload) == 1:
		return c.fail(CloseProtocolError, "a close frame with a 1-byte payload")
	case len(payload) > 2 && !utf8.Valid(payload[2:]):
		c.reply(CloseMessage, closePayload(CloseInvalidData, "close reason is not UTF-8"))
		return errors.New("websocket: a close frame whose reason is not valid UTF-8")
	case len(payload) == 0:
		c.reply(CloseMessage, nil)
		return &CloseError{Code: CloseNoStatus, by: c.role.peer()}
	}
	code := int(binary.BigEndian.Uint16(payload))
	c.reply(CloseMessage, payload[:2])
	return &CloseError{Code: code, Text: string(payload[2:]), by: c.role.peer()}
}

// fail closes the connection for a protocol violation (best effort) and
// returns the error naming it.
func (c *Conn) fail(code int, what string) error {
	c.reply(CloseMessage, closePayload(code, "protocol error"))
	return fmt.Errorf("%w by the %s: %s", ErrProtocol, c.role.peer(), what)
}

// endOfStream names a connection that ended (or failed) between or inside
// frames.
func endOfStream(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fmt.Errorf("websocket: the connection ended without a close frame: %w", io.ErrUnexpectedEOF)
	}
	return err
}

// reply writes a frame the reader sends by itself, with its own deadline.
func (c *Conn) reply(op byte, payload []byte) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.writeFrame(op, payload, time.Now().Add(c.replyTimeout))
}

func closePayload(code int, text string) []byte {
	return append(binary.BigEndian.AppendUint16(nil, uint16(code)), text...)
}

// WriteMessage writes one text or binary message as a single frame, by
// the write deadline (SetWriteDeadline).
func (c *Conn) WriteMessage(messageType int, data []byte) error {
	if messageType != TextMessage && messageType != BinaryMessage {
		return fmt.Errorf("websocket: WriteMessage takes a text or binary message, not type %d", messageType)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.writeFrame(byte(messageType), data, c.writeDeadline)
}

// WriteControl writes a ping, pong or close frame (at most 125 bytes of
// data) by deadline. After a close nothing more can be written.
func (c *Conn) WriteControl(messageType int, data []byte, deadline time.Time) error {
	if messageType != PingMessage && messageType != PongMessage && messageType != CloseMessage {
		return fmt.Errorf("websocket: WriteControl takes a ping, pong or close, not type %d", messageType)
	}
	if len(data) > maxControl {
		return fmt.Errorf("websocket: a control frame of %d bytes, the limit is %d", len(data), maxControl)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.writeFrame(byte(messageType), data, deadline)
}

// writeFrame writes one final frame, masked if the Conn is a client. The
// caller holds wmu.
func (c *Conn) writeFrame(op byte, payload []byte, deadline time.Time) error {
	if c.writeErr != nil {
		return c.writeErr
	}
	if c.closeSent {
		return ErrCloseSent
	}
	var maskBit byte
	if c.role == Client {
		maskBit = 0x80
	}
	b := append(c.wbuf[:0], 0x80|op)
	switch n := len(payload); {
	case n <= 125:
		b = append(b, maskBit|byte(n))
	case n <= 0xffff:
		b = binary.BigEndian.AppendUint16(append(b, maskBit|126), uint16(n))
	default:
		b = binary.BigEndian.AppendUint64(append(b, maskBit|127), uint64(n))
	}
	if c.role == Client {
		k := rand.Uint32() // see the note on the random source in room/dial's ws.go
		b = binary.LittleEndian.AppendUint32(b, k)
		start := len(b)
		b = append(b, payload...)
		mask(b[start:], k)
	} else {
		b = append(b, payload...)
	}
	c.nc.SetWriteDeadline(deadline)
	_, err := c.nc.Write(b)
	if cap(b) <= keepWrite {
		c.wbuf = b
	} else {
		c.wbuf = nil // one big message does not keep its buffer
	}
	if op == CloseMessage {
		c.closeSent = true
	}
	if err != nil {
		c.writeErr = err
	}
	return err
}

// mask XORs p with the masking key k (its bytes in little-endian order),
// eight bytes at a time where it can. p starts at the key's first byte.
func mask(p []byte, k uint32) {
	k8 := uint64(k) | uint64(k)<<32
	for len(p) >= 8 {
		binary.LittleEndian.PutUint64(p, binary.LittleEndian.Uint64(p)^k8)
		p = p[8:]
	}
	for i := range p {
		p[i] ^= byte(k >> (8 * (i & 3)))
	}
}

// closeTimeout bounds the close frame Close sends.
const closeTimeout = time.Second

// Close sends a close frame (1000) unless one was sent or a write is under
// way (a writer stuck on a dead peer must not hold Close up), then closes
// the connection, which ends a read in progress.
func (c *Conn) Close() error {
	if c.wmu.TryLock() {
		if !c.closeSent && c.writeErr == nil {
			c.writeFrame(CloseMessage, closePayload(CloseNormal, ""), time.Now().Add(closeTimeout))
		}
		c.wmu.Unlock()
	}
	return c.nc.Close()
}

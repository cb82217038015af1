// Package wstest builds and reads WebSocket frames byte by byte, as RFC
// 6455 lays them out, for the tests of both ends (room/wsconn, room/dial,
// room/socket): a check of the Conn that does not use the Conn.
package wstest

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
)

// Frame builds an unmasked frame (a server's): first byte b0, then the
// payload's length in the shortest form, then the payload.
func Frame(b0 byte, payload []byte) []byte {
	b := []byte{b0}
	switch n := len(payload); {
	case n <= 125:
		b = append(b, byte(n))
	case n <= 0xffff:
		b = binary.BigEndian.AppendUint16(append(b, 126), uint16(n))
	default:
		b = binary.BigEndian.AppendUint64(append(b, 127), uint64(n))
	}
	return append(b, payload...)
}

// MaskedFrame builds a client's frame, masked with key (wire order), byte
// by byte as RFC 6455 5.3 says.
func MaskedFrame(b0 byte, payload []byte, key [4]byte) []byte {
	f := Frame(b0, payload)
	head := len(f) - len(payload)
	f[1] |= 0x80
	out := append(f[:head:head], key[:]...)
	for i, c := range payload {
		out = append(out, c^key[i%4])
	}
	return out
}

// ReadFrame reads one final frame, masked (a client's) or not (a
// server's) as masked says, and returns its opcode and unmasked payload.
func ReadFrame(br *bufio.Reader, masked bool) (op byte, payload []byte, err error) {
	var h [2]byte
	if _, err := io.ReadFull(br, h[:]); err != nil {
		return 0, nil, err
	}
	if h[0]&0xf0 != 0x80 || (h[1]&0x80 != 0) != masked {
		if masked {
			return 0, nil, errors.New("not a final masked frame")
		}
		return 0, nil, errors.New("not a final unmasked frame")
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var b [2]byte
		if _, err := io.ReadFull(br, b[:]); err != nil {
			return 0, nil, err
		}
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		if _, err := io.ReadFull(br, b[:]); err != nil {
			return 0, nil, err
		}
		n = binary.BigEndian.Uint64(b[:])
	}
	var key [4]byte
	if masked {
		if _, err := io.ReadFull(br, key[:]); err != nil {
			return 0, nil, err
		}
	}
	if n > 64<<20 {
		return 0, nil, errors.New("frame over 64 MiB")
	}
	payload = make([]byte, n)
	if _, err := io.ReadFull(br, payload); err != nil {
		return 0, nil, err
	}
	for i := range payload {
		payload[i] ^= key[i&3]
	}
	return h[0] & 0x0f, payload, nil
}

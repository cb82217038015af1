package wsconn

import (
	"encoding/binary"
	"math/bits"
)

// sha1Sum is SHA-1 (FIPS 180-4) of b, for the handshake's Accept key only
// (a checksum there, not a signature). crypto/sha1 brings the FIPS 140
// module's packages and their inits into every `pullcept` command that can
// dial the room (docs/performance.md, "Issue 13, eighth session").
func sha1Sum(b []byte) [20]byte {
	h := [5]uint32{0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0}
	n := len(b)
	// The message, a 1 bit, zeros, and its length in bits: whole blocks.
	msg := make([]byte, (n+8)/64*64+64)
	copy(msg, b)
	msg[n] = 0x80
	binary.BigEndian.PutUint64(msg[len(msg)-8:], uint64(n)*8)
	var w [80]uint32
	for blk := msg; len(blk) > 0; blk = blk[64:] {
		for i := 0; i < 16; i++ {
			w[i] = binary.BigEndian.Uint32(blk[4*i:])
		}
		for i := 16; i < 80; i++ {
			w[i] = bits.RotateLeft32(w[i-3]^w[i-8]^w[i-14]^w[i-16], 1)
		}
		a, bb, c, d, e := h[0], h[1], h[2], h[3], h[4]
		for i := 0; i < 80; i++ {
			var f, k uint32
			switch {
			case i < 20:
				f, k = bb&c|^bb&d, 0x5A827999
			case i < 40:
				f, k = bb^c^d, 0x6ED9EBA1
			case i < 60:
				f, k = bb&c|bb&d|c&d, 0x8F1BBCDC
			default:
				f, k = bb^c^d, 0xCA62C1D6
			}
			t := bits.RotateLeft32(a, 5) + f + e + k + w[i]
			a, bb, c, d, e = t, a, bits.RotateLeft32(bb, 30), c, d
		}
		h[0], h[1], h[2], h[3], h[4] = h[0]+a, h[1]+bb, h[2]+c, h[3]+d, h[4]+e
	}
	var out [20]byte
	for i, v := range h {
		binary.BigEndian.PutUint32(out[4*i:], v)
	}
	return out
}

// Package ids makes the random identifiers Pullcept gives messages, seats'
// sessions and PTYs: UUIDs (RFC 9562) in their lower-case text form, from
// the standard library alone (a few lines, no dependency). The bits come
// from math/rand/v2's global generator: ChaCha8, seeded by the runtime from
// the kernel's entropy, unpredictable. No identifier here is a secret:
// tokens and capabilities come from crypto/rand in the server.
package ids

import (
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
)

// Random returns a new random UUID (version 4): 122 random bits.
func Random() string {
	var u [16]byte
	binary.LittleEndian.PutUint64(u[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(u[8:], rand.Uint64())
	u[6] = 0x40 | u[6]&0x0f // version 4
	u[8] = 0x80 | u[8]&0x3f // RFC 9562 variant
	return Format(u)
}

// Format is u in the 36-character text form, 8-4-4-4-12 hex digits.
func Format(u [16]byte) string {
	var out [36]byte
	hex.Encode(out[0:8], u[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], u[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], u[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], u[8:10])
	out[23] = '-'
	hex.Encode(out[24:], u[10:])
	return string(out[:])
}

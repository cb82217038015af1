package wsconn

import (
	"crypto/sha1"
	"math/rand/v2"
	"testing"
)

// sha1Sum against crypto/sha1 on every length through four blocks (each
// padding case: the length field in the same block or the next) and on
// random inputs, plus FIPS 180's "abc".
func TestSHA1MatchesCryptoSHA1(t *testing.T) {
	if got, want := sha1Sum([]byte("abc")), [20]byte{0xa9, 0x99, 0x3e, 0x36, 0x47, 0x06, 0x81, 0x6a, 0xba, 0x3e, 0x25, 0x71, 0x78, 0x50, 0xc2, 0x6c, 0x9c, 0xd0, 0xd8, 0x9d}; got != want {
		t.Fatalf("sha1(abc) = %x", got)
	}
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 4096)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	for n := 0; n <= 256; n++ {
		if got, want := sha1Sum(b[:n]), sha1.Sum(b[:n]); got != want {
			t.Fatalf("length %d: %x, want %x", n, got, want)
		}
	}
	for range 200 {
		n := r.IntN(len(b))
		if got, want := sha1Sum(b[:n]), sha1.Sum(b[:n]); got != want {
			t.Fatalf("length %d: %x, want %x", n, got, want)
		}
	}
}

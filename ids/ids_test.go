package ids

import (
	"testing"

	"github.com/google/uuid"
)

func TestRandomIsAVersion4UUID(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		s := Random()
		u, err := uuid.Parse(s)
		if err != nil || u.Version() != 4 || u.Variant() != uuid.RFC4122 || u.String() != s {
			t.Fatalf("%q: parsed %v (version %v, variant %v), err %v", s, u, u.Version(), u.Variant(), err)
		}
		if seen[s] {
			t.Fatalf("%q twice", s)
		}
		seen[s] = true
	}
}

func TestFormatIsUUIDText(t *testing.T) {
	u := [16]byte{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10}
	if got, want := Format(u), uuid.UUID(u).String(); got != want {
		t.Fatalf("Format = %s, google/uuid says %s", got, want)
	}
}

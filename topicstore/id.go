package topicstore

import (
	"encoding/binary"
	"math/rand/v2"
	"sync"
	"time"

	uuidtext "pullcept/ids" // the package's tests have an ids helper
)

// MaxIDLen is the longest topic id ValidID accepts.
const MaxIDLen = 64

// ValidID reports whether id can name a topic: 1 to 64 characters, each an
// ASCII letter, digit, '_' or '-'. Such an id is a plain file name and can
// never reach outside the store's directory.
func ValidID(id string) bool {
	if len(id) == 0 || len(id) > MaxIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// idClock keeps NewID increasing within the process: ids made in the same
// millisecond take the next value of a 12-bit sequence.
var idClock struct {
	sync.Mutex
	ms  int64
	seq uint16
}

// NewID returns a new topic id: a UUID version 7 in its lower-case text
// form (36 characters). Its first 48 bits are the Unix time in milliseconds,
// so ids sort by creation time as text; within one process they strictly
// increase. It is made with the standard library only; the random bits as
// pullcept/ids makes them (math/rand/v2).
func NewID() string {
	ms := time.Now().UnixMilli()
	idClock.Lock()
	if ms <= idClock.ms {
		ms = idClock.ms
		idClock.seq++
		if idClock.seq > 0x0fff {
			ms++
			idClock.seq = 0
		}
	} else {
		idClock.seq = 0
	}
	idClock.ms = ms
	seq := idClock.seq
	idClock.Unlock()

	var u [16]byte
	binary.LittleEndian.PutUint64(u[8:], rand.Uint64())
	u[0] = byte(ms >> 40)
	u[1] = byte(ms >> 32)
	u[2] = byte(ms >> 24)
	u[3] = byte(ms >> 16)
	u[4] = byte(ms >> 8)
	u[5] = byte(ms)
	u[6] = 0x70 | byte(seq>>8) // version 7
	u[7] = byte(seq)
	u[8] = 0x80 | u[8]&0x3f // RFC 9562 variant

	return uuidtext.Format(u)
}

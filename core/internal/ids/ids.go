// Package ids makes agentmem's default message ids: UUIDv7 strings that
// increase within a process.
package ids

import (
	"crypto/rand"
	"sync"
	"time"

	"github.com/google/uuid"
)

// idSource makes the default message ids: UUIDv7 strings, laid out as
// uuid.NewV7 lays them out (48 bits of Unix milliseconds, the version, 12
// bits of sub-millisecond time that keep one process's ids increasing, the
// variant and 62 random bits). The random bits come from crypto/rand, read
// 2 KiB at a time: one read per 256 ids instead of one per id cost ~10% of a
// batch save's client CPU, and going through uuid.NewV7FromReader's
// io.Reader cost two allocations an id (~7% of a batch of 100's client CPU).
var idSource struct {
	sync.Mutex
	random [256 * 8]byte
	used   int   // bytes of random handed out; 0 before the first read
	last   int64 // milliseconds<<12 | sub-millisecond part of the last id
}

// New returns a UUIDv7 (time-ordered) string, greater than every id New
// returned before in this process. It is safe for concurrent use.
func New() string {
	var u uuid.UUID
	idSource.Lock()
	if idSource.used == 0 || idSource.used == len(idSource.random) {
		_, _ = rand.Read(idSource.random[:]) // crypto/rand.Read never fails
		idSource.used = 0
	}
	copy(u[8:], idSource.random[idSource.used:idSource.used+8])
	idSource.used += 8
	milli, seq := v7Time(time.Now().UnixNano())
	idSource.Unlock()
	u[0], u[1], u[2], u[3], u[4], u[5] = byte(milli>>40), byte(milli>>32), byte(milli>>24), byte(milli>>16), byte(milli>>8), byte(milli)
	u[6], u[7] = 0x70|byte(seq>>8)&0x0f, byte(seq)
	u[8] = u[8]&0x3f | 0x80
	return u.String()
}

// v7Time splits nano into Unix milliseconds and a 12-bit fraction of the
// millisecond (nanoseconds / 256), moved past the last id's so that ids
// increase; idSource's lock is held.
func v7Time(nano int64) (milli, seq int64) {
	milli = nano / 1e6
	now := milli<<12 + (nano-milli*1e6)>>8
	if now <= idSource.last {
		now = idSource.last + 1
	}
	idSource.last = now
	return now >> 12, now & 0xfff
}

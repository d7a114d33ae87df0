package ids

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

// Default ids are UUIDv7 strings of the current time that increase within
// the process, also many to a millisecond, and differ in their random bits.
func TestNewIDIsIncreasingUUIDv7(t *testing.T) {
	before := time.Now().Add(-time.Millisecond)
	prev := ""
	seen := make(map[string]bool)
	for i := 0; i < 5000; i++ { // more than one buffer of random bytes
		id := New()
		u, err := uuid.Parse(id)
		if err != nil || u.Version() != 7 || u.Variant() != uuid.RFC4122 || u.String() != id {
			t.Fatalf("id %q: version %v variant %v, %v", id, u.Version(), u.Variant(), err)
		}
		if at := time.UnixMilli(int64(u[0])<<40 | int64(u[1])<<32 | int64(u[2])<<24 | int64(u[3])<<16 | int64(u[4])<<8 | int64(u[5])); at.Before(before) || at.After(time.Now().Add(time.Second)) {
			t.Fatalf("id %q carries time %v, now %v", id, at, time.Now())
		}
		if id <= prev {
			t.Fatalf("id %q after %q: not increasing", id, prev)
		}
		if seen[id[19:]] {
			t.Fatalf("id %q repeats random bits %s", id, id[19:])
		}
		seen[id[19:]] = true
		prev = id
	}
}

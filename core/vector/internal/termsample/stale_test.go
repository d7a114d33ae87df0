package termsample

import (
	"testing"
	"time"
)

// A resource's term sample is read again once it is older than the TTL, or
// once a tenth of its size has been written into the resource; a fresh,
// lightly written sample is kept.
func TestSampleStale(t *testing.T) {
	const sampleTTL = time.Minute
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name    string
		n       int
		written int
		age     time.Duration
		want    bool
	}{
		{"fresh", 500, 0, 0, false},
		{"just under the TTL", 500, 0, sampleTTL, false},
		{"past the TTL", 500, 0, sampleTTL + time.Nanosecond, true},
		{"an hour old", 500, 0, time.Hour, true},
		{"writes under a tenth", 500, 49, time.Second, false},
		{"writes of a tenth", 500, 50, time.Second, true},
		{"small resource, one write", 5, 1, time.Second, true},
		{"empty resource, no write", 0, 0, time.Second, false},
		{"empty resource, one write", 0, 1, time.Second, true},
	}
	for _, c := range cases {
		ts := &Sample{N: c.n, written: c.written, at: at}
		if got := ts.stale(at.Add(c.age), sampleTTL); got != c.want {
			t.Errorf("%s: stale = %v, want %v", c.name, got, c.want)
		}
	}
}

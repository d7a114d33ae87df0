package weaviate

import (
	"testing"
	"time"
)

// TestSampleStale: a tenant's term sample is read again once it is older
// than sampleTTL, or once this store has written a tenth of its size into
// the tenant; a fresh, lightly written sample is kept.
func TestSampleStale(t *testing.T) {
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
		{"small tenant, one write", 5, 1, time.Second, true},
		{"empty tenant, no write", 0, 0, time.Second, false},
		{"empty tenant, one write", 0, 1, time.Second, true},
	}
	for _, c := range cases {
		ts := &termSample{n: c.n, written: c.written, at: at}
		if got := ts.stale(at.Add(c.age)); got != c.want {
			t.Errorf("%s: stale = %v, want %v", c.name, got, c.want)
		}
	}
}

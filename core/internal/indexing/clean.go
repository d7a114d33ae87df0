package indexing

import (
	"sync"
	"sync/atomic"
	"time"
)

// cleanFor is how long a resource found without unindexed markers is taken
// to stay without them. Markers this process writes end it at once; markers
// written by another process (whose own next write retries them) are seen
// here at most cleanFor later.
const cleanFor = time.Minute

// Clean remembers resources whose unindexed queue was found empty,
// so that a save does not read the queue (one more round trip) when no
// marker can be there. It is safe for concurrent use. It is per process: a new process checks each
// resource once, so markers left by a process that stopped are retried.
type Clean struct {
	marks atomic.Int64 // markers written by this process, ever
	mu    sync.Mutex
	until map[string]time.Time
}

// IsClean reports whether res was found clean less than cleanFor ago, with
// no marker written since.
func (c *Clean) IsClean(res string, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return now.Before(c.until[res])
}

// Epoch returns the mark count to pass to Drained before reading the queue.
func (c *Clean) Epoch() int64 { return c.marks.Load() }

// Drained records, when empty, that res's queue was read empty (or
// emptied) by a check that began at epoch; a marker written since then
// keeps res unclean.
func (c *Clean) Drained(res string, epoch int64, empty bool) {
	if !empty {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.marks.Load() != epoch {
		return
	}
	if c.until == nil {
		c.until = map[string]time.Time{}
	}
	c.until[res] = time.Now().Add(cleanFor)
}

// Marked records that markers are being written for the resources of ids
// (message id -> resource id).
func (c *Clean) Marked(ids map[string]string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.marks.Add(1)
	for _, res := range ids {
		delete(c.until, res)
	}
}

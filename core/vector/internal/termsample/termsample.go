// Package termsample caches, per resource, how many records of a sample of
// the resource hold each term: the shares by which the common-terms rule of
// hybrid queries (vector.KeywordTerms) judges query terms, for stores that
// cannot count a term's records cheaply.
package termsample

import (
	"sync"
	"time"
)

// Sample is a resource's term sample.
type Sample struct {
	// DF counts, per term, the records of the sample that hold it.
	DF map[string]int
	// N is the number of records in the sample.
	N int

	at      time.Time
	written int // records written into the resource since
}

// stale reports whether s must be read again: it is older than ttl, or a
// tenth of its size has been written since.
func (s *Sample) stale(now time.Time, ttl time.Duration) bool {
	return now.Sub(s.at) > ttl || s.written*10 >= max(s.N, 1) && s.written > 0
}

// Cache keeps samples by key (a store's index or class and a resource). A
// sample is read again once it is TTL old, once a tenth of its size has been
// written into its resource (Written) or after Forget; writes of other
// processes are seen within TTL. The zero value is not usable: set TTL and
// Max. A Cache is safe for concurrent use.
type Cache struct {
	// TTL is how long a sample is used.
	TTL time.Duration
	// Max bounds the samples kept; a full cache is emptied.
	Max int

	mu sync.Mutex
	m  map[string]*Sample
}

// Get returns the sample under key, read with read when the cache has none
// or its sample is stale. A failed read is returned and nothing is kept.
func (c *Cache) Get(key string, read func() (*Sample, error)) (*Sample, error) {
	now := time.Now()
	c.mu.Lock()
	s := c.m[key]
	c.mu.Unlock()
	if s != nil && !s.stale(now, c.TTL) {
		return s, nil
	}
	s, err := read()
	if err != nil {
		return nil, err
	}
	s.at = now
	c.mu.Lock()
	if c.m == nil || len(c.m) >= c.Max {
		c.m = map[string]*Sample{}
	}
	c.m[key] = s
	c.mu.Unlock()
	return s, nil
}

// Written counts n records written into the resource of key.
func (c *Cache) Written(key string, n int) {
	c.mu.Lock()
	if s := c.m[key]; s != nil {
		s.written += n
	}
	c.mu.Unlock()
}

// Forget drops the sample under key, so that the next Get reads it again
// (after a delete: the sample may hold deleted records).
func (c *Cache) Forget(key string) {
	c.mu.Lock()
	delete(c.m, key)
	c.mu.Unlock()
}

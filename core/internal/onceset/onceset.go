// Package onceset remembers which keys were already seen, up to a limit, so
// that a condition met on every read is reported once per key.
package onceset

import "sync"

// Outcome is what Add found.
type Outcome int

const (
	// Seen: the key was recorded before.
	Seen Outcome = iota
	// Added: the key is new and now recorded.
	Added
	// Filled: the key is new but the set is full; returned once, for the
	// first key refused, so the caller can say reports stop here.
	Filled
	// Refused: the key is new and the set was already full.
	Refused
)

// Set is a set of keys bounded by Max. The zero Set holds nothing and
// refuses every key; it is safe for concurrent use.
type Set struct {
	max    int
	mu     sync.Mutex
	keys   map[string]struct{}
	filled bool
}

// New returns a Set that records up to max keys.
func New(max int) *Set { return &Set{max: max} }

// Add records key unless the set is full, and reports what it found. Memory
// stays bounded: once max keys are recorded, new keys are refused, not
// evicted, so a recorded key is never reported twice.
func (s *Set) Add(key string) Outcome {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.keys[key]; ok {
		return Seen
	}
	if len(s.keys) >= s.max {
		if s.filled {
			return Refused
		}
		s.filled = true
		return Filled
	}
	if s.keys == nil {
		s.keys = map[string]struct{}{}
	}
	s.keys[key] = struct{}{}
	return Added
}

// Len returns the number of keys recorded.
func (s *Set) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.keys)
}

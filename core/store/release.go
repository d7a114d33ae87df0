package store

import "reflect"

// BatchReleaser is the optional promise of a Messages store that its
// SaveMessages (and SaveMessagesBulk) keeps nothing of msgs once it
// returns, so that core.Memory may reuse a batch's memory for the next save
// (for a batch of 100 messages that is 26 KiB less garbage a save). Without
// it core allocates every batch anew, which is always correct: a store that
// records what it is given (a test double, a logging decorator) keeps
// intact batches.
type BatchReleaser interface {
	// ReleasesBatches returns the store itself. A type that embeds such a
	// store (a decorator, which may keep what it is given) inherits the
	// method but not the promise; it is told apart because the method then
	// returns the embedded store, not the decorator (see Releases).
	ReleasesBatches() Messages
}

// Releases reports whether s promises to keep nothing of a saved batch: it
// is a BatchReleaser whose ReleasesBatches returns s itself.
func Releases(s Messages) bool {
	r, ok := s.(BatchReleaser)
	if !ok {
		return false
	}
	self := r.ReleasesBatches()
	t := reflect.TypeOf(s)
	// Values of one comparable type compare without panicking.
	return reflect.TypeOf(self) == t && t.Comparable() && self == s
}

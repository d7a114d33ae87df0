package store_test

import (
	"testing"

	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// embedding is a decorator that inherits memstore's ReleasesBatches.
type embedding struct{ *memstore.Store }

// byValue is a non-comparable store value whose ReleasesBatches returns a
// copy of itself.
type byValue struct {
	store.Messages
	_ []string // makes the type not comparable
}

func (v byValue) ReleasesBatches() store.Messages { return v }

func TestReleases(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    store.Messages
		want bool
	}{
		{"a store that promises", memstore.New(), true},
		{"a decorator embedding it", embedding{memstore.New()}, false},
		{"a pointer to that decorator", &embedding{memstore.New()}, false},
		{"a value that is not comparable", byValue{Messages: memstore.New()}, false},
		{"a store without the method", struct{ store.Messages }{memstore.New()}, false},
	} {
		if got := store.Releases(tc.s); got != tc.want {
			t.Errorf("%s: Releases = %v, want %v", tc.name, got, tc.want)
		}
	}
}

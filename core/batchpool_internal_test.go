package core

import (
	"testing"

	"github.com/agentmem/agentmem/core/store/memstore"
)

// Check marks a store that keeps nothing of a saved batch, so that
// SaveMessages recycles its batches, and only such a store.
func TestCheckReleases(t *testing.T) {
	if !Check(memstore.New()).releases {
		t.Error("memstore's batches are not recycled")
	}
	decorator := &struct{ *memstore.Store }{memstore.New()}
	if Check(decorator).releases {
		t.Error("a decorator's batches are recycled")
	}
}

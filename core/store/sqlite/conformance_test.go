package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/sqlite"
	"github.com/agentmem/agentmem/core/store/storetest"
)

func open(t *testing.T, path string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		return open(t, filepath.Join(t.TempDir(), "memory.db"))
	})
}

func TestConformanceInMemory(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return open(t, ":memory:") })
}

func TestConformanceShared(t *testing.T) {
	storetest.RunShared(t, func(t *testing.T) (store.Store, store.Store) {
		path := filepath.Join(t.TempDir(), "memory.db")
		return open(t, path), open(t, path)
	})
}

package storetest_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/store/sqlite"
	"github.com/agentmem/agentmem/core/store/storetest"
)

// A driver proves itself with one test in its package: the Opener returns a
// fresh, empty store for each case, and the suite closes it.
func ExampleRun() {
	// In the driver's conformance_test.go:
	TestConformance := func(t *testing.T) {
		storetest.Run(t, func(t *testing.T) store.Store { return memstore.New() })
	}
	_ = TestConformance
}

// A driver whose database several processes share also runs RunShared, with
// two handles on one fresh database.
func ExampleRunShared() {
	// In the driver's conformance_test.go:
	TestConformanceShared := func(t *testing.T) {
		storetest.RunShared(t, func(t *testing.T) (store.Store, store.Store) {
			path := filepath.Join(t.TempDir(), "memory.db")
			open := func() store.Store {
				s, err := sqlite.Open(context.Background(), path)
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			return open(), open()
		})
	}
	_ = TestConformanceShared
}

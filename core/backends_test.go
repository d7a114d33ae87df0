package core_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/store/postgres"
	"github.com/agentmem/agentmem/core/store/sqlite"
	"github.com/agentmem/agentmem/internal/testenv"
)

// eachBackend runs f against a fresh memstore, SQLite file and PostgreSQL
// schema (AGENTMEM_PG_DSN; required under scripts/test, which sets
// AGENTMEM_REQUIRE_SERVERS=1).
func eachBackend(t *testing.T, f func(t *testing.T, s store.Store)) {
	t.Run("memstore", func(t *testing.T) { f(t, memstore.New()) })
	t.Run("sqlite", func(t *testing.T) {
		s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "memory.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		f(t, s)
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := testenv.OptionalPostgres(t)
		if dsn == "" {
			return // plain go test without a server: memstore and SQLite only
		}
		schema := fmt.Sprintf("core_%d", rand.Int64())
		s, err := postgres.Open(context.Background(), dsn, postgres.WithSchema(schema))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_, _ = s.Pool().Exec(context.Background(), `DROP SCHEMA "`+schema+`" CASCADE`)
			_ = s.Close()
		})
		f(t, s)
	})
}

package pgvector_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/pgvector"
	"github.com/agentmem/agentmem/internal/testenv"

	"github.com/jackc/pgx/v5/pgxpool"
)

// testPool returns a pool on the test server (testenv.Postgres) shared by
// the package's tests; an unreachable server skips the test, or fails it
// under testenv.RequireServers.
func testPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	dsn := testenv.Postgres(t)
	poolOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		pool, poolErr = pgxpool.New(ctx, dsn)
		if poolErr == nil {
			poolErr = pool.Ping(ctx)
		}
	})
	if poolErr != nil {
		testenv.Unavailable(t, "PostgreSQL at %s unreachable: %v", testenv.EnvPostgres, poolErr)
	}
	return pool
}

var (
	poolOnce sync.Once
	pool     *pgxpool.Pool
	poolErr  error
)

func bg() context.Context { return context.Background() }

// freshSchema returns a new schema name, dropped when the test ends.
func freshSchema(t testing.TB) string {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "agentmem_vec_" + hex.EncodeToString(b[:])
	p := testPool(t)
	t.Cleanup(func() {
		if _, err := p.Exec(context.Background(), `DROP SCHEMA IF EXISTS "`+name+`" CASCADE`); err != nil {
			t.Logf("drop schema %s: %v", name, err)
		}
	})
	return name
}

// openFresh returns a store of cfg on a fresh schema of the shared pool.
func openFresh(t testing.TB, cfg pgvector.Config) *pgvector.Store {
	t.Helper()
	cfg.Schema = freshSchema(t)
	s, err := pgvector.New(bg(), testPool(t), cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

// configured is a store whose indexes get a fixed IndexConfig, whatever
// EnsureIndex is given (the conformance suite ensures with the zero one).
type configured struct {
	*pgvector.Store
	cfg vector.IndexConfig
}

func (c configured) EnsureIndex(ctx context.Context, spec vector.IndexSpec) error {
	spec.Config = c.cfg
	return c.Store.EnsureIndex(ctx, spec)
}

func randInt() uint32 {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

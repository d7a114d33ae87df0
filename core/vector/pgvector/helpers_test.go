package pgvector_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/pgvector"

	"github.com/jackc/pgx/v5/pgxpool"
)

// testPool returns a pool on AGENTMEM_PG_DSN shared by the package's tests.
// Without the variable the test is skipped, unless AGENTMEM_REQUIRE_SERVERS=1,
// when a missing or unreachable server fails it.
func testPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	dsn := os.Getenv("AGENTMEM_PG_DSN")
	require := os.Getenv("AGENTMEM_REQUIRE_SERVERS") == "1"
	if dsn == "" {
		if require {
			t.Fatal("AGENTMEM_REQUIRE_SERVERS=1 but AGENTMEM_PG_DSN is empty")
		}
		t.Skip("AGENTMEM_PG_DSN not set; no PostgreSQL server to test against")
	}
	poolOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		pool, poolErr = pgxpool.New(ctx, dsn)
		if poolErr == nil {
			poolErr = pool.Ping(ctx)
		}
	})
	if poolErr != nil {
		if require {
			t.Fatalf("PostgreSQL at AGENTMEM_PG_DSN unreachable: %v", poolErr)
		}
		t.Skipf("PostgreSQL at AGENTMEM_PG_DSN unreachable: %v", poolErr)
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

package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/storetest"
	"github.com/agentmem/agentmem/internal/testenv"
)

// testDSN returns the test server's DSN (testenv.Postgres); an unreachable
// server skips the test, or fails it under testenv.RequireServers.
func testDSN(t testing.TB) string {
	t.Helper()
	dsn := testenv.Postgres(t)
	reachOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		pool, err := pgxpool.New(ctx, dsn)
		if err == nil {
			err = pool.Ping(ctx)
			pool.Close()
		}
		reachErr = err
	})
	if reachErr != nil {
		testenv.Unavailable(t, "PostgreSQL at %s unreachable: %v", testenv.EnvPostgres, reachErr)
	}
	return dsn
}

var (
	reachOnce sync.Once
	reachErr  error
)

func bg() context.Context { return context.Background() }

// freshSchema returns a new random schema name, dropped when the test ends.
func freshSchema(t testing.TB) string {
	t.Helper()
	name := randomName("agentmem_test_")
	dropSchemaAtCleanup(t, testDSN(t), name)
	return name
}

// randomName is prefix followed by 12 random hex digits.
func randomName(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// dropSchemaAtCleanup drops the schema (if it exists) when the test ends.
func dropSchemaAtCleanup(t testing.TB, dsn, name string) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		pool, err := pgxpool.New(ctx, dsn)
		if err != nil {
			t.Logf("drop schema %s: %v", name, err)
			return
		}
		defer pool.Close()
		if _, err := pool.Exec(ctx, "DROP SCHEMA IF EXISTS "+quoteIdent(name)+" CASCADE"); err != nil {
			t.Logf("drop schema %s: %v", name, err)
		}
	})
}

// openSchema opens a store (with its own pool) on the schema; closed at cleanup.
func openSchema(t testing.TB, schema string) *Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(bg(), 30*time.Second)
	defer cancel()
	s, err := Open(ctx, testDSN(t), WithSchema(schema))
	if err != nil {
		t.Fatalf("Open(schema %q): %v", schema, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// openFresh opens a store on a fresh schema.
func openFresh(t testing.TB) *Store { return openSchema(t, freshSchema(t)) }

func TestConformance(t *testing.T) {
	testDSN(t)
	storetest.Run(t, func(t *testing.T) store.Store { return openFresh(t) })
}

func TestConformanceShared(t *testing.T) {
	testDSN(t)
	storetest.RunShared(t, func(t *testing.T) (store.Store, store.Store) {
		schema := freshSchema(t)
		return openSchema(t, schema), openSchema(t, schema)
	})
}

// TestConformanceUnprepared runs the conformance suite on pools that cache
// no prepared statements (QueryExecModeExec and QueryExecModeSimpleProtocol,
// the modes for a transaction-pooling proxy): saves then go as unnamed
// statements, and pgx does not know the parameters' types.
func TestConformanceUnprepared(t *testing.T) {
	runUnprepared(t, testDSN(t))
}

// TestConformanceBehindPgBouncer runs the same through PgBouncer in
// transaction pooling mode (AGENTMEM_PGBOUNCER_DSN; scripts/test starts
// one), where a client's consecutive transactions may run on different
// server connections.
func TestConformanceBehindPgBouncer(t *testing.T) {
	runUnprepared(t, pgBouncerDSN(t))
}

// pgBouncerDSN returns the DSN of the test PgBouncer, skipping (or failing,
// under AGENTMEM_REQUIRE_SERVERS=1) without one.
func pgBouncerDSN(t *testing.T) string {
	t.Helper()
	testDSN(t) // schemas are dropped on the server directly
	return testenv.PgBouncer(t)
}

// runUnprepared runs the conformance suite on dsn in each exec mode that
// prepares nothing.
func runUnprepared(t *testing.T, dsn string) {
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol} {
		t.Run(mode.String(), func(t *testing.T) {
			storetest.Run(t, func(t *testing.T) store.Store {
				cfg, err := pgxpool.ParseConfig(dsn)
				if err != nil {
					t.Fatal(err)
				}
				cfg.ConnConfig.DefaultQueryExecMode = mode
				pool, err := pgxpool.NewWithConfig(bg(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(pool.Close)
				s, err := New(bg(), pool, WithSchema(freshSchema(t)))
				if err != nil {
					t.Fatal(err)
				}
				if s.prepares {
					t.Fatalf("the store prepares statements on a pool in %v", mode)
				}
				return s
			})
		})
	}
}

package integration

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentmem/agentmem/core/store/postgres"
)

// pgDSN returns the test server's DSN. Without one the test is skipped when
// run by plain `go test`, but fails under scripts/test (AGENTMEM_REQUIRE_SERVERS=1).
func pgDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("AGENTMEM_PG_DSN")
	if dsn == "" {
		if os.Getenv("AGENTMEM_REQUIRE_SERVERS") == "1" {
			t.Fatal("AGENTMEM_REQUIRE_SERVERS=1 but AGENTMEM_PG_DSN is empty")
		}
		t.Skip("AGENTMEM_PG_DSN not set")
	}
	return dsn
}

// queryCounter counts statements sent through a pool.
type queryCounter struct{ n atomic.Int64 }

func (c *queryCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}
func (c *queryCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// openPG opens a Store in a fresh schema, dropped at cleanup; counter may be nil.
func openPG(t testing.TB, counter *queryCounter) *postgres.Store {
	t.Helper()
	dsn := pgDSN(t)
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if counter != nil {
		cfg.ConnConfig.Tracer = counter
	}
	pool, err := pgxpool.NewWithConfig(bg, cfg)
	if err != nil {
		t.Fatal(err)
	}
	schema := fmt.Sprintf("it_%d", rand.Int64())
	s, err := postgres.New(bg, pool, postgres.WithSchema(schema))
	if err != nil {
		pool.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = pool.Exec(context.Background(), "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
		pool.Close()
	})
	return s
}

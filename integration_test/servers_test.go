package integration_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/postgres"
	"github.com/agentmem/agentmem/core/vector/weaviate"
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

// A batch (pipeline) is one round trip, whatever it holds.
func (c *queryCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.n.Add(1)
	return ctx
}
func (c *queryCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (c *queryCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// openPG opens a Store in a fresh schema, dropped at cleanup; counter may be nil.
func openPG(t testing.TB, counter *queryCounter) *postgres.Store {
	t.Helper()
	return openPGWith(t, func(cfg *pgxpool.Config) {
		if counter != nil {
			cfg.ConnConfig.Tracer = counter
		}
	})
}

// openPGWith is openPG with the pool configured by configure.
func openPGWith(t testing.TB, configure func(*pgxpool.Config)) *postgres.Store {
	t.Helper()
	return openPGAt(t, pgDSN(t), configure)
}

// openPGAt is openPGWith on the server of dsn.
func openPGAt(t testing.TB, dsn string, configure func(*pgxpool.Config)) *postgres.Store {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	configure(cfg)
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

// weaviateHost returns the test server's REST and gRPC addresses, like pgDSN.
func weaviateHost(t testing.TB) (string, string) {
	t.Helper()
	host := os.Getenv("AGENTMEM_WEAVIATE_HOST")
	if host == "" {
		if os.Getenv("AGENTMEM_REQUIRE_SERVERS") == "1" {
			t.Fatal("AGENTMEM_REQUIRE_SERVERS=1 but AGENTMEM_WEAVIATE_HOST is empty")
		}
		t.Skip("AGENTMEM_WEAVIATE_HOST not set")
	}
	return host, os.Getenv("AGENTMEM_WEAVIATE_GRPC")
}

// openWeaviate opens a self-embedding Weaviate store (text2vec-transformers,
// served by the project's offline embedding endpoint) under prefix.
func openWeaviate(t testing.TB, prefix string) *weaviate.Store {
	t.Helper()
	host, grpc := weaviateHost(t)
	s, err := weaviate.New(bg, weaviate.Config{Host: host, GRPCHost: grpc, Vectorizer: "text2vec-transformers", ClassPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sch, err := s.Client().Schema().Getter().Do(context.Background())
		if err != nil {
			return
		}
		for _, c := range sch.Classes {
			if strings.HasPrefix(c.Class, prefix) {
				_ = s.Client().Schema().ClassDeleter().WithClassName(c.Class).Do(context.Background())
			}
		}
	})
	return s
}

// e2eConfig is the memory configuration of the end-to-end tests: a small
// token budget that trims early turns, and resource-scoped semantic recall.
func e2eConfig() core.Config {
	return core.Config{
		MessageHistory: &core.MessageHistory{MaxTokens: 400},
		SemanticRecall: &core.SemanticRecall{TopK: 3, MessageRange: &core.MessageRange{Before: 0, After: 1}},
	}
}

// e2eTurns is a 20-turn conversation; turn 2 states the fact to recall later.
func e2eTurns() []string {
	turns := []string{
		"Hello there, I would like some help planning meals this week.",
		"Before we start: my sister Zanzibarina lives in Reykjavik and visits on Friday.",
	}
	topics := []string{"pasta", "soup", "salad", "curry", "bread", "rice", "tacos", "stew", "pancakes", "risotto",
		"dumplings", "omelette", "lasagne", "chili", "noodles", "paella", "burgers", "pizza"}
	for _, topic := range topics {
		turns = append(turns, fmt.Sprintf("Give me a quick weeknight recipe idea with %s, including the cooking time for the %s.", topic, topic))
	}
	return turns
}

const e2eQuestion = "Remind me: what is the name of my sister and which city does she live in?"

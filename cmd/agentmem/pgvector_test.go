package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core/store/postgres"

	"github.com/jackc/pgx/v5"
)

// TestSearchPgvector reindexes into pgvector tables (vectors from the hash
// embedder) and searches them: beside SQLite on a pool of their own, beside
// the PostgreSQL store on its pool.
func TestSearchPgvector(t *testing.T) {
	dsn := pgDSN(t)
	forEachBackend(t, func(t *testing.T, b backend) {
		seed(t, b.store)
		if b.name == "sqlite" {
			schema := fmt.Sprintf("cli_vec_%d", rand.Int64())
			t.Cleanup(func() {
				if s, err := postgres.Open(bg, dsn, postgres.WithSchema(schema)); err == nil {
					_, _ = s.Pool().Exec(context.Background(), "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
					s.Close()
				}
			})
			b.flags = append(b.flags, "--pg-schema", schema)
		}
		b.flags = append(b.flags, "--vector", dsn)
		if r := b.agentmem(t, "", "--write", "reindex", "ada").ok(t); !strings.Contains(r.stdout, "reindexed 2 threads (7 messages) into memory_messages_384") {
			t.Fatalf("reindex: %s", r.stdout)
		}
		doc := jsonDoc(t, b.agentmem(t, "", "--json", "search", "ada", "sister Zanzibarina Reykjavik", "--top-k", "1").ok(t))
		hits := doc["hits"].([]any)
		if len(hits) != 1 {
			t.Fatalf("hits %v", hits)
		}
		// Both messages name the sister; each is indexed with its context.
		if id := hits[0].(map[string]any)["messageId"]; id != "trip-3" && id != "trip-4" {
			t.Fatalf("hits %v", hits)
		}
		if r := b.agentmem(t, "", "search", "bob", "trains").ok(t); r.stdout != "no hits\n" {
			t.Errorf("resource bob was not indexed, yet search found: %s", r.stdout)
		}
	})
}

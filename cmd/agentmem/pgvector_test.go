package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/postgres"
	"github.com/agentmem/agentmem/internal/testenv"

	"github.com/jackc/pgx/v5"
)

// TestSearchPgvector reindexes into pgvector tables (vectors from the hash
// embedder) and searches them: beside SQLite on a pool of their own, beside
// the PostgreSQL store on its pool.
func TestSearchPgvector(t *testing.T) {
	dsn := testenv.Postgres(t)
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

// TestReindexPgvectorLarge: a reindex of a thousand messages and more into
// empty pgvector tables leaves them with their approximate index built and
// every message found.
func TestReindexPgvectorLarge(t *testing.T) {
	dsn := testenv.Postgres(t)
	b := postgresBackend(t)
	mem, err := core.New(core.Options{Store: b.store.Unwrap()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mem.CreateThread(bg, core.ThreadInput{ID: "big", ResourceID: "cara"}); err != nil {
		t.Fatal(err)
	}
	var msgs []core.Message
	for i := range 1200 {
		m := core.NewMessage(core.RoleUser, fmt.Sprintf("parcel w%d went to depot d%d", i, i))
		m.ThreadID, m.ResourceID = "big", "cara"
		msgs = append(msgs, m)
	}
	if _, err := mem.SaveMessagesBulk(bg, msgs, nil); err != nil {
		t.Fatal(err)
	}
	b.flags = append(b.flags, "--vector", dsn)
	if r := b.agentmem(t, "", "--write", "reindex", "cara").ok(t); !strings.Contains(r.stdout, "reindexed 1 threads (1200 messages)") {
		t.Fatalf("reindex: %s", r.stdout)
	}
	var ann bool
	schema := b.flags[slices.Index(b.flags, "--pg-schema")+1]
	if err := b.store.Unwrap().(*postgres.Store).Pool().QueryRow(bg, "SELECT to_regclass($1) IS NOT NULL",
		pgx.Identifier{schema, "vectors_memory_messages_384_ann"}.Sanitize()).Scan(&ann); err != nil || !ann {
		t.Fatalf("approximate index after the reindex: %v %v", ann, err)
	}
	doc := jsonDoc(t, b.agentmem(t, "", "--json", "search", "cara", "w777 d777", "--top-k", "1").ok(t))
	if hits := doc["hits"].([]any); len(hits) != 1 || !strings.Contains(fmt.Sprint(hits[0]), "w777 went") {
		t.Fatalf("hits %v", hits)
	}
}

// TestSearchFindsPgvector: on PostgreSQL, search without --vector uses
// agentmem's pgvector tables in the --pg-schema when the database has them,
// as on SQLite it uses the index beside the file; without them it fails
// with the code of a missing vector store, also under --json.
func TestSearchFindsPgvector(t *testing.T) {
	dsn := testenv.Postgres(t)
	b := postgresBackend(t)
	seed(t, b.store)
	r := b.agentmem(t, "", "--json", "search", "ada", "Zanzibarina")
	if r.code != 1 || !strings.Contains(r.stderr, `"code": "MEMORY_NO_VECTOR_STORE"`) || !strings.Contains(r.stderr, "--vector") {
		t.Fatalf("search of a database without pgvector tables: %+v", r)
	}
	b.agentmem(t, "", "--vector", dsn, "--write", "reindex", "ada").ok(t)
	doc := jsonDoc(t, b.agentmem(t, "", "--json", "search", "ada", "sister Zanzibarina Reykjavik", "--top-k", "1").ok(t))
	if hits := doc["hits"].([]any); len(hits) != 1 {
		t.Fatalf("search without --vector after a reindex into pgvector: hits %v", hits)
	}
}

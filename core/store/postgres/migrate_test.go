package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

func TestMigrationsOnceUnderConcurrentOpens(t *testing.T) {
	schema := freshSchema(t)
	ms, err := migrations()
	if err != nil || len(ms) == 0 {
		t.Fatalf("embedded migrations: %v %v", ms, err)
	}
	const n = 12
	var wg sync.WaitGroup
	stores := make([]*Store, n)
	errs := make([]error, n)
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			ctx, cancel := context.WithTimeout(bg(), 60*time.Second)
			defer cancel()
			stores[i], errs[i] = Open(ctx, testDSN(t), WithSchema(schema))
		}(i)
	}
	close(start)
	wg.Wait()
	for i := range stores {
		if errs[i] != nil {
			t.Fatalf("Open %d: %v", i, errs[i])
		}
		defer stores[i].Close()
	}
	var rows, versions int
	var maxVersion int64
	err = stores[0].pool.QueryRow(bg(), "SELECT count(*), count(DISTINCT version), max(version) FROM "+quoteIdent(schema)+"."+versionTable).
		Scan(&rows, &versions, &maxVersion)
	if err != nil {
		t.Fatal(err)
	}
	if rows != len(ms) || versions != len(ms) || maxVersion != ms[len(ms)-1].Version {
		t.Fatalf("the version table has %d rows (%d versions, max %d), want %d", rows, versions, maxVersion, len(ms))
	}
	// Every handle works on the one schema.
	for i, s := range stores {
		if _, err := s.SaveThread(bg(), store.Thread{ID: "t", ResourceID: "r"}); err != nil {
			t.Fatalf("store %d: %v", i, err)
		}
	}
	// Reopening is a no-op.
	again := openSchema(t, schema)
	if err := again.pool.QueryRow(bg(), "SELECT count(*) FROM "+quoteIdent(schema)+"."+versionTable).Scan(&rows); err != nil || rows != len(ms) {
		t.Fatalf("after reopen: %d rows, %v", rows, err)
	}
}

func TestNewUsesCallerPool(t *testing.T) {
	schema := freshSchema(t)
	owner := openSchema(t, schema)
	s, err := New(bg(), owner.Pool(), WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	if s.Schema() != schema {
		t.Fatalf("Schema() = %q", s.Schema())
	}
	_ = s.Close() // must not close the caller's pool
	if _, err := owner.SaveThread(bg(), store.Thread{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatalf("pool closed by a store that does not own it: %v", err)
	}
	if _, err := New(bg(), nil); !errors.Is(err, memerr.ErrInvalidConfig) {
		t.Fatalf("nil pool: %v", err)
	}
	if _, err := New(bg(), owner.Pool(), WithSchema("")); !errors.Is(err, memerr.ErrInvalidConfig) {
		t.Fatalf("empty schema: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	testDSN(t)
	if _, err := Open(bg(), "postgres://%zz"); !errors.Is(err, memerr.ErrInvalidConfig) {
		t.Fatalf("bad connection string: %v", err)
	}
	// Nothing listens on port 1: a connection failure, wrapped, reported by
	// Open on one line (not as a failure of the migration that ran first).
	ctx, cancel := context.WithTimeout(bg(), 10*time.Second)
	defer cancel()
	_, err := Open(ctx, "postgres://postgres@127.0.0.1:1/x?connect_timeout=2")
	var ce *pgconn.ConnectError
	if !errors.Is(err, memerr.ErrStorage) || !errors.As(err, &ce) {
		t.Fatalf("unreachable server: %v (%T)", err, err)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, `postgres.Open: cannot connect to database "x" as user "postgres"`) ||
		strings.Contains(msg, "\n") || strings.Count(msg, "connection refused") != 1 {
		t.Errorf("unreachable server: %q: want one line from postgres.Open naming the database, the user and the reason once", msg)
	}
}

// TestMigrationKeepsRows: rows written by the schema before migration 0004
// (content jsonb, messages referencing threads by a foreign key) read the
// same after it, are upserted in place (createdAt and seq kept) and go with
// their thread; a resource known only by its observations gets a row from
// migration 0006.
func TestMigrationKeepsRows(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	schema, pool := oldSchema(t, 4,
		`INSERT INTO {{schema}}.threads (id, resource_id, created_at, updated_at) VALUES ('t', 'r', now(), now())`,
		`INSERT INTO {{schema}}.messages (id, thread_id, resource_id, role, content, created_at, tokens, token_encoding)
			VALUES ('old', 't', 'r', 'assistant', '{"format": 2, "parts": [{"type": "tool-invocation", "toolInvocation":
				{"state": "call", "toolCallId": "c1", "toolName": "f", "args": {"b": 1, "a": [1, 2]}}}]}'::jsonb, '`+at.Format(time.RFC3339Nano)+`', 7, 'o200k_base')`,
		`INSERT INTO {{schema}}.observations (key, observations, version, updated_at) VALUES ('resource:observed', 'o', 1, now())`)
	quoted := quoteIdent(schema)

	s := openSchema(t, schema)
	page, err := s.ListResources(bg(), store.ResourceQuery{})
	if err != nil || len(page.Resources) != 1 || page.Resources[0].ID != "observed" {
		t.Fatalf("ListResources after migrating: %+v %v", page, err)
	}
	got, err := s.GetMessages(bg(), []string{"old"})
	if err != nil || len(got) != 1 {
		t.Fatalf("GetMessages after migrating: %+v %v", got, err)
	}
	old := got[0]
	inv := old.Content.Parts[0].ToolInvocation
	if !old.CreatedAt.Equal(at) || old.Tokens != 7 || inv == nil || string(inv.Args) != `{"a":[1,2],"b":1}` {
		t.Fatalf("old row after migrating: %+v (invocation %+v)", old, inv)
	}
	upd := old.Clone()
	upd.Content = message.NewMessage(message.RoleAssistant, "rewritten").Content
	upd.CreatedAt = time.Now()
	saved, err := s.SaveMessages(bg(), []message.Message{upd})
	if err != nil || !saved[0].CreatedAt.Equal(at) || saved[0].Seq != old.Seq {
		t.Fatalf("upsert of a migrated row: %+v %v (want createdAt %v seq %d)", saved, err, at, old.Seq)
	}
	if err := s.DeleteThread(bg(), "t"); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := pool.QueryRow(bg(), "SELECT count(*) FROM "+quoted+".agentmem_messages").Scan(&left); err != nil || left != 0 {
		t.Fatalf("messages left after DeleteThread: %d %v", left, err)
	}
}

// oldSchema creates a fresh schema as the migrations before version left
// it in a version before prefixedVersion (unprefixed names, versions in
// legacyVersionTable), runs the extra statements in it ({{schema}} is its
// quoted name) and returns its name and a pool on the test database.
func oldSchema(t *testing.T, version int64, extra ...string) (string, *pgxpool.Pool) {
	t.Helper()
	if version > prefixedVersion {
		t.Fatalf("oldSchema(%d): versions from %d on have prefixed names", version, prefixedVersion)
	}
	schema := freshSchema(t)
	pool, err := pgxpool.New(bg(), testDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	stmts := []string{`CREATE SCHEMA {{schema}}`,
		`CREATE TABLE {{schema}}.schema_migrations (version bigint PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`}
	for _, m := range ms {
		if m.Version < version {
			stmts = append(stmts, expand(m, "{{schema}}", true),
				fmt.Sprintf("INSERT INTO {{schema}}.schema_migrations (version, name) VALUES (%d, '%s')", m.Version, m.Name))
		}
	}
	for _, q := range append(stmts, extra...) {
		if _, err := pool.Exec(bg(), withSchema(q, quoteIdent(schema))); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return schema, pool
}

// TestMigrationFailureChangesNothing: a view of the application's own over
// an id column makes migration 0007 fail; Open reports it as a storage error
// naming the migration, and the schema stays as it was (version 6 in
// schema_migrations; threads.id, which 0007 alters before messages.id,
// keeps its collation) until the view is dropped.
func TestMigrationFailureChangesNothing(t *testing.T) {
	schema, pool := oldSchema(t, 7, `CREATE VIEW {{schema}}.ids AS SELECT id FROM {{schema}}.messages`)
	quoted := quoteIdent(schema)
	state := func(versions, threads string) (version int64, collation string) {
		t.Helper()
		err := pool.QueryRow(bg(), "SELECT (SELECT max(version) FROM "+quoted+"."+versions+"),"+
			" (SELECT coalesce(collation_name, '') FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 AND column_name = 'id')",
			schema, threads).Scan(&version, &collation)
		if err != nil {
			t.Fatal(err)
		}
		return version, collation
	}
	_, err := Open(bg(), testDSN(t), WithSchema(schema))
	if !errors.Is(err, memerr.ErrStorage) || !strings.Contains(err.Error(), "0007_id_collation") {
		t.Fatalf("Open with a view over messages.id = %v, want a storage error naming 0007_id_collation", err)
	}
	if v, c := state(legacyVersionTable, "threads"); v != 6 || c == "C" {
		t.Fatalf("after the failed migration: version %d, threads.id collation %q; want 6 and unchanged", v, c)
	}
	if _, err := pool.Exec(bg(), "DROP VIEW "+quoted+".ids"); err != nil {
		t.Fatal(err)
	}
	openSchema(t, schema)
	if v, c := state(versionTable, "agentmem_threads"); v < 7 || c != "C" {
		t.Fatalf("after migrating: version %d, threads.id collation %q; want 7 or later and C", v, c)
	}
}

// TestOpenReadOnly: a schema that is up to date opens on a server that takes
// no writes (a standby, here a session that is read-only by default), and
// reads work; an outdated one fails to migrate there, saying why.
func TestOpenReadOnly(t *testing.T) {
	schema := freshSchema(t)
	rw, err := Open(bg(), testDSN(t), WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	if _, err := rw.SaveThread(bg(), store.Thread{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	readOnly := testDSN(t) + "&default_transaction_read_only=on"
	ro, err := Open(bg(), readOnly, WithSchema(schema))
	if err != nil {
		t.Fatalf("open an up-to-date schema read-only: %v", err)
	}
	defer ro.Close()
	if _, err := ro.GetThread(bg(), "t"); err != nil {
		t.Fatal(err)
	}
	if _, err := ro.SaveThread(bg(), store.Thread{ID: "u", ResourceID: "r"}); !errors.Is(err, memerr.ErrStorageUnavailable) {
		t.Errorf("a write on a read-only server: %v, want ErrStorageUnavailable", err)
	}
	if _, err := Open(bg(), readOnly, WithSchema(freshSchema(t))); err == nil {
		t.Error("a new schema opened read-only")
	}
}

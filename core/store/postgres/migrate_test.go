package postgres

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/agentmem/agentmem/core"
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
	err = stores[0].pool.QueryRow(bg(), "SELECT count(*), count(DISTINCT version), max(version) FROM "+quoteIdent(schema)+".schema_migrations").
		Scan(&rows, &versions, &maxVersion)
	if err != nil {
		t.Fatal(err)
	}
	if rows != len(ms) || versions != len(ms) || maxVersion != ms[len(ms)-1].version {
		t.Fatalf("schema_migrations has %d rows (%d versions, max %d), want %d", rows, versions, maxVersion, len(ms))
	}
	// Every handle works on the one schema.
	for i, s := range stores {
		if _, err := s.SaveThread(bg(), core.Thread{ID: "t", ResourceID: "r"}); err != nil {
			t.Fatalf("store %d: %v", i, err)
		}
	}
	// Reopening is a no-op.
	again := openSchema(t, schema)
	if err := again.pool.QueryRow(bg(), "SELECT count(*) FROM "+quoteIdent(schema)+".schema_migrations").Scan(&rows); err != nil || rows != len(ms) {
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
	if _, err := owner.SaveThread(bg(), core.Thread{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatalf("pool closed by a store that does not own it: %v", err)
	}
	if _, err := New(bg(), nil); !errors.Is(err, core.ErrInvalidConfig) {
		t.Fatalf("nil pool: %v", err)
	}
	if _, err := New(bg(), owner.Pool(), WithSchema("")); !errors.Is(err, core.ErrInvalidConfig) {
		t.Fatalf("empty schema: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	testDSN(t)
	if _, err := Open(bg(), "postgres://%zz"); !errors.Is(err, core.ErrInvalidConfig) {
		t.Fatalf("bad connection string: %v", err)
	}
	// Nothing listens on port 1: a connection failure, wrapped.
	ctx, cancel := context.WithTimeout(bg(), 10*time.Second)
	defer cancel()
	_, err := Open(ctx, "postgres://postgres@127.0.0.1:1/x?sslmode=disable&connect_timeout=2")
	var ce *pgconn.ConnectError
	if !errors.Is(err, core.ErrStorage) || !errors.As(err, &ce) {
		t.Fatalf("unreachable server: %v (%T)", err, err)
	}
}

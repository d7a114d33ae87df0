package modeltest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/store/postgres"
	"github.com/agentmem/agentmem/core/store/sqlite"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/pgvector"
	"github.com/agentmem/agentmem/core/vector/weaviate"
	"github.com/agentmem/agentmem/internal/testenv"
)

const dim = 64

// stores is one backend's message and vector store; reopen opens them
// again where they are files; close releases them (a run's schema too),
// so that shrinking, which runs many sequences, holds one at a time.
type stores struct {
	store  store.Store
	vector vector.Store
	dim    int
	reopen func() error
	close  func()
}

// backend makes fresh stores for one run; ciSeeds is how many of the
// fixed seeds it runs under go test, within CI's time budget.
type backend struct {
	name    string
	ciSeeds int
	fresh   func(tb testing.TB) (*stores, error)
}

func memBackend() backend {
	return backend{"memstore+local", 6, func(tb testing.TB) (*stores, error) {
		return &stores{store: memstore.New(), vector: local.New(), dim: dim,
			reopen: func() error { return nil }, close: func() {}}, nil
	}}
}

// sqliteBackend keeps both stores in files of a fresh directory.
func sqliteBackend() backend {
	return backend{"sqlite+local", 3, func(tb testing.TB) (*stores, error) {
		dir := tb.TempDir()
		return openSQLite(tb, filepath.Join(dir, "memory.db"), filepath.Join(dir, "vectors.bin"), nil)
	}}
}

// sqliteWeaviateBackend keeps the messages in a SQLite file and the
// vectors in the Weaviate server (given vectors, in classes of a fresh
// prefix), whose runs are slower: it runs fewer seeds.
func sqliteWeaviateBackend(host, grpc string) backend {
	return backend{"sqlite+weaviate", 1, func(tb testing.TB) (*stores, error) {
		st, err := openSQLite(tb, filepath.Join(tb.TempDir(), "memory.db"), filepath.Join(tb.TempDir(), "vectors.bin"), nil)
		if err != nil {
			return nil, err
		}
		prefix := fmt.Sprintf("Modeltest%d", rand.Uint32())
		vs, err := weaviate.New(context.Background(), weaviate.Config{Host: host, GRPCHost: grpc, ClassPrefix: prefix})
		if err != nil {
			st.close()
			return nil, err
		}
		closeSQLite, reopenSQLite := st.close, st.reopen
		st.vector = vs
		st.reopen = func() error { err := reopenSQLite(); st.vector = vs; return err }
		st.close = func() { closeSQLite(); dropClasses(vs, prefix) }
		return st, nil
	}}
}

// dropClasses deletes a run's Weaviate classes.
func dropClasses(vs *weaviate.Store, prefix string) {
	sch, err := vs.Client().Schema().Getter().Do(context.Background())
	if err != nil {
		return
	}
	for _, c := range sch.Classes {
		if strings.HasPrefix(c.Class, prefix) {
			_ = vs.Client().Schema().ClassDeleter().WithClassName(c.Class).Do(context.Background())
		}
	}
}

// openSQLite opens the SQLite file and the local vector file; with a
// hook, every write of either calls it (crash points).
func openSQLite(tb testing.TB, dbPath, vecPath string, hook *writeHook) (*stores, error) {
	st := &stores{dim: dim}
	var s *sqlite.Store
	var vs *local.Store
	open := func() error {
		var err error
		if s, err = sqlite.Open(context.Background(), dbPath); err != nil {
			return err
		}
		if vs, err = local.Open(vecPath); err != nil {
			s.Close()
			return err
		}
		st.store, st.vector = s, vs
		if hook != nil {
			st.store, st.vector = &hookedStore{s, hook}, &hookedVectors{vs, hook}
		}
		return nil
	}
	closeAll := func() {
		if s != nil {
			s.Close()
			vs.Close()
		}
	}
	st.reopen = func() error { closeAll(); return open() }
	st.close = closeAll
	return st, open()
}

// pgBackend is PostgreSQL in a fresh schema, with the local vector store or
// pgvector in the same pool.
func pgBackend(dsn string, withPgvector bool) backend {
	name := "postgres+local"
	if withPgvector {
		name = "postgres+pgvector"
	}
	return backend{name, 2, func(tb testing.TB) (*stores, error) {
		ctx := context.Background()
		schema := fmt.Sprintf("modeltest_%d", rand.Int64())
		s, err := postgres.Open(ctx, dsn, postgres.WithSchema(schema))
		if err != nil {
			return nil, err
		}
		st := &stores{store: s, vector: local.New(), dim: dim, reopen: func() error { return nil }, close: func() {
			_, _ = s.Pool().Exec(context.Background(), `DROP SCHEMA "`+schema+`" CASCADE`)
			s.Close()
		}}
		if withPgvector {
			vs, err := pgvector.New(ctx, s.Pool(), pgvector.Config{Schema: schema})
			if err != nil {
				st.close()
				return nil, err
			}
			st.vector = vs
		}
		return st, nil
	}}
}

// backends are the stores a run covers: memstore and SQLite always,
// PostgreSQL with both vector stores and SQLite with Weaviate when their
// servers are configured.
func backends(tb testing.TB) []backend {
	out := []backend{memBackend(), sqliteBackend()}
	if dsn := testenv.OptionalPostgres(tb); dsn != "" {
		out = append(out, pgBackend(dsn, false), pgBackend(dsn, true))
	}
	if host, grpc := testenv.OptionalWeaviate(tb); host != "" {
		out = append(out, sqliteWeaviateBackend(host, grpc))
	}
	return out
}

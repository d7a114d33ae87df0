package pgvector

import (
	"context"
	"errors"
	"sync"

	"github.com/agentmem/agentmem/core/vector"
	"github.com/jackc/pgx/v5"
)

// errNoIndex is the cause of the error of a call on an index that
// EnsureIndex did not create.
var errNoIndex = errors.New("index does not exist (call EnsureIndex)")

// tableInfo is what never changes about an index once created: its table,
// dimension and column type.
type tableInfo struct {
	table   string
	dim     int
	storage string
}

// tables caches tableInfo by index name.
type tables struct {
	mu sync.Mutex
	m  map[string]tableInfo
}

// table returns the tableInfo of index, from the cache or the database.
func (s *Store) table(ctx context.Context, op, index string) (tableInfo, error) {
	s.tables.mu.Lock()
	ix, ok := s.tables.m[index]
	s.tables.mu.Unlock()
	if ok {
		return ix, nil
	}
	err := s.pool.QueryRow(ctx, s.sql("SELECT table_name, dimension, storage FROM {{schema}}.vector_indexes WHERE name = $1"), index).
		Scan(&ix.table, &ix.dim, &ix.storage)
	if errors.Is(err, pgx.ErrNoRows) {
		return ix, vector.Fail("pgvector."+op, "index "+index, errNoIndex)
	}
	if err != nil {
		return ix, vector.Fail("pgvector."+op, "index "+index, err)
	}
	s.remember(index, ix)
	return ix, nil
}

func (s *Store) remember(index string, ix tableInfo) {
	s.tables.mu.Lock()
	defer s.tables.mu.Unlock()
	if s.tables.m == nil {
		s.tables.m = map[string]tableInfo{}
	}
	s.tables.m[index] = ix
}

// qtable is the qualified, quoted name of an index's table.
func (s *Store) qtable(ix tableInfo) string { return s.qschema + "." + quoteIdent(ix.table) }

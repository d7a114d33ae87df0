package pgvector

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/agentmem/agentmem/core/vector"

	"github.com/jackc/pgx/v5"
)

// bulkMin is the smallest load that builds the approximate index after its
// records instead of inserting them into it one by one.
const bulkMin = 1000

var _ vector.BulkLoader = (*Store)(nil)

// UpsertBulk is Upsert for large loads (vector.BulkLoader): when recs hold
// at least 1,000 records and at least half as many as the index already
// does, the approximate index is dropped, the records are written as Upsert
// writes them, and the index is built again over the whole table (see
// DeferIndex); a smaller load is Upsert. If writing fails the index is
// built all the same.
func (s *Store) UpsertBulk(ctx context.Context, index string, recs []vector.Record) error {
	const op = "UpsertBulk"
	if len(recs) < bulkMin {
		return s.Upsert(ctx, index, recs)
	}
	if _, err := s.checkRecords(ctx, op, index, recs); err != nil {
		return err
	}
	build, err := s.DeferIndex(ctx, index, len(recs))
	if err != nil {
		return err
	}
	werr := s.Upsert(ctx, index, recs)
	return errors.Join(werr, build(ctx))
}

// DeferIndex prepares a load of about records records into index (a bulk
// save, a reindex): when they are at least 1,000 and at least half as many
// as the index holds (or it does not exist yet), it drops the approximate
// index, and EnsureIndex in this process leaves it out, until build is
// called, which builds it over the whole table. pgvector builds an HNSW
// graph several times faster than it inserts into one row by row (its
// advice: create the index after loading the initial data), faster still
// when the graph fits in maintenance_work_mem (Config.BuildMemory). Until
// then, searches stay correct but read a large resource whole (exact
// search); while build runs, writes of the table wait for it. For a smaller
// load, build does nothing. If build fails (ctx done, the server), the
// error says so and the table is searched exactly until the next build,
// EnsureIndex in a process without a load under way, or Reindex.
func (s *Store) DeferIndex(ctx context.Context, index string, records int) (build func(context.Context) error, err error) {
	const op = "DeferIndex"
	none := func(context.Context) error { return nil }
	if records < bulkMin {
		return none, nil
	}
	var held int64
	var raw []byte
	var table string
	err = s.pool.QueryRow(ctx, s.sql(`SELECT coalesce((SELECT sum(records) FROM {{schema}}.vector_resources WHERE index_name = $1), 0)::bigint,
	coalesce((SELECT config FROM {{schema}}.vector_indexes WHERE name = $1), 'null'), coalesce((SELECT table_name FROM {{schema}}.vector_indexes WHERE name = $1), '')`), index).Scan(&held, &raw, &table)
	if err != nil {
		return nil, vector.Fail("pgvector."+op, "index "+index, err)
	}
	var cfg *indexConfig
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, vector.Fail("pgvector."+op, "index "+index, err)
	}
	if cfg != nil && (cfg.Type == TypeFlat || 2*int64(records) < held) {
		return none, nil
	}
	s.loads.Lock()
	if s.loads.n == nil {
		s.loads.n = map[string]int{}
	}
	s.loads.n[index]++
	s.loads.Unlock()
	done := func() {
		s.loads.Lock()
		defer s.loads.Unlock()
		if s.loads.n[index]--; s.loads.n[index] <= 0 {
			delete(s.loads.n, index)
		}
	}
	if table != "" {
		if _, err := s.pool.Exec(ctx, "DROP INDEX IF EXISTS "+s.qschema+"."+quoteIdent(table+"_ann")); err != nil {
			done()
			return nil, vector.Fail("pgvector."+op, "drop the approximate index of "+index+" before loading", err)
		}
	}
	var once bool
	return func(ctx context.Context) error {
		if once {
			return nil
		}
		once = true
		done()
		err := s.annIndex(ctx, index, false)
		if err == nil || errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		return vector.Fail("pgvector.DeferIndex", "build the approximate index of "+index+
			" (searched exactly until it is built: Reindex, or EnsureIndex in a new process)", err)
	}, nil
}

// deferred reports whether a load of index is under way (DeferIndex).
func (s *Store) deferred(index string) bool {
	s.loads.Lock()
	defer s.loads.Unlock()
	return s.loads.n[index] > 0
}

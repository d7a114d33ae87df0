package pgvector

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/agentmem/agentmem/core/vector"
)

// bulkMin is the smallest UpsertBulk that builds the approximate index
// after its records instead of inserting them into it one by one.
const bulkMin = 1000

var _ vector.BulkLoader = (*Store)(nil)

// UpsertBulk is Upsert for large loads (vector.BulkLoader). When recs hold
// at least 1,000 records and at least half as many as the index already
// does, it drops the approximate index, writes the records as Upsert does
// and builds the index again over the whole table: pgvector builds an HNSW
// graph several times faster than it inserts into one row by row (its
// advice: create the index after loading the initial data), faster still
// when the graph fits in maintenance_work_mem (Config.BuildMemory). Until
// the index is built, searches stay correct but read a large resource whole
// (exact search), and writes of the index's table wait for the build; a
// smaller load is Upsert. If writing fails the index is built all the same;
// if the build fails (ctx done, the server), the error says so and the
// table is searched exactly until the next UpsertBulk, EnsureIndex or
// Reindex builds it.
func (s *Store) UpsertBulk(ctx context.Context, index string, recs []vector.Record) error {
	const op = "UpsertBulk"
	if len(recs) < bulkMin {
		return s.Upsert(ctx, index, recs)
	}
	ix, err := s.checkRecords(ctx, op, index, recs)
	if err != nil {
		return err
	}
	var held int64
	var raw []byte
	if err := s.pool.QueryRow(ctx, s.sql(`SELECT coalesce((SELECT sum(records) FROM {{schema}}.vector_resources WHERE index_name = $1), 0)::bigint, config
FROM {{schema}}.vector_indexes WHERE name = $1`), index).Scan(&held, &raw); err != nil {
		return vecErr(op, "index "+index, err)
	}
	var cfg indexConfig
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return vecErr(op, "index "+index, err)
	}
	if cfg.Type == TypeFlat || 2*int64(len(recs)) < held {
		return s.Upsert(ctx, index, recs)
	}
	if _, err := s.pool.Exec(ctx, "DROP INDEX IF EXISTS "+s.qschema+"."+quoteIdent(ix.table+"_ann")); err != nil {
		return vecErr(op, "drop the approximate index of "+index+" before loading", err)
	}
	werr := s.Upsert(ctx, index, recs)
	if err := s.annIndex(ctx, index, false); err != nil {
		return errors.Join(werr, vecErr(op, "build the approximate index of "+index+
			" (searched exactly until UpsertBulk, EnsureIndex or Reindex builds it)", err))
	}
	return werr
}

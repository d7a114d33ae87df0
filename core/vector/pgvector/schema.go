package pgvector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"regexp"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/vector"

	"github.com/jackc/pgx/v5"
)

// Dimension limits of pgvector: an index takes vectors of up to 2,000
// dimensions and halfvecs of up to 4,000; a column up to 16,000.
const (
	maxIndexedVector  = 2000
	maxIndexedHalfvec = 4000
	maxDimension      = 16000
)

// Index types and metrics of IndexConfig.
const (
	TypeHNSW    = "hnsw"
	TypeIVFFlat = "ivfflat"
	TypeFlat    = "flat"

	MetricCosine     = "cosine"
	MetricDotProduct = "dotproduct"
	MetricEuclidean  = "euclidean"
)

// HNSW defaults (pgvector's).
const (
	defaultM              = 16
	defaultEfConstruction = 64
)

// indexConfig is the normalized vector.IndexConfig stored with an index.
type indexConfig struct {
	Type           string `json:"type"`
	Metric         string `json:"metric"`
	M              int    `json:"m,omitempty"`
	EfConstruction int    `json:"efConstruction,omitempty"`
	Lists          int    `json:"lists,omitempty"`
}

// normalize fills the defaults of c and checks its values.
func normalize(c vector.IndexConfig) (indexConfig, error) {
	out := indexConfig{Type: c.Type, Metric: c.Metric}
	if out.Type == "" {
		out.Type = TypeHNSW
	}
	if out.Metric == "" {
		out.Metric = MetricCosine
	}
	switch out.Type {
	case TypeHNSW:
		out.M, out.EfConstruction = c.HNSW.M, c.HNSW.EfConstruction
		if out.M == 0 {
			out.M = defaultM
		}
		if out.EfConstruction == 0 {
			out.EfConstruction = defaultEfConstruction
		}
		if out.M < 2 || out.M > 100 || out.EfConstruction < 4 || out.EfConstruction > 1000 || out.EfConstruction < 2*out.M {
			return out, fmt.Errorf("hnsw needs 2 ≤ m ≤ 100 and max(4, 2·m) ≤ ef_construction ≤ 1000, got m %d, ef_construction %d", out.M, out.EfConstruction)
		}
	case TypeIVFFlat:
		out.Lists = c.IVFFlat.Lists
		if out.Lists < 0 || out.Lists > 32768 {
			return out, fmt.Errorf("ivfflat lists must be within [1, 32768], got %d", out.Lists)
		}
	case TypeFlat:
	default:
		return out, fmt.Errorf("unknown index type %q (hnsw, ivfflat or flat)", out.Type)
	}
	switch out.Metric {
	case MetricCosine, MetricDotProduct, MetricEuclidean:
	default:
		return out, fmt.Errorf("unknown metric %q (cosine, dotproduct or euclidean)", out.Metric)
	}
	return out, nil
}

// storage is the column type of a dimension: vector up to 2,000 dimensions
// and above 4,000 (searched exactly), halfvec between.
func storage(dim int) string {
	if dim > maxIndexedVector && dim <= maxIndexedHalfvec {
		return "halfvec"
	}
	return "vector"
}

// opClass returns the operator class of the metric for the storage type.
func opClass(storage, metric string) string {
	switch metric {
	case MetricDotProduct:
		return storage + "_ip_ops"
	case MetricEuclidean:
		return storage + "_l2_ops"
	}
	return storage + "_cosine_ops"
}

// operator returns the distance operator of the metric.
func operator(metric string) string {
	switch metric {
	case MetricDotProduct:
		return "<#>"
	case MetricEuclidean:
		return "<->"
	}
	return "<=>"
}

var simpleName = regexp.MustCompile(`^[a-z0-9_]{1,40}$`)

// tableName is the table of an index: vectors_<index> for a short
// lower-case name, else vectors_<hash of the name>.
func tableName(index string) string {
	if simpleName.MatchString(index) {
		return "vectors_" + index
	}
	h := fnv.New64a()
	h.Write([]byte(index))
	return fmt.Sprintf("vectors_%016x", h.Sum64())
}

// EnsureIndex creates the index's table and its indexes if missing and
// records spec.Version as the index's version (see vector.IndexSpec.Version).
// An existing index keeps its records; a different non-zero dimension is
// memerr.ErrEmbeddingDimensionMismatch. A changed Config rebuilds the
// approximate index. DDL runs under the schema's advisory lock.
func (s *Store) EnsureIndex(ctx context.Context, spec vector.IndexSpec) error {
	const op = "EnsureIndex"
	if spec.Name == "" || spec.Dimension < 0 || spec.Dimension > maxDimension {
		return vector.Fail("pgvector."+op, fmt.Sprintf("index name and a dimension within [1, %d] are required", maxDimension), memerr.ErrInvalidConfig)
	}
	cfg, err := normalize(spec.Config)
	if err != nil {
		return vector.Fail("pgvector."+op, "index "+spec.Name, &memerr.Error{Code: memerr.CodeInvalidConfig, Msg: err.Error()})
	}
	var mismatch error
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lockKey(s.schema)); err != nil {
			return err
		}
		var table string
		var dim int
		var raw []byte
		err := tx.QueryRow(ctx, s.sql("SELECT table_name, dimension, config FROM {{schema}}.vector_indexes WHERE name = $1"), spec.Name).Scan(&table, &dim, &raw)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			if spec.Dimension == 0 {
				mismatch = vector.Fail("pgvector."+op, "index "+spec.Name+" does not exist and no dimension was given", memerr.ErrInvalidConfig)
				return nil
			}
			return s.createIndex(ctx, tx, spec, cfg)
		case err != nil:
			return err
		case spec.Dimension != 0 && spec.Dimension != dim:
			mismatch = vector.DimensionError("pgvector."+op, spec.Name, dim, spec.Dimension)
			return nil
		}
		var old indexConfig
		if err := json.Unmarshal(raw, &old); err != nil {
			return err
		}
		if old != cfg {
			if err := s.buildANN(ctx, tx, table, storage(dim), cfg, true); err != nil {
				return err
			}
		} else if s.deferred(spec.Name) {
			// A load is under way in this process (DeferIndex): it builds.
		} else if err := s.buildANN(ctx, tx, table, storage(dim), cfg, false); err != nil {
			// A missing index is built: an ivfflat one once enough rows
			// exist, one an interrupted load dropped.
			return err
		}
		cj, _ := json.Marshal(cfg)
		_, err = tx.Exec(ctx, s.sql("UPDATE {{schema}}.vector_indexes SET version = $2, config = $3 WHERE name = $1"), spec.Name, spec.Version, string(cj))
		return err
	})
	if mismatch != nil {
		return mismatch
	}
	if err != nil {
		return vector.Fail("pgvector."+op, "index "+spec.Name, err)
	}
	return nil
}

// createIndex creates the table of a new index, its indexes and its row.
func (s *Store) createIndex(ctx context.Context, tx pgx.Tx, spec vector.IndexSpec, cfg indexConfig) error {
	table := tableName(spec.Name)
	st := storage(spec.Dimension)
	qt := s.qschema + "." + quoteIdent(table)
	// Ids are COLLATE "C", as in the message store: they compare as bytes.
	ddl := []string{
		fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s (
	resource_id text COLLATE "C" NOT NULL,
	id          text COLLATE "C" NOT NULL,
	thread_id   text COLLATE "C" NOT NULL,
	message_id  text COLLATE "C" NOT NULL,
	role        text        NOT NULL,
	created_at  timestamptz NOT NULL,
	keywords    tsvector    NOT NULL,
	terms       integer     NOT NULL,
	embedding   %s(%d)      NOT NULL,
	metadata    jsonb,
	PRIMARY KEY (resource_id, id)
)`, qt, st, spec.Dimension),
		fmt.Sprintf("CREATE INDEX IF NOT EXISTS %s ON %s (resource_id, thread_id)", quoteIdent(table+"_thread"), qt),
		fmt.Sprintf("CREATE INDEX IF NOT EXISTS %s ON %s (resource_id, message_id)", quoteIdent(table+"_message"), qt),
		fmt.Sprintf("CREATE INDEX IF NOT EXISTS %s ON %s USING gin (keywords) WITH (fastupdate = off)", quoteIdent(table+"_keywords"), qt),
	}
	for _, q := range ddl {
		if _, err := tx.Exec(ctx, q); err != nil {
			return err
		}
	}
	if !s.deferred(spec.Name) {
		if err := s.buildANN(ctx, tx, table, st, cfg, true); err != nil {
			return err
		}
	}
	cj, _ := json.Marshal(cfg)
	_, err := tx.Exec(ctx, s.sql(`INSERT INTO {{schema}}.vector_indexes (name, table_name, dimension, storage, config, version)
VALUES ($1, $2, $3, $4, $5, $6)`), spec.Name, table, spec.Dimension, st, string(cj), spec.Version)
	return err
}

// ivfflatMinRowsPerList is the number of rows per list from which an
// ivfflat index is built: its centroids are a k-means of the rows present
// at build time.
const ivfflatMinRowsPerList = 10

// buildANN creates the approximate index of cfg on table (replacing one of
// another configuration when rebuild). An ivfflat index is built only once
// the table holds ivfflatMinRowsPerList rows per list; flat, or a dimension
// no index accepts, drops it.
func (s *Store) buildANN(ctx context.Context, tx pgx.Tx, table, st string, cfg indexConfig, rebuild bool) error {
	name := quoteIdent(table + "_ann")
	qt := s.qschema + "." + quoteIdent(table)
	var dim int
	var exists bool
	if err := tx.QueryRow(ctx, `SELECT coalesce((SELECT atttypmod FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = 'embedding'), 0),
	to_regclass($2) IS NOT NULL`, qt, s.qschema+"."+name).Scan(&dim, &exists); err != nil {
		return err
	}
	if exists && !rebuild {
		return nil
	}
	if exists {
		if _, err := tx.Exec(ctx, "DROP INDEX "+s.qschema+"."+name); err != nil {
			return err
		}
	}
	if cfg.Type == TypeFlat || st == "vector" && dim > maxIndexedVector {
		return nil
	}
	ops := opClass(st, cfg.Metric)
	if s.cfg.BuildMemory != "" {
		if _, err := tx.Exec(ctx, "SELECT set_config('maintenance_work_mem', $1, true)", s.cfg.BuildMemory); err != nil {
			return err
		}
	}
	if cfg.Type == TypeHNSW {
		_, err := tx.Exec(ctx, fmt.Sprintf("CREATE INDEX %s ON %s USING hnsw (embedding %s) WITH (m = %d, ef_construction = %d)",
			name, qt, ops, cfg.M, cfg.EfConstruction))
		return err
	}
	var rows int64
	if err := tx.QueryRow(ctx, "SELECT count(*) FROM "+qt).Scan(&rows); err != nil {
		return err
	}
	lists := ivfLists(cfg.Lists, rows)
	if rows < int64(lists)*ivfflatMinRowsPerList {
		return nil // too few rows for centroids: searched exactly until Reindex
	}
	_, err := tx.Exec(ctx, fmt.Sprintf("CREATE INDEX %s ON %s USING ivfflat (embedding %s) WITH (lists = %d)", name, qt, ops, lists))
	return err
}

// ivfLists is the number of lists of an ivfflat index over rows rows:
// the configured one, else pgvector's advice (rows/1000 up to a million
// rows, √rows above), at least 10.
func ivfLists(configured int, rows int64) int {
	if configured > 0 {
		return configured
	}
	n := rows / 1000
	if rows > 1_000_000 {
		n = int64(isqrt(rows))
	}
	return int(max(n, 10))
}

func isqrt(n int64) int64 {
	x := int64(1)
	for x*x <= n {
		x++
	}
	return x - 1
}

// Reindex rebuilds the approximate index of index from the rows present:
// after a bulk load into an ivfflat index (whose lists are centroids of the
// rows at build time), or to compact an HNSW graph after many deletes.
func (s *Store) Reindex(ctx context.Context, index string) error {
	const op = "Reindex"
	err := s.annIndex(ctx, index, true)
	if errors.Is(err, pgx.ErrNoRows) {
		return vector.Fail("pgvector."+op, "index "+index+" does not exist (call EnsureIndex)", nil)
	}
	if err != nil {
		return vector.Fail("pgvector."+op, "index "+index, err)
	}
	return nil
}

// annIndex builds the approximate index of index (replacing the one there
// when rebuild, else only if missing) under the schema's advisory lock.
func (s *Store) annIndex(ctx context.Context, index string, rebuild bool) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lockKey(s.schema)); err != nil {
			return err
		}
		var table, st string
		var raw []byte
		if err := tx.QueryRow(ctx, s.sql("SELECT table_name, storage, config FROM {{schema}}.vector_indexes WHERE name = $1"), index).Scan(&table, &st, &raw); err != nil {
			return err
		}
		var cfg indexConfig
		if err := json.Unmarshal(raw, &cfg); err != nil {
			return err
		}
		return s.buildANN(ctx, tx, table, st, cfg, rebuild)
	})
}

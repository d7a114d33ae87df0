package pgvector

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/analysis"

	"github.com/jackc/pgx/v5"
	pgv "github.com/pgvector/pgvector-go"
)

// BM25 parameters (Weaviate's defaults, as package local).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// meta is what a query needs to know about its index and resource.
type meta struct {
	tableInfo
	cfg             indexConfig
	version         string  // the index's
	resourceVersion *string // nil: the resource has no records
	records, terms  int64   // the resource's
	tuples          float64 // the table's estimated rows (-1 when unknown)
}

// Query returns the TopK (DefaultTopK when <= 0) best hits of
// q.Filter.ResourceID, best first (ties by id), narrowed to
// q.Filter.ThreadID when set and to the records whose message metadata
// matches q.Filter.Metadata (an invalid filter fails with
// memerr.ErrInvalidArgument). Scores: SearchVector by metric, cosine
// similarity (1 − cosine distance), the inner product (dotproduct) or
// 1/(1 + distance) (euclidean); SearchBM25 the BM25 of the records sharing a
// term with the query's keywords; SearchHybrid the relativeScoreFusion of
// both, in [0,1], whose keyword side leaves out the terms common in the
// resource (vector.KeywordTerms), vector scores when all are. Hits below a
// non-zero q.MinScore are dropped.
func (s *Store) Query(ctx context.Context, index string, q vector.Query) ([]vector.Hit, error) {
	const op = "Query"
	mode, needVec, _ := q.ResolveMode() // checked by vector.Checked
	if hasNUL(q.Filter.ResourceID, q.Filter.ThreadID) {
		return nil, nil // no stored id holds NUL
	}
	m, err := s.meta(ctx, op, index, q.Filter.ResourceID)
	if err != nil {
		return nil, err
	}
	if needVec && len(q.Vector) != m.dim {
		return nil, vector.DimensionError("pgvector."+op, index, m.dim, len(q.Vector))
	}
	if m.resourceVersion == nil || m.records == 0 {
		return nil, nil
	}
	if *m.resourceVersion != m.version {
		return nil, vector.VersionError("pgvector."+op, "index "+index, q.Filter.ResourceID, *m.resourceVersion, m.version)
	}
	topK := q.TopK
	if topK <= 0 {
		topK = DefaultTopK
	}
	var res []scoredHit
	switch mode {
	case vector.SearchVector:
		res, err = s.vectorSide(ctx, m, q, topK)
	case vector.SearchBM25:
		var ts []term
		if ts, _, err = s.terms(ctx, m, q, false); err == nil {
			res, err = s.keywordSide(ctx, m, q, ts, topK)
		}
	default:
		res, err = s.hybrid(ctx, m, q, topK)
	}
	if err != nil {
		return nil, vector.Fail("pgvector."+op, mode+" query on index "+index, err)
	}
	sortHits(res)
	hits := make([]vector.Hit, 0, min(topK, len(res)))
	for _, r := range res {
		if len(hits) == topK || (q.MinScore != 0 && r.Score < q.MinScore) {
			break
		}
		hits = append(hits, r.Hit)
	}
	return hits, nil
}

// meta reads the index's configuration and version and the resource's
// version and counts, in one statement.
func (s *Store) meta(ctx context.Context, op, index, resource string) (meta, error) {
	var m meta
	var raw []byte
	err := s.pool.QueryRow(ctx, s.sql(`SELECT i.table_name, i.dimension, i.storage, i.config, i.version, r.version,
	coalesce(r.records, 0), coalesce(r.terms, 0), coalesce(c.reltuples, -1)::float8
FROM {{schema}}.vector_indexes AS i
LEFT JOIN {{schema}}.vector_resources AS r ON r.index_name = i.name AND r.resource_id = $2
LEFT JOIN pg_class AS c ON c.oid = to_regclass(quote_ident($3) || '.' || quote_ident(i.table_name))
WHERE i.name = $1`), index, resource, s.schema).Scan(&m.table, &m.dim, &m.storage, &raw, &m.version, &m.resourceVersion,
		&m.records, &m.terms, &m.tuples)
	if errors.Is(err, pgx.ErrNoRows) {
		return m, vector.Fail("pgvector."+op, "index "+index, errNoIndex)
	}
	if err == nil {
		err = json.Unmarshal(raw, &m.cfg)
	}
	if err != nil {
		return m, vector.Fail("pgvector."+op, "index "+index, err)
	}
	s.remember(index, m.tableInfo)
	return m, nil
}

// scoredHit is a hit before the final cut.
type scoredHit struct{ vector.Hit }

// sortHits orders by score descending, then by id.
func sortHits(hs []scoredHit) {
	sort.Slice(hs, func(i, j int) bool {
		if hs[i].Score != hs[j].Score {
			return hs[i].Score > hs[j].Score
		}
		return hs[i].ID < hs[j].ID
	})
}

const hitColumns = "id, message_id, thread_id, resource_id, role, created_at, metadata"

// scanHits reads rows of hitColumns and a score column.
func scanHits(rows pgx.Rows, score func(float64) float64) ([]scoredHit, error) {
	defer rows.Close()
	var out []scoredHit
	for rows.Next() {
		var h scoredHit
		var role string
		var at time.Time
		var md []byte
		var v float64
		if err := rows.Scan(&h.ID, &h.Meta.MessageID, &h.Meta.ThreadID, &h.Meta.ResourceID, &role, &at, &md, &v); err != nil {
			return nil, err
		}
		h.Meta.Role, h.Meta.CreatedAt, h.Score = message.Role(role), at, score(v)
		h.Meta.Metadata = vector.DecodeMetadata(md)
		out = append(out, h)
	}
	return out, rows.Err()
}

// exact reports whether a vector search of m's resource reads the
// resource's rows rather than the approximate index: without an index, with
// a thread filter (threads are small), for a resource of fewer than
// Config.ExactBelow records, and for one so small a share of the table that
// an index scan would pass over many more rows of other resources (about
// ef·tuples/records) than the resource holds (shareFactor times). A
// metadata filter needs iterative index scans (pgvector 0.8): without them
// the index yields ef candidates at most, and the filter may leave fewer
// than TopK of them.
func (s *Store) exact(m meta, q vector.Query, ef int) bool {
	if m.cfg.Type == TypeFlat || m.storage == "vector" && m.dim > maxIndexedVector ||
		!s.iterative && !q.Filter.Metadata.IsZero() {
		return true
	}
	if s.cfg.ExactBelow < 0 {
		return false
	}
	if m.cfg.Type == TypeFlat || q.Filter.ThreadID != "" || m.records < int64(s.cfg.ExactBelow) ||
		m.storage == "vector" && m.dim > maxIndexedVector {
		return true
	}
	return m.tuples > 0 && float64(m.records)*float64(m.records) < shareFactor*float64(ef)*m.tuples
}

// shareFactor scales the share rule of exact: measured by
// BenchmarkExactOrIndex on 107,000 rows, exact search is 13 times faster
// than the filtered index scan for a resource of 5,000 records (ef·tuples
// 6.8 million, records² 25 million) and as fast for one of 20,000 (records²
// 400 million).
const shareFactor = 16

// efSearch is the HNSW search width of a query of k hits.
func (s *Store) efSearch(k int) int {
	if s.cfg.EfSearch > 0 {
		return max(s.cfg.EfSearch, k)
	}
	return min(max(DefaultEfSearch, 2*k), 1000)
}

// widen returns the search width ef of a resource holding a share of the
// table: it finds about that share of a search's candidates, so the width
// grows with its inverse, that the resource's own candidates number about ef.
func widen(m meta, ef int) int {
	if m.records > 0 && m.tuples > float64(m.records) {
		ef = min(int(float64(ef)*m.tuples/float64(m.records)), max(1000, ef))
	}
	return ef
}

// vectorSide returns the n nearest records of q's resource (and thread).
func (s *Store) vectorSide(ctx context.Context, m meta, q vector.Query, n int) ([]scoredHit, error) {
	ef := s.efSearch(n)
	exact := s.exact(m, q, ef)
	ef = widen(m, ef)
	dist := "(embedding " + operator(m.cfg.Metric) + " $2::" + m.storage + ")"
	p := &params{args: []any{q.Filter.ResourceID, pgv.NewVector(q.Vector).String(), q.Filter.ThreadID, n}}
	where := " WHERE resource_id = $1 AND ($3 = '' OR thread_id = $3) AND " + metadataCond(q.Filter.Metadata, "", p) +
		" ORDER BY d LIMIT $4"
	score := scoreFunc(m.cfg.Metric)
	// Adding 0 makes the distance other than the indexed expression: the
	// planner reads the resource's rows.
	exactSQL := "SELECT " + hitColumns + ", " + dist + " + 0 AS d FROM " + s.qtable(m.tableInfo) + where
	if exact {
		rows, err := s.pool.Query(ctx, exactSQL, p.args...)
		if err != nil {
			return nil, err
		}
		return scanHits(rows, score)
	}
	// The settings hold for the batch's implicit transaction only.
	b := &pgx.Batch{}
	s.queueSearchSettings(b, m, ef, "")
	var hits []scoredHit
	b.Queue("SELECT "+hitColumns+", "+dist+" AS d FROM "+s.qtable(m.tableInfo)+where, p.args...).Query(func(rows pgx.Rows) error {
		var err error
		hits, err = scanHits(rows, score)
		return err
	})
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil || len(hits) >= n || q.Filter.Metadata.IsZero() {
		return hits, err
	}
	// An index scan ends at its tuple bound, and an HNSW graph may not
	// reach every row (near-duplicate vectors): a filter that kept fewer
	// than n of the rows it saw is answered from the resource's rows, so
	// that no matching record is left out.
	rows, err := s.pool.Query(ctx, exactSQL, p.args...)
	if err != nil {
		return nil, err
	}
	return scanHits(rows, score)
}

// searchSettings sets a query's index search parameters for the rest of its
// transaction. The store chose the index (see exact), so sorting the
// resource's rows is discouraged: the planner would otherwise read a
// selective resource through its b-tree, and the filtered index scan would
// be left to chance.
const searchSettings = `SELECT set_config('enable_sort', 'off', true), set_config('hnsw.ef_search', $1, true),
	set_config('ivfflat.probes', $2, true)`

// iterativeSettings adds iterative index scans (pgvector 0.8; older
// versions reject the names) in relaxed order: the hits are sorted
// afterwards.
const iterativeSettings = `, set_config('hnsw.iterative_scan', 'relaxed_order', true),
	set_config('ivfflat.iterative_scan', 'relaxed_order', true), set_config('hnsw.max_scan_tuples', $3, true),
	set_config('hnsw.scan_mem_multiplier', $4, true)`

// maxScanTuples bounds an iterative HNSW scan: enough rows for the
// resource's share of the table to yield ef of its own, at least
// pgvector's default of 20,000.
func maxScanTuples(m meta, ef int) int {
	if m.records <= 0 || m.tuples <= 0 {
		return 20000
	}
	return int(min(max(4*float64(ef)*m.tuples/float64(m.records), 20000), 1e8))
}

// probes is the number of ivfflat lists a search visits first (iterative
// scans add more while the filter leaves too few rows): √lists, at least 1.
func probes(m meta) int {
	lists := ivfLists(m.cfg.Lists, int64(max(m.tuples, 0)))
	return max(int(math.Sqrt(float64(lists))), 1)
}

// scoreFunc turns a distance of the metric into a score, higher is better.
func scoreFunc(metric string) func(float64) float64 {
	switch metric {
	case MetricDotProduct:
		return func(d float64) float64 { return -d } // <#> is the negative inner product
	case MetricEuclidean:
		return func(d float64) float64 { return 1 / (1 + d) }
	}
	return func(d float64) float64 { return 1 - d }
}

// term is a distinct query term present in the resource, and its BM25 idf.
type term struct {
	text string
	df   int64
	idf  float64
}

// commonSample is the number of a resource's records on which a hybrid
// query judges whether a term is common (vector.KeywordTerms): exact for
// resources up to that size, an estimate above, as Weaviate's store does.
const commonSample = 1000

// terms returns the distinct terms of q's keywords that the resource holds,
// with their document frequencies and idf, and whether any is held at all.
// With common, the terms held by more than vector.CommonTermShare of a
// sample of the resource's records are left out (and not counted: counting
// them would read most of the resource).
func (s *Store) terms(ctx context.Context, m meta, q vector.Query, common bool) (ts []term, held bool, err error) {
	var words []string
	if q.Keywords != "" {
		words = strings.Fields(q.Keywords)
	} else {
		words = analysis.Plain.Terms(q.Text)
	}
	var uniq, queries []string
	for _, w := range words {
		w = strings.ReplaceAll(w, "\x00", "")
		if w == "" || len(w) > maxLexeme || slices.Contains(uniq, w) {
			continue
		}
		uniq = append(uniq, w)
		queries = append(queries, lexeme(w))
	}
	if len(uniq) == 0 {
		return nil, false, nil
	}
	share := 2.0 // no term is common
	if common {
		share = vector.CommonTermShare
	}
	qt := s.qtable(m.tableInfo)
	rows := s.customPlan(ctx, `WITH s AS MATERIALIZED (SELECT keywords FROM `+qt+` WHERE resource_id = $1 LIMIT $3),
sh AS (SELECT u.i, count(s.keywords) FILTER (WHERE s.keywords @@ u.q) AS c, (SELECT count(*) FROM s) AS n
	FROM unnest($2::tsquery[]) WITH ORDINALITY AS u(q, i) LEFT JOIN s ON true GROUP BY u.i)
SELECT sh.c > 0, CASE WHEN sh.c > $4::float8 * sh.n THEN 0
	ELSE (SELECT count(*) FROM `+qt+` WHERE resource_id = $1 AND keywords @@ ($2::tsquery[])[sh.i]) END
FROM sh ORDER BY sh.i`, q.Filter.ResourceID, queries, commonSample, share)
	type count struct {
		Sampled bool
		DF      int64
	}
	var dfs []count
	if err := rows(func(r pgx.Rows) error {
		var err error
		dfs, err = pgx.CollectRows(r, pgx.RowToStructByPos[count])
		return err
	}); err != nil {
		return nil, false, err
	}
	n := float64(m.records)
	for i, w := range uniq {
		held = held || dfs[i].Sampled || dfs[i].DF > 0
		if dfs[i].DF == 0 {
			continue
		}
		df := float64(dfs[i].DF)
		ts = append(ts, term{text: w, df: dfs[i].DF, idf: idf(n, df)})
	}
	return ts, held, nil
}

// keywordSide returns the n best BM25 hits of q's resource (and thread)
// over the terms ts.
func (s *Store) keywordSide(ctx context.Context, m meta, q vector.Query, ts []term, n int) ([]scoredHit, error) {
	if len(ts) == 0 {
		return nil, nil
	}
	avg := float64(m.terms) / float64(m.records)
	if avg == 0 {
		avg = 1
	}
	words, idfs, ors := make([]string, len(ts)), make([]float64, len(ts)), make([]string, len(ts))
	for i, t := range ts {
		words[i], idfs[i], ors[i] = t.text, t.idf, lexeme(t.text)
	}
	p := &params{args: []any{q.Filter.ResourceID, q.Filter.ThreadID, words, idfs, bm25K1 * (1 - bm25B), bm25K1 * bm25B / avg, bm25K1 + 1,
		strings.Join(ors, " | "), n}}
	rows := s.customPlan(ctx, `SELECT c.id, c.message_id, c.thread_id, c.resource_id, c.role, c.created_at, c.metadata,
	sum(u.idf * x.tf * $7::float8 / (x.tf + $5::float8 + $6::float8 * c.terms)) AS score
FROM `+s.qtable(m.tableInfo)+` AS c,
	LATERAL (SELECT lexeme, cardinality(positions)::float8 AS tf FROM unnest(c.keywords)) AS x
	JOIN unnest($3::text[], $4::float8[]) AS u(term, idf) ON u.term = x.lexeme
WHERE c.resource_id = $1 AND ($2 = '' OR c.thread_id = $2) AND c.keywords @@ $8::tsquery
	AND `+metadataCond(q.Filter.Metadata, "c", p)+`
GROUP BY c.resource_id, c.id ORDER BY score DESC, c.id LIMIT $9`, p.args...)
	var hits []scoredHit
	err := rows(func(r pgx.Rows) error {
		var err error
		hits, err = scanHits(r, func(v float64) float64 { return v })
		return err
	})
	return hits, err
}

// customPlan runs a statement planned for its parameters: a cached generic
// plan cannot know that a keyword is rare and would read the resource's rows
// instead of the keyword index. The setting holds for the batch's implicit
// transaction only. It returns a function that hands the rows to scan.
func (s *Store) customPlan(ctx context.Context, sql string, args ...any) func(scan func(pgx.Rows) error) error {
	return func(scan func(pgx.Rows) error) error {
		b := &pgx.Batch{}
		b.Queue("SELECT set_config('plan_cache_mode', 'force_custom_plan', true)")
		b.Queue(sql, args...).Query(scan)
		return s.pool.SendBatch(ctx, b).Close()
	}
}

package pgvector

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/analysis"

	"github.com/jackc/pgx/v5"
	pgv "github.com/pgvector/pgvector-go"
)

// hybrid answers a hybrid query in one round trip after the metadata read:
// a single statement runs the vector side (the vector.Fused(q.TopK) nearest
// of a resource read exactly; through the approximate index, the
// approxCandidates·topK nearest of a search as wide as a vector query's), the
// keyword side (BM25 of the top vector.Fused(q.TopK) records
// holding a kept term, the terms' document frequencies counted on the same
// matching rows) and fuses them as package local does: each list min-max
// normalized (equal scores normalize to 1; a keyword list holding every
// match against 0, vector.KeywordLow), weighted Alpha and 1−Alpha,
// summed per record, the best topK returned. With a vector side the keyword
// side leaves out the terms common in the resource (vector.KeywordTerms,
// judged on the store's cached sample, see sample); when every term
// is common the query is a vector query. A metadata filter on an
// approximate vector search takes the statement-per-side path
// (hybridSides), which falls back to an exact search when the filter
// leaves too few candidates.
func (s *Store) hybrid(ctx context.Context, m meta, q vector.Query, topK int) ([]scoredHit, error) {
	fused := vector.Fused(q.TopK) // hits of each ranking fused
	exact := q.Alpha == 0 || s.exact(m, q, s.efSearch(fused))
	if !exact && !q.Filter.Metadata.IsZero() {
		return s.hybridSides(ctx, m, q, topK)
	}
	var words []string
	sampled := false // a query term occurs in the sample
	if q.Alpha < 1 && q.Text != "" {
		words = queryTerms(q)
		if q.Alpha > 0 && len(words) > 0 {
			ts, err := s.sample(ctx, m, q.Filter.ResourceID)
			if err != nil {
				return nil, err
			}
			sampled = slices.ContainsFunc(words, func(w string) bool { return ts.DF[w] > 0 })
			if words = vector.KeywordTerms(words, func(w string) int { return ts.DF[w] }, ts.N); len(words) == 0 {
				return s.vectorSide(ctx, m, q, topK) // every term is common
			}
		}
	}
	p := &params{args: []any{q.Filter.ResourceID, q.Filter.ThreadID, fused, topK, q.Alpha}}
	qt := s.qtable(m.tableInfo)
	var ctes, lists []string
	if len(words) > 0 {
		ctes = append(ctes, s.keywordCTEs(m, q, words, p)...)
		lists = append(lists, "kw")
	} else {
		ctes = append(ctes, "df AS (SELECT NULL::text AS lexeme WHERE false)")
	}
	// The statement's plan is generic (cached by the connection, no
	// planning per query): the access paths are chosen here, in the text.
	b := &pgx.Batch{}
	if q.Alpha > 0 {
		fusedVector := fused // hits of the vector ranking fused
		dist := "(embedding " + operator(m.cfg.Metric) + " " + p.arg(pgv.NewVector(q.Vector).String()) + "::" + m.storage + ")"
		if exact {
			// Adding 0 makes the distance other than the indexed
			// expression: the planner reads the resource's rows.
			dist += " + 0"
			b.Queue(noJIT)
		} else {
			// Through the index, the vector list is the approxCandidates
			// nearest of a search as wide as a vector query of topK
			// (efSearch): each candidate costs a heap read, and a list of
			// 100 from a search twice as wide costs 1.6–3× a vector
			// query, for a tail whose last entry scores 0 in the fusion
			// (docs/benchmarks/pgvector.md). The statement sorts
			// (keywords, fusion), which the search settings discourage:
			// its cost estimate becomes huge and would compile it just in
			// time, for a second.
			fusedVector = min(fused, approxCandidates*topK)
			ef := max(s.efSearch(topK), fusedVector)
			s.queueSearchSettings(b, m, widen(m, ef), ", set_config('jit', 'off', true)"+genericPlan)
		}
		ctes = append(ctes, `v AS MATERIALIZED (SELECT id, `+dist+` AS d FROM `+qt+`
	WHERE resource_id = $1 AND ($2 = '' OR thread_id = $2) AND `+metadataCond(q.Filter.Metadata, "", p)+` ORDER BY d LIMIT least($3::int, `+p.arg(fusedVector)+`::int))`)
		ctes = append(ctes, "vs AS (SELECT id, "+scoreSQL(m.cfg.Metric, "d")+" AS s FROM v)")
		lists = append(lists, "vs")
	}
	if len(lists) == 0 {
		return nil, nil
	}
	if b.Len() == 0 {
		b.Queue(noJIT)
	}
	// Each list is normalized by its own extremes (a window over the
	// whole list: no sort), a keyword list holding every match (fewer
	// than $3 rows) against 0 (vector.KeywordLow), then the lists are
	// joined by record.
	norm := func(list, w string) string {
		lo := "min(s) OVER ()"
		if list == "kw" {
			lo = "(CASE WHEN count(*) OVER () < $3::int THEN 0 ELSE min(s) OVER () END)"
		}
		return list + "n AS (SELECT id, s, " + w + " * CASE WHEN max(s) OVER () = " + lo + " THEN 1\n\t\t" +
			"ELSE (s - " + lo + ") / (max(s) OVER () - " + lo + ") END AS v FROM " + list + ")"
	}
	weights := map[string]string{"kw": "(1 - $5::float8)", "vs": "$5::float8"}
	for _, l := range lists {
		ctes = append(ctes, norm(l, weights[l]))
	}
	f := "SELECT id, v AS score, " + map[bool]string{true: "s", false: "NULL::float8"}[lists[0] == "vs"] + " AS vs FROM " + lists[0] + "n"
	if len(lists) == 2 {
		// The keyword score first, as package local adds them.
		f = `SELECT coalesce(k.id, v.id) AS id, coalesce(k.v, 0) + coalesce(v.v, 0) AS score, v.s AS vs
	FROM kwn AS k FULL JOIN vsn AS v ON v.id = k.id`
	}
	ctes = append(ctes, "f AS ("+f+" ORDER BY score DESC, id LIMIT $4)")
	sql := "WITH " + strings.Join(ctes, ",\n") + `
SELECT c.id, c.message_id, c.thread_id, c.resource_id, c.role, c.created_at, c.metadata, f.score, f.vs, (SELECT count(*) FROM df)
FROM f JOIN ` + qt + ` AS c ON c.resource_id = $1 AND c.id = f.id ORDER BY f.score DESC, f.id`
	var hits []scoredHit
	var held int64
	b.Queue(sql, p.args...).Query(func(rows pgx.Rows) error {
		defer rows.Close()
		for rows.Next() {
			var h scoredHit
			var role string
			var at time.Time
			var md []byte
			var vs *float64
			if err := rows.Scan(&h.ID, &h.Meta.MessageID, &h.Meta.ThreadID, &h.Meta.ResourceID, &role, &at, &md, &h.Score, &vs, &held); err != nil {
				return err
			}
			// No kept term is in the resource although a query term is:
			// as in package local, the query is a vector query, with
			// vector scores.
			if vs != nil && sampled && held == 0 {
				h.Score = *vs
			}
			h.Meta.Role, h.Meta.CreatedAt = message.Role(role), at
			h.Meta.Metadata = vector.DecodeMetadata(md)
			hits = append(hits, h)
		}
		return rows.Err()
	})
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, err
	}
	return hits, nil
}

// keywordCTEs returns the common table expressions m (the resource's rows
// holding a kept term, one row per term), df (each term's document
// frequency in the resource, counted on those rows, as for an unfiltered
// query) and kw (the BM25 of the rows that pass the thread and metadata
// filters, the best $3). The rows are found through the keyword index,
// except in a resource small both in records and in its share of the
// table, whose rows are read through the b-tree: the index's posting lists
// hold every resource's records.
func (s *Store) keywordCTEs(m meta, q vector.Query, words []string, p *params) []string {
	avg := float64(m.terms) / float64(m.records)
	if avg == 0 {
		avg = 1
	}
	ors := make([]string, len(words))
	for i, w := range words {
		ors[i] = lexeme(w)
	}
	tsq := p.arg(strings.Join(ors, " | ")) + "::tsquery"
	// The written form decides the index: an operator on the indexed column
	// can use it, a function call or an expression cannot.
	match := "(c.resource_id || '') = $1 AND c.keywords @@ " + tsq
	if m.records < int64(max(s.cfg.ExactBelow, 0)) && float64(m.records)*keywordShare < m.tuples {
		match = "c.resource_id = $1 AND ts_match_vq(c.keywords, " + tsq + ")"
	}
	ok := "($2 = '' OR c.thread_id = $2) AND " + metadataCond(q.Filter.Metadata, "c", p)
	return []string{`m AS MATERIALIZED (SELECT c.id, c.terms, x.lexeme, cardinality(x.positions)::float8 AS tf, ` + ok + ` AS ok
	FROM ` + s.qtable(m.tableInfo) + ` AS c, unnest(c.keywords) AS x
	WHERE ` + match + ` AND x.lexeme = ANY(` + p.arg(words) + `::text[]))`,
		`df AS (SELECT lexeme, count(*)::float8 AS df FROM m GROUP BY lexeme)`,
		`kw AS (SELECT m.id, sum(ln(1 + (` + p.arg(float64(m.records)) + `::float8 - df.df + 0.5) / (df.df + 0.5)) * m.tf * ` +
			p.arg(bm25K1+1) + `::float8 / (m.tf + ` + p.arg(bm25K1*(1-bm25B)) + `::float8 + ` + p.arg(bm25K1*bm25B/avg) + `::float8 * m.terms)) AS s
	FROM m JOIN df USING (lexeme) WHERE m.ok GROUP BY m.id ORDER BY s DESC, m.id LIMIT $3)`}
}

// noJIT turns just-in-time compilation off for a batch: a large resource's
// estimate can pass its threshold, and compiling costs more than the query.
const noJIT = "SELECT set_config('jit', 'off', true)" + genericPlan

// genericPlan adds to a batch's settings that its statement is planned once
// per connection, not per query: the statement is written for the access
// paths chosen (see hybrid), and planning it would cost as much as running
// it.
const genericPlan = ", set_config('plan_cache_mode', 'force_generic_plan', true)"

// approxCandidates times the query's TopK is the length of a hybrid query's
// vector list when the resource is searched through the approximate index
// (96 for a recall of TopK 4, which asks for vector.Candidates(4) = 12;
// vector.Fused(TopK) when read exactly). On LoCoMo dev searched through the
// index, its evidence recall is that of 100 candidates within 0.007 at α
// 0.2 and 0.5 (TestLoCoMoRecallApproximate).
const approxCandidates = 8

// keywordShare: a resource of fewer than Config.ExactBelow records and less
// than 1/keywordShare of the table's rows is searched by keyword through
// its own rows (see keywordCTEs).
const keywordShare = 20

// queueSearchSettings queues the index search parameters of an approximate
// vector search of width ef (see searchSettings), and extra settings
// (", set_config(...)").
func (s *Store) queueSearchSettings(b *pgx.Batch, m meta, ef int, extra string) {
	if !s.iterative {
		b.Queue(searchSettings+extra, strconv.Itoa(ef), strconv.Itoa(probes(m)))
		return
	}
	tuples := maxScanTuples(m, ef)
	// A scan stops at work_mem times the multiplier as well: sized so that
	// the memory does not stop it before the tuple bound does.
	mem := min(max(tuples/20000, 1), 1000)
	b.Queue(searchSettings+iterativeSettings+extra, strconv.Itoa(ef), strconv.Itoa(probes(m)), strconv.Itoa(tuples), strconv.Itoa(mem))
}

// scoreSQL is scoreFunc in SQL, of the distance expression d.
func scoreSQL(metric, d string) string {
	switch metric {
	case MetricDotProduct:
		return "-" + d
	case MetricEuclidean:
		return "1 / (1 + " + d + ")"
	}
	return "1 - " + d
}

// queryTerms returns the distinct terms of q's keywords (else of its text
// by analysis.Plain) that a tsquery can hold.
func queryTerms(q vector.Query) []string {
	var words []string
	if q.Keywords != "" {
		words = strings.Fields(q.Keywords)
	} else {
		words = analysis.Plain.Terms(q.Text)
	}
	var uniq []string
	for _, w := range words {
		w = strings.ReplaceAll(w, "\x00", "")
		if w == "" || len(w) > maxLexeme || slices.Contains(uniq, w) {
			continue
		}
		uniq = append(uniq, w)
	}
	return uniq
}

// hybridSides fuses the top vector.Fused(q.TopK) of the vector and BM25
// rankings, each side its own statement (see hybrid).
func (s *Store) hybridSides(ctx context.Context, m meta, q vector.Query, topK int) ([]scoredHit, error) {
	var ts []term
	if q.Alpha < 1 && q.Text != "" {
		var err error
		var held bool
		if ts, held, err = s.terms(ctx, m, q, q.Alpha > 0); err != nil {
			return nil, err
		}
		if q.Alpha > 0 && held && len(ts) == 0 {
			return s.vectorSide(ctx, m, q, topK) // every term is common
		}
	}
	fused := vector.Fused(q.TopK) // hits of each ranking fused
	kw, err := s.keywordSide(ctx, m, q, ts, fused)
	if err != nil {
		return nil, err
	}
	var vec []scoredHit
	if q.Alpha > 0 {
		if vec, err = s.vectorSide(ctx, m, q, fused); err != nil {
			return nil, err
		}
	}
	scores := map[string]*scoredHit{}
	var order []string
	add := func(list []scoredHit, w float64, keyword bool) {
		sortHits(list)
		if len(list) > fused {
			list = list[:fused]
		}
		if len(list) == 0 {
			return
		}
		hi, lo := list[0].Score, list[len(list)-1].Score
		if keyword {
			lo = vector.KeywordLow(lo, len(list) < fused)
		}
		for _, r := range list {
			v := vector.RelativeScore(r.Score, hi, lo, w)
			if f, ok := scores[r.ID]; ok {
				f.Score += v
				continue
			}
			r.Score = v
			scores[r.ID] = &r
			order = append(order, r.ID)
		}
	}
	add(kw, 1-q.Alpha, true)
	add(vec, q.Alpha, false)
	out := make([]scoredHit, 0, len(order))
	for _, id := range order {
		out = append(out, *scores[id])
	}
	return out, nil
}

// idf is BM25's inverse document frequency of a term in df of n records.
func idf(n, df float64) float64 { return math.Log(1 + (n-df+0.5)/(df+0.5)) }

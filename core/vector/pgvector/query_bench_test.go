package pgvector_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/analysis"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/pgvector"
)

// benchWords are bench-vec.mjs's message words.
var benchWords = strings.Fields("alpha beta gamma delta order ship tomorrow cat dog weather paris berlin invoice refund account password reset")

func benchText(i int) string {
	s := make([]string, 30)
	for k := range s {
		s[k] = benchWords[(i*7+k*13)%len(benchWords)]
	}
	return fmt.Sprintf("message %d: %s", i, strings.Join(s, " "))
}

// BenchmarkQueryVsLocal times the same vector and hybrid (α 0.5) queries,
// interleaved query by query, on pgvector (HNSW m 16, ef_construction 64,
// cosine) and on the local store, over one resource of bench-vec.mjs's
// messages (384-dimension hash vectors), and reports each side's p50, their
// ratio and pgvector's hybrid/vector ratio.
//
//	go test ./core/vector/pgvector/ -run '^$' -bench QueryVsLocal -benchtime 1x
func BenchmarkQueryVsLocal(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) { benchQueryVsLocal(b, n) })
	}
}

func benchQueryVsLocal(b *testing.B, n int) {
	an, emb := analysis.Must(analysis.English), local.NewHashEmbedder(0)
	pg := openFresh(b, pgvector.Config{})
	loc := local.New()
	cfg := vector.IndexConfig{Type: pgvector.TypeHNSW}
	spec := vector.IndexSpec{Name: "ix", Dimension: local.DefaultDimension, Config: vector.IndexConfig{Type: pgvector.TypeFlat}}
	stores := map[string]vector.Store{"pgvector": pg, "local": loc}
	for _, s := range stores {
		if err := s.EnsureIndex(bg(), spec); err != nil {
			b.Fatal(err)
		}
	}
	var recs []vector.Record
	for i := range n {
		t := benchText(i)
		recs = append(recs, vector.Record{ID: fmt.Sprint("m", i, "#0"), Vector: emb.EmbedOne(t), Keywords: an.Analyze(t),
			Meta: vector.Meta{MessageID: fmt.Sprint("m", i), ThreadID: "t", ResourceID: "r", CreatedAt: time.Unix(int64(i), 0)}})
		if len(recs) == 2000 || i == n-1 {
			for _, s := range stores {
				if err := s.Upsert(bg(), "ix", recs); err != nil {
					b.Fatal(err)
				}
			}
			recs = recs[:0]
		}
	}
	// The HNSW index is built once over the loaded rows (a bulk build), as
	// the local store builds its graph on the first search.
	spec.Config = cfg
	if err := pg.EnsureIndex(bg(), spec); err != nil {
		b.Fatal(err)
	}
	if _, err := testPool(b).Exec(bg(), `ANALYZE "`+pg.Schema()+`".vectors_ix`); err != nil {
		b.Fatal(err)
	}
	if err := loc.BuildGraphs(bg(), "ix"); err != nil {
		b.Fatal(err)
	}
	lat := map[string][]time.Duration{}
	b.ResetTimer()
	for r := range 81 {
		qt := fmt.Sprintf("what did I say about %s and %s in message %d", benchWords[(r*3)%len(benchWords)], benchWords[(r*5+1)%len(benchWords)], (r*7919)%n)
		// Each mode goes first in a third of the rounds: the first search
		// of a query vector reads the index pages the next finds cached.
		// "sides" is pgvector's hybrid with one statement per side, the
		// fusion in Go.
		modes := []string{vector.SearchVector, vector.SearchHybrid, "sides"}
		modes = append(modes[r%3:], modes[:r%3]...)
		for _, mode := range modes {
			q := vector.Query{Text: qt, Keywords: an.Analyze(qt), Vector: emb.EmbedOne(qt), TopK: 4, Mode: mode, Alpha: 0.5, Filter: vector.Filter{ResourceID: "r"}}
			for _, name := range []string{"pgvector", "local"} {
				query := stores[name].Query
				if mode == "sides" {
					if name == "local" {
						continue
					}
					q.Mode, query = vector.SearchHybrid, pg.QueryBySides
				}
				t0 := time.Now()
				hits, err := query(bg(), "ix", q)
				if err != nil || len(hits) == 0 {
					b.Fatalf("%s %s: %d hits, %v", name, mode, len(hits), err)
				}
				if r > 0 { // the first round warms caches
					lat[name+"/"+mode] = append(lat[name+"/"+mode], time.Since(t0))
				}
			}
		}
	}
	p50 := func(k string) float64 {
		l := lat[k]
		slices.Sort(l)
		return float64(l[len(l)/2].Microseconds()) / 1000
	}
	for _, mode := range []string{vector.SearchVector, vector.SearchHybrid} {
		b.ReportMetric(p50("pgvector/"+mode), mode+"-pgvector-p50-ms")
		b.ReportMetric(p50("local/"+mode), mode+"-local-p50-ms")
		b.ReportMetric(p50("pgvector/"+mode)/p50("local/"+mode), mode+"-pgvector/local")
	}
	b.ReportMetric(p50("pgvector/hybrid")/p50("pgvector/vector"), "pgvector-hybrid/vector")
	b.ReportMetric(p50("pgvector/sides"), "sides-pgvector-p50-ms")
	b.ReportMetric(p50("pgvector/sides")/p50("pgvector/vector"), "pgvector-sides/vector")
}

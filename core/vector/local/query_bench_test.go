package local

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/analysis"
)

// benchWords are bench-vec.mjs's message words.
var benchWords = strings.Fields("alpha beta gamma delta order ship tomorrow cat dog weather paris berlin invoice refund account password reset")

// BenchmarkModes times vector, hybrid (α 0.2) and exact-vector queries
// interleaved, query by query, on bench-vec.mjs's corpus (its 17-word
// messages, each indexed with the previous one as context, as Memory does)
// and reports each mode's p50 and hybrid's ratio to vector mode.
//
//	go test ./core/vector/local/ -run '^$' -bench Modes -benchtime 1x -timeout 60m
func BenchmarkModes(b *testing.B) {
	const n = 20_000
	words := benchWords
	text := func(i int) string {
		s := make([]string, 30)
		for k := range s {
			s[k] = words[(i*7+k*13)%len(words)]
		}
		return fmt.Sprintf("message %d: %s", i, strings.Join(s, " "))
	}
	an, emb := analysis.Must(analysis.English), NewHashEmbedder(0)
	approx, exact := New(), NewWithOptions(Options{ApproximateFrom: -1})
	ctx := context.Background()
	for _, s := range []*Store{approx, exact} {
		if err := s.EnsureIndex(ctx, vector.IndexSpec{Name: "ix", Dimension: DefaultDimension}); err != nil {
			b.Fatal(err)
		}
	}
	var recs []vector.Record
	for i := range n {
		t := text(i)
		if i > 0 {
			t = text(i-1) + "\n" + t
		}
		recs = append(recs, vector.Record{ID: fmt.Sprint("m", i, "#0"), Vector: emb.EmbedOne(t), Keywords: an.Analyze(t),
			Meta: vector.Meta{MessageID: fmt.Sprint("m", i), ThreadID: "t", ResourceID: "r"}})
	}
	for _, s := range []*Store{approx, exact} {
		if err := s.Upsert(ctx, "ix", recs); err != nil {
			b.Fatal(err)
		}
	}
	lat := map[string][]time.Duration{}
	for r := range 41 {
		qt := fmt.Sprintf("what did I say about %s and %s in message %d", words[(r*3)%len(words)], words[(r*5+1)%len(words)], (r*7919)%n)
		q := vector.Query{Text: qt, Keywords: an.Analyze(qt), Vector: emb.EmbedOne(qt), TopK: 4, Filter: vector.Filter{ResourceID: "r"}}
		for _, m := range []struct {
			name  string
			s     *Store
			mode  string
			alpha float64
		}{{"vector", approx, vector.SearchVector, 0}, {"hybrid", approx, vector.SearchHybrid, 0.2}, {"exact-vector", exact, vector.SearchVector, 0}} {
			q.Mode, q.Alpha = m.mode, m.alpha
			t0 := time.Now()
			if _, err := m.s.Query(ctx, "ix", q); err != nil {
				b.Fatal(err)
			}
			if r > 0 { // the first query builds the graph
				lat[m.name] = append(lat[m.name], time.Since(t0))
			}
		}
	}
	p50 := func(name string) float64 {
		l := lat[name]
		sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
		return float64(l[len(l)/2].Microseconds()) / 1000
	}
	for _, name := range []string{"vector", "hybrid", "exact-vector"} {
		b.ReportMetric(p50(name), name+"-p50-ms")
	}
	b.ReportMetric(p50("hybrid")/p50("vector"), "hybrid/vector")
	b.ReportMetric(p50("exact-vector")/p50("hybrid"), "exact/hybrid")
}

// BenchmarkHybridQuery times the hybrid query alone (graph search and BM25,
// fused) on a 20k-record partition with its graph: random 384-dimension
// vectors, 30-word keyword lists of bench-vec.mjs's words plus "message N".
// With -cpu 1 it measures the CPU cost of a query, which a loaded machine
// distorts less than the wall time of BenchmarkModes.
//
//	go test ./core/vector/local/ -run '^$' -bench HybridQuery -benchtime 2000x -count 3 -cpu 1
func BenchmarkHybridQuery(b *testing.B) {
	hq.once.Do(func() {
		r := rand.New(rand.NewPCG(1, 2))
		words := benchWords
		p := newPartition("r", 1)
		for i, v := range randomVectors(r, 20_000, DefaultDimension) {
			kw := []string{"message", fmt.Sprint(i)}
			for k := range 30 {
				kw = append(kw, words[(i*7+k*13)%len(words)])
			}
			p.put(vector.Record{ID: fmt.Sprint("m", i, "#0"), Vector: v, Keywords: strings.Join(kw, " "),
				Meta: vector.Meta{MessageID: fmt.Sprint("m", i), ThreadID: "t"}})
		}
		p.indexGraph(0)
		hq.p = p
		for i, v := range randomVectors(r, 50, DefaultDimension) {
			kw := words[i%len(words)] + " " + words[(i*5+1)%len(words)] + " message " + fmt.Sprint(i*397)
			hq.queries = append(hq.queries, vector.Query{Vector: v, Keywords: kw, TopK: 4, Alpha: 0.2})
		}
	})
	b.ResetTimer()
	for i := range b.N {
		hybrid(hq.p, hq.queries[i%len(hq.queries)], -1, 4)
	}
}

// hq is BenchmarkHybridQuery's partition and queries, built once.
var hq struct {
	once    sync.Once
	p       *partition
	queries []vector.Query
}

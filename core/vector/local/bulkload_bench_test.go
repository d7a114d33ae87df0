package local

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/analysis"
)

// BenchmarkBulkLoad saves bench-vec.mjs's corpus (its 17-word messages
// numbered, so every vector is distinct) into one resource in writes of 1,000
// records, as a bulk save or an import does, and times the first searches
// right after the load (TopK 4, vector and hybrid α 0.2, query by query
// interleaved), with writes that index (the default) and with writes that
// leave the graph to a background build started by the first search. It
// reports the load time (upsert-s: the time in Upsert, graph building
// included), the p50 of each mode right after it, and how long after the
// load the graph was ready (0 when the load left it ready). The record
// count is $AGENTMEM_BULK_N (default 10,000), the records per write
// $AGENTMEM_BULK_WRITE (default 1,000; the count for one bulk write).
//
//	AGENTMEM_BULK_N=100000 go test ./core/vector/local/ -run '^$' -bench BulkLoad -benchtime 1x -timeout 90m
func BenchmarkBulkLoad(b *testing.B) {
	n, write := envInt("AGENTMEM_BULK_N", 10_000), envInt("AGENTMEM_BULK_WRITE", 1000)
	for _, onWrite := range []bool{true, false} {
		b.Run(fmt.Sprintf("indexOnWrite=%v", onWrite), func(b *testing.B) {
			for range b.N {
				bulkLoad(b, n, write, onWrite)
			}
		})
	}
}

func bulkLoad(b *testing.B, n, write int, onWrite bool) {
	ctx, an, emb := context.Background(), analysis.Must(analysis.English), NewHashEmbedder(384)
	s := New()
	defer s.Close()
	s.indexOnWrite = onWrite
	if err := s.EnsureIndex(ctx, vector.IndexSpec{Name: "ix", Dimension: 384}); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 7))
	t0 := time.Now()
	var upsert time.Duration
	for lo := 0; lo < n; lo += write {
		recs := make([]vector.Record, 0, write)
		for i := lo; i < min(lo+write, n); i++ {
			t := bulkText(r, i)
			recs = append(recs, vector.Record{ID: fmt.Sprint("m", i, "#0"), Vector: emb.EmbedOne(t), Keywords: an.Analyze(t),
				Meta: vector.Meta{MessageID: fmt.Sprint("m", i), ThreadID: "t", ResourceID: "r"}})
		}
		t := time.Now()
		if err := s.Upsert(ctx, "ix", recs); err != nil {
			b.Fatal(err)
		}
		upsert += time.Since(t)
	}
	load := time.Since(t0)
	t1 := time.Now()
	modes := []string{vector.SearchVector, vector.SearchHybrid}
	lat := make([][]time.Duration, len(modes))
	for range 20 {
		qt := fmt.Sprintf("what did I say about %s and %s in message %d", benchWords[r.IntN(len(benchWords))],
			benchWords[r.IntN(len(benchWords))], r.IntN(n))
		q := vector.Query{Text: qt, Keywords: an.Analyze(qt), Vector: emb.EmbedOne(qt), TopK: 4, Alpha: 0.2, Filter: vector.Filter{ResourceID: "r"}}
		for j, m := range modes {
			q.Mode = m
			t := time.Now()
			if _, err := s.Query(ctx, "ix", q); err != nil {
				b.Fatal(err)
			}
			lat[j] = append(lat[j], time.Since(t))
		}
	}
	for !s.graphReady("ix", "r") {
		time.Sleep(10 * time.Millisecond)
	}
	var window time.Duration
	if !onWrite {
		window = time.Since(t1)
	}
	b.ReportMetric(load.Seconds(), "load-s")
	b.ReportMetric(upsert.Seconds(), "upsert-s")
	b.ReportMetric(window.Seconds(), "window-s")
	for j, m := range modes {
		l := lat[j]
		sort.Slice(l, func(a, c int) bool { return l[a] < l[c] })
		b.ReportMetric(float64(l[len(l)/2].Microseconds())/1000, m+"-after-load-p50-ms")
	}
}

// graphReady reports whether the resource's graph covers it but at most
// graphLag records, is calibrated and no build of it is under way.
func (s *Store) graphReady(name, resource string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p := s.indexes[name].parts[resource]
	g := p.graph
	return g != nil && g.beam != 0 && !p.building && !g.calibrating && len(p.slots)-int(g.n) <= graphLag
}

// envInt returns the positive integer in environment variable name, def
// when it holds none.
func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// bulkText returns BenchmarkBulkLoad's message i: its number and 17 of
// bench-vec.mjs's words drawn from r.
func bulkText(r *rand.Rand, i int) string {
	w := make([]string, 17)
	for k := range w {
		w[k] = benchWords[r.IntN(len(benchWords))]
	}
	return fmt.Sprintf("message %d: %s", i, strings.Join(w, " "))
}

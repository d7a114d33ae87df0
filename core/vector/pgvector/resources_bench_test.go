package pgvector_test

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/pgvector"
)

// envInt returns the positive integer in the environment variable name, or def.
func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// BenchmarkManyResources measures the one shared table at many resources:
// $AGENTMEM_RESOURCES resources (default 10,000) of $AGENTMEM_PER records
// (default 20) each, random unit vectors of $AGENTMEM_DIM dimensions
// (default 64), under one HNSW index (m 16, ef_construction 64, cosine). It
// queries random resources (TopK 10) through the HNSW index with iterative
// scans (Config.ExactBelow -1) and as the store chooses (a resource this
// small is searched exactly through the resource b-tree), and reports each
// one's recall@10 against brute force over the resource's own vectors and
// its p50, and the table's size per resource.
//
//	go test ./core/vector/pgvector/ -run '^$' -bench ManyResources -benchtime 1x -timeout 30m
func BenchmarkManyResources(b *testing.B) {
	resources, per, dim := envInt("AGENTMEM_RESOURCES", 10_000), envInt("AGENTMEM_PER", 20), envInt("AGENTMEM_DIM", 64)
	p := testPool(b)
	auto := openFresh(b, pgvector.Config{})
	hnsw, err := pgvector.New(bg(), p, pgvector.Config{Schema: auto.Schema(), ExactBelow: -1})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(41, 10))
	unit := func() []float32 {
		v := make([]float32, dim)
		var n float64
		for i := range v {
			x := rng.NormFloat64()
			v[i], n = float32(x), n+x*x
		}
		for i := range v {
			v[i] /= float32(math.Sqrt(n))
		}
		return v
	}
	// A bulk load goes faster into a flat index, indexed once at the end.
	spec := vector.IndexSpec{Name: "many", Dimension: dim, Config: vector.IndexConfig{Type: pgvector.TypeFlat}}
	if err := auto.EnsureIndex(bg(), spec); err != nil {
		b.Fatal(err)
	}
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	vecs := make([][][]float32, resources) // by resource, by record
	var recs []vector.Record
	t0 := time.Now()
	for r := range resources {
		res := "r" + strconv.Itoa(r)
		for i := range per {
			v := unit()
			vecs[r] = append(vecs[r], v)
			recs = append(recs, vector.Record{ID: fmt.Sprintf("m%d#0", i), Vector: v, Keywords: fmt.Sprintf("w%d w%d", i%7, r%101),
				Meta: vector.Meta{MessageID: fmt.Sprintf("m%d", i), ThreadID: "t", ResourceID: res, Role: message.RoleUser, CreatedAt: at.Add(time.Duration(i) * time.Second)}})
			if len(recs) == 5000 || r == resources-1 && i == per-1 {
				if err := auto.Upsert(bg(), "many", recs); err != nil {
					b.Fatal(err)
				}
				recs = recs[:0]
			}
		}
	}
	load := time.Since(t0)
	t0 = time.Now()
	spec.Config = vector.IndexConfig{Type: pgvector.TypeHNSW}
	if err := auto.EnsureIndex(bg(), spec); err != nil {
		b.Fatal(err)
	}
	build := time.Since(t0)
	tbl := `"` + auto.Schema() + `".vectors_many`
	if _, err := p.Exec(bg(), "ANALYZE "+tbl); err != nil {
		b.Fatal(err)
	}
	var bytes int64
	if err := p.QueryRow(bg(), "SELECT pg_total_relation_size($1::regclass)", tbl).Scan(&bytes); err != nil {
		b.Fatal(err)
	}

	// exact returns the ids of resource r's k records most similar to q.
	exact := func(r int, q []float32, k int) []string {
		type scored struct {
			id  string
			sim float64
		}
		all := make([]scored, len(vecs[r]))
		for i, v := range vecs[r] {
			var dot float64
			for j := range v {
				dot += float64(v[j]) * float64(q[j])
			}
			all[i] = scored{fmt.Sprintf("m%d#0", i), dot}
		}
		slices.SortFunc(all, func(a, b scored) int { return cmp.Compare(b.sim, a.sim) })
		ids := make([]string, 0, k)
		for _, s := range all[:min(k, len(all))] {
			ids = append(ids, s.id)
		}
		return ids
	}
	const queries, topK = 200, 10
	stores := []struct {
		name string
		s    *pgvector.Store
	}{{"hnsw", hnsw}, {"auto", auto}}
	lat := map[string][]time.Duration{}
	recall := map[string]float64{}
	b.ResetTimer()
	for n := range queries + 1 {
		r := rng.IntN(resources)
		res := "r" + strconv.Itoa(r)
		q := vector.Query{Vector: unit(), TopK: topK, Filter: vector.Filter{ResourceID: res}}
		want := exact(r, q.Vector, topK)
		for _, st := range stores {
			start := time.Now()
			hits, err := st.s.Query(bg(), "many", q)
			d := time.Since(start)
			if err != nil {
				b.Fatal(err)
			}
			if n == 0 { // the first round warms caches
				continue
			}
			lat[st.name] = append(lat[st.name], d)
			found := 0
			for _, h := range hits {
				if h.Meta.ResourceID != res {
					b.Fatalf("%s: hit of resource %s in a query of %s", st.name, h.Meta.ResourceID, res)
				}
				if slices.Contains(want, h.ID) {
					found++
				}
			}
			recall[st.name] += float64(found) / float64(len(want))
		}
	}
	b.StopTimer()
	for _, st := range stores {
		l := lat[st.name]
		slices.Sort(l)
		b.ReportMetric(recall[st.name]/queries, st.name+"-recall@10")
		b.ReportMetric(float64(l[len(l)/2].Microseconds())/1000, st.name+"-p50-ms")
		b.ReportMetric(float64(l[len(l)*95/100].Microseconds())/1000, st.name+"-p95-ms")
	}
	b.ReportMetric(float64(bytes)/float64(resources), "table-bytes/resource")
	b.ReportMetric(load.Seconds(), "load-s")
	b.ReportMetric(build.Seconds(), "hnsw-build-s")
}

package pgvector_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/pgvector"
	"github.com/agentmem/agentmem/internal/testenv"
)

// scaleData is a table of about 107,000 random vectors: 999 resources of 80
// records, resources "big" of 20,000, "mid5000" and "mid2000" and a resource
// "small" of 10.
type scaleData struct {
	approx, auto *pgvector.Store // one schema: every resource through the index / the store's choice
	exact        *pgvector.Store // another schema, the same records in a flat index
	index        string
	rng          *rand.Rand
}

const (
	scaleDim       = 16
	scaleResources = 999
	scalePer       = 80
	scaleBig       = 20000
)

func randVec(rng *rand.Rand) []float32 {
	v := make([]float32, scaleDim)
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

// loadScale fills the approximate store's index of cfg and the exact one.
func loadScale(t *testing.T, cfg vector.IndexConfig) scaleData { return loadScaleB(t, cfg) }

func loadScaleB(t testing.TB, cfg vector.IndexConfig) scaleData {
	t.Helper()
	d := scaleData{exact: openFresh(t, pgvector.Config{}), index: "scale", rng: rand.New(rand.NewPCG(7, 8))}
	// One connection each, so that indexScans can flush their statistics.
	schema := freshSchema(t)
	for _, c := range []struct {
		s   **pgvector.Store
		cfg pgvector.Config
	}{{&d.auto, pgvector.Config{Schema: schema}}, {&d.approx, pgvector.Config{Schema: schema, ExactBelow: -1}}} {
		s, err := pgvector.Open(bg(), testenv.Postgres(t)+"&pool_max_conns=1", c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		*c.s = s
	}
	// Bulk loads go faster into a flat index, indexed once at the end.
	flat := vector.IndexSpec{Name: d.index, Dimension: scaleDim, Config: vector.IndexConfig{Type: pgvector.TypeFlat}}
	for _, s := range []*pgvector.Store{d.auto, d.exact} {
		if err := s.EnsureIndex(bg(), flat); err != nil {
			t.Fatal(err)
		}
	}
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var recs []vector.Record
	add := func(resource string, n int) {
		for i := range n {
			recs = append(recs, vector.Record{ID: fmt.Sprintf("m%d#0", i), Vector: randVec(d.rng), Keywords: fmt.Sprintf("w%d", i%7),
				Meta: vector.Meta{MessageID: fmt.Sprintf("m%d", i), ThreadID: "t", ResourceID: resource, Role: message.RoleUser, CreatedAt: at}})
			if len(recs) == 5000 {
				for _, s := range []*pgvector.Store{d.auto, d.exact} {
					if err := s.Upsert(bg(), d.index, recs); err != nil {
						t.Fatal(err)
					}
				}
				recs = recs[:0]
			}
		}
	}
	for r := range scaleResources {
		add(fmt.Sprintf("r%d", r), scalePer)
	}
	add("big", scaleBig)
	add("mid2000", 2000)
	add("mid5000", 5000)
	add("small", 10)
	add("", 0)
	if len(recs) > 0 {
		for _, s := range []*pgvector.Store{d.auto, d.exact} {
			if err := s.Upsert(bg(), d.index, recs); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := d.auto.EnsureIndex(bg(), vector.IndexSpec{Name: d.index, Dimension: scaleDim, Config: cfg}); err != nil {
		t.Fatal(err)
	}
	if _, err := testPool(t).Exec(bg(), `ANALYZE "`+d.auto.Schema()+`".vectors_scale`); err != nil {
		t.Fatal(err)
	}
	return d
}

// indexScans returns the number of scans of the approximate index so far.
func (d scaleData) indexScans(t testing.TB) int64 {
	t.Helper()
	var n int64
	// A backend reports its statistics when idle, at most once a second
	// unless forced: force it on each store's one connection, then read.
	for _, s := range []*pgvector.Store{d.auto, d.approx} {
		if _, err := s.Pool().Exec(bg(), "SELECT pg_stat_force_next_flush()"); err != nil {
			t.Fatal(err)
		}
	}
	p := d.approx.Pool()
	if _, err := p.Exec(bg(), "SELECT pg_stat_clear_snapshot()"); err != nil {
		t.Fatal(err)
	}
	if err := p.QueryRow(bg(), `SELECT coalesce((SELECT idx_scan FROM pg_stat_user_indexes WHERE schemaname = $1 AND indexrelname = 'vectors_scale_ann'), -1)`,
		d.approx.Schema()).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// recall returns the mean recall@10 of s against exact search over n
// queries of resource (a random small resource when ""), and the p50 of
// their latency.
func (d scaleData) recall(t *testing.T, s *pgvector.Store, resource string, n int) (float64, time.Duration) {
	t.Helper()
	var sum float64
	var lat []time.Duration
	for range n {
		r := resource
		if r == "" {
			r = fmt.Sprintf("r%d", d.rng.IntN(scaleResources))
		}
		q := vector.Query{Vector: randVec(d.rng), TopK: 10, Filter: vector.Filter{ResourceID: r}}
		want, err := d.exact.Query(bg(), d.index, q)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		got, err := s.Query(bg(), d.index, q)
		lat = append(lat, time.Since(start))
		if err != nil {
			t.Fatal(err)
		}
		found := 0
		for _, h := range got {
			if h.Meta.ResourceID != r {
				t.Fatalf("hit of resource %s in a query of %s", h.Meta.ResourceID, r)
			}
			if slices.ContainsFunc(want, func(w vector.Hit) bool { return w.ID == h.ID }) {
				found++
			}
		}
		sum += float64(found) / float64(len(want))
	}
	slices.Sort(lat)
	return sum / float64(n), lat[len(lat)/2]
}

// TestScale: on about 100,000 vectors in 1,001 resources, a resource of 10
// records returns its TopK whichever way it is searched; the store's own
// choice keeps recall@10 ≥ 0.95 of exact search for small and large
// resources, and serves the large one from the HNSW index.
func TestScale(t *testing.T) {
	testPool(t)
	cfg := vector.IndexConfig{Type: pgvector.TypeHNSW}
	cfg.HNSW.M, cfg.HNSW.EfConstruction = 8, 40 // a quicker build of the test's table
	d := loadScale(t, cfg)

	q := vector.Query{Vector: randVec(d.rng), TopK: 10, Filter: vector.Filter{ResourceID: "small"}}
	for name, s := range map[string]*pgvector.Store{"approximate": d.approx, "auto": d.auto} {
		hits, err := s.Query(bg(), d.index, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 10 {
			t.Fatalf("%s: %d hits for the 10 records of a resource, want 10", name, len(hits))
		}
	}

	before := d.indexScans(t)
	small, smallP50 := d.recall(t, d.auto, "", 50)
	big, bigP50 := d.recall(t, d.auto, "big", 50)
	forced, forcedP50 := d.recall(t, d.approx, "", 20)
	t.Logf("recall@10: small resources %.3f (p50 %v), the large one %.3f (p50 %v); small resources through the index %.3f (p50 %v)",
		small, smallP50, big, bigP50, forced, forcedP50)
	if small < 0.95 || big < 0.95 {
		t.Fatalf("recall@10 small %.3f, large %.3f, want ≥ 0.95", small, big)
	}
	if after := d.indexScans(t); after <= before {
		t.Fatalf("the HNSW index served no query (scans %d -> %d)", before, after)
	}
}

// BenchmarkExactOrIndex times exact search (the resource's rows through the
// b-tree) against the HNSW index (m 16, ef_construction 64) for resources of
// 80 to 20,000 records in a table of about 107,000, the measurement behind
// Config.ExactBelow and the share rule of the store's choice. It reports the
// p50 of each and the store's own choice.
//
//	go test ./core/vector/pgvector/ -run '^$' -bench ExactOrIndex -benchtime 1x
func BenchmarkExactOrIndex(b *testing.B) {
	d := loadScaleB(b, vector.IndexConfig{Type: pgvector.TypeHNSW})
	exact, err := pgvector.New(bg(), testPool(b), pgvector.Config{Schema: d.auto.Schema(), ExactBelow: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for _, r := range []string{"r0", "mid2000", "mid5000", "big"} {
		for name, s := range map[string]*pgvector.Store{"exact": exact, "index": d.approx, "auto": d.auto} {
			var lat []time.Duration
			for i := range 21 {
				q := vector.Query{Vector: randVec(d.rng), TopK: 4, Filter: vector.Filter{ResourceID: r}}
				t0 := time.Now()
				if _, err := s.Query(bg(), d.index, q); err != nil {
					b.Fatal(err)
				}
				if i > 0 {
					lat = append(lat, time.Since(t0))
				}
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, r+"-"+name+"-p50-ms")
		}
	}
}

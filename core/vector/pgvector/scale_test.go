package pgvector_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/pgvector"
)

// scaleData is a table of 100,000 random 32-dimension vectors spread over
// 1,000 resources of 100 records, and a resource "small" of 10.
type scaleData struct {
	approx, exact *pgvector.Store // one schema: every resource through the index / the default choice
	index         string
	rng           *rand.Rand
}

const (
	scaleDim       = 32
	scaleResources = 1000
	scalePer       = 100
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

func loadScale(t *testing.T, cfg vector.IndexConfig) scaleData {
	t.Helper()
	d := scaleData{exact: openFresh(t, pgvector.Config{}), index: "scale", rng: rand.New(rand.NewPCG(7, 8))}
	// One connection, so that indexScans can flush its statistics.
	var err error
	if d.approx, err = pgvector.Open(bg(), os.Getenv("AGENTMEM_PG_DSN")+"&pool_max_conns=1", pgvector.Config{Schema: d.exact.Schema(), ExactBelow: -1}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.approx.Close() })
	// Bulk loads go faster into a flat index, indexed once at the end.
	flat := vector.IndexSpec{Name: d.index, Dimension: scaleDim, Config: vector.IndexConfig{Type: pgvector.TypeFlat}}
	if err := d.approx.EnsureIndex(bg(), flat); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var recs []vector.Record
	flush := func() {
		if err := d.approx.Upsert(bg(), d.index, recs); err != nil {
			t.Fatal(err)
		}
		recs = recs[:0]
	}
	for r := range scaleResources {
		for i := range scalePer {
			recs = append(recs, vector.Record{ID: fmt.Sprintf("m%d#0", i), Vector: randVec(d.rng), Keywords: fmt.Sprintf("w%d", i%7),
				Meta: vector.Meta{MessageID: fmt.Sprintf("m%d", i), ThreadID: "t", ResourceID: fmt.Sprintf("r%d", r), Role: message.RoleUser, CreatedAt: at}})
		}
		if len(recs) >= 5000 {
			flush()
		}
	}
	for i := range 10 {
		recs = append(recs, vector.Record{ID: fmt.Sprintf("s%d#0", i), Vector: randVec(d.rng),
			Meta: vector.Meta{MessageID: fmt.Sprintf("s%d", i), ThreadID: "t", ResourceID: "small", Role: message.RoleUser, CreatedAt: at}})
	}
	flush()
	if err := d.approx.EnsureIndex(bg(), vector.IndexSpec{Name: d.index, Dimension: scaleDim, Config: cfg}); err != nil {
		t.Fatal(err)
	}
	if _, err := testPool(t).Exec(bg(), `ANALYZE "`+d.approx.Schema()+`".vectors_scale`); err != nil {
		t.Fatal(err)
	}
	return d
}

// indexScans returns the number of scans of the approximate index so far.
func (d scaleData) indexScans(t *testing.T) int64 {
	t.Helper()
	var n int64
	// A backend reports its statistics when idle, at most once a second
	// unless forced: force it on the store's one connection, then read.
	p := d.approx.Pool()
	if _, err := p.Exec(bg(), "SELECT pg_stat_force_next_flush()"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Exec(bg(), "SELECT pg_stat_clear_snapshot()"); err != nil {
		t.Fatal(err)
	}
	if err := p.QueryRow(bg(), `SELECT coalesce((SELECT idx_scan FROM pg_stat_user_indexes WHERE schemaname = $1 AND indexrelname = 'vectors_scale_ann'), -1)`,
		d.approx.Schema()).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestFilteredTopK: a resource of 10 records among 100,000 returns all 10
// for TopK 10, through the HNSW index with iterative scans and by the
// default choice (an exact read of the resource).
func TestFilteredTopK(t *testing.T) {
	testPool(t)
	d := loadScale(t, vector.IndexConfig{Type: pgvector.TypeHNSW})
	q := vector.Query{Vector: randVec(d.rng), TopK: 10, Filter: vector.Filter{ResourceID: "small"}}
	for name, s := range map[string]*pgvector.Store{"approximate": d.approx, "default": d.exact} {
		hits, err := s.Query(bg(), d.index, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 10 {
			t.Fatalf("%s: %d hits, want 10", name, len(hits))
		}
		for _, h := range hits {
			if h.Meta.ResourceID != "small" {
				t.Fatalf("%s: hit of resource %s", name, h.Meta.ResourceID)
			}
		}
	}
}

// TestApproximateRecall: recall@10 of the HNSW and ivfflat indexes, each
// query filtered to its resource, against exact search, over 100,000
// vectors in 1,000 resources; the index must serve the queries.
func TestApproximateRecall(t *testing.T) {
	testPool(t)
	for _, cfg := range []vector.IndexConfig{{Type: pgvector.TypeHNSW}, {Type: pgvector.TypeIVFFlat}} {
		t.Run(cfg.Type, func(t *testing.T) {
			d := loadScale(t, cfg)
			before := d.indexScans(t)
			const queries = 50
			var sum float64
			var lat []time.Duration
			for range queries {
				q := vector.Query{Vector: randVec(d.rng), TopK: 10, Filter: vector.Filter{ResourceID: fmt.Sprintf("r%d", d.rng.IntN(scaleResources))}}
				want, err := d.exact.Query(bg(), d.index, q)
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				got, err := d.approx.Query(bg(), d.index, q)
				lat = append(lat, time.Since(start))
				if err != nil {
					t.Fatal(err)
				}
				found := 0
				for _, h := range got {
					if slices.ContainsFunc(want, func(w vector.Hit) bool { return w.ID == h.ID }) {
						found++
					}
				}
				sum += float64(found) / float64(len(want))
			}
			slices.Sort(lat)
			recall := sum / queries
			t.Logf("%s recall@10 %.3f over %d filtered queries (p50 %v)", cfg.Type, recall, queries, lat[len(lat)/2])
			if recall < 0.95 {
				t.Fatalf("recall@10 %.3f < 0.95", recall)
			}
			if after := d.indexScans(t); after <= before {
				t.Fatalf("the %s index served no query (scans %d -> %d)", cfg.Type, before, after)
			}
		})
	}
}

package local

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/vectortest"
)

// graphPartition returns a partition of vecs whose searches all go through
// the graph, calibrated, four threads taking turns.
func graphPartition(vecs [][]float32) *partition {
	p := newPartition("r", 1)
	for i, v := range vecs {
		p.put(vector.Record{ID: fmt.Sprint(i), Vector: v, Meta: vector.Meta{ThreadID: fmt.Sprint("t", i%4)}})
	}
	p.indexGraph(0)
	g := p.graph
	g.setBeam(g.calibrate(g.n, nil), g.n)
	return p
}

// exactTop returns the indexes of the k vectors most similar to q by float64
// cosine similarity of the original float32 vectors.
func exactTop(vecs [][]float32, q []float32, k int) []int {
	type hit struct {
		i int
		s float64
	}
	hits := make([]hit, len(vecs))
	for i, v := range vecs {
		var d, n float64
		for j, x := range v {
			d += float64(x) * float64(q[j])
			n += float64(x) * float64(x)
		}
		hits[i] = hit{i, d / math.Sqrt(n)}
	}
	sort.Slice(hits, func(a, b int) bool { return hits[a].s > hits[b].s })
	out := make([]int, k)
	for i := range out {
		out[i] = hits[i].i
	}
	return out
}

// recallAt10 is the mean share of the exact top 10 (float32 vectors, float64
// arithmetic) that the graph search of p returns, thread filter optional.
func recallAt10(p *partition, vecs, queries [][]float32, thread int32) float64 {
	return recallOf(p, vecs, queries, thread, func(q []float32) []scored { return p.top(p.nearest(unit(q), thread, 10), 10) })
}

// recallAt10Ef is recallAt10 without a filter, searching p's graph alone
// with a beam of ef.
func recallAt10Ef(p *partition, vecs, queries [][]float32, ef int) float64 {
	return recallOf(p, vecs, queries, -1, func(q []float32) []scored {
		var out []scored
		for _, c := range p.graph.search(unit(q), 10, ef, nil) {
			out = append(out, scored{c.id, float64(c.sim)})
		}
		return out
	})
}

// recallOf is the mean share of the exact top 10 of the vectors of thread
// (-1: all) that search returns for each query.
func recallOf(p *partition, vecs, queries [][]float32, thread int32, search func(q []float32) []scored) float64 {
	var sum float64
	for _, q := range queries {
		var cand [][]float32
		var idx []int
		for i, v := range vecs {
			if thread < 0 || int32(i%4) == thread {
				cand, idx = append(cand, v), append(idx, i)
			}
		}
		want := map[string]bool{}
		for _, i := range exactTop(cand, q, 10) {
			want[fmt.Sprint(idx[i])] = true
		}
		got := 0
		for _, r := range search(q) {
			if want[p.slots[r.s].id] {
				got++
			}
		}
		sum += float64(got) / 10
	}
	return sum / float64(len(queries))
}

func randomVectors(r *rand.Rand, n, dim int) [][]float32 {
	out := make([][]float32, n)
	for i := range out {
		out[i] = make([]float32, dim)
		for j := range out[i] {
			out[i][j] = float32(r.NormFloat64())
		}
	}
	return out
}

// The graph finds ≥ 95% of the exact top 10 of 4k random 64-dimension
// vectors, with and without a thread filter, at its calibrated beam (128:
// past the cut-over at 4k, so the partition scans exactly).
func TestApproximateRecallRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	vecs := randomVectors(r, 4000, 64)
	if beam := calibratedRecall(t, graphPartition(vecs), vecs, randomVectors(r, 50, 64)); beam == 0 {
		t.Error("graph not calibrated")
	}
}

// The graph finds ≥ 95% of the exact top 10 on LoCoMo: every turn of the
// dev split in one partition, the questions as queries, the hash embedder.
func TestApproximateRecallLoCoMo(t *testing.T) {
	emb := NewHashEmbedder(0)
	var vecs, queries [][]float32
	for _, c := range vectortest.LoadLoCoMo(t) {
		for _, turn := range c.Turns {
			vecs = append(vecs, emb.EmbedOne(turn.Speaker+": "+turn.Text))
		}
		for _, q := range c.Questions {
			queries = append(queries, emb.EmbedOne(q.Question))
		}
	}
	p := graphPartition(vecs)
	got := recallAt10(p, vecs, queries, -1)
	t.Logf("LoCoMo: %d turns, %d questions, recall@10 %.3f", len(vecs), len(queries), got)
	if got < 0.95 {
		t.Errorf("recall@10 %.3f < 0.95", got)
	}
}

// BenchmarkApproximate100k builds the graph over 100k random 384-dimension
// vectors and reports the search time per query and the recall@10 of 100
// queries against exact float32 search, over all records and with a thread
// filter (a quarter of them), without a filter for wider beams (ef), and of
// an exact scan of the int8 codes (the ceiling the graph is measured
// against), with the beam calibration chose and its time; reported, not
// asserted (see BENCHMARKS.md).
//
//	go test ./core/vector/local/ -run '^$' -bench Approximate100k -benchtime 200x -timeout 90m
func BenchmarkApproximate100k(b *testing.B) {
	r100k.once.Do(func() {
		r := rand.New(rand.NewPCG(7, 8))
		r100k.vecs = randomVectors(r, 100_000, DefaultDimension)
		t0 := time.Now()
		r100k.p = graphPartition(r100k.vecs)
		r100k.build = time.Since(t0)
		g := r100k.p.graph
		t1 := time.Now()
		g.setBeam(g.calibrate(g.n, nil), g.n) // again, timed alone
		r100k.calibrate = time.Since(t1)
		r100k.queries = randomVectors(r, 100, DefaultDimension)
		r100k.recall = recallAt10(r100k.p, r100k.vecs, r100k.queries, -1)
		r100k.recallThread = recallAt10(r100k.p, r100k.vecs, r100k.queries, 2)
		r100k.recallInt8 = recallOf(r100k.p, r100k.vecs, r100k.queries, -1, func(q []float32) []scored {
			return r100k.p.top(r100k.p.exact(unit(q), -1, 0), 10)
		})
		for _, ef := range r100kEfs {
			r100k.recallEf = append(r100k.recallEf, recallAt10Ef(r100k.p, r100k.vecs, r100k.queries, ef))
		}
	})
	b.ResetTimer()
	for i := range b.N {
		r100k.p.nearest(unit(r100k.queries[i%len(r100k.queries)]), -1, 10)
	}
	b.ReportMetric(r100k.build.Seconds(), "build-s") // after ResetTimer, which drops metrics
	b.ReportMetric(r100k.recall, "recall@10")
	b.ReportMetric(r100k.recallThread, "recall@10-thread")
	b.ReportMetric(r100k.recallInt8, "recall@10-int8-exact")
	b.ReportMetric(float64(r100k.p.graph.beam), "calibrated-beam") // -1: exact scan
	b.ReportMetric(r100k.calibrate.Seconds(), "calibrate-s")
	for i, ef := range r100kEfs {
		b.ReportMetric(r100k.recallEf[i], fmt.Sprint("recall@10-ef", ef))
	}
}

// r100k is BenchmarkApproximate100k's graph, built once for all its runs.
var r100k struct {
	once          sync.Once
	vecs, queries [][]float32
	p             *partition
	build         time.Duration // with calibration
	calibrate     time.Duration
	recall        float64
	recallThread  float64
	recallInt8    float64   // an exact scan of the int8 codes: the graph's ceiling
	recallEf      []float64 // by r100kEfs
}

// r100kEfs are the wider beams BenchmarkApproximate100k reports recall for.
var r100kEfs = []int{256, 1024, 4096}

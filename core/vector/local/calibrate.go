package local

import (
	"math"
	"math/rand/v2"
)

// Search-width calibration. No fixed beam fits every data set: LoCoMo's
// embeddings reach recall@10 0.98 at a beam of 64, 100k random
// 384-dimension vectors (no neighbourhood structure) 0.10 at 64 and 0.94 at
// 4,096 (BENCHMARKS.md). So a graph measures its own: once built, it
// searches for a sample of its own vectors (each query as if its own record
// were not in the graph) and compares with an exact scan of the same int8 codes, doubling
// the beam until the estimated recall@10 reaches calibTarget.
const (
	calibSample = 64   // queries: ±0.01 standard error on recall@10 near 0.95
	calibK      = 10   // recall@calibK is estimated
	calibTarget = 0.97 // issue 17's 0.95 of exact float32 search, plus margins for the sample's error and the int8 codes
	// graphCutover: a beam wider than n/graphCutover (and than hnswEfMin)
	// costs about as much as scanning the n codes exactly, so the partition
	// scans exactly instead. Measured on 16k random 256-dimension vectors:
	// a beam of n/31 took 0.63–0.87 of a scan's time, n/16 1.3×.
	graphCutover = 32
	// calibInlineMax is the graph size up to which calibration runs inside
	// the caller's lock (calibSample exact scans of 2,048 codes and the
	// graph searches: a few milliseconds); a larger graph is calibrated
	// outside it (Store.calibrate).
	calibInlineMax = 2048
	// beamExact is the calibrated beam of a graph no beam up to the cut-over
	// serves: its partition searches exactly.
	beamExact = -1
)

// calibStale reports whether g needs a (new) calibration: it has none, or it
// has grown to twice the nodes it was calibrated on.
func (g *graph) calibStale() bool {
	return !g.calibrating && (g.beam == 0 || g.n >= 2*g.calN)
}

// calibrate estimates the beam g needs for recall@10 ≥ calibTarget over its
// first n nodes and returns it (beamExact: none up to the cut-over; 0: step
// gave up). step runs each piece of work (one query's exact scan or graph
// search) and reports false to stop; nil runs them all, for a graph the
// caller has to itself.
func (g *graph) calibrate(n int32, step func(func()) bool) int {
	if step == nil {
		step = func(f func()) bool { f(); return true }
	}
	var queries []int32
	var q []float32
	if !step(func() { queries, q = g.calibQueries(n), make([]float32, g.v.dim) }) {
		return 0
	}
	if len(queries) == 0 {
		return hnswEfMin
	}
	kth := make([]float32, len(queries)) // the exact calibK-th similarity
	total := 0
	for i, x := range queries {
		got := 0
		if !step(func() { kth[i], got = g.exactKth(g.decodeInto(x, q), x, n) }) {
			return 0
		}
		total += got
	}
	need := int(math.Ceil(calibTarget * float64(total)))
	for ef := hnswEfMin; ef == hnswEfMin || ef*graphCutover <= int(n); ef *= 2 {
		found := 0
		for i, x := range queries {
			if !step(func() { found += g.found(g.decodeInto(x, q), x, n, ef, kth[i]) }) {
				return 0
			}
		}
		if found >= need {
			return ef
		}
	}
	return beamExact
}

// calibQueries picks up to calibSample distinct non-zero nodes below n on
// the bottom layer only, always the same for the same graph. A query must
// not find its neighbours through its own node's links (they are its
// nearest neighbours, which made the estimate optimistic: 0.97 where fresh
// queries got 0.95), so searchWithout keeps it out, which it can only do on
// the bottom layer.
func (g *graph) calibQueries(n int32) []int32 {
	r := rand.New(rand.NewPCG(uint64(n), 17))
	var out []int32
	for _, x := range r.Perm(int(n)) {
		if len(out) == calibSample {
			break
		}
		if g.v.scale[x] != 0 && len(g.up[int32(x)]) == 0 && int32(x) != g.entry {
			out = append(out, int32(x))
		}
	}
	return out
}

// decodeInto decodes node x's vector into q and returns q.
func (g *graph) decodeInto(x int32, q []float32) []float32 {
	decode(g.v.code(x), g.v.scale[x], q)
	return q
}

// exactKth returns the calibK-th highest similarity to q of the nodes below
// n other than self by an exact scan of the codes, and how many nodes that
// ranking holds (calibK unless there are fewer).
func (g *graph) exactKth(q []float32, self, n int32) (float32, int) {
	var res candHeap // worst on top
	for s := range n {
		if s == self || g.v.scale[s] == 0 {
			continue
		}
		sim := g.v.sim(q, s)
		if len(res.a) < calibK {
			res.push(cand{s, sim})
		} else if sim > res.a[0].sim {
			res.pop()
			res.push(cand{s, sim})
		}
	}
	if len(res.a) == 0 {
		return 0, 0
	}
	return res.a[0].sim, len(res.a)
}

// found counts the results of a search of the graph's nodes below n other
// than self with a beam of ef, calibK at most, that are as similar to q as
// the exact calibK-th (kth). Counting by similarity rather than by id (as
// ann-benchmarks does) credits any of several records tied with the
// calibK-th: hash-embedded short texts tie by the hundred, and recall by id
// then stayed near 0.5 at every beam.
func (g *graph) found(q []float32, self, n int32, ef int, kth float32) int {
	hits := 0
	for _, c := range g.searchWithout(q, calibK, ef, func(s int32) bool { return s < n }, self) {
		if c.sim >= kth {
			hits++
		}
	}
	return hits
}

// setBeam records the outcome of calibrate over g's first n nodes (0: none).
func (g *graph) setBeam(beam int, n int32) {
	if beam != 0 {
		g.beam, g.calN = beam, n
	}
}

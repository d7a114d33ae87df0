package local

import (
	"math"
	"math/rand/v2"
)

// Search-width calibration. No fixed beam fits every data set: LoCoMo's
// embeddings reach recall@10 0.98 at a beam of 64, 100k random
// 384-dimension vectors (no neighbourhood structure) 0.10 at 64 and 0.94 at
// 4,096 (BENCHMARKS.md). So a graph measures its own: once built, it
// searches for a sample of its own nodes' vectors (each query as if its own
// node, with every copy of the vector, were not in the graph) and compares
// the slots it finds with an exact scan of the same int8 codes, doubling the
// beam until the estimated recall@10 reaches calibTarget.
const (
	calibSample = 64   // queries: ±0.01 standard error on recall@10 near 0.95
	calibK      = 10   // recall@calibK is estimated
	calibTarget = 0.97 // recall 0.95 of exact float32 search, plus margins for the sample's error and the int8 codes
	// graphCutover: a beam wider than n/graphCutover (and than hnswEfMin)
	// costs about as much as scanning the n slots' codes exactly, so the
	// partition scans exactly instead. (A graph of fewer nodes than slots
	// costs less per beam; the cut-over stays on slots, what a scan costs.) Measured on 16k random 256-dimension vectors:
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
// first n slots and returns it (beamExact: none up to the cut-over; 0: step
// gave up). step runs each piece of work (one query's exact scan or graph
// search) and reports false to stop; nil runs them all, for a graph the
// caller has to itself.
func (g *graph) calibrate(n int32, step func(func()) bool) int {
	if step == nil {
		step = func(f func()) bool { f(); return true }
	}
	var queries []calibQuery
	var q []float32
	if !step(func() { queries, q = g.calibQueries(n), make([]float32, g.v.dim) }) {
		return 0
	}
	if len(queries) == 0 {
		return hnswEfMin
	}
	kth := make([]float32, len(queries)) // the exact calibK-th similarity
	total := 0
	for i, cq := range queries {
		got := 0
		if !step(func() { kth[i], got = g.exactKth(g.vectorOf(cq, q), cq.without(), n) }) {
			return 0
		}
		total += got
	}
	need := int(math.Ceil(calibTarget * float64(total)))
	nodes := int(g.nodesBelow(n))
	for ef := hnswEfMin; ef == hnswEfMin || ef*graphCutover <= nodes; ef *= 2 {
		found := 0
		for i, cq := range queries {
			if !step(func() { found += g.found(g.vectorOf(cq, q), cq.without(), n, ef, kth[i]) }) {
				return 0
			}
		}
		if found >= need {
			return ef
		}
	}
	return beamExact
}

// calibQuery is one query of a calibration: node a's vector (b < 0), or the
// normalized sum of nodes a's and b's.
type calibQuery struct{ a, b int32 }

// without is the node the query's search must neither return nor walk
// through: a node queried for its own vector (-1: none).
func (cq calibQuery) without() int32 {
	if cq.b < 0 {
		return cq.a
	}
	return -1
}

// calibQueries picks up to calibSample queries among the nodes of slots
// below n, always the same for the same graph: half of them a node's own
// vector (a distinct non-zero node on the bottom layer only), half the sum
// of two nodes' vectors.
//
// A query of a node's own vector must not find its neighbours through its
// own node's links (they are its nearest neighbours, which made the
// estimate optimistic: 0.97 where fresh queries got 0.95), so searchWithout
// keeps it out, which it can only do on the bottom layer. Sampling nodes
// rather than slots weighs every distinct vector alike, however many copies
// it has. Own vectors alone still flattered corpora of near-copies:
// membench's messages differ from one of 17 texts by one number, so a
// message's 10 nearest are its text's other copies, tied, found at any beam
// (an estimate of 1.0 at beam 64), while its queries, which have no copy,
// got 0.17 at beam 64 and 0.57 at 4,096. A sum of two vectors has no copy in
// the graph and lies between neighbourhoods, as a question touching two
// messages does: on that corpus it estimates 0.82 at beam 64.
func (g *graph) calibQueries(n int32) []calibQuery {
	nodes := g.nodesBelow(n)
	r := rand.New(rand.NewPCG(uint64(nodes), 17))
	var out []calibQuery
	for _, x := range r.Perm(int(nodes)) {
		if len(out) == calibSample/2 {
			break
		}
		if x := int32(x); g.scale(x) != 0 && len(g.up[x]) == 0 && x != g.entry {
			out = append(out, calibQuery{x, -1})
		}
	}
	for range len(out) {
		a, b := r.Int32N(nodes), r.Int32N(nodes)
		if g.scale(a) != 0 && g.scale(b) != 0 {
			out = append(out, calibQuery{a, b})
		}
	}
	return out
}

// vectorOf writes the unit vector of cq into q and returns q.
func (g *graph) vectorOf(cq calibQuery, q []float32) []float32 {
	decode(g.code(cq.a), g.scale(cq.a), q)
	if cq.b < 0 {
		return q
	}
	c := g.code(cq.b)
	sq := float32(0)
	for i := range q {
		q[i] += float32(c[i]) * g.scale(cq.b)
		sq += q[i] * q[i]
	}
	if sq > 0 {
		inv := 1 / float32(math.Sqrt(float64(sq)))
		for i := range q {
			q[i] *= inv
		}
	}
	return q
}

// exactKth returns the calibK-th highest similarity to q of the slots below
// n other than node self's (-1: none) by an exact scan of the nodes, and how
// many slots that ranking holds (calibK unless there are fewer).
func (g *graph) exactKth(q []float32, self, n int32) (float32, int) {
	res := g.scan(q, calibK, func(s int32) bool { return s < n }, self)
	if len(res) == 0 {
		return 0, 0
	}
	k := min(len(res), calibK)
	return res[k-1].sim, k
}

// found counts the results of a search of the graph's slots below n other
// than node self's (-1: none) with a beam of ef, calibK at most, that are as
// similar to q as the exact calibK-th (kth). Counting by similarity rather
// than by id (as ann-benchmarks does) credits any of several records tied
// with the calibK-th: hash-embedded short texts tie by the hundred, and
// recall by id then stayed near 0.5 at every beam.
func (g *graph) found(q []float32, self, n int32, ef int, kth float32) int {
	hits := 0
	for i, c := range g.searchWithout(q, calibK, ef, func(s int32) bool { return s < n }, self) {
		if i < calibK && c.sim >= kth {
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

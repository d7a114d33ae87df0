package local

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core/vector"
)

// dupPartition returns a partition of n records drawn from distinct random
// dim-dimension vectors (record i has vector i%distinct of the returned
// ones, so copies of a vector are spread over its four threads), its graph
// built and calibrated.
func dupPartition(r *rand.Rand, n, distinct, dim int) (*partition, [][]float32) {
	vecs := randomVectors(r, distinct, dim)
	p := newPartition("r", 1)
	for i := range n {
		p.put(vector.Record{ID: fmt.Sprintf("%06d", i), Vector: vecs[i%distinct],
			Meta: vector.Meta{ThreadID: fmt.Sprint("t", i*7%4)}})
	}
	p.indexGraph(0)
	g := p.graph
	g.setBeam(g.calibrate(g.n, nil), g.n)
	return p, vecs
}

// ids lists the record ids of res, best first (p.top's order).
func ids(p *partition, res []scored, k int) []string {
	var out []string
	for _, r := range p.top(res, k) {
		out = append(out, p.slots[r.s].id)
	}
	return out
}

// graphRecall is the recall@10 of p's graph search (the graph alone, at the
// beam nearest gives it) against an exact scan of the slots, thread filter
// optional: a result counts if it scores as high as the exact 10th (copies
// tie).
func graphRecall(p *partition, queries [][]float32, thread int32) float64 {
	n := p.live()
	if thread >= 0 {
		n = int(p.tcount[thread])
	}
	g := p.graph
	ef := min(max(10, hnswEfMin, g.beam)*p.live()/n, p.live())
	hits := 0
	for _, q := range queries {
		q = unit(q)
		want := p.top(p.exact(q, thread, 0), 10)
		got := g.search(q, 10, ef, func(s int32) bool { return p.accepts(s, thread) })
		for i, c := range got {
			if i < 10 && float64(c.sim) >= want[len(want)-1].score {
				hits++
			}
		}
	}
	return float64(hits) / float64(10*len(queries))
}

// With 20k records over 1,000 distinct vectors the graph has a node per
// distinct vector, its calibration keeps the graph (no exact scan), and its
// search finds ≥ 0.95 of the exact top 10, with and without a thread
// filter, also after deletes of some copies and of every copy of some
// vectors.
func TestGraphOverDuplicates(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	const n, distinct = 20000, 1000
	p, vecs := dupPartition(r, n, distinct, 24)
	g := p.graph
	if g.nodes() != distinct || g.n != n {
		t.Fatalf("%d nodes over %d slots, want %d over %d", g.nodes(), g.n, distinct, n)
	}
	if g.beam <= 0 {
		t.Fatalf("calibrated beam %d: the partition does not search its graph", g.beam)
	}
	queries := randomVectors(r, 100, 24)
	check := func(when string) {
		t.Helper()
		for _, thread := range []int32{-1, 1} {
			got := graphRecall(p, queries, thread)
			t.Logf("%s, thread %d: beam %d, recall@10 %.3f", when, thread, g.beam, got)
			if got < 0.95 {
				t.Errorf("%s, thread %d: recall@10 %.3f < 0.95", when, thread, got)
			}
		}
	}
	check("all live")
	for i := 0; i < n; i += 97 { // some copies
		p.remove(fmt.Sprintf("%06d", i))
	}
	for i := 0; i < n; i += distinct { // every copy of vector 5
		p.remove(fmt.Sprintf("%06d", i+5))
	}
	if p.graph != g || g.nodes() != distinct {
		t.Fatal("the deletes replaced the graph")
	}
	check("after deletes")
	res := ids(p, p.nearest(unit(vecs[5]), -1, 10), 10)
	for _, id := range res {
		if i, _ := strconv.Atoi(id); i%distinct == 5 {
			t.Fatalf("deleted record %s returned: %v", id, res)
		}
	}
}

// Copies of a vector tie; the graph returns the same records for them as an
// exact scan (score, then id), with and without a thread filter, and k below
// and above the number of copies.
func TestGraphDuplicateTies(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	p, vecs := dupPartition(r, 12000, 600, 24) // 20 copies of each vector, 5 a thread
	if p.graph.beam <= 0 {
		t.Fatalf("calibrated beam %d: the partition does not search its graph", p.graph.beam)
	}
	for _, x := range []int{0, 17, 599} {
		q := unit(vecs[x])
		for _, thread := range []int32{-1, 2} {
			for _, k := range []int{3, 10, 30} {
				want := ids(p, p.exact(q, thread, 0), k)
				if got := ids(p, p.nearest(q, thread, k), k); !slices.Equal(got, want) {
					t.Errorf("vector %d, thread %d, k %d: graph %v, exact %v", x, thread, k, got, want)
				}
			}
		}
	}
}

// A slot added to a built graph joins the node of its vector without an
// insert; a new vector gets a node; both are found.
func TestGraphExtendJoinsNodes(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	p, vecs := dupPartition(r, 3000, 300, 16)
	g := p.graph
	p.put(vector.Record{ID: "copy", Vector: vecs[7], Meta: vector.Meta{ThreadID: "new"}})
	fresh := randomVectors(r, 1, 16)[0]
	p.put(vector.Record{ID: "fresh", Vector: fresh, Meta: vector.Meta{ThreadID: "new"}})
	p.indexGraph(0)
	if g.nodes() != 301 || g.n != 3002 {
		t.Fatalf("%d nodes over %d slots, want 301 over 3002", g.nodes(), g.n)
	}
	if first := g.first[g.nodes()-1]; p.slots[first].id != "fresh" {
		t.Fatalf("new node's slot %q, want fresh", p.slots[first].id)
	}
	thread := p.threads["new"]
	for _, c := range []struct {
		q  []float32
		id string
	}{{vecs[7], "copy"}, {fresh, "fresh"}} {
		got := g.search(unit(c.q), 1, hnswEfMin, func(s int32) bool { return p.accepts(s, thread) })
		if len(got) != 1 || p.slots[got[0].id].id != c.id {
			t.Errorf("search for %s found %v", c.id, got)
		}
	}
}

// nearCopies returns membench's corpus in miniature: n messages made of one
// of 17 word sequences and their number, embedded as membench does (signed
// feature hashing of whole words, wordHash) in dim dimensions, so that the
// records are copies of 17 texts but for one component; and queries naming
// two words and a message number.
func nearCopies(n, dim int) (vecs, queries [][]float32) {
	words := strings.Fields("alpha beta gamma delta order ship tomorrow cat dog weather paris berlin invoice refund account password reset")
	for i := range n {
		s := make([]string, 30)
		for k := range s {
			s[k] = words[(i*7+k*13)%len(words)]
		}
		vecs = append(vecs, wordHash(dim, fmt.Sprintf("message %d: %s", i, strings.Join(s, " "))))
	}
	for r := range 50 {
		queries = append(queries, wordHash(dim, fmt.Sprintf("what did I say about %s and %s in message %d",
			words[r*3%len(words)], words[(r*5+1)%len(words)], r*7919%n)))
	}
	return vecs, queries
}

// wordHash is membench's embedder (Mastra's benchmark's): signed FNV-1a
// hashing of the whitespace-separated lowercase words, punctuation dropped.
func wordHash(dim int, text string) []float32 {
	v := make([]float32, dim)
	for _, w := range strings.Fields(strings.ToLower(strings.ReplaceAll(text, ":", " "))) {
		h := fnv.New32a()
		h.Write([]byte(w))
		x := h.Sum32()
		if x>>31 == 1 {
			v[x%uint32(dim)]--
		} else {
			v[x%uint32(dim)]++
		}
	}
	return v
}

// On near copies of a few texts, searches for the records' own vectors
// find their copies at any beam, while queries unlike any record do not:
// calibration must see that (its queries include sums of two vectors) and
// the partition must answer them with ≥ 0.95 of the exact top 10 (here by
// an exact scan of its nodes; with own vectors alone calibration chose beam
// 64, and the graph found 0.15).
func TestCalibratedRecallNearCopies(t *testing.T) {
	vecs, queries := nearCopies(3000, 384)
	p := graphPartition(vecs)
	got := 0
	for _, q := range queries {
		q = unit(q)
		want := p.top(p.exact(q, -1, 0), 10)
		for i, r := range p.top(p.nearest(q, -1, 10), 10) {
			if i < 10 && r.score >= want[len(want)-1].score {
				got++
			}
		}
	}
	recall := float64(got) / float64(10*len(queries))
	t.Logf("%d records, %d nodes: beam %d, recall@10 %.3f", len(vecs), p.graph.nodes(), p.graph.beam, recall)
	if recall < 0.95 {
		t.Errorf("recall@10 %.3f < 0.95 at the calibrated beam %d", recall, p.graph.beam)
	}
}

package local

import (
	"math"
	"strings"

	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/analysis"
)

// index is one named index: a partition per resource.
type index struct {
	dim     int
	version string // IndexSpec.Version of the last EnsureIndex
	parts   map[string]*partition
}

func newIndex(dim int) *index { return &index{dim: dim, parts: map[string]*partition{}} }

func (ix *index) part(resource string) *partition {
	p := ix.parts[resource]
	if p == nil {
		p = &partition{recs: map[string]*entry{}, df: map[string]int{}}
		ix.parts[resource] = p
	}
	return p
}

// partition holds one resource's records and its BM25 statistics.
type partition struct {
	version string // IndexSpec.Version the records were written with
	recs    map[string]*entry
	df      map[string]int // documents containing each term
	totLen  int            // sum of document lengths in tokens
	slab    []float32      // free tail of the current vector slab
	// list holds the entries in (about) insertion order, so a scan walks the
	// slabs sequentially; map order made exact search ~2.7× slower.
	list []*entry
}

// slabFloats is the size of one vector slab. Vectors are carved from slabs
// so a partition's vectors lie next to each other in memory: an exact scan is
// bound by memory, and scattered allocations made it several times slower.
const slabFloats = 1 << 16

// own copies v into the partition's slab memory.
func (p *partition) own(v []float32) []float32 {
	if len(v) > slabFloats/4 {
		return append([]float32(nil), v...)
	}
	if len(p.slab) < len(v) {
		p.slab = make([]float32, slabFloats)
	}
	out := p.slab[:len(v):len(v)]
	copy(out, v)
	p.slab = p.slab[len(v):]
	return out
}

// entry is a stored record with what search needs precomputed.
type entry struct {
	rec     vector.Record
	pos     int            // index in partition.list
	invNorm float64        // 1/|Vector| (0 for a zero vector)
	tf      map[string]int // term frequencies of Text
	length  int            // tokens in Text
}

// newEntry prepares r for storage; put copies its vector into the partition.
func newEntry(r vector.Record) *entry {
	e := &entry{rec: r, tf: map[string]int{}}
	var sq float64
	for _, x := range r.Vector {
		sq += float64(x) * float64(x)
	}
	if sq > 0 {
		e.invNorm = 1 / math.Sqrt(sq)
	}
	for _, t := range keywords(r.Keywords, r.Text) {
		e.tf[t]++
		e.length++
	}
	return e
}

func (p *partition) put(e *entry) {
	p.remove(e.rec.ID)
	e.rec.Vector = p.own(e.rec.Vector)
	e.pos = len(p.list)
	p.list = append(p.list, e)
	p.recs[e.rec.ID] = e
	p.totLen += e.length
	for t := range e.tf {
		p.df[t]++
	}
}

func (p *partition) remove(id string) {
	e := p.recs[id]
	if e == nil {
		return
	}
	delete(p.recs, id)
	last := p.list[len(p.list)-1]
	p.list[e.pos], last.pos = last, e.pos
	p.list[len(p.list)-1] = nil
	p.list = p.list[:len(p.list)-1]
	p.totLen -= e.length
	for t := range e.tf {
		if p.df[t]--; p.df[t] <= 0 {
			delete(p.df, t)
		}
	}
}

// BM25 parameters (Weaviate's defaults).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// keywords returns the BM25 terms of a record or query: its analyzed
// keywords, else the plain terms of its text.
func keywords(analyzed, text string) []string {
	if analyzed != "" {
		return strings.Fields(analyzed)
	}
	return analysis.Plain.Terms(text)
}

// bm25 scores the candidates against q's keywords; documents without a query term
// are left out. Statistics cover the whole partition, not just candidates.
func (p *partition) bm25(cands []*entry, q vector.Query) []scored {
	terms := map[string]float64{} // term -> idf
	n := float64(len(p.recs))
	for _, t := range keywords(q.Keywords, q.Text) {
		if df := float64(p.df[t]); df > 0 {
			terms[t] = math.Log(1 + (n-df+0.5)/(df+0.5))
		}
	}
	if len(terms) == 0 || n == 0 {
		return nil
	}
	avg := float64(p.totLen) / n
	if avg == 0 {
		avg = 1
	}
	var out []scored
	for _, e := range cands {
		var s float64
		for t, idf := range terms {
			if f := float64(e.tf[t]); f > 0 {
				s += idf * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*float64(e.length)/avg))
			}
		}
		if s > 0 {
			out = append(out, scored{e, s})
		}
	}
	return out
}

// cosine scores every candidate that has a vector against q.
func cosine(cands []*entry, q []float32) []scored {
	var qq float64
	for _, x := range q {
		qq += float64(x) * float64(x)
	}
	if qq == 0 {
		return nil
	}
	inv := 1 / math.Sqrt(qq)
	out := make([]scored, 0, len(cands))
	for _, e := range cands {
		if e.invNorm == 0 || len(e.rec.Vector) != len(q) {
			continue
		}
		var dot float64
		for i, x := range e.rec.Vector {
			dot += float64(x) * float64(q[i])
		}
		out = append(out, scored{e, dot * inv * e.invNorm})
	}
	return out
}

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
		p = &partition{recs: map[string]*entry{}, post: map[string]*posting{}}
		ix.parts[resource] = p
	}
	return p
}

// partition holds one resource's records and its BM25 statistics.
type partition struct {
	version string // IndexSpec.Version the records were written with
	recs    map[string]*entry
	// post lists the entries containing each term (its document frequency
	// is the length): BM25 visits only the entries that match.
	post   map[string]*posting
	totLen int       // sum of document lengths in tokens
	slab   []float32 // free tail of the current vector slab
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
	pos     int     // index in partition.list
	invNorm float64 // 1/|Vector| (0 for a zero vector)
	terms   []term  // distinct terms of the record's keywords
	length  int     // terms in the keywords, repeats counted
}

// term is one distinct term of an entry: its frequency in the entry and
// the entry's index in the term's posting list.
type term struct {
	text string
	tf   int32
	idx  int32
}

// posting lists the entries containing a term, with the term's frequency in
// each; its length is the term's document frequency.
type posting struct {
	ents []*entry
	tfs  []int32
}

// newEntry prepares r for storage; put copies its vector into the partition.
func newEntry(r vector.Record) *entry {
	e := &entry{rec: r}
	var sq float64
	for _, x := range r.Vector {
		sq += float64(x) * float64(x)
	}
	if sq > 0 {
		e.invNorm = 1 / math.Sqrt(sq)
	}
	at := map[string]int{}
	for _, t := range keywords(r.Keywords, r.Text) {
		e.length++
		if i, ok := at[t]; ok {
			e.terms[i].tf++
			continue
		}
		at[t] = len(e.terms)
		e.terms = append(e.terms, term{text: t, tf: 1})
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
	for i := range e.terms {
		t := &e.terms[i]
		pl := p.post[t.text]
		if pl == nil {
			pl = &posting{}
			p.post[t.text] = pl
		}
		t.idx = int32(len(pl.ents))
		pl.ents = append(pl.ents, e)
		pl.tfs = append(pl.tfs, t.tf)
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
	for _, t := range e.terms {
		p.unpost(t)
	}
}

// unpost removes an entry's term from its posting list (swap with the last).
func (p *partition) unpost(t term) {
	pl := p.post[t.text]
	n := len(pl.ents) - 1
	if moved := pl.ents[n]; int(t.idx) != n {
		pl.ents[t.idx], pl.tfs[t.idx] = moved, pl.tfs[n]
		for i := range moved.terms {
			if moved.terms[i].text == t.text {
				moved.terms[i].idx = t.idx
				break
			}
		}
	}
	pl.ents[n] = nil
	pl.ents, pl.tfs = pl.ents[:n], pl.tfs[:n]
	if n == 0 {
		delete(p.post, t.text)
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

// bm25 scores the entries of thread ("" = all) that contain a term of q's
// keywords. Statistics cover the whole partition.
func (p *partition) bm25(q vector.Query, thread string) []scored {
	n := float64(len(p.recs))
	if n == 0 {
		return nil
	}
	avg := float64(p.totLen) / n
	if avg == 0 {
		avg = 1
	}
	scores := make([]float64, len(p.list)) // by entry.pos
	var touched []*entry
	seen := map[string]bool{}
	for _, t := range keywords(q.Keywords, q.Text) {
		pl := p.post[t]
		if seen[t] || pl == nil {
			continue
		}
		seen[t] = true
		df := float64(len(pl.ents))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for i, e := range pl.ents {
			if thread != "" && e.rec.Meta.ThreadID != thread {
				continue
			}
			if scores[e.pos] == 0 {
				touched = append(touched, e)
			}
			f := float64(pl.tfs[i])
			scores[e.pos] += idf * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*float64(e.length)/avg))
		}
	}
	out := make([]scored, 0, len(touched))
	for _, e := range touched {
		out = append(out, scored{e, scores[e.pos]})
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

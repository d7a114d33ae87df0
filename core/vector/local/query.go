package local

import (
	"container/heap"
	"context"
	"sort"
	"strconv"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/vector"
)

// hybridCandidates is how many results each side of a hybrid query
// contributes before fusion (Weaviate's QUERY_HYBRID_MAXIMUM_RESULTS).
const hybridCandidates = 100

type scored struct {
	e     *entry
	score float64
}

// Query returns the TopK (DefaultTopK when <= 0) best hits of
// q.Filter.ResourceID, best first, narrowed to q.Filter.ThreadID when set.
// Scores: cosine similarity (SearchVector), BM25 (SearchBM25, only records
// sharing a term with q.Text), or the relativeScoreFusion of both
// (SearchHybrid: min-max normalized, weighted Alpha for vector and 1-Alpha for
// BM25, in [0,1]). Hits scoring below a non-zero q.MinScore are dropped
// (cosine similarity can be negative; MinScore 0 means no threshold).
func (s *Store) Query(ctx context.Context, name string, q vector.Query) ([]vector.Hit, error) {
	const op = "Query"
	if q.Filter.ResourceID == "" {
		return nil, missingResource(op)
	}
	if err := ctx.Err(); err != nil {
		return nil, vecErr(op, "canceled", err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	ix, err := s.indexLocked(op, name)
	if err != nil {
		return nil, err
	}
	mode := q.Mode
	if mode == "" {
		mode = vector.SearchVector
	}
	needVec := mode == vector.SearchVector || (mode == vector.SearchHybrid && q.Alpha > 0)
	switch {
	case mode != vector.SearchVector && mode != vector.SearchBM25 && mode != vector.SearchHybrid:
		return nil, vecErr(op, "unknown search mode "+strconv.Quote(mode), nil)
	case mode == vector.SearchHybrid && (q.Alpha < 0 || q.Alpha > 1):
		return nil, vecErr(op, "hybrid alpha must be within [0,1]", nil)
	case needVec && len(q.Vector) == 0:
		return nil, vecErr(op, "query vector is required for mode "+mode, nil)
	case needVec && ix.dim != 0 && len(q.Vector) != ix.dim:
		return nil, dimErr(op, name, ix.dim, len(q.Vector))
	}
	p := ix.parts[q.Filter.ResourceID]
	if p == nil {
		return nil, nil
	}
	if p.version != ix.version {
		return nil, versionErr(op, name, q.Filter.ResourceID, p.version, ix.version)
	}
	var res []scored
	switch mode {
	case vector.SearchVector:
		res = cosine(p.candidates(q.Filter.ThreadID), q.Vector)
	case vector.SearchBM25:
		res = p.bm25(q, q.Filter.ThreadID)
	default:
		res = hybrid(p, q)
	}
	k := q.TopK
	if k <= 0 {
		k = DefaultTopK
	}
	res = top(res, k)
	hits := make([]vector.Hit, 0, min(k, len(res)))
	for _, r := range res {
		if len(hits) == k || (q.MinScore != 0 && r.score < q.MinScore) {
			break
		}
		m := r.e.rec.Meta
		hits = append(hits, vector.Hit{ID: r.e.rec.ID, Score: r.score, Meta: m})
	}
	return hits, nil
}

// hybrid fuses the top hybridCandidates of the vector and BM25 rankings like
// Weaviate's relativeScoreFusion: each list is min-max normalized (all equal
// scores normalize to 1), weighted, and summed per record.
func hybrid(p *partition, q vector.Query) []scored {
	fused := map[*entry]float64{}
	add := func(list []scored, w float64) {
		list = top(list, max(hybridCandidates, q.TopK))
		if len(list) == 0 {
			return
		}
		hi, lo := list[0].score, list[len(list)-1].score
		for _, r := range list {
			s := w
			if hi != lo {
				s *= (r.score - lo) / (hi - lo)
			}
			fused[r.e] += s
		}
	}
	if q.Alpha < 1 && q.Text != "" {
		add(p.bm25(q, q.Filter.ThreadID), 1-q.Alpha)
	}
	if q.Alpha > 0 {
		add(cosine(p.candidates(q.Filter.ThreadID), q.Vector), q.Alpha)
	}
	out := make([]scored, 0, len(fused))
	for e, s := range fused {
		out = append(out, scored{e, s})
	}
	return out
}

// candidates returns the entries of thread ("" = all), in scan order.
func (p *partition) candidates(thread string) []*entry {
	if thread == "" {
		return p.list
	}
	out := make([]*entry, 0, len(p.list))
	for _, e := range p.list {
		if e.rec.Meta.ThreadID == thread {
			out = append(out, e)
		}
	}
	return out
}

// top returns the k best of list, best first, selecting with a bounded heap
// so a query over n records costs O(n log k), not a sort of all n.
func top(list []scored, k int) []scored {
	if k >= len(list) {
		sortScored(list)
		return list
	}
	h := worstFirst(make([]scored, 0, k))
	for _, r := range list {
		switch {
		case len(h) < k:
			heap.Push(&h, r)
		case better(r, h[0]):
			h[0] = r
			heap.Fix(&h, 0)
		}
	}
	out := []scored(h)
	sortScored(out)
	return out
}

// better orders by score descending, then by ID for determinism.
func better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.e.rec.ID < b.e.rec.ID
}

// worstFirst is a heap whose root is the worst kept hit.
type worstFirst []scored

func (h worstFirst) Len() int           { return len(h) }
func (h worstFirst) Less(i, j int) bool { return better(h[j], h[i]) }
func (h worstFirst) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *worstFirst) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *worstFirst) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// sortScored orders by score descending, then by ID for determinism.
func sortScored(list []scored) {
	sort.Slice(list, func(i, j int) bool { return better(list[i], list[j]) })
}

func vecErr(op, msg string, err error) error {
	return &memerr.Error{Code: memerr.CodeVector, Op: "local." + op, Msg: msg, Err: err}
}

func dimErr(op, name string, want, got int) error {
	return vecErr(op, "index "+name+" has dimension "+strconv.Itoa(want)+", got "+strconv.Itoa(got),
		memerr.ErrEmbeddingDimensionMismatch)
}

func versionErr(op, name, resource, have, want string) error {
	return &memerr.Error{Code: memerr.CodeIndexVersionMismatch, Op: "local." + op,
		Msg: "resource " + strconv.Quote(resource) + " of index " + name + " was written with version " +
			strconv.Quote(have) + ", not " + strconv.Quote(want) + " (delete and reindex the resource)"}
}

func missingResource(op string) error {
	return vecErr(op, "filter", memerr.ErrMissingResourceID)
}

func errClosed(op string) error { return vecErr(op, "store is closed", nil) }

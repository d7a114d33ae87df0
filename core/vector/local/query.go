package local

import (
	"context"
	"sort"
	"time"

	"github.com/agentmem/agentmem/core/vector"
)

// scored is a slot of the queried partition and its score.
type scored struct {
	s     int32
	score float64
}

// Query returns the TopK (DefaultTopK when <= 0) best hits of
// q.Filter.ResourceID, best first, narrowed to q.Filter.ThreadID when set.
// Scores: cosine similarity (SearchVector), BM25 (SearchBM25, only records
// sharing a term with q.Text), or the relativeScoreFusion of both
// (SearchHybrid: min-max normalized, weighted Alpha for vector and 1-Alpha for
// BM25, in [0,1]; cosine similarity when every query term is common, see
// hybrid). Hits scoring below a non-zero q.MinScore are dropped
// (cosine similarity can be negative; MinScore 0 means no threshold).
func (s *Store) Query(ctx context.Context, name string, q vector.Query) ([]vector.Hit, error) {
	const op = "Query"
	if err := ctx.Err(); err != nil {
		return nil, vector.Fail("local."+op, "canceled", err)
	}
	s.indexGraph(name, q.Filter.ResourceID)
	s.mu.RLock()
	defer s.mu.RUnlock()
	ix, err := s.indexLocked(op, name)
	if err != nil {
		return nil, err
	}
	mode, needVec, _ := q.ResolveMode() // checked by vector.Checked
	if needVec && ix.dim != 0 && len(q.Vector) != ix.dim {
		return nil, vector.DimensionError("local."+op, name, ix.dim, len(q.Vector))
	}
	p := ix.parts[q.Filter.ResourceID]
	if p == nil {
		return nil, nil
	}
	if p.version != ix.version {
		return nil, vector.VersionError("local."+op, "index "+name, q.Filter.ResourceID, p.version, ix.version)
	}
	thread := int32(-1)
	if q.Filter.ThreadID != "" {
		t, ok := p.threads[q.Filter.ThreadID]
		if !ok {
			return nil, nil
		}
		thread = t
	}
	k := q.TopK
	if k <= 0 {
		k = DefaultTopK
	}
	search := func(k int) []scored {
		switch mode {
		case vector.SearchVector:
			return p.top(p.nearest(unit(q.Vector), thread, k), k)
		case vector.SearchBM25:
			return p.top(p.bm25(q, thread, k), k)
		}
		return p.top(hybrid(p, q, thread, k), k)
	}
	res := p.searchFiltered(q.Filter.Metadata, k, search)
	hits := make([]vector.Hit, 0, min(k, len(res)))
	for _, r := range res {
		if len(hits) == k || (q.MinScore != 0 && r.score < q.MinScore) {
			break
		}
		hits = append(hits, vector.Hit{ID: p.slots[r.s].id, Score: r.score, Meta: p.meta(r.s)})
	}
	return hits, nil
}

// indexGraph brings the resource's graph up to date under the write lock
// when it lags (see partition.graphStale), so that Query can search under the
// read lock.
func (s *Store) indexGraph(name, resource string) {
	s.mu.RLock()
	var p *partition
	if ix := s.indexes[name]; ix != nil && !s.closed {
		p = ix.parts[resource]
	}
	stale := p != nil && p.graphWork()
	s.mu.RUnlock()
	if !stale {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ix := s.indexes[name]
	if s.closed || ix == nil || ix.parts[resource] != p || !p.graphWork() {
		return
	}
	if p.graphStale() && !p.building {
		todo := len(p.slots)
		if p.graph != nil {
			todo -= int(p.graph.n)
		}
		if todo > s.inlineMax {
			s.buildGraph(name, resource, p)
			return
		}
		p.indexGraph(s.workers)
	}
	s.calibrate(name, resource, p)
}

// graphWork reports whether Store.indexGraph has work to do on p: a graph
// to build or extend, or one to calibrate (an opened file's, or one grown
// to twice its calibrated size).
func (p *partition) graphWork() bool {
	return p.graphStale() && !p.building || p.graph != nil && p.graph.calibStale()
}

// calibrate calibrates p's graph when it needs it (the caller holds the
// write lock): a small graph at once, a larger one in the background, each
// query of the sample under the read lock, so that neither writes nor
// searches wait long. Until a graph is first calibrated its partition
// searches exactly.
func (s *Store) calibrate(name, resource string, p *partition) {
	g := p.graph
	if g == nil || !g.calibStale() {
		return
	}
	if g.n <= calibInlineMax {
		g.setBeam(g.calibrate(g.n, nil), g.n)
		s.dirty = true
		return
	}
	g.calibrating = true
	n := g.n
	s.builds.Add(1)
	go func() {
		defer s.builds.Done()
		s.calibrateShared(context.Background(), name, resource, p, g, n)
	}()
}

// calibrateShared calibrates g, p's graph marked calibrating, over its first
// n nodes, taking the read lock for each step and the write lock to record
// the outcome; it gives up if p or its graph is replaced, the store closed
// or ctx done.
func (s *Store) calibrateShared(ctx context.Context, name, resource string, p *partition, g *graph, n int32) {
	beam := g.calibrate(n, func(f func()) bool {
		s.mu.RLock()
		defer s.mu.RUnlock()
		if ctx.Err() != nil || s.closed || s.indexes[name] == nil || s.indexes[name].parts[resource] != p || p.graph != g {
			return false
		}
		f()
		return true
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	g.calibrating = false
	g.setBeam(beam, n)
	s.dirty = s.dirty || beam != 0
}

// buildGraph builds a new graph of p's current slots in the background; the
// caller holds the write lock. Until it is installed, searches use the old
// graph (if any) and scan the slots it lacks. Slots are append-only between
// compactions, so the build reads a prefix of the vectors that writers never
// touch; a compaction (gen), a replaced partition or Close voids it.
func (s *Store) buildGraph(name, resource string, p *partition) {
	b := startBuild(p, s.workers)
	s.builds.Add(1)
	go func() {
		defer s.builds.Done()
		s.finishBuild(name, resource, p, b, b.run(context.Background(), s.done, s.reporter(name, resource)))
	}()
}

// build is a graph under construction over a prefix of a partition's slots
// by workers goroutines (graph.addUntil).
type build struct {
	g       *graph
	n       int32
	gen     uint32
	workers int
}

// startBuild marks p as building and returns a build of its current slots;
// the caller holds the write lock.
func startBuild(p *partition, workers int) *build {
	n := int32(len(p.slots))
	p.building = true
	return &build{g: newGraph(p.vecs.prefix(n)), n: n, gen: p.gen, workers: workers}
}

// run builds and calibrates the graph without any lock, reporting its
// progress to report (if not nil); false when stop closed or ctx was done
// first.
func (b *build) run(ctx context.Context, stop <-chan struct{}, report func(done, total int)) bool {
	halted := func() bool {
		select {
		case <-stop:
			return true
		case <-ctx.Done():
			return true
		default:
			return false
		}
	}
	if !b.g.addUntil(b.n, b.workers, func(done, total int) bool {
		if halted() {
			return false
		}
		if report != nil {
			report(done, total)
		}
		return true
	}) {
		return false
	}
	beam := b.g.calibrate(b.n, func(f func()) bool {
		if halted() {
			return false
		}
		f()
		return true
	})
	b.g.setBeam(beam, b.n)
	return beam != 0
}

// finishBuild installs a complete build unless the partition was replaced,
// compacted or the store closed meanwhile.
func (s *Store) finishBuild(name, resource string, p *partition, b *build, complete bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ix := s.indexes[name]; ix == nil || ix.parts[resource] != p || p.gen != b.gen {
		return
	}
	p.building = false
	if complete && !s.closed {
		b.g.v = &p.vecs
		p.graph = b.g
	}
}

// BuildGraphs brings the approximate index (HNSW graph) of every resource of
// index name up to date and calibrated (its search width, see graph.calibrate)
// and returns when it is, waiting for builds under way.
// Writes keep graphs up to date (see indexWritten) and searches build the
// ones an opened file lacks in the background, scanning exactly meanwhile;
// call it after opening a file so that the first searches already use the
// graph. Searches and writes go on while it runs. A done ctx stops it within
// a few hundred graph insertions, with ctx's error: the graphs it finished
// stay, the one it was building is dropped (that resource's searches scan
// exactly until the next BuildGraphs, or the background build a search
// starts, completes it).
func (s *Store) BuildGraphs(ctx context.Context, name string) error {
	const op = "BuildGraphs"
	for {
		if err := ctx.Err(); err != nil {
			return vector.Fail("local."+op, "canceled", err)
		}
		s.mu.Lock()
		ix, err := s.indexLocked(op, name)
		if err != nil {
			s.mu.Unlock()
			return err
		}
		resource, p, busy := staleGraph(ix)
		if p == nil {
			resource, p, busy = uncalibrated(ix)
			if p == nil {
				s.mu.Unlock()
				return nil
			}
			if !busy {
				g := p.graph
				g.calibrating = true
				s.mu.Unlock()
				s.calibrateShared(ctx, name, resource, p, g, g.n)
				continue
			}
		}
		if busy {
			s.mu.Unlock()
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Millisecond):
			}
			continue
		}
		b := startBuild(p, s.workers)
		s.mu.Unlock()
		s.finishBuild(name, resource, p, b, b.run(ctx, s.done, s.reporter(name, resource)))
	}
}

// indexWritten brings the graphs of the resources an Upsert wrote up to date
// before it returns, so that a bulk load (messages saved in batches, a
// reindex, an import) leaves no stretch of exact scans behind it. A
// calibrated graph lagging more than graphLag records is extended under the
// write lock, inlineMax records at a time so that searches and writes
// interleave (a write that tips a resource over graphLag pays for those
// records instead of the next search); a missing or uncalibrated graph is
// built and calibrated outside the lock, as BuildGraphs does. An extended
// graph keeps its calibration until a search recalibrates it
// (Store.calibrate) in the background. A done ctx stops the work within
// graphStep insertions of a build, or inlineMax of an extension, and returns
// ctx's error: a graph being built is
// dropped, an extension keeps what it added, and searches scan the records
// the graph lacks until a later write or search brings it up to date.
func (s *Store) indexWritten(ctx context.Context, name string, resources []string) error {
	for _, r := range resources {
		s.mu.Lock()
		p := s.partLocked(name, r)
		if p == nil || !p.graphStale() || p.building {
			s.mu.Unlock()
			continue
		}
		if g := p.graph; g == nil || g.beam == 0 {
			b := startBuild(p, s.workers)
			s.mu.Unlock()
			s.finishBuild(name, r, p, b, b.run(ctx, s.done, s.reporter(name, r)))
			if err := ctx.Err(); err != nil {
				return err
			}
			continue
		}
		report := s.reporter(name, r)
		from := int(p.graph.n)
		if report != nil {
			report(0, len(p.slots)-from)
		}
		for {
			if err := ctx.Err(); err != nil {
				s.mu.Unlock()
				return err
			}
			g := p.graph
			g.add(int32(min(int(g.n)+max(s.inlineMax, 1), len(p.slots))), s.workers)
			done, total := int(g.n)-from, len(p.slots)-from
			s.mu.Unlock()
			if report != nil {
				report(done, total)
			}
			if done >= total {
				break
			}
			s.mu.Lock()
			if s.partLocked(name, r) != p || p.building || p.graph != g {
				s.mu.Unlock()
				break
			}
		}
	}
	return nil
}

// reporter returns the Options.Progress reports of the graph of a
// resource, nil without Options.Progress.
func (s *Store) reporter(name, resource string) func(done, total int) {
	if s.progress == nil {
		return nil
	}
	return func(done, total int) {
		s.progress(BuildProgress{Index: name, Resource: resource, Done: done, Total: total})
	}
}

// partLocked returns the partition of resource in index name, nil when
// there is none or the store is closed; the caller holds the lock.
func (s *Store) partLocked(name, resource string) *partition {
	if ix := s.indexes[name]; ix != nil && !s.closed {
		return ix.parts[resource]
	}
	return nil
}

// staleGraph returns a partition of ix whose graph lags (busy: a build of it
// is under way), or nil when every graph is up to date.
func staleGraph(ix *index) (resource string, p *partition, busy bool) {
	for r, q := range ix.parts {
		if q.graphStale() {
			if !q.building {
				return r, q, false
			}
			resource, p, busy = r, q, true
		}
	}
	return resource, p, busy
}

// uncalibrated returns a partition of ix whose graph has no calibration yet
// (busy: one is under way), or nil when there is none.
func uncalibrated(ix *index) (resource string, p *partition, busy bool) {
	for r, q := range ix.parts {
		if g := q.graph; g != nil && g.beam == 0 {
			if !g.calibrating {
				return r, q, false
			}
			resource, p, busy = r, q, true
		}
	}
	return resource, p, busy
}

// hybrid fuses the top vector.Fused(q.TopK) of the vector and BM25 rankings like
// Weaviate's relativeScoreFusion: each list is min-max normalized (all equal
// scores normalize to 1; a BM25 list holding every match against 0,
// vector.KeywordLow), weighted, and summed per record. Only each side's
// top candidates take part, so neither side needs a full score list. The
// keyword side leaves out the query's common terms (vector.KeywordTerms)
// when there is a vector side; when all its terms are common it adds
// nothing, and the query returns the k nearest by vector (cosine scores), as
// Weaviate's does.
func hybrid(p *partition, q vector.Query, thread int32, k int) []scored {
	var ts []bm25Term
	var c bm25Norm
	if q.Alpha < 1 && q.Text != "" {
		if ts, c = p.bm25Terms(q); q.Alpha > 0 && len(ts) > 0 {
			if ts = vector.KeywordTerms(ts, func(t bm25Term) int { return int(p.df[t.no]) }, p.live()); len(ts) == 0 {
				return p.nearest(unit(q.Vector), thread, k)
			}
		}
	}
	scores := map[int32]float64{}
	fused := vector.Fused(q.TopK) // hits of each ranking fused
	add := func(list []scored, w float64, keyword bool) {
		list = p.top(list, fused)
		if len(list) == 0 {
			return
		}
		hi, lo := list[0].score, list[len(list)-1].score
		if keyword {
			lo = vector.KeywordLow(lo, len(list) < fused)
		}
		for _, r := range list {
			scores[r.s] += vector.RelativeScore(r.score, hi, lo, w)
		}
	}
	// The two sides only read the partition: BM25 runs beside the vector
	// search, so a hybrid query takes about as long as its slower side.
	var kw []scored
	done := make(chan struct{})
	go func() {
		defer close(done)
		kw, _ = p.bm25Walk(ts, c, thread, fused)
	}()
	var vec []scored
	if q.Alpha > 0 {
		vec = p.nearest(unit(q.Vector), thread, fused)
	}
	<-done
	add(kw, 1-q.Alpha, true)
	add(vec, q.Alpha, false)
	out := make([]scored, 0, len(scores))
	for s, f := range scores {
		out = append(out, scored{s, f})
	}
	return out
}

// top returns the k best of list, best first, selecting with a bounded heap
// so a query over n records costs O(n log k), not a sort of all n.
func (p *partition) top(list []scored, k int) []scored {
	if k >= len(list) {
		p.sortScored(list)
		return list
	}
	h := make([]scored, 0, k) // a heap whose root is the worst kept hit
	worse := func(i, j int) bool { return p.better(h[j], h[i]) }
	for _, r := range list {
		switch {
		case len(h) < k:
			h = append(h, r)
			for i := len(h) - 1; i > 0 && worse(i, (i-1)/2); i = (i - 1) / 2 {
				h[i], h[(i-1)/2] = h[(i-1)/2], h[i]
			}
		case p.better(r, h[0]):
			h[0] = r
			for i := 0; ; {
				c := 2*i + 1
				if c >= len(h) {
					break
				}
				if c+1 < len(h) && worse(c+1, c) {
					c++
				}
				if !worse(c, i) {
					break
				}
				h[i], h[c] = h[c], h[i]
				i = c
			}
		}
	}
	p.sortScored(h)
	return h
}

// better orders by score descending, then by ID for determinism.
func (p *partition) better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return p.slots[a.s].id < p.slots[b.s].id
}

// sortScored orders by score descending, then by ID for determinism.
func (p *partition) sortScored(list []scored) {
	sort.Slice(list, func(i, j int) bool { return p.better(list[i], list[j]) })
}

func errClosed(op string) error { return vector.Fail("local."+op, "store is closed", nil) }

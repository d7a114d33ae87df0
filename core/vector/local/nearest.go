package local

// DefaultApproximateFrom is the number of records of a resource from which
// its vector search uses the HNSW graph instead of an exact scan (see
// Options.ApproximateFrom). Below it an exact scan of the int8 codes takes
// well under a millisecond.
const DefaultApproximateFrom = 5000

// graphLag is how many records may wait outside the graph (searched
// exactly) before a search adds them: single upserts stay cheap, and the
// graph is built by the first search that needs it rather than by writes.
const graphLag = 512

// inlineGraphMax is the number of records up to which a missing or lagging
// graph is extended inside the search that needs it, under the store's write
// lock (1,024 random 384-dimension vectors: under a second; 8,192 took 10 s
// on the 2-core test machine). A larger
// partition (a bulk import, an opened file without a saved graph) has its
// graph built in the background while searches scan exactly, so no search
// and no write waits for it.
const inlineGraphMax = 1024

// selective is the share of a partition below which a thread filter is
// searched exactly: a graph search for a small thread would walk most of
// the graph to fill its beam with that thread's records.
const selective = 8 // exact when the thread holds < 1/selective of the records

// graphStale reports whether indexGraph has work to do (see also
// graph.calibStale).
func (p *partition) graphStale() bool {
	if p.approx <= 0 || p.live() < p.approx {
		return false
	}
	return p.graph == nil || len(p.slots)-int(p.graph.n) > graphLag
}

// indexGraph adds every slot to the graph, building it if needed, with
// workers goroutines (graph.addUntil). It mutates the partition: the caller
// holds the store's write lock.
func (p *partition) indexGraph(workers int) {
	if p.graph == nil {
		p.graph = newGraph(&p.vecs)
	}
	p.graph.add(int32(len(p.slots)), workers)
}

// accepts reports whether slot s is live and in thread (-1 = any).
func (p *partition) accepts(s int32, thread int32) bool {
	t := p.thr[s]
	return t >= 0 && (thread < 0 || t == thread)
}

// nearest returns (up to) the k live slots of thread (-1 = all) most similar
// to the unit vector q (nil: none), unordered. With a calibrated graph it
// searches the graph with a beam of max(k, hnswEfMin, the calibrated beam),
// widened for a thread filter by the inverse of the thread's share, plus the
// slots the graph does not hold yet; it scans exactly when the graph is not
// calibrated yet or calibrated to scan, when the filter is selective, when
// the graph search came back short, or when the store always searches
// exactly (a negative Options.ApproximateFrom, also if the file it opened
// holds a graph).
func (p *partition) nearest(q []float32, thread int32, k int) []scored {
	if q == nil {
		return nil
	}
	n := p.live()
	if thread >= 0 {
		n = int(p.tcount[thread])
	}
	g := p.graph
	if g == nil || p.approx <= 0 || g.beam == 0 || g.beam == beamExact || n*selective < p.live() {
		return p.scan(q, thread, k, n)
	}
	ef := min(max(k, hnswEfMin, g.beam)*p.live()/max(n, 1), p.live())
	found := g.search(q, k, ef, func(s int32) bool { return p.accepts(s, thread) })
	out := p.exact(q, thread, g.n)
	for _, c := range found {
		out = append(out, scored{c.id, float64(c.sim)})
	}
	if len(out) < min(k, n) {
		return p.scan(q, thread, k, n)
	}
	return out
}

// scan is the exact search for the k live slots of thread most similar to
// q, n of which are live: one similarity per graph node when the graph has
// fewer nodes than that (the slots it lacks scanned one by one), else one
// per slot.
func (p *partition) scan(q []float32, thread int32, k, n int) []scored {
	g := p.graph
	if g == nil || int(g.nodes()) >= n {
		return p.exact(q, thread, 0)
	}
	out := p.exact(q, thread, g.n)
	for _, c := range g.scan(q, k, func(s int32) bool { return p.accepts(s, thread) }, -1) {
		out = append(out, scored{c.id, float64(c.sim)})
	}
	return out
}

// exact scores the live slots of thread from slot from on against q.
func (p *partition) exact(q []float32, thread int32, from int32) []scored {
	var out []scored
	for s := from; s < int32(len(p.slots)); s++ {
		if !p.accepts(s, thread) || p.vecs.scale[s] == 0 {
			continue
		}
		out = append(out, scored{s, float64(p.vecs.sim(q, s))})
	}
	return out
}

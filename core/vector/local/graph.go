package local

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
)

// HNSW parameters. M0 = 2·M neighbours on the bottom layer, as the paper
// recommends; efConstruction 100 and the neighbour-selection heuristic keep
// recall@10 ≥ 0.95 of exact search on LoCoMo and on 4k random 64-dimension
// vectors at the smallest beam (approx_test.go) while a 100k build stays
// within tens of seconds; harder data gets a wider beam from calibration
// (calibrate.go).
const (
	hnswM     = 16
	hnswM0    = 2 * hnswM
	hnswEfC   = 100
	hnswEfMin = 64 // smallest search beam
)

// vectors holds a partition's quantized vectors by slot (see quant.go).
// The codes are in chunks of chunkSlots slots that never move once full:
// growing the store allocates one more chunk instead of copying all codes
// into a slice 1.25× larger (at 100k × 384 dimensions, 37 MiB copied into
// 46 MiB, both live during the copy), and a build's snapshot (prefix) shares
// them.
type vectors struct {
	dim    int
	chunks [][]int8   // chunkSlots·dim codes each, the last one growing
	maps   []*mapping // owners of the chunks outside the heap (offheap.go)
	scale  []float32  // per slot; 0 = zero vector
}

// chunkSlots is the number of slots per chunk of codes (384 KiB at 384
// dimensions).
const chunkSlots = 1024

func (v *vectors) code(s int32) []int8 {
	o := int(s%chunkSlots) * v.dim
	return v.chunks[s/chunkSlots][o : o+v.dim : o+v.dim]
}

// add appends a slot's codes and scale.
func (v *vectors) add(codes []int8, scale float32) {
	if v.dim == 0 {
		v.dim = len(codes)
	}
	n := len(v.scale)
	if n%chunkSlots == 0 {
		var c []int8
		var m *mapping
		if n > 0 { // the first chunk grows by appends: small partitions stay small
			c, m = offHeap[int8](chunkSlots * v.dim)
		}
		v.chunks, v.maps = append(v.chunks, c[:0]), append(v.maps, m)
	}
	last := len(v.chunks) - 1
	v.chunks[last] = append(v.chunks[last], codes...)
	v.scale = append(v.scale, scale)
}

// prefix returns the vectors of slots [0, n) sharing v's memory; later adds
// to v do not change what it holds.
func (v *vectors) prefix(n int32) *vectors {
	c := (int(n) + chunkSlots - 1) / chunkSlots
	return &vectors{dim: v.dim, chunks: slices.Clone(v.chunks[:c]), maps: slices.Clone(v.maps[:c]), scale: v.scale[:n:n]}
}

// sim is the cosine similarity of unit query q and slot s.
func (v *vectors) sim(q []float32, s int32) float32 {
	return dot(q, v.code(s)) * v.scale[s]
}

// graph is a hierarchical navigable small world graph (Malkov & Yashunin,
// 2016) over the distinct vectors (nodes, see nodes.go) of the slots [0, n)
// of a partition's vectors, written for this store rather than taken from a
// library: graph libraries for Go keep a float32 copy of every vector and
// map-based neighbour sets per node (at 100k × 384 dimensions that alone is
// over 150 MiB), where this one reads the partition's int8 codes and keeps
// neighbours in flat arrays. Deleted
// slots stay in the graph (a node without live slots as a waypoint);
// searches skip them through accept, and the partition compacts (and
// rebuilds the graph) when too many are dead.
type graph struct {
	v     *vectors
	n     int32       // slots [0, n) are in the graph
	first []int32     // node -> its first slot
	next  []int32     // slot -> the next slot of its node (-1: none), slots [0, n)
	table []int32     // node+1 by hash of its codes, 0 empty (nodes.go)
	l0    []int32     // bottom-layer neighbours, hnswM0 per node
	l0sim []int16     // their similarity to the node (simCode)
	l0n   []uint8     // neighbour count per node
	mem   [2]*mapping // owners of l0 and l0sim outside the heap (offheap.go)
	up    map[int32][]links
	entry int32
	top   int // level of entry
	rng   *rand.Rand
	pool  sync.Pool // *visited
	// beam is the search width calibrate found for recall@10 ≥ 0.95 on
	// the first calN slots (0: not calibrated yet; beamExact: search
	// exactly). calibrating: a calibration is under way (Store.calibrate).
	beam        int
	calN        int32
	calibrating bool
}

// links is one node's neighbours on one upper level.
type links struct {
	ids  []int32
	sims []float32
}

func newGraph(v *vectors) *graph {
	return &graph{v: v, up: map[int32][]links{}, entry: -1, rng: rand.New(rand.NewPCG(1, 2))}
}

// cand is a node and its similarity to the query.
type cand struct {
	id  int32
	sim float32
}

// visited marks nodes seen by one search (epoch-stamped, reused via pool).
type visited struct {
	mark  []uint32
	epoch uint32
}

func (g *graph) visitor() *visited {
	vis, _ := g.pool.Get().(*visited)
	if vis == nil {
		vis = &visited{}
	}
	if n := g.nodes(); len(vis.mark) < int(n) {
		vis.mark = make([]uint32, n+n/4)
		vis.epoch = 0
	}
	vis.epoch++
	if vis.epoch == 0 {
		clear(vis.mark)
		vis.epoch = 1
	}
	return vis
}

// seen marks id and reports whether it was marked already.
func (vis *visited) seen(id int32) bool {
	if vis.mark[id] == vis.epoch {
		return true
	}
	vis.mark[id] = vis.epoch
	return false
}

// neighbours returns node's neighbour ids on level l.
func (g *graph) neighbours(node int32, l int) []int32 {
	if l == 0 {
		b := int(node) * hnswM0
		return g.l0[b : b+int(g.l0n[node])]
	}
	return g.up[node][l-1].ids
}

// simCode is a bottom-layer similarity as kept in l0sim: in steps of
// 1/32,767, half the memory of a float32, and fine enough to pick the least
// similar of a node's neighbours (link).
func simCode(sim float32) int16 {
	return int16(math.Round(float64(max(-1, min(1, sim))) * math.MaxInt16))
}

// add adds slots [g.n, n) to the graph: to the node of their vector,
// inserting the nodes of new vectors with workers goroutines (addUntil).
func (g *graph) add(n int32, workers int) { g.addUntil(n, workers, nil) }

// addUntil is add that calls step every graphStep nodes with the nodes
// inserted and the nodes to insert, and gives up, reporting false, when it
// returns false (the graph is then incomplete: the caller discards it).
//
// It inserts the new nodes in batches (batchSize), each in two phases.
// First up to workers goroutines (the caller's among them; below 1:
// runtime.GOMAXPROCS) plan the batch's nodes, each claiming the next one
// from a shared counter: a node's plan is its beam searches of the graph as
// it was before the batch, merged with the batch's earlier nodes compared
// exactly (the graph lacks them), and its neighbours chosen from those.
// Then the caller applies the plans in node order: each node's lists, its
// back-links in its neighbours' lists, the entry point. So the graph is the
// same for any number of workers, and close to a node-by-node build's (a
// node sees every earlier one, through the graph or exactly).
//
// Why this scales to 16 cores as it does to 2: planning, nearly all of the
// work, reads memory no one writes while it runs, so the hot path takes no
// lock at all (no per-node or striped lock on the neighbour lists, no
// entry-point lock); the workers share one atomic counter, touched once a
// node. What stays serial is applying the plans, a node's few dozen list
// writes (1.1% of a one-worker build of 10k 384-dimension vectors, less in
// larger graphs, whose searches cost more), and the wait for a batch's
// slowest node, which idles a worker for about half a node's planning per
// batch: at 16 workers, 16 nodes each per batch of a large graph, a few per
// cent (a small graph's batches are smaller, but its nodes are quick to
// plan). By Amdahl's law that leaves 16 workers about 13× one; beyond, the
// bound is memory bandwidth for the codes the searches read, not
// coordination.
func (g *graph) addUntil(n int32, workers int, step func(done, total int) bool) bool {
	from := int32(len(g.l0n)) // nodes already inserted
	g.group(n)
	to := g.nodes()
	g.grow(from, to)
	total := int(to - from)
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	plans := make([]plan, min(graphStep, total))
	for lo, report := from, from; lo < to; {
		if step != nil && lo >= report {
			if !step(int(lo-from), total) {
				return false
			}
			report = lo + graphStep
		}
		hi := min(lo+batchSize(lo), to)
		g.planBatch(lo, hi, plans[:hi-lo], workers)
		for x := lo; x < hi; x++ {
			g.apply(x, plans[x-lo])
		}
		lo = hi
	}
	if step != nil {
		step(total, total)
	}
	g.n = n
	return true
}

// graphStep is the number of nodes a build inserts between two checks of
// its context and reports of its progress, and its largest batch.
const graphStep = 256

// batchSize is the number of nodes addUntil plans at once when the graph
// holds n nodes: a 64th of them (at least 16, at most graphStep). The
// searches of a batch's nodes do not pass through each other, so a batch
// is kept a small part of the graph: with a 16th, recall@10 at the
// smallest beam fell by 0.4 points on 4k random 64-dimension vectors, with
// a 64th it matched a node-by-node build's.
func batchSize(n int32) int32 { return max(16, min(graphStep, n/64)) }

// plan is a new node's neighbours by level, bottom first (none for a zero
// vector).
type plan [][]cand

// planBatch plans nodes [lo, hi) into plans with up to workers goroutines.
func (g *graph) planBatch(lo, hi int32, plans []plan, workers int) {
	var next atomic.Int32
	next.Store(lo)
	work := func() {
		q := make([]float32, g.v.dim)
		for x := next.Add(1) - 1; x < hi; x = next.Add(1) - 1 {
			plans[x-lo] = g.plan(x, lo, q)
		}
	}
	var wg sync.WaitGroup
	for range min(workers, int(hi-lo)) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
}

// plan returns node x's neighbours, the nodes before lo being in the graph
// and those in [lo, x) not yet; q is the caller's buffer for x's vector. It
// only reads the graph.
func (g *graph) plan(x, lo int32, q []float32) plan {
	if g.scale(x) == 0 { // a zero vector is never a neighbour
		return nil
	}
	level := len(g.up[x])
	decode(g.code(x), g.scale(x), q)
	found := make([][]cand, level+1) // by level, from the graph
	if g.entry >= 0 {
		ep := []cand{{g.entry, g.sim(q, g.entry)}}
		for l := g.top; l > level; l-- {
			ep = []cand{g.greedy(q, ep[0], l)}
		}
		vis := g.visitor()
		for l := min(g.top, level); l >= 0; l-- {
			found[l] = g.layer(q, ep, hnswEfC, l, vis, nil)
			vis.epoch++ // a fresh visited set for the next level
			ep = found[l]
		}
		g.pool.Put(vis)
	}
	var peers []cand // the batch's earlier nodes
	for y := lo; y < x; y++ {
		if g.scale(y) != 0 {
			peers = append(peers, cand{y, g.sim(q, y)})
		}
	}
	p := make(plan, level+1)
	for l := range p {
		w := slices.Clone(found[l])
		for _, c := range peers {
			if len(g.up[c.id]) >= l {
				w = append(w, c)
			}
		}
		if len(w) > len(found[l]) {
			sort.Slice(w, func(i, j int) bool { return w[i].sim > w[j].sim })
			w = w[:min(len(w), hnswEfC)]
		}
		width := hnswM
		if l == 0 {
			width = hnswM0
		}
		p[l] = g.choose(w, width)
	}
	return p
}

// apply links node x into the graph as planned.
func (g *graph) apply(x int32, p plan) {
	for l, nb := range p {
		g.setLinks(x, l, nb)
		for _, c := range nb {
			g.link(c.id, cand{x, c.sim}, l)
		}
	}
	if level := len(p) - 1; p != nil && (g.entry < 0 || level > g.top) {
		g.entry, g.top = x, level
	}
}

// grow makes room for the new nodes [from, to): empty bottom-layer lists
// (reserve), and the upper levels each draws, entered into up now so that
// planning only reads the map.
func (g *graph) grow(from, to int32) {
	g.reserve(to)
	g.l0 = g.l0[:int(to)*hnswM0]
	g.l0sim = g.l0sim[:int(to)*hnswM0]
	g.l0n = g.l0n[:to]
	clear(g.l0n[from:])
	for x := from; x < to; x++ {
		if g.scale(x) == 0 {
			continue
		}
		if level := int(-math.Log(1-g.rng.Float64()) / math.Log(hnswM)); level > 0 {
			g.up[x] = make([]links, level)
		}
	}
}

// reserve sizes the bottom layer for n nodes at once: appending node by
// node would leave up to a quarter of it unused and copy it at every growth.
// A graph being extended gets 1/16 more, for the extensions to come.
func (g *graph) reserve(n int32) {
	if cap(g.l0n) >= int(n) && cap(g.l0) >= int(n)*hnswM0 && cap(g.l0sim) >= int(n)*hnswM0 {
		return
	}
	if len(g.l0n) > 0 {
		n += n / 16
	}
	g.l0, g.mem[0] = regrow(g.l0, int(n)*hnswM0)
	g.l0sim, g.mem[1] = regrow(g.l0sim, int(n)*hnswM0)
	g.l0n = append(make([]uint8, 0, n), g.l0n...)
}

// regrow returns a copy of s with a capacity of c, outside the heap if it
// is large (offHeap), and the mapping owning it.
func regrow[T int16 | int32](s []T, c int) ([]T, *mapping) {
	t, m := offHeap[T](c)
	return t[:copy(t, s)], m
}

// greedy walks level l from ep to the node most similar to q.
func (g *graph) greedy(q []float32, ep cand, l int) cand {
	for moved := true; moved; {
		moved = false
		for _, nb := range g.neighbours(ep.id, l) {
			if s := g.sim(q, nb); s > ep.sim {
				ep, moved = cand{nb, s}, true
			}
		}
	}
	return ep
}

// layer is the beam search of level l from eps: up to ef nodes most similar
// to q that accept admits (nil admits all), best first. Nodes accept rejects
// are still walked through.
func (g *graph) layer(q []float32, eps []cand, ef, l int, vis *visited, accept func(int32) bool) []cand {
	front := candHeap{max: true} // candidates to expand, best first
	var res candHeap             // results, worst first
	for _, e := range eps {
		vis.seen(e.id)
		front.push(e)
		if accept == nil || accept(e.id) {
			res.push(e)
		}
	}
	for len(front.a) > 0 {
		c := front.pop()
		if len(res.a) >= ef && c.sim < res.a[0].sim {
			break
		}
		for _, nb := range g.neighbours(c.id, l) {
			if vis.seen(nb) {
				continue
			}
			s := g.sim(q, nb)
			if len(res.a) < ef || s > res.a[0].sim {
				front.push(cand{nb, s})
				if accept == nil || accept(nb) {
					res.push(cand{nb, s})
					if len(res.a) > ef {
						res.pop()
					}
				}
			}
		}
	}
	out := res.a
	sort.Slice(out, func(i, j int) bool { return out[i].sim > out[j].sim })
	return out
}

// choose picks up to m neighbours from w (best first) by the paper's
// heuristic — a candidate closer to an already chosen neighbour than to the
// new node is skipped — then fills up with the skipped ones, which keeps
// near-duplicate vectors connected.
func (g *graph) choose(w []cand, m int) []cand {
	if len(w) <= m {
		return w
	}
	out := make([]cand, 0, m)
	var skipped []cand
	buf := make([]float32, g.v.dim)
	for _, c := range w {
		if len(out) == m {
			break
		}
		decode(g.code(c.id), g.scale(c.id), buf)
		ok := true
		for _, r := range out {
			if g.sim(buf, r.id) > c.sim {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, c)
		} else {
			skipped = append(skipped, c)
		}
	}
	for _, c := range skipped {
		if len(out) == m {
			break
		}
		out = append(out, c)
	}
	return out
}

// setLinks sets node x's neighbours on level l to nb.
func (g *graph) setLinks(x int32, l int, nb []cand) {
	if l == 0 {
		b := int(x) * hnswM0
		for i, c := range nb {
			g.l0[b+i], g.l0sim[b+i] = c.id, simCode(c.sim)
		}
		g.l0n[x] = uint8(len(nb))
		return
	}
	lk := links{ids: make([]int32, len(nb), hnswM), sims: make([]float32, len(nb), hnswM)}
	for i, c := range nb {
		lk.ids[i], lk.sims[i] = c.id, c.sim
	}
	g.up[x][l-1] = lk
}

// link adds c to node's neighbours on level l; a full list drops its least
// similar neighbour if c is more similar.
func (g *graph) link(node int32, c cand, l int) {
	if l > 0 {
		lk := &g.up[node][l-1]
		if len(lk.ids) < hnswM {
			lk.ids, lk.sims = append(lk.ids, c.id), append(lk.sims, c.sim)
		} else if w := worst(lk.sims); c.sim > lk.sims[w] {
			lk.ids[w], lk.sims[w] = c.id, c.sim
		}
		return
	}
	b, n, sim := int(node)*hnswM0, int(g.l0n[node]), simCode(c.sim)
	if n < hnswM0 {
		g.l0[b+n], g.l0sim[b+n] = c.id, sim
		g.l0n[node]++
	} else if w := b + worst(g.l0sim[b:b+n]); sim > g.l0sim[w] {
		g.l0[w], g.l0sim[w] = c.id, sim
	}
}

// worst returns the index of the smallest of sims.
func worst[T int16 | float32](sims []T) int {
	w := 0
	for i := range sims {
		if sims[i] < sims[w] {
			w = i
		}
	}
	return w
}

// search returns the slots accept (nil: all) admits that are most similar
// to unit q, best first: at least k of them if the search reaches them, and
// all slots tied with the k-th (expand). It searches the nodes with a beam
// of ef.
func (g *graph) search(q []float32, k, ef int, accept func(int32) bool) []cand {
	return g.searchWithout(q, k, ef, accept, -1)
}

// searchWithout is search that neither returns nor walks through node
// without, a node of the bottom layer only (-1: none): calibration searches
// for a node's own vector as if it were not in the graph.
func (g *graph) searchWithout(q []float32, k, ef int, accept func(int32) bool, without int32) []cand {
	if g.entry < 0 {
		return nil
	}
	ep := cand{g.entry, g.sim(q, g.entry)}
	for l := g.top; l > 0; l-- {
		ep = g.greedy(q, ep, l)
	}
	vis := g.visitor()
	if without >= 0 {
		vis.seen(without)
	}
	admit := func(x int32) bool { return g.admits(x, accept) }
	if accept == nil {
		admit = nil
	}
	res := g.layer(q, []cand{ep}, max(ef, k), 0, vis, admit)
	g.pool.Put(vis)
	return g.expand(res, k, accept)
}

// candHeap is a binary heap of candidates by similarity, the most similar
// on top when max is set, else the least similar; written out because
// container/heap's interface calls dominated a search.
type candHeap struct {
	a   []cand
	max bool
}

// above reports whether a belongs above b.
func (h *candHeap) above(a, b cand) bool {
	if h.max {
		return a.sim > b.sim
	}
	return a.sim < b.sim
}

func (h *candHeap) push(c cand) {
	h.a = append(h.a, c)
	a := h.a
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.above(a[i], a[p]) {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *candHeap) pop() cand {
	a := h.a
	top := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h.above(a[c+1], a[c]) {
			c++
		}
		if !h.above(a[c], a[i]) {
			break
		}
		a[i], a[c] = a[c], a[i]
		i = c
	}
	h.a = a
	return top
}

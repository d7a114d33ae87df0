package local

import (
	"math"
	"math/rand/v2"
	"sort"
	"sync"
)

// HNSW parameters. M0 = 2·M neighbours on the bottom layer, as the paper
// recommends; efConstruction 100 and the neighbour-selection heuristic keep
// recall@10 ≥ 0.95 of exact search on LoCoMo and on random vectors
// (approx_test.go) while a 100k build stays within tens of seconds.
const (
	hnswM     = 16
	hnswM0    = 2 * hnswM
	hnswEfC   = 100
	hnswEfMin = 64 // smallest search beam
)

// vectors holds a partition's quantized vectors by slot (see quant.go).
type vectors struct {
	dim   int
	codes []int8    // dim codes per slot
	scale []float32 // per slot; 0 = zero vector
}

func (v *vectors) code(s int32) []int8 {
	return v.codes[int(s)*v.dim : int(s+1)*v.dim]
}

// sim is the cosine similarity of unit query q and slot s.
func (v *vectors) sim(q []float32, s int32) float32 {
	return dot(q, v.code(s)) * v.scale[s]
}

// graph is a hierarchical navigable small world graph (Malkov & Yashunin,
// 2016) over the slots [0, n) of a partition's vectors, written for this
// store rather than taken from a library: graph libraries for Go keep a
// float32 copy of every vector and map-based neighbour sets per node (at
// 100k × 384 dimensions that alone is over 150 MiB), where this one reads
// the partition's int8 codes and keeps neighbours in flat arrays. Deleted
// slots stay in the graph as waypoints; searches skip them through accept,
// and the partition compacts (and rebuilds the graph) when too many are dead.
type graph struct {
	v     *vectors
	n     int32     // slots [0, n) are in the graph
	l0    []int32   // bottom-layer neighbours, hnswM0 per node
	l0sim []float32 // their similarity to the node
	l0n   []uint8   // neighbour count per node
	up    map[int32][]links
	entry int32
	top   int // level of entry
	rng   *rand.Rand
	pool  sync.Pool // *visited
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
	if len(vis.mark) < int(g.n) {
		vis.mark = make([]uint32, g.n+g.n/4)
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

// add inserts slots [g.n, n) into the graph.
func (g *graph) add(n int32) { g.addUntil(n, nil) }

// addUntil is add that gives up, reporting false, once stop is closed.
func (g *graph) addUntil(n int32, stop <-chan struct{}) bool {
	q := make([]float32, g.v.dim)
	for ; g.n < n; g.n++ {
		if g.n%256 == 0 {
			select {
			case <-stop:
				return false
			default:
			}
		}
		g.insert(g.n, q)
	}
	return true
}

func (g *graph) insert(x int32, q []float32) {
	g.l0 = append(g.l0, make([]int32, hnswM0)...)
	g.l0sim = append(g.l0sim, make([]float32, hnswM0)...)
	g.l0n = append(g.l0n, 0)
	if g.v.scale[x] == 0 { // a zero vector is never a neighbour
		return
	}
	level := int(-math.Log(1-g.rng.Float64()) / math.Log(hnswM))
	if g.entry < 0 {
		g.entry, g.top = x, level
		g.up[x] = make([]links, level)
		return
	}
	decode(g.v.code(x), g.v.scale[x], q)
	ep := []cand{{g.entry, g.v.sim(q, g.entry)}}
	for l := g.top; l > level; l-- {
		ep = []cand{g.greedy(q, ep[0], l)}
	}
	if level > 0 {
		g.up[x] = make([]links, level)
	}
	vis := g.visitor()
	for l := min(g.top, level); l >= 0; l-- {
		width := hnswM
		if l == 0 {
			width = hnswM0
		}
		w := g.layer(q, ep, hnswEfC, l, vis, nil)
		vis.epoch++ // a fresh visited set for the next level
		nb := g.choose(w, width)
		g.setLinks(x, l, nb)
		for _, c := range nb {
			g.link(c.id, cand{x, c.sim}, l)
		}
		ep = w
	}
	g.pool.Put(vis)
	if level > g.top {
		g.entry, g.top = x, level
	}
}

// greedy walks level l from ep to the node most similar to q.
func (g *graph) greedy(q []float32, ep cand, l int) cand {
	for moved := true; moved; {
		moved = false
		for _, nb := range g.neighbours(ep.id, l) {
			if s := g.v.sim(q, nb); s > ep.sim {
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
			s := g.v.sim(q, nb)
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
		decode(g.v.code(c.id), g.v.scale[c.id], buf)
		ok := true
		for _, r := range out {
			if g.v.sim(buf, r.id) > c.sim {
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

func (g *graph) setLinks(x int32, l int, nb []cand) {
	if l == 0 {
		b := int(x) * hnswM0
		for i, c := range nb {
			g.l0[b+i], g.l0sim[b+i] = c.id, c.sim
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
	var ids []int32
	var sims []float32
	if l == 0 {
		b, n := int(node)*hnswM0, int(g.l0n[node])
		if n < hnswM0 {
			g.l0[b+n], g.l0sim[b+n] = c.id, c.sim
			g.l0n[node]++
			return
		}
		ids, sims = g.l0[b:b+n], g.l0sim[b:b+n]
	} else {
		lk := &g.up[node][l-1]
		if len(lk.ids) < hnswM {
			lk.ids, lk.sims = append(lk.ids, c.id), append(lk.sims, c.sim)
			return
		}
		ids, sims = lk.ids, lk.sims
	}
	worst := 0
	for i := range sims {
		if sims[i] < sims[worst] {
			worst = i
		}
	}
	if c.sim > sims[worst] {
		ids[worst], sims[worst] = c.id, c.sim
	}
}

// search returns up to k nodes accept admits, most similar to unit q first,
// searching with a beam of ef.
func (g *graph) search(q []float32, k, ef int, accept func(int32) bool) []cand {
	if g.entry < 0 {
		return nil
	}
	ep := cand{g.entry, g.v.sim(q, g.entry)}
	for l := g.top; l > 0; l-- {
		ep = g.greedy(q, ep, l)
	}
	vis := g.visitor()
	res := g.layer(q, []cand{ep}, max(ef, k), 0, vis, accept)
	g.pool.Put(vis)
	if len(res) > k {
		res = res[:k]
	}
	return res
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

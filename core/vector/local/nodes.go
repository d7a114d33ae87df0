package local

import (
	"hash/maphash"
	"slices"
	"sort"
	"unsafe"
)

// Graph nodes are distinct vectors, not slots. Chat history repeats itself
// ("ok", "thanks", a template's text), and hash-embedded messages repeat
// their vectors by the thousand (membench's 100k corpus: 13,014 distinct
// vectors; LoCoMo's 788 turns drawn to 100k): with a node per slot, copies
// of a vector (similarity 1) filled each other's neighbour lists and formed
// islands searches could not leave (recall@10 0.65 at any beam,
// BENCHMARKS.md). So slots whose int8 codes are identical (then so is their
// scale) share one node: the graph links nodes, and a search expands each
// node it returns to its slots.
//
// A node reads the codes of its first slot. Nodes are numbered in the order
// of their first slots, so the grouping of a partition's slots is a function
// of its codes alone: an opened file regroups its slots rather than storing
// the grouping (persist.go).

// nodeSeed hashes codes for the node table; the table is never saved.
var nodeSeed = maphash.MakeSeed()

// nodes returns the number of graph nodes.
func (g *graph) nodes() int32 { return int32(len(g.first)) }

// code returns node x's codes.
func (g *graph) code(x int32) []int8 { return g.v.code(g.first[x]) }

// scale returns node x's scale (0: a zero vector).
func (g *graph) scale(x int32) float32 { return g.v.scale[g.first[x]] }

// sim is the cosine similarity of unit query q and node x.
func (g *graph) sim(q []float32, x int32) float32 { return g.v.sim(q, g.first[x]) }

// group assigns slots [g.n, n) to nodes: a slot whose codes an existing
// node has joins it, any other starts a new node (numbered after the
// existing ones; the caller inserts those into the graph).
func (g *graph) group(n int32) {
	g.next = slices.Grow(g.next, int(n-g.n))
	for s := g.n; s < n; s++ {
		g.next = append(g.next, -1)
		if x := g.find(s); x >= 0 {
			// after the first slot, so that the node keeps reading its codes
			f := g.first[x]
			g.next[s], g.next[f] = g.next[f], s
			continue
		}
		g.first = append(g.first, s)
		g.remember(g.nodes() - 1)
	}
}

// find returns the node whose codes equal slot s's, or -1.
func (g *graph) find(s int32) int32 {
	if len(g.table) == 0 {
		return -1
	}
	mask := uint64(len(g.table) - 1)
	for i := g.hash(s) & mask; g.table[i] != 0; i = (i + 1) & mask {
		if x := g.table[i] - 1; g.same(g.first[x], s) {
			return x
		}
	}
	return -1
}

// remember enters node x into the table (open addressing, linear probing,
// at most half full), doubling it when it would fill past half.
func (g *graph) remember(x int32) {
	if 2*int(g.nodes()) > len(g.table) {
		g.table = make([]int32, max(1024, 2*len(g.table)))
		for y := range x {
			g.place(y)
		}
	}
	g.place(x)
}

// place puts node x into the first free entry of its probe sequence.
func (g *graph) place(x int32) {
	mask := uint64(len(g.table) - 1)
	i := g.hash(g.first[x]) & mask
	for g.table[i] != 0 {
		i = (i + 1) & mask
	}
	g.table[i] = x + 1
}

// hash hashes slot s's codes.
func (g *graph) hash(s int32) uint64 {
	c := g.v.code(s)
	return maphash.Bytes(nodeSeed, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(c))), len(c)))
}

// same reports whether slots a and b hold the same vector.
func (g *graph) same(a, b int32) bool {
	return g.v.scale[a] == g.v.scale[b] && slices.Equal(g.v.code(a), g.v.code(b))
}

// slotsOf calls fn with each slot of node x until fn returns false.
func (g *graph) slotsOf(x int32, fn func(s int32) bool) {
	for s := g.first[x]; s >= 0 && fn(s); s = g.next[s] {
	}
}

// admits reports whether accept (nil: all) admits a slot of node x.
func (g *graph) admits(x int32, accept func(int32) bool) bool {
	if accept == nil {
		return true
	}
	found := false
	g.slotsOf(x, func(s int32) bool {
		found = accept(s)
		return !found
	})
	return found
}

// expand lists the slots accept (nil: all) admits of nodes (best first) as
// candidates with their node's similarity, until k are listed and the next
// node is less similar than the last listed. Every slot tied with the k-th
// is listed, so the caller's order (score, then id) keeps the same records
// an exact scan would.
func (g *graph) expand(nodes []cand, k int, accept func(int32) bool) []cand {
	var out []cand
	for _, c := range nodes {
		if len(out) >= k && c.sim < out[len(out)-1].sim {
			break
		}
		g.slotsOf(c.id, func(s int32) bool {
			if accept == nil || accept(s) {
				out = append(out, cand{s, c.sim})
			}
			return true
		})
	}
	return out
}

// nodesBelow returns the number of nodes whose first slot is below n
// (nodes are numbered in the order of their first slots).
func (g *graph) nodesBelow(n int32) int32 {
	return int32(sort.Search(len(g.first), func(i int) bool { return g.first[i] >= n }))
}

// scan is search by an exact scan of the nodes other than without (-1:
// none): the slots accept (nil: all) admits that are most similar to unit
// q, best first, at least k of them if there are, and all slots tied with
// the k-th. It computes one similarity per distinct vector, where a scan of
// the slots computes one per copy.
func (g *graph) scan(q []float32, k int, accept func(int32) bool, without int32) []cand {
	count := func(x int32) int {
		c := 0
		g.slotsOf(x, func(s int32) bool {
			if accept == nil || accept(s) {
				c++
			}
			return true
		})
		return c
	}
	var res candHeap // worst on top
	held := 0        // admitted slots of the nodes in res
	var ties []cand
	for x := range g.nodes() {
		if x == without || g.scale(x) == 0 {
			continue
		}
		sim := g.sim(q, x)
		if held >= k && sim < res.a[0].sim {
			continue
		}
		c := count(x)
		if c == 0 {
			continue
		}
		above := len(res.a) > 0 && sim > res.a[0].sim
		res.push(cand{x, sim})
		held += c
		// drop the least similar nodes (all of a tie at once) while the
		// rest hold k slots; a node tied with the least similar cannot
		// let them go
		for above && len(res.a) > 0 {
			ties, c = ties[:0], 0
			for worst := res.a[0].sim; len(res.a) > 0 && res.a[0].sim == worst; {
				t := res.pop()
				ties, c = append(ties, t), c+count(t.id)
			}
			if held-c < k {
				for _, t := range ties {
					res.push(t)
				}
				break
			}
			held -= c
		}
	}
	nodes := res.a
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].sim > nodes[j].sim })
	return g.expand(nodes, k, accept)
}

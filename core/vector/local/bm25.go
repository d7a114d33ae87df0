package local

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/analysis"
)

// BM25 parameters (Weaviate's defaults).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// boundSlack widens every comparison of a bound with a score: bounds and
// partial sums are added in other orders than the exact scores, so they may
// differ from them in the last bits.
const boundSlack = 1e-9

// keywords returns the BM25 terms of a record or query: its analyzed
// keywords, else the plain terms of its text.
func keywords(analyzed, text string) []string {
	if analyzed != "" {
		return strings.Fields(analyzed)
	}
	return analysis.Plain.Terms(text)
}

// bm25Norm holds a query's length normalization: k1·(1-b) and k1·b/avgdl.
type bm25Norm struct{ k1b, k1bl float64 }

// score is one term's BM25 score in a record of length dl where it occurs
// tf times: idf times weight. Every score of the package comes from here,
// so that equal inputs give equal bits.
func (c bm25Norm) score(idf float64, tf uint16, dl int32) float64 { return idf * c.weight(tf, dl) }

// weight is the frequency part of score (the conversion keeps the compiler
// from fusing the multiply-add).
func (c bm25Norm) weight(tf uint16, dl int32) float64 {
	f := float64(tf)
	return f * (bm25K1 + 1) / (f + c.k1b + float64(c.k1bl*float64(dl)))
}

// Weights of frequencies below weightsTF in records shorter than weightsDL
// are tabulated for a walk of more than weightsFrom postings: a table look-up
// instead of a division per posting.
const (
	weightsTF   = 8
	weightsDL   = 256
	weightsFrom = 16 * weightsTF * weightsDL
)

// weights is the table of c.weight(tf, dl) at tf*weightsDL + dl.
type weights [weightsTF * weightsDL]float64

func (t *weights) fill(c bm25Norm) {
	for tf := range uint16(weightsTF) {
		for dl := range int32(weightsDL) {
			t[int(tf)*weightsDL+int(dl)] = c.weight(tf, dl)
		}
	}
}

// bm25Term is a distinct query term present in the partition: its number,
// its IDF and an upper bound of its score in any record.
type bm25Term struct {
	no    int32
	idf   float64
	bound float64
}

// peaks is the Pareto frontier of a posting list's (tf, dl) pairs, each
// packed as tf<<16 | min(dl, 0xffff): no pair has both a frequency at least
// and a length at most another's. A term's BM25 score grows with tf and
// falls with dl, so its best score in any record of the list is at a peak,
// whatever the current average length. Removing a record leaves its peak:
// the bound stays valid, only looser, until a compaction rebuilds the list.
type peaks []uint32

// add returns the frontier with the pair (tf, dl); a record longer than
// 0xffff counts as that long, which only raises the bound.
func (pk peaks) add(tf uint16, dl int32) peaks {
	d := uint32(min(dl, 0xffff))
	f := uint32(tf)
	for _, x := range pk {
		if x>>16 >= f && x&0xffff <= d {
			return pk
		}
	}
	pk = slices.DeleteFunc(pk, func(x uint32) bool { return x>>16 <= f && x&0xffff >= d })
	return append(pk, f<<16|d)
}

// bound is the highest score of a term with idf at any of the peaks.
func (pk peaks) bound(c bm25Norm, idf float64) float64 {
	var b float64
	for _, x := range pk {
		b = max(b, c.score(idf, uint16(x>>16), int32(x&0xffff)))
	}
	return b
}

// bm25Terms returns the distinct terms of q's keywords that the partition
// holds, in query order (the order their scores are added in), and the
// query's length normalization. Statistics cover the whole partition.
func (p *partition) bm25Terms(q vector.Query) ([]bm25Term, bm25Norm) {
	n := float64(p.live())
	if n == 0 {
		return nil, bm25Norm{}
	}
	avg := float64(p.totLen) / n
	if avg == 0 {
		avg = 1
	}
	c := bm25Norm{k1b: bm25K1 * (1 - bm25B), k1bl: bm25K1 * bm25B / avg}
	var ts []bm25Term
	for _, w := range keywords(q.Keywords, q.Text) {
		no, ok := p.termNo[w]
		if !ok || slices.ContainsFunc(ts, func(t bm25Term) bool { return t.no == no }) {
			continue
		}
		if p.df[no] == 0 {
			continue
		}
		df := float64(p.df[no])
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		ts = append(ts, bm25Term{no: no, idf: idf, bound: p.post[no].peaks.bound(c, idf)})
	}
	return ts, c
}

// bm25 returns the n best BM25 hits of thread (-1 = all) among the records
// sharing a term with q's keywords, best first, ties by ID: exactly the
// first n of scoring them all, with the same scores.
func (p *partition) bm25(q vector.Query, thread int32, n int) []scored {
	hits, _ := p.bm25Search(q, thread, n)
	return hits
}

// bm25Search is bm25, also returning how many postings it read.
//
// It is term-at-a-time MaxScore: terms are walked into per-record partial
// sums in order of their score bound, highest first. Once the bounds of the
// terms left add up to less than (a lower bound of) the n-th best partial
// sum, no record the walk has not reached can make the first n, and the walk
// stops if scoring the reached records that still can is cheaper than
// walking on; those get their exact scores from their own terms. On conversation text
// this leaves out the long lists of common words (a speaker's name); where
// every term is common, it walks them all.
func (p *partition) bm25Search(q vector.Query, thread int32, n int) ([]scored, int) {
	ts, c := p.bm25Terms(q)
	return p.bm25Walk(ts, c, thread, n)
}

// bm25Walk is bm25Search over the query terms ts.
func (p *partition) bm25Walk(ts []bm25Term, c bm25Norm, thread int32, n int) ([]scored, int) {
	if len(ts) == 0 || n <= 0 {
		return nil, 0
	}
	w := newWalk(p, ts, c, thread, n)
	defer w.release()
	read := 0
	for w.next < len(w.order) && !w.canStop() {
		read += w.step()
	}
	return w.finish(), read
}

// walk is the state of one bm25Search.
type walk struct {
	p      *partition
	ts     []bm25Term
	c      bm25Norm
	thread int32
	n      int
	order  []int     // indexes of ts, highest bound first
	left   []float64 // left[i]: the bounds of order[i:] added up
	posts  []int     // posts[i]: the postings of order[i:] added up
	next   int       // order[next] is the next term to walk
	table  bool      // weights is filled
	*scratch
}

// scratch is a walk's memory, pooled across queries: partial sums by slot
// (0 = not reached), the slots reached, the weights of a long walk and
// cut's histogram.
type scratch struct {
	acc     []float64
	reached []int32
	weights weights
	hist    [cutBuckets]int32
}

var scratches sync.Pool

// newWalk orders ts by bound and takes a scratch sized for p.
func newWalk(p *partition, ts []bm25Term, c bm25Norm, thread int32, n int) *walk {
	w := &walk{p: p, ts: ts, c: c, thread: thread, n: n, order: make([]int, len(ts))}
	for i := range w.order {
		w.order[i] = i
	}
	slices.SortStableFunc(w.order, func(a, b int) int { return cmp.Compare(ts[b].bound, ts[a].bound) })
	w.left, w.posts = make([]float64, len(ts)+1), make([]int, len(ts)+1)
	for i := len(ts) - 1; i >= 0; i-- {
		t := ts[w.order[i]]
		w.left[i] = w.left[i+1] + t.bound
		w.posts[i] = w.posts[i+1] + len(p.post[t.no].slots)
	}
	w.scratch, _ = scratches.Get().(*scratch)
	if w.scratch == nil {
		w.scratch = &scratch{}
	}
	if len(w.acc) < len(p.slots) {
		w.acc = make([]float64, len(p.slots))
	}
	w.reached = w.reached[:0]
	if w.table = w.posts[0] > weightsFrom; w.table {
		w.weights.fill(c)
	}
	return w
}

// release zeroes the partial sums and pools the scratch.
func (w *walk) release() {
	if len(w.reached) < len(w.acc)/16 {
		for _, s := range w.reached {
			w.acc[s] = 0
		}
	} else {
		clear(w.acc)
	}
	scratches.Put(w.scratch)
}

// step walks the next term into the partial sums; it returns the postings
// read.
func (w *walk) step() int {
	t := w.ts[w.order[w.next]]
	w.next++
	pl := &w.p.post[t.no]
	dl, acc := w.p.dl, w.acc
	filter := w.thread >= 0 || w.p.dead > 0 // postings keep dead slots
	for i, s := range pl.slots {
		if filter && !w.p.accepts(s, w.thread) {
			continue
		}
		if acc[s] == 0 {
			w.reached = append(w.reached, s)
		}
		acc[s] += t.idf * w.weight(pl.tfs[i], dl[s])
	}
	return len(pl.slots)
}

// weight is w.c.weight, from the table when it holds it.
func (w *walk) weight(tf uint16, dl int32) float64 {
	if w.table && tf < weightsTF && uint32(dl) < weightsDL {
		return w.weights[int(tf)*weightsDL+int(dl)]
	}
	return w.c.weight(tf, dl)
}

// canStop reports whether the walk may stop before the next term: the
// terms left cannot lift an unreached record to a lower bound of the n-th
// best partial sum (itself at most the n-th best score), and scoring the
// reached records that may still make it costs less than reading the
// postings left.
func (w *walk) canStop() bool {
	left, posts := w.left[w.next], w.posts[w.next]
	// A partial sum is at most the bounds walked; cut passes over the
	// reached records, about a third of the cost of reading a posting.
	if w.next == 0 || len(w.reached) < w.n || left >= w.left[0]-left || len(w.reached) > 3*posts {
		return false
	}
	// Rescoring a record looks it up in each query term's posting list (a
	// galloping search, a few postings' worth).
	worth := func(th float64, cands int) bool {
		return left*(1+boundSlack) < th && float64(cands*len(w.ts)*rescoreCost) < float64(posts)
	}
	// A sample of the reached records tells cheaply when stopping is out
	// of reach (where every term is common it is until the last term).
	if len(w.reached) > cutSample*w.n && !worth(w.cut(left, cutSample)) {
		return false
	}
	return worth(w.cut(left, 1))
}

// cutBuckets is the resolution of cut's histogram of partial sums;
// cutSample the stride of canStop's sample of the reached records.
const (
	cutBuckets = 1024
	cutSample  = 16
)

// cut returns th, a lower bound of the n-th highest partial sum of the
// reached records (0 when fewer are reached), and an upper bound of how many
// reached records have a partial sum of th-left or more. One pass builds a histogram
// of the partial sums; th is the lower edge of the bucket holding the n-th.
// With a stride above 1 it looks at every stride-th record only, and both
// are estimates.
func (w *walk) cut(left float64, stride int) (th float64, cands int) {
	n := (w.n + stride - 1) / stride
	if len(w.reached) < w.n {
		return 0, len(w.reached)
	}
	hist := &w.hist
	clear(hist[:])
	scale := cutBuckets / (w.left[0] - left) // partial sums are at most the bounds walked
	for i := 0; i < len(w.reached); i += stride {
		hist[min(int(w.acc[w.reached[i]]*scale), cutBuckets-1)]++
	}
	b, k := cutBuckets-1, int(hist[cutBuckets-1])
	for ; k < n; k += int(hist[b]) {
		b--
	}
	th = float64(b) / scale * (1 - boundSlack)
	for lo := max(int((th-left)*scale), 0); b > lo; k += int(hist[b]) {
		b--
	}
	return th, k * stride
}

// rescoreCost is the cost of looking a record up in a posting list, in
// postings read.
const rescoreCost = 2

// finish scores exactly the reached records that may still make the first
// n and returns those n, best first. Records the walk did not reach cannot
// (canStop), and a reached record's score is at most its partial sum plus
// the bounds of the terms not walked.
func (w *walk) finish() []scored {
	left := w.left[w.next]
	th, _ := w.cut(left, 1)
	var cands []int32
	for _, s := range w.reached {
		if (w.acc[s]+left)*(1+boundSlack) >= th {
			cands = append(cands, s)
		}
	}
	slices.Sort(cands)
	out := make([]scored, len(cands))
	for i, s := range cands {
		out[i] = scored{s: s}
	}
	w.rescore(out)
	return w.p.top(out, w.n)
}

// rescore sets the exact score of each record of out (ascending slots):
// each term's posting list is searched forward for them, and a record's
// scores are added up in query order like every score.
func (w *walk) rescore(out []scored) {
	nt := len(w.ts)
	contrib := make([]float64, len(out)*nt)
	for i, t := range w.ts {
		pl := &w.p.post[t.no]
		j := 0
		for k, r := range out {
			j += gallop(pl.slots[j:], r.s)
			if j < len(pl.slots) && pl.slots[j] == r.s {
				contrib[k*nt+i] = w.c.score(t.idf, pl.tfs[j], w.p.dl[r.s])
			}
		}
	}
	for k := range out {
		for _, v := range contrib[k*nt : (k+1)*nt] {
			out[k].score += v
		}
	}
}

// gallop returns the index of the first element of a (ascending) that is at
// least s: doubling steps, then a binary search.
func gallop(a []int32, s int32) int {
	hi := 1
	for hi < len(a) && a[hi-1] < s {
		hi *= 2
	}
	lo := hi / 2
	i, _ := slices.BinarySearch(a[lo:min(hi, len(a))], s)
	return lo + i
}

package tokenizer

// part is one boundary of a piece during byte-pair merging: the byte offset
// where a part starts and the rank of the merge of this part with the next.
type part struct {
	start int
	rank  uint32
}

// stackParts is the piece length up to which merging needs no allocation.
const stackParts = 64

// countPiece returns the number of tokens of one pre-token.
func (t *rankTable) countPiece(piece string) int {
	if len(piece) == 1 || t.lookup(piece) != noRank {
		return 1
	}
	if len(piece) >= longPiece {
		return t.heapMergeCount(piece)
	}
	var buf [stackParts + 1]part
	parts := buf[:0]
	if len(piece)+1 > len(buf) {
		parts = make([]part, 0, len(piece)+1)
	}
	return t.mergeCount(piece, parts)
}

// mergeCount runs tiktoken's byte-pair merge on piece and returns the number
// of tokens: it repeatedly merges the adjacent pair of lowest rank, the
// leftmost one on ties, until no adjacent pair is a token. parts is an empty
// buffer of capacity len(piece)+1.
func (t *rankTable) mergeCount(piece string, parts []part) int {
	for i := 0; i <= len(piece); i++ {
		parts = append(parts, part{start: i, rank: noRank})
	}
	for i := 0; i+2 < len(parts); i++ {
		parts[i].rank = t.lookup(piece[i : i+2])
	}
	for len(parts) > 1 {
		minRank, i := uint32(noRank), -1
		for j := 0; j < len(parts)-1; j++ {
			if parts[j].rank < minRank {
				minRank, i = parts[j].rank, j
			}
		}
		if i < 0 {
			break
		}
		parts[i].rank = t.pairRank(piece, parts, i)
		if i > 0 {
			parts[i-1].rank = t.pairRank(piece, parts, i-1)
		}
		parts = append(parts[:i+1], parts[i+2:]...)
	}
	return len(parts) - 1
}

// pairRank returns the rank of the merge of parts i and i+1 once parts i+1
// and i+2 are merged (the bytes from parts[i] to parts[i+3]), or noRank when
// there is no such pair.
func (t *rankTable) pairRank(piece string, parts []part, i int) uint32 {
	if i+3 >= len(parts) {
		return noRank
	}
	return t.lookup(piece[parts[i].start:parts[i+3].start])
}

// longPiece is the piece length from which countPiece merges with a heap:
// the scan for the lowest rank makes mergeCount quadratic, which a long run
// of letters (a pasted blob) would feel.
const longPiece = 256

// mergeEntry is a candidate merge of node with its next node, valid while
// the node's version is ver.
type mergeEntry struct {
	rank  uint32
	start int32
	node  int32
	ver   uint32
}

// before orders merge candidates as mergeCount picks them: lowest rank,
// then leftmost.
func (a mergeEntry) before(b mergeEntry) bool {
	return a.rank < b.rank || a.rank == b.rank && a.start < b.start
}

// mergeHeap is a binary min-heap of merge candidates.
type mergeHeap []mergeEntry

func (h *mergeHeap) push(e mergeEntry) {
	*h = append(*h, e)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s[i].before(s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *mergeHeap) pop() mergeEntry {
	s := *h
	top := s[0]
	s[0] = s[len(s)-1]
	s = s[:len(s)-1]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < len(s) && s[l].before(s[m]) {
			m = l
		}
		if l+1 < len(s) && s[l+1].before(s[m]) {
			m = l + 1
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

// heapMergeCount gives mergeCount's result in O(n log n): the parts are a
// linked list, and a heap holds each part's merge with its next part,
// entries made stale by a merge being skipped by their version.
func (t *rankTable) heapMergeCount(piece string) int {
	n := len(piece)
	next := make([]int32, n) // next part's node, or n at the end
	prev := make([]int32, n) // previous part's node, or -1
	ver := make([]uint32, n)
	h := make(mergeHeap, 0, n)
	for i := range n {
		next[i], prev[i] = int32(i+1), int32(i-1)
		if i+1 < n {
			if r := t.lookup(piece[i : i+2]); r != noRank {
				h.push(mergeEntry{rank: r, start: int32(i), node: int32(i)})
			}
		}
	}
	// candidate queues the merge of node i with its next part, if any (that
	// part ends where the part after it starts).
	candidate := func(i int32) {
		ver[i]++
		if j := next[i]; j < int32(n) {
			if r := t.lookup(piece[i:next[j]]); r != noRank {
				h.push(mergeEntry{rank: r, start: i, node: i, ver: ver[i]})
			}
		}
	}
	parts := n
	for len(h) > 0 {
		e := h.pop()
		if e.ver != ver[e.node] {
			continue
		}
		i, j := e.node, next[e.node]
		next[i] = next[j]
		if next[j] < int32(n) {
			prev[next[j]] = i
		}
		ver[j]++ // j is gone: drop its queued merge
		parts--
		candidate(i)
		if p := prev[i]; p >= 0 {
			candidate(p)
		}
	}
	return parts
}

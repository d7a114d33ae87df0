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

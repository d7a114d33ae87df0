package tokenizer

import (
	_ "embed" // the rank tables
	"errors"
	"fmt"
	"math"
)

// The rank tables of the encodings, precomputed from the .tiktoken files
// embedded by github.com/pkoukk/tiktoken-go-loader (TestRankFiles checks
// them against those files and rewrites them with -update). Loading one is
// checking its header: no parsing, no hashing, no allocation; the pages are
// read from the binary as lookups touch them.
var (
	//go:embed ranks/o200k_base.ranks
	o200kRanks string
	//go:embed ranks/cl100k_base.ranks
	cl100kRanks string
	//go:embed ranks/p50k_base.ranks
	p50kRanks string
	//go:embed ranks/r50k_base.ranks
	r50kRanks string
)

// noRank marks a byte sequence that is not a mergeable token.
const noRank = math.MaxUint32

// A rank table file is, in little-endian uint32 words:
//
//	magic, n (ranks 0..n-1), slotBits, 0,
//	offs[n+1]: token of rank r is arena[offs[r]:offs[r+1]] (empty for an unused rank),
//	slots[1<<slotBits]: 0 = empty, else rank+1 | tag<<rankBits,
//
// then the arena of all tokens' bytes. slots is an open-addressing hash
// table (linear probing) over rankHash: a slot's home is the hash's top
// slotBits bits and its tag the next tagBits bits, so most lookups of byte
// sequences that are not tokens end at the slot without touching the arena.
const (
	rankMagic  = 0x31726b74 // "tkr1"
	headWords  = 4
	rankBits   = 18 // every encoding has fewer than 1<<18 ranks
	tagBits    = 32 - rankBits
	rankMask   = 1<<rankBits - 1
	maxRanks   = rankMask // rank+1 must fit in rankBits
	maxSlotBit = 24
)

// rankTable maps each mergeable byte sequence of an encoding to its rank,
// reading one rank table file in place.
type rankTable struct {
	offs     string // (n+1) words
	slots    string // 1<<slotBits words
	arena    string
	n        uint32
	slotBits uint
	mask     uint32
}

// openRanks checks a rank table file's header and returns its table.
func openRanks(data string) (*rankTable, error) {
	if len(data) < headWords*4 || word(data, 0) != rankMagic {
		return nil, errors.New("not a rank table")
	}
	n, slotBits := word(data, 1), uint(word(data, 2))
	if n > maxRanks || slotBits > maxSlotBit || slotBits+tagBits > 64 {
		return nil, fmt.Errorf("bad rank table header (%d ranks, %d slot bits)", n, slotBits)
	}
	offsEnd := headWords*4 + (int(n)+1)*4
	slotsEnd := offsEnd + (1<<slotBits)*4
	if len(data) < slotsEnd || word(data[headWords*4:], int(n)) != uint32(len(data)-slotsEnd) {
		return nil, errors.New("truncated rank table")
	}
	return &rankTable{
		offs:     data[headWords*4 : offsEnd],
		slots:    data[offsEnd:slotsEnd],
		arena:    data[slotsEnd:],
		n:        n,
		slotBits: slotBits,
		mask:     1<<slotBits - 1,
	}, nil
}

// lookup returns the rank of key, or noRank.
func (t *rankTable) lookup(key string) uint32 {
	h := rankHash(key)
	tag := uint32(h>>(64-t.slotBits-tagBits)) & (1<<tagBits - 1)
	for i := uint32(h >> (64 - t.slotBits)); ; i = (i + 1) & t.mask {
		s := word(t.slots, int(i))
		if s == 0 {
			return noRank
		}
		if s>>rankBits != tag {
			continue
		}
		r := s&rankMask - 1
		if t.token(r) == key {
			return r
		}
	}
}

// token returns the bytes of rank r.
func (t *rankTable) token(r uint32) string {
	return t.arena[word(t.offs, int(r)):word(t.offs, int(r)+1)]
}

// word returns the i-th little-endian uint32 of s.
func word(s string, i int) uint32 {
	s = s[i*4 : i*4+4]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// rankHash hashes a byte sequence for the rank tables; the files depend on
// it, so changing it means regenerating them (go test -run TestRankFiles
// -update).
func rankHash(s string) uint64 {
	const (
		m1 = 0x9E3779B97F4A7C15
		m2 = 0xC2B2AE3D27D4EB4F
	)
	h := uint64(len(s)) * m1
	for ; len(s) >= 8; s = s[8:] {
		w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		h = (h ^ w) * m2
		h ^= h >> 31
	}
	var w uint64
	for i := 0; i < len(s); i++ {
		w |= uint64(s[i]) << (8 * i)
	}
	h = (h ^ w) * m1
	h ^= h >> 29
	h *= m2
	return h ^ h>>32
}

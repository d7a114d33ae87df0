package tokenizer

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"flag"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

var updateRanks = flag.Bool("update", false, "rewrite the rank table files from tiktoken-go-loader's data")

// TestRankFiles rebuilds each rank table file from the .tiktoken file that
// tiktoken-go-loader embeds (the ranks tiktoken-go uses) and checks the
// embedded file is byte-identical, and that every token of the .tiktoken
// file looks up to its rank. With -update it writes the files instead.
func TestRankFiles(t *testing.T) {
	for _, enc := range allEncodings {
		source, err := assets.Assets.ReadFile(enc + ".tiktoken")
		if err != nil {
			t.Fatal(err)
		}
		ranks, err := parseTiktoken(source)
		if err != nil {
			t.Fatalf("%s: %v", enc, err)
		}
		built, err := buildRankTable(ranks)
		if err != nil {
			t.Fatalf("%s: %v", enc, err)
		}
		path := filepath.Join("ranks", enc+".ranks")
		if *updateRanks {
			if err := os.WriteFile(path, built, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if string(built) != *encoders[enc].data {
			t.Fatalf("%s differs from what %s.tiktoken gives; run go test -run TestRankFiles -update", path, enc)
		}
		table, err := encoders[enc].get()
		if err != nil {
			t.Fatal(err)
		}
		for token, rank := range ranks {
			if got := table.lookup(token); got != rank {
				t.Fatalf("%s: rank of %q = %d, want %d", enc, token, got, rank)
			}
		}
		for _, s := range []string{"", "hello world and more", "\x00\x00", "zzzzqqqqxxxx"} {
			if _, ok := ranks[s]; !ok && table.lookup(s) != noRank {
				t.Errorf("%s: %q has rank %d, want none", enc, s, table.lookup(s))
			}
		}
	}
}

func TestOpenRanksRejectsBadData(t *testing.T) {
	good := o200kRanks
	for name, data := range map[string]string{
		"empty":     "",
		"magic":     "xxxx" + good[4:],
		"truncated": good[:len(good)-1],
		"header":    good[:8] + "\xff\x00\x00\x00" + good[12:],
	} {
		if _, err := openRanks(data); err == nil {
			t.Errorf("%s: openRanks accepted bad data", name)
		}
	}
}

// parseTiktoken parses a .tiktoken file ("base64-token rank" lines) as
// tiktoken-go's loader does: a token listed twice keeps its last rank.
func parseTiktoken(data []byte) (map[string]uint32, error) {
	ranks := map[string]uint32{}
	for i, line := range bytes.Split(data, []byte{'\n'}) {
		if len(line) == 0 {
			continue
		}
		tok, rank, ok := bytes.Cut(line, []byte{' '})
		if !ok {
			return nil, fmt.Errorf("line %d: no rank", i+1)
		}
		b, err := base64.StdEncoding.DecodeString(string(tok))
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		r, err := strconv.ParseUint(string(rank), 10, 32)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		ranks[string(b)] = uint32(r)
	}
	return ranks, nil
}

// buildRankTable lays out ranks as a rank table file (see ranks.go).
func buildRankTable(ranks map[string]uint32) ([]byte, error) {
	n := uint32(0)
	byRank := map[uint32]string{}
	for tok, r := range ranks {
		if prev, dup := byRank[r]; dup {
			return nil, fmt.Errorf("rank %d given to %q and %q", r, prev, tok)
		}
		byRank[r] = tok
		n = max(n, r+1)
	}
	if n > maxRanks {
		return nil, fmt.Errorf("%d ranks, at most %d fit", n, maxRanks)
	}
	slotBits := uint(bits.Len(uint(2 * len(ranks))))
	slots := make([]uint32, 1<<slotBits)
	offs := make([]uint32, 0, n+1)
	var arena []byte
	for r := range n {
		offs = append(offs, uint32(len(arena)))
		tok, ok := byRank[r]
		if !ok {
			continue
		}
		arena = append(arena, tok...)
		insertSlot(slots, slotBits, tok, r)
	}
	offs = append(offs, uint32(len(arena)))

	out := binary.LittleEndian.AppendUint32(nil, rankMagic)
	for _, w := range append(append([]uint32{n, uint32(slotBits), 0}, offs...), slots...) {
		out = binary.LittleEndian.AppendUint32(out, w)
	}
	return append(out, arena...), nil
}

// insertSlot puts rank r of tok into the first free slot from its home.
func insertSlot(slots []uint32, slotBits uint, tok string, r uint32) {
	h := rankHash(tok)
	tag := uint32(h>>(64-slotBits-tagBits)) & (1<<tagBits - 1)
	mask := uint32(len(slots) - 1)
	i := uint32(h >> (64 - slotBits))
	for slots[i] != 0 {
		i = (i + 1) & mask
	}
	slots[i] = (r + 1) | tag<<rankBits
}

package tokenizer

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestHeapMergeMatchesScan checks that the heap merge used for long pieces
// counts what the scanning merge (tiktoken's algorithm) counts, on pieces
// short and long, repetitive and random, in every encoding.
func TestHeapMergeMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabets := []string{"ab", "abcdefghijklmnopqrstuvwxyz", "aeiou tn", "日本語abc", "\x00\xff\x80a"}
	var pieces []string
	for _, n := range []int{2, 3, 7, 31, 64, 65, 255, 256, 700} {
		for _, alpha := range alphabets {
			var b strings.Builder
			for b.Len() < n {
				b.WriteByte(alpha[rng.IntN(len(alpha))])
			}
			pieces = append(pieces, b.String())
		}
		pieces = append(pieces, strings.Repeat("a", n), strings.Repeat("ab", n/2+1))
	}
	for _, f := range corpusFragments {
		pieces = append(pieces, f, strings.ReplaceAll(f, " ", ""))
	}
	for _, enc := range allEncodings {
		table, err := encoders[enc].get()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pieces {
			want := table.mergeCount(p, make([]part, 0, len(p)+1))
			if got := table.heapMergeCount(p); got != want {
				t.Errorf("%s: heap merge of %q = %d, scan = %d", enc, clip(p), got, want)
			}
		}
	}
}

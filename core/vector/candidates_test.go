package vector

import "testing"

// The over-fetch of a recall: the hits asked of the store for a TopK, with
// and without a condition applied after the search, and the depth of each
// ranking a hybrid query fuses. LoCoMo's recall numbers (BENCHMARKS.md) were
// measured with these values.
func TestCandidates(t *testing.T) {
	for _, c := range []struct{ topK, candidates, filtered, fused int }{
		{1, 6, 50, 100}, {4, 12, 50, 100}, {8, 24, 80, 100}, {30, 90, 200, 100}, {40, 120, 200, 120},
	} {
		if got := Candidates(c.topK); got != c.candidates {
			t.Errorf("Candidates(%d) = %d, want %d", c.topK, got, c.candidates)
		}
		if got := FilteredCandidates(c.topK); got != c.filtered {
			t.Errorf("FilteredCandidates(%d) = %d, want %d", c.topK, got, c.filtered)
		}
		if got := Fused(Candidates(c.topK)); got != c.fused {
			t.Errorf("Fused(Candidates(%d)) = %d, want %d", c.topK, got, c.fused)
		}
	}
}

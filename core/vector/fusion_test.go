package vector

import "testing"

// The best score of a side gets its whole weight, the worst none, a list
// of equal scores the whole weight each.
func TestRelativeScore(t *testing.T) {
	for _, c := range []struct{ score, hi, lo, w, want float64 }{
		{0.9, 0.9, 0.1, 0.7, 0.7}, {0.1, 0.9, 0.1, 0.7, 0}, {0.5, 0.9, 0.1, 0.5, 0.25}, {3, 3, 3, 0.3, 0.3},
	} {
		if got := RelativeScore(c.score, c.hi, c.lo, c.w); got < c.want-1e-12 || got > c.want+1e-12 {
			t.Errorf("RelativeScore(%v, %v, %v, %v) = %v, want %v", c.score, c.hi, c.lo, c.w, got, c.want)
		}
	}
}

// A complete keyword list is normalized against 0, not its worst score: its
// weakest match keeps a share proportional to its BM25 score, above a record
// without a query word (0 on this side); a list cut at the candidate count
// is min-max normalized.
func TestKeywordLow(t *testing.T) {
	if got := RelativeScore(1, 4, KeywordLow(1, true), 0.8); got < 0.2-1e-12 || got > 0.2+1e-12 {
		t.Errorf("weakest match of a complete list: %v, want 0.2", got)
	}
	if got := RelativeScore(1, 4, KeywordLow(1, false), 0.8); got != 0 {
		t.Errorf("weakest match of a cut list: %v, want 0", got)
	}
}

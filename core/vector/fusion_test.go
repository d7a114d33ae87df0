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

package vector

// RelativeScore is a score's share of hybrid relativeScoreFusion, as
// Weaviate computes it: each side's list is min-max normalized over its own
// best (hi) and worst (lo) scores, all equal scores normalizing to 1, then
// weighted (w is Alpha for the vector side, 1-Alpha for the keyword side).
func RelativeScore(score, hi, lo, w float64) float64 {
	if hi == lo {
		return w
	}
	return w * (score - lo) / (hi - lo)
}

package vector

// RelativeScore is a score's share of hybrid relativeScoreFusion, as
// Weaviate computes it: each side's list is min-max normalized over its own
// best (hi) and worst (lo) scores, all equal scores normalizing to 1, then
// weighted (w is Alpha for the vector side, 1-Alpha for the keyword side).
// The keyword side's lo is KeywordLow.
func RelativeScore(score, hi, lo, w float64) float64 {
	if hi == lo {
		return w
	}
	return w * (score - lo) / (hi - lo)
}

// KeywordLow is the low end of the keyword side's normalization, given the
// worst score lo of its list and whether the list is complete (it holds
// every record that matched a query word: fewer than the candidates asked
// for). A complete list is normalized against 0, the score of every record
// without a query word, so its weakest match still counts: with min-max, in
// the few candidates of a small resource or a rare word, the weakest match
// would score as no match at all and rank below records holding no query
// word. A list cut at the candidate count is min-max normalized, as
// Weaviate does.
func KeywordLow(lo float64, complete bool) float64 {
	if complete {
		return 0
	}
	return lo
}

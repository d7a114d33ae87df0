package rerank

import "math"

// MMR orders up to k candidates by maximal marginal relevance: each pick
// maximizes lambda·relevance − (1−lambda)·(highest similarity to an earlier
// pick). relevance[i] is candidate i's query relevance scaled to [0, 1] and
// sim(i, j) the similarity of two candidates in [0, 1]. Lambda 1 keeps the
// relevance order; lower values favour candidates unlike those already
// picked. Ties keep the earlier (better ranked) candidate.
func MMR(relevance []float64, sim func(i, j int) float64, k int, lambda float64) []int {
	n := len(relevance)
	k = min(k, n)
	picked := make([]int, 0, k)
	used := make([]bool, n)
	maxSim := make([]float64, n) // highest similarity to a pick so far
	for len(picked) < k {
		best, bestScore := -1, math.Inf(-1)
		for i := range n {
			if used[i] {
				continue
			}
			s := lambda*relevance[i] - (1-lambda)*maxSim[i]
			if s > bestScore {
				best, bestScore = i, s
			}
		}
		used[best] = true
		picked = append(picked, best)
		for i := range n {
			if !used[i] {
				maxSim[i] = max(maxSim[i], sim(i, best))
			}
		}
	}
	return picked
}

// RankRelevance is the relevance of n candidates given best first, when
// their scores are not comparable across search modes: 1 for the first
// down to 1/n for the last.
func RankRelevance(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(n-i) / float64(n)
	}
	return out
}

// Cosine is the cosine similarity of a and b clamped to [0, 1]; 0 when
// either is empty or zero or their lengths differ.
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return max(0, min(1, dot/math.Sqrt(na*nb)))
}

// TermSimilarity is the Jaccard similarity of two texts' word sets (made by
// Key), the similarity MMR falls back to when no vectors are at hand.
func TermSimilarity(a, b string) float64 {
	wa, wb := fields(a), fields(b)
	if len(wa) == 0 || len(wb) == 0 {
		return 0
	}
	return jaccard(wa, wb)
}

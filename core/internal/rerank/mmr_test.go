package rerank

import (
	"math"
	"slices"
	"testing"
)

func TestMMRLambdaOneKeepsRelevanceOrder(t *testing.T) {
	rel := []float64{0.9, 0.8, 0.7, 0.6}
	got := MMR(rel, func(i, j int) float64 { return 1 }, 3, 1)
	if !slices.Equal(got, []int{0, 1, 2}) {
		t.Fatalf("MMR = %v", got)
	}
}

func TestMMRSkipsCandidatesLikeAnEarlierPick(t *testing.T) {
	vecs := [][]float32{{1, 0}, {0.99, 0.01}, {0, 1}, {0.7, 0.7}}
	rel := []float64{1, 0.95, 0.6, 0.5}
	sim := func(i, j int) float64 { return Cosine(vecs[i], vecs[j]) }
	got := MMR(rel, sim, 2, 0.5)
	if !slices.Equal(got, []int{0, 2}) {
		t.Fatalf("MMR = %v, want the near copy of the first pick passed over", got)
	}
	if got := MMR(rel, sim, 10, 0.5); len(got) != 4 {
		t.Fatalf("k beyond the candidates returns all of them once: %v", got)
	}
	if got := MMR(nil, sim, 3, 0.5); len(got) != 0 {
		t.Fatalf("no candidates: %v", got)
	}
}

func TestCosineAndTermSimilarity(t *testing.T) {
	if c := Cosine([]float32{1, 2}, []float32{2, 4}); math.Abs(c-1) > 1e-9 {
		t.Errorf("parallel vectors: %v", c)
	}
	if c := Cosine([]float32{1, 0}, []float32{-1, 0}); c != 0 {
		t.Errorf("opposite vectors clamp to 0: %v", c)
	}
	if c := Cosine([]float32{1}, []float32{1, 0}); c != 0 {
		t.Errorf("length mismatch: %v", c)
	}
	if s := TermSimilarity("a b c d", "a b x y"); math.Abs(s-2.0/6) > 1e-9 {
		t.Errorf("TermSimilarity = %v", s)
	}
	if r := RankRelevance(4); !slices.Equal(r, []float64{1, 0.75, 0.5, 0.25}) {
		t.Errorf("RankRelevance = %v", r)
	}
}

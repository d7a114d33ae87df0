package local

import (
	"math/rand/v2"
	"testing"
)

// calibratedRecall checks that p's calibrated graph search finds ≥ 0.95 of
// the exact top 10 of queries, without and with a thread filter (a quarter
// of the records), and returns the calibrated beam.
func calibratedRecall(t *testing.T, p *partition, vecs, queries [][]float32) int {
	t.Helper()
	beam := p.graph.beam
	for _, thread := range []int32{-1, 2} {
		got := recallAt10(p, vecs, queries, thread)
		t.Logf("%d × %d: beam %d, thread %d: recall@10 %.3f", len(vecs), len(vecs[0]), beam, thread, got)
		if got < 0.95 {
			t.Errorf("thread %d: recall@10 %.3f < 0.95 at the calibrated beam %d", thread, got, beam)
		}
	}
	return beam
}

// On random vectors, where the smallest beam falls short, calibration
// widens the beam until the graph finds ≥ 95% of the exact top 10, and the
// graph (not an exact scan) answers.
func TestCalibratedRecallRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	vecs := randomVectors(r, 10000, 96)
	p := graphPartition(vecs)
	queries := randomVectors(r, 50, 96)
	short := recallAt10Ef(p, vecs, queries, hnswEfMin)
	t.Logf("beam %d: recall@10 %.3f", hnswEfMin, short)
	if short >= 0.95 {
		t.Fatalf("recall@10 %.3f at the smallest beam: the data is not hard enough to test calibration", short)
	}
	if beam := calibratedRecall(t, p, vecs, queries); beam <= hnswEfMin || beam == beamExact {
		t.Errorf("calibrated beam %d; want one wider than %d that the graph serves", beam, hnswEfMin)
	}
}

// On clustered vectors recall@10 stays ≥ 0.95 too, without and with a
// thread filter. Well-separated clusters with random spread inside are hard
// for the graph in another way than random data: searches do not reach
// every cluster (at 12k vectors recall@10 stayed at 0.83 for every beam from
// 64 to 1,024), which calibration sees, so the partition scans exactly.
func TestCalibratedRecallClustered(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	centres := randomVectors(r, 64, 128)
	cluster := func(n int) [][]float32 {
		out := randomVectors(r, n, 128)
		for _, v := range out {
			c := centres[r.IntN(len(centres))]
			for j := range v {
				v[j] = 0.5*v[j] + c[j]
			}
		}
		return out
	}
	vecs := cluster(4000)
	p := graphPartition(vecs)
	if beam := calibratedRecall(t, p, vecs, cluster(50)); beam == 0 {
		t.Error("graph not calibrated")
	}
}

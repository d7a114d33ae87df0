package pgvector_test

import (
	"math"
	"testing"

	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/pgvector"
	"github.com/agentmem/agentmem/core/vector/vectortest"
)

// TestLoCoMoRecall measures evidence recall on LoCoMo (see
// vectortest.EvalLoCoMo) with vectors from local.HashEmbedder: every mode
// (BM25, vector, hybrid at every alpha) within 0.01 of the local store with
// the same embedder and analyzer, and hybrid beating BM25.
func TestLoCoMoRecall(t *testing.T) {
	testPool(t)
	convs := vectortest.LoadLoCoMo(t)
	ref := vectortest.NewH(t, local.New(), local.NewHashEmbedder(0))
	vectortest.IndexLoCoMo(ref, convs)
	h := vectortest.NewH(t, openFresh(t, pgvector.Config{}), local.NewHashEmbedder(0))
	vectortest.IndexLoCoMo(h, convs)
	bm25, hybrid := vectortest.SweepLoCoMo(h, convs, "pgvector")
	type run struct {
		mode  string
		alpha float64
	}
	runs := []run{{vector.SearchBM25, 0}, {vector.SearchVector, 0}}
	for _, a := range vectortest.HybridAlphas {
		runs = append(runs, run{vector.SearchHybrid, a})
	}
	for _, r := range runs {
		want := vectortest.EvalLoCoMo(ref, convs, r.mode, r.alpha)
		got := vectortest.EvalLoCoMo(h, convs, r.mode, r.alpha)
		if math.Abs(got.Recall-want.Recall) > 0.01 {
			t.Errorf("%s alpha %.2f: recall %.3f, local %.3f", r.mode, r.alpha, got.Recall, want.Recall)
		}
	}
	if hybrid.Recall <= bm25.Recall {
		t.Errorf("hybrid (best alpha %.2f: %.3f) does not beat BM25 (%.3f)", hybrid.Alpha, hybrid.Recall, bm25.Recall)
	}
}

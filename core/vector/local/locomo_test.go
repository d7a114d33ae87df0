package local_test

import (
	"testing"

	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/vectortest"
)

// TestLoCoMoRecall measures evidence recall on LoCoMo (see
// vectortest.EvalLoCoMo) and checks that hybrid search beats plain BM25.
func TestLoCoMoRecall(t *testing.T) {
	convs := vectortest.LoadLoCoMo(t)
	h := vectortest.NewH(t, local.New(), local.NewHashEmbedder(0))
	vectortest.IndexLoCoMo(h, convs)
	bm25, hybrid := vectortest.SweepLoCoMo(h, convs, "local")
	t.Logf("best hybrid: alpha %.2f, recall %.3f vs BM25 %.3f", hybrid.Alpha, hybrid.Recall, bm25.Recall)
	if hybrid.Recall <= bm25.Recall {
		t.Errorf("hybrid (best alpha %.2f: %.3f) does not beat BM25 (%.3f)", hybrid.Alpha, hybrid.Recall, bm25.Recall)
	}
}

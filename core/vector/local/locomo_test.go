package local_test

import (
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vectortest"
)

// TestLoCoMoRecall measures evidence recall on LoCoMo (see vectortest.EvalLoCoMo).
func TestLoCoMoRecall(t *testing.T) {
	convs := vectortest.LoadLoCoMo(t)
	h := vectortest.NewH(t, local.New(), local.NewHashEmbedder(0))
	vectortest.IndexLoCoMo(h, convs)
	bm25 := vectortest.EvalLoCoMo(h, convs, core.SearchBM25, 0)
	vectortest.Report(t, "local", bm25)
	vectortest.Report(t, "local", vectortest.EvalLoCoMo(h, convs, core.SearchVector, 0))
	for _, alpha := range []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9} {
		r := vectortest.EvalLoCoMo(h, convs, core.SearchHybrid, alpha)
		vectortest.Report(t, "local", r)
	}
}

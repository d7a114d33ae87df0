package weaviate_test

import (
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/weaviate"
	"github.com/agentmem/agentmem/core/vectortest"
)

// TestLoCoMoRecall measures evidence recall on LoCoMo (see
// vectortest.EvalLoCoMo) with vectors from local.HashEmbedder, brought by the
// client (vectorizer none) or computed by Weaviate through the embed server.
func TestLoCoMoRecall(t *testing.T) {
	convs := vectortest.LoadLoCoMo(t)
	for _, vz := range []string{weaviate.VectorizerNone, "text2vec-transformers"} {
		t.Run(vz, func(t *testing.T) {
			var emb core.Embedder
			if vz == weaviate.VectorizerNone {
				emb = local.NewHashEmbedder(0)
			}
			h := vectortest.NewH(t, open(t, vz, nil), emb)
			vectortest.IndexLoCoMo(h, convs)
			name := "weaviate-" + vz
			vectortest.Report(t, name, vectortest.EvalLoCoMo(h, convs, core.SearchBM25, 0))
			vectortest.Report(t, name, vectortest.EvalLoCoMo(h, convs, core.SearchVector, 0))
			for _, alpha := range []float64{0.1, 0.2, 0.3, 0.5, 0.75} {
				vectortest.Report(t, name, vectortest.EvalLoCoMo(h, convs, core.SearchHybrid, alpha))
			}
		})
	}
}

package weaviate_test

import (
	"math"
	"testing"

	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/vectortest"
	"github.com/agentmem/agentmem/core/vector/weaviate"
)

// TestLoCoMoRecall measures evidence recall on LoCoMo (see
// vectortest.EvalLoCoMo) with vectors from local.HashEmbedder, brought by the
// client (vectorizer none) or computed by Weaviate through the embed server.
// BM25 must match the local store's exact BM25 (a server whose BlockMax WAND
// drops recent documents fails here) and hybrid must beat BM25.
func TestLoCoMoRecall(t *testing.T) {
	server(t)
	convs := vectortest.LoadLoCoMo(t)
	ref := vectortest.NewH(t, local.New(), local.NewHashEmbedder(0))
	vectortest.IndexLoCoMo(ref, convs)
	exact := vectortest.EvalLoCoMo(ref, convs, vector.SearchBM25, 0)
	for _, vz := range []string{weaviate.VectorizerNone, "text2vec-transformers"} {
		t.Run(vz, func(t *testing.T) {
			var emb vector.Embedder
			if vz == weaviate.VectorizerNone {
				emb = local.NewHashEmbedder(0)
			}
			h := vectortest.NewH(t, open(t, vz, nil), emb)
			vectortest.IndexLoCoMo(h, convs)
			bm25, hybrid := vectortest.SweepLoCoMo(h, convs, "weaviate-"+vz)
			if math.Abs(bm25.Recall-exact.Recall) > 0.02 {
				t.Errorf("BM25 recall %.3f, exact BM25 %.3f: is the server started with USE_INVERTED_SEARCHABLE=false?", bm25.Recall, exact.Recall)
			}
			if hybrid.Recall <= bm25.Recall {
				t.Errorf("hybrid (best alpha %.2f: %.3f) does not beat BM25 (%.3f)", hybrid.Alpha, hybrid.Recall, bm25.Recall)
			}
		})
	}
}

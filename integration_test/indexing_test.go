package integration_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
)

// flakyEmbedder wraps the hash embedder with a chosen dimension; it fails
// while down is set.
type flakyEmbedder struct {
	dim   int
	down  atomic.Bool
	calls atomic.Int64
}

func (f *flakyEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	f.calls.Add(1)
	if f.down.Load() {
		return nil, errors.New("embedder unavailable")
	}
	return local.NewHashEmbedder(f.dim).Embed(ctx, texts)
}

// TestIndexNaming: one index name for every path; a failed probe is retried.
func TestIndexNaming(t *testing.T) {
	for _, c := range []struct {
		dim  int
		name string
	}{{384, "memory_messages_384"}, {1536, "memory_messages"}} {
		vs := local.New()
		emb := &flakyEmbedder{dim: c.dim}
		mem, err := core.New(core.Options{Store: memstore.New(), Vector: vs, Embedder: emb, Config: core.Config{SemanticRecall: &core.SemanticRecall{}}})
		if err != nil {
			t.Fatal(err)
		}
		emb.down.Store(true)
		if _, err := mem.CreateThread(bg, core.ThreadInput{ID: "t", ResourceID: "r"}); err != nil {
			t.Fatal(err)
		}
		_, err = mem.Recall(bg, core.RecallQuery{ThreadID: "t", ResourceID: "r", VectorSearch: "anything"})
		if !errors.Is(err, core.ErrEmbeddingDimensionFailed) {
			t.Fatalf("probe failure: %v", err)
		}
		emb.down.Store(false) // the next call probes again
		save(t, mem, "t", "r", "lighthouses guide ships at night")
		q, _ := emb.Embed(bg, []string{"lighthouses"})
		hits, err := vs.Query(bg, c.name, vector.Query{Vector: q[0], TopK: 1, Filter: vector.Filter{ResourceID: "r"}})
		if err != nil || len(hits) != 1 {
			t.Fatalf("dim %d: write path did not use %s: %v %v", c.dim, c.name, hits, err)
		}
		got := recallTexts(t, mem, core.RecallQuery{ThreadID: "t", ResourceID: "r", VectorSearch: "lighthouses",
			Config: onlySemantic(core.SemanticRecall{TopK: 1, MessageRange: &core.MessageRange{}})})
		same(t, "read path", got, []string{"lighthouses guide ships at night"})
	}
}

// TestRecallThreshold: only hits scoring at least Threshold are recalled.
func TestRecallThreshold(t *testing.T) {
	mem, err := core.New(core.Options{Store: memstore.New(), Vector: local.New(), Embedder: local.NewHashEmbedder(384),
		Config: core.Config{SemanticRecall: &core.SemanticRecall{}}})
	if err != nil {
		t.Fatal(err)
	}
	save(t, mem, "t", "r", "alpine meadows bloom in june", "the meadows are full of alpine flowers", "tax forms are due in april")
	q := func(threshold float64) []string {
		return recallTexts(t, mem, core.RecallQuery{ThreadID: "t", ResourceID: "r", VectorSearch: "alpine meadows bloom in june",
			Config: onlySemantic(core.SemanticRecall{TopK: 3, MessageRange: &core.MessageRange{}, Threshold: threshold})})
	}
	if got := q(0); len(got) != 3 {
		t.Fatalf("no threshold: %v", got)
	}
	if got := q(0.99); len(got) != 1 || got[0] != "alpine meadows bloom in june" {
		t.Fatalf("threshold 0.99 kept %v", got)
	}
}

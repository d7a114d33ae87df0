package integration_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/pgvector"
	"github.com/agentmem/agentmem/core/vector/vectortest"
)

// A message of more than 1 MiB of text, saved with its reply, is indexed on
// every vector store (its chunks, and the reply's keywords with the end of
// it as context) and found by keyword and by vector; nothing stays
// unindexed. On pgvector the message store shares the pool, so the pair is
// written with its vectors in one transaction.
func TestLongMessageIndexed(t *testing.T) {
	backends := append(vectorBackends(), vectorBackend{"pgvector-joint", nil})
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			mem := longTextMemory(t, b)
			long := vectortest.LongText(strings.Repeat("my sister Zanzibarina lives in Reykjavik. ", 400), 140_000)
			save(t, mem, "t", "r", long, "Noted, a long story.")
			if err := mem.Close(bg); err != nil {
				t.Fatal(err)
			}
			if n, err := mem.Unindexed(bg, "r"); err != nil || n != 0 {
				t.Fatalf("Unindexed = %d, %v", n, err)
			}
			for _, mode := range []string{vector.SearchBM25, vector.SearchVector} {
				got := recallTexts(t, mem, core.RecallQuery{ThreadID: "t", ResourceID: "r", VectorSearch: "Zanzibarina Reykjavik",
					Config: onlySemantic(core.SemanticRecall{TopK: 1, Mode: mode, MessageRange: &core.MessageRange{}})})
				if len(got) != 1 || got[0] != long {
					t.Fatalf("%s recall found %d messages, not the long one", mode, len(got))
				}
			}
		})
	}
}

func longTextMemory(t *testing.T, b vectorBackend) *core.Memory {
	t.Helper()
	opts := core.Options{Store: memstore.New(), Config: core.Config{SemanticRecall: &core.SemanticRecall{}}}
	if b.open != nil {
		opts.Vector, opts.Embedder = b.open(t)
	} else {
		ms := openPG(t, nil)
		vs, err := pgvector.New(bg, ms.Pool(), pgvector.Config{Schema: ms.Schema()})
		if err != nil {
			t.Fatal(err)
		}
		opts.Store, opts.Vector, opts.Embedder = ms, vs, local.NewHashEmbedder(384)
	}
	mem, err := core.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return mem
}

// A store indexed at 384 dimensions, opened with an embedder of 768: recall
// of its resources fails with ErrEmbeddingDimensionMismatch naming both
// dimensions and the repair, a write stores the message and records it
// unindexed (no vector goes to the new index), CheckIndex reports the
// mismatch; a new resource works at 768, and ReindexResource moves the old
// one over.
func TestEmbeddingDimensionChanged(t *testing.T) {
	for _, b := range vectorBackends() {
		t.Run(b.name, func(t *testing.T) {
			vs, emb := b.open(t)
			if emb == nil {
				return // the store embeds: its vectorizer names the dimension
			}
			s := memstore.New()
			cfg := core.Config{SemanticRecall: &core.SemanticRecall{TopK: 1, MessageRange: &core.MessageRange{}}}
			old, err := core.New(core.Options{Store: s, Vector: vs, Embedder: local.NewHashEmbedder(384), Config: cfg})
			if err != nil {
				t.Fatal(err)
			}
			save(t, old, "t", "r", "my sister Zanzibarina lives in Reykjavik", "Noted.")
			if err := old.Close(bg); err != nil {
				t.Fatal(err)
			}

			mem, err := core.New(core.Options{Store: s, Vector: vs, Embedder: local.NewHashEmbedder(768), Config: cfg})
			if err != nil {
				t.Fatal(err)
			}
			q := core.RecallQuery{ThreadID: "t", ResourceID: "r", VectorSearch: "Zanzibarina", Config: onlySemantic(*cfg.SemanticRecall)}
			_, err = mem.Recall(bg, q)
			wantDimensionMismatch(t, "Recall", err)
			wantDimensionMismatch(t, "CheckIndex", mem.CheckIndex(bg, ""))
			save(t, mem, "t", "r", "written after the change")
			if err := mem.Close(bg); err != nil {
				t.Fatal(err)
			}
			if n, err := mem.Unindexed(bg, "r"); err != nil || n != 1 {
				t.Fatalf("Unindexed after a write = %d, %v; want 1", n, err)
			}
			if hits, _ := vs.Query(bg, vector.IndexName(768), vector.Query{Vector: unit(768), TopK: 5, Filter: vector.Filter{ResourceID: "r"}}); len(hits) != 0 {
				t.Fatalf("the new index holds %d records of the mismatched resource", len(hits))
			}

			save(t, mem, "n", "fresh", "the lighthouse keeper")
			same(t, "recall of a new resource", recallTexts(t, mem, core.RecallQuery{ThreadID: "n", ResourceID: "fresh", VectorSearch: "lighthouse",
				Config: onlySemantic(*cfg.SemanticRecall)}), []string{"the lighthouse keeper"})

			if err := mem.ReindexResource(bg, "r"); err != nil {
				t.Fatal(err)
			}
			same(t, "recall after the reindex", recallTexts(t, mem, q), []string{"my sister Zanzibarina lives in Reykjavik"})
			if err := mem.CheckIndex(bg, ""); err != nil {
				t.Fatalf("CheckIndex after the reindex: %v", err)
			}
			if n, err := mem.Unindexed(bg, "r"); err != nil || n != 0 {
				t.Fatalf("Unindexed after the reindex = %d, %v", n, err)
			}
		})
	}
}

func wantDimensionMismatch(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, core.ErrEmbeddingDimensionMismatch) {
		t.Fatalf("%s: %v, want ErrEmbeddingDimensionMismatch", what, err)
	}
	for _, s := range []string{"memory_messages_384", "memory_messages_768", "reindex"} {
		if !strings.Contains(err.Error(), s) {
			t.Fatalf("%s: %q does not name %s", what, err, s)
		}
	}
}

func unit(dim int) []float32 {
	v := make([]float32, dim)
	v[0] = 1
	return v
}

package core_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/internal/testenv"
)

// refusingEmbedder is the application's embedder refusing one text (as an
// embedding API refuses an input it cannot take) while refuse is set, and
// counting the calls that carried it.
type refusingEmbedder struct {
	word    string
	refuse  atomic.Bool
	offered atomic.Int64
}

func (e *refusingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	for _, t := range texts {
		if strings.Contains(t, e.word) {
			e.offered.Add(1)
			if e.refuse.Load() {
				return nil, errors.New("input rejected by the embedding model")
			}
		}
	}
	return local.NewHashEmbedder(64).Embed(ctx, texts)
}

// One message the embedder refuses does not keep the others of its batch
// unindexed; it stays recorded as unindexed, later writes do not retry it,
// and Reindex tries it and names it.
func TestIndexOneRefusedMessage(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		emb := &refusingEmbedder{word: "poisonous"}
		emb.refuse.Store(true)
		m, err := core.New(core.Options{Store: s, Vector: local.New(), Embedder: emb, Tokenizer: testenv.ByteTokenizer{},
			Config: core.Config{LastMessages: core.NoHistory, SemanticRecall: &core.SemanticRecall{TopK: 1, MessageRange: &core.MessageRange{}}}})
		if err != nil {
			t.Fatal(err)
		}
		seed(t, s, "t", "r")
		batch := []core.Message{userAt("m1", "t", "r", "the lighthouse keeper", T(1)), userAt("m2", "t", "r", "a poisonous reply", T(2)),
			userAt("m3", "t", "r", "my sister Zanzibarina", T(3)), userAt("m4", "t", "r", "the harbour at dusk", T(4))}
		if _, err := m.SaveMessages(ctx, batch, nil); err != nil {
			t.Fatal(err)
		}
		if err := m.Close(ctx); err != nil {
			t.Fatal(err)
		}
		for q, id := range map[string]string{"lighthouse keeper": "m1", "Zanzibarina": "m3", "harbour dusk": "m4"} {
			if got := strings.Join(semanticIDs(t, m, q), ","); got != id {
				t.Fatalf("recall of %q: %q, want %q", q, got, id)
			}
		}
		wantUnindexed(t, m, "r", 1)
		same(t, "stored markers", storedMarks(t, s, "r"), []string{"m2"})

		offered := emb.offered.Load()
		saveAt(t, m, userAt("m5", "t", "r", "another write", T(5)))
		saveAt(t, m, userAt("m6", "t", "r", "and another", T(6)))
		if n := emb.offered.Load(); n != offered {
			t.Fatalf("later writes offered the refused text %d more times", n-offered)
		}

		err = m.Reindex(ctx, "t")
		var f *core.IndexFailure
		if !errors.As(err, &f) || !errors.Is(err, core.ErrVector) || strings.Join(f.MessageIDs, ",") != "m2" {
			t.Fatalf("Reindex = %v, want an IndexFailure naming m2", err)
		}
		if emb.offered.Load() == offered {
			t.Fatal("Reindex did not try the refused message")
		}
		wantUnindexed(t, m, "r", 1)

		emb.refuse.Store(false)
		if err := m.Reindex(ctx, "t"); err != nil {
			t.Fatal(err)
		}
		wantUnindexed(t, m, "r", 0)
		if got := semanticIDs(t, m, "a reply"); strings.Join(got, ",") != "m2" {
			t.Fatalf("recall after the repair: %v", got)
		}
	})
}

// semanticIDs returns the ids of the messages semantic recall finds for q
// in resource r (thread t), without history.
func semanticIDs(t *testing.T, m *core.Memory, q string) []string {
	t.Helper()
	res, err := m.Recall(ctx, core.RecallQuery{ThreadID: "t", ResourceID: "r", VectorSearch: q})
	if err != nil {
		t.Fatal(err)
	}
	return ids(res.Messages)
}

func saveAt(t *testing.T, m *core.Memory, msg core.Message) {
	t.Helper()
	if _, err := m.SaveMessages(ctx, []core.Message{msg}, nil); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

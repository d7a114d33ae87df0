package core_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/vector/analysis"
	"github.com/agentmem/agentmem/core/vector/local"
)

// recallMem opens a Memory with semantic recall over s and the local vector
// file at path, with the analyzer of lang.
func fileRecallMem(t *testing.T, s store.Store, path, lang string) (*core.Memory, *local.Store) {
	t.Helper()
	vs, err := local.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { vs.Close() })
	m, err := core.New(core.Options{Store: s, Vector: vs, Embedder: local.NewHashEmbedder(64),
		Config: core.Config{SemanticRecall: &core.SemanticRecall{Language: lang, TopK: 2, MessageRange: &core.MessageRange{}}}})
	if err != nil {
		t.Fatal(err)
	}
	return m, vs
}

func recallIDs(m *core.Memory, query string) ([]string, error) {
	res, err := m.Recall(ctx, core.RecallQuery{ThreadID: "t", ResourceID: "r", VectorSearch: query,
		Config: &core.Config{LastMessages: core.NoHistory}})
	return ids(res.Messages), err
}

// Changing the analyzer is detected (ErrIndexVersionMismatch, nothing mixed
// in) and repaired by Reindex.
func TestReindexRepairsAnalyzerChange(t *testing.T) {
	s := memstore.New()
	path := filepath.Join(t.TempDir(), "vectors.bin")
	m, vs := fileRecallMem(t, s, path, analysis.English)
	seed(t, s, "t", "r")
	if _, err := m.SaveMessages(ctx, []core.Message{userAt("ship", "t", "r", "The parcels shipped with DHL", T(1)),
		userAt("food", "t", "r", "I am allergic to peanuts", T(2))}, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := recallIDs(m, "shipping parcel"); err != nil || len(got) == 0 || got[0] != "ship" {
		t.Fatalf("english recall = %v, %v", got, err)
	}
	vs.Close()

	m, _ = fileRecallMem(t, s, path, analysis.None)
	if _, err := recallIDs(m, "parcels"); !errors.Is(err, core.ErrIndexVersionMismatch) {
		t.Fatalf("recall after the analyzer change: %v, want ErrIndexVersionMismatch", err)
	}
	// A write meanwhile is kept for the repair, not mixed into the index.
	if _, err := m.SaveMessages(ctx, []core.Message{userAt("late", "t", "r", "parcels again", T(3))}, nil); err != nil {
		t.Fatal(err)
	}
	if n, _ := m.Unindexed(ctx, "r"); n != 1 {
		t.Fatalf("unindexed = %d, want 1", n)
	}
	if err := m.Reindex(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	got, err := recallIDs(m, "parcels")
	if err != nil || fmt.Sprint(got) != "[ship late]" {
		t.Fatalf("recall after Reindex = %v, %v", got, err)
	}
	if n, _ := m.Unindexed(ctx, "r"); n != 0 {
		t.Fatalf("unindexed after Reindex = %d", n)
	}
}

// An unknown language or mode is an invalid config.
func TestRecallConfigErrors(t *testing.T) {
	for _, sr := range []core.SemanticRecall{{Language: "klingon"}, {Mode: "fuzzy"},
		{IndexText: &core.IndexText{ContextMessages: core.Int(-1)}}} {
		_, err := core.New(core.Options{Store: memstore.New(), Vector: local.New(), Embedder: local.NewHashEmbedder(8),
			Config: core.Config{SemanticRecall: &sr}})
		if !errors.Is(err, core.ErrInvalidConfig) {
			t.Errorf("%+v: err %v, want ErrInvalidConfig", sr, err)
		}
	}
}

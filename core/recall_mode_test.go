package core_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
)

// modeRecorder records the mode of every query; it lists no search mode.
type modeRecorder struct {
	vector.Store
	modes []string
}

func (r *modeRecorder) Query(c context.Context, index string, q vector.Query) ([]vector.Hit, error) {
	r.modes = append(r.modes, q.Mode)
	return r.Store.Query(c, index, q)
}

// hybridRecorder is a modeRecorder over a store that lists hybrid search.
type hybridRecorder struct{ *modeRecorder }

func (h hybridRecorder) SearchModes() []string {
	return []string{vector.SearchVector, vector.SearchHybrid}
}

// The default search is hybrid where the store lists it, vector otherwise;
// Mode asks for one side.
func TestRecallSearchMode(t *testing.T) {
	for _, c := range []struct {
		name, mode, want string
		lists            bool
	}{
		{"store lists hybrid", "", vector.SearchHybrid, true},
		{"store lists nothing", "", vector.SearchVector, false},
		{"bm25 asked", vector.SearchBM25, vector.SearchBM25, true},
		{"vector asked", vector.SearchVector, vector.SearchVector, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := &modeRecorder{Store: local.New()}
			var vs vector.Store = rec
			if c.lists {
				vs = hybridRecorder{rec}
			}
			s := memstore.New()
			m, err := core.New(core.Options{Store: s, Vector: vs, Embedder: local.NewHashEmbedder(64),
				Config: core.Config{SemanticRecall: &core.SemanticRecall{Mode: c.mode}}})
			if err != nil {
				t.Fatal(err)
			}
			seed(t, s, "t", "r")
			if _, err := m.Recall(ctx, core.RecallQuery{ThreadID: "t", ResourceID: "r", VectorSearch: "parcel",
				Config: &core.Config{LastMessages: core.NoHistory}}); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rec.modes, []string{c.want}) {
				t.Fatalf("modes %v, want [%s]", rec.modes, c.want)
			}
		})
	}
}

// Tool results and the previous message are indexed: the DHL answer of a
// tool call is found by its words, and a reply by the question before it.
func TestRecallIndexesToolsAndContext(t *testing.T) {
	s := memstore.New()
	m, err := core.New(core.Options{Store: s, Vector: local.New(), Embedder: local.NewHashEmbedder(64),
		Config: core.Config{SemanticRecall: &core.SemanticRecall{TopK: 1, MessageRange: &core.MessageRange{}, Mode: vector.SearchBM25}}})
	if err != nil {
		t.Fatal(err)
	}
	seed(t, s, "t", "r")
	tool := core.Message{ID: "tool", Role: core.RoleAssistant, ThreadID: "t", ResourceID: "r", CreatedAt: T(1),
		Content: core.Content{Parts: []core.Part{{Type: core.PartToolInvocation, ToolInvocation: &message.ToolInvocation{
			State: message.ToolStateResult, ToolCallID: "c1", ToolName: "lookupOrder",
			Args: json.RawMessage(`{"orderId":"A-1"}`), Result: json.RawMessage(`{"carrier":"DHL"}`)}}}}}
	if _, err := m.SaveMessages(ctx, []core.Message{tool, userAt("q", "t", "r", "Which museum did you like?", T(2))}, nil); err != nil {
		t.Fatal(err)
	}
	// Saved in a later batch: its context is read from storage.
	if _, err := m.SaveMessages(ctx, []core.Message{userAt("a", "t", "r", "The one with the dinosaurs", T(3))}, nil); err != nil {
		t.Fatal(err)
	}
	for query, want := range map[string]string{"which carrier": "tool", "dinosaurs": "a"} {
		res, err := m.Recall(ctx, core.RecallQuery{ThreadID: "t", ResourceID: "r", VectorSearch: query,
			Config: &core.Config{LastMessages: core.NoHistory}})
		if err != nil || !slices.Equal(ids(res.Messages), []string{want}) {
			t.Errorf("%q: %v, %v; want [%s]", query, ids(res.Messages), err, want)
		}
	}
	res, _ := m.Recall(ctx, core.RecallQuery{ThreadID: "t", ResourceID: "r", VectorSearch: "museum liked",
		Config: &core.Config{LastMessages: core.NoHistory, SemanticRecall: &core.SemanticRecall{TopK: 2}}})
	if !slices.Equal(ids(res.Messages), []string{"q", "a"}) {
		t.Errorf("the reply is not found by the question before it: %v", ids(res.Messages))
	}
}

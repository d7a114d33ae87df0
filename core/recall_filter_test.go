package core_test

import (
	"errors"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/internal/testenv"
)

func mustParse(t *testing.T, raw map[string]any) message.Filter {
	t.Helper()
	f, err := message.ParseFilter(raw)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func withMeta(m core.Message, md map[string]any) core.Message {
	m.Content.Metadata = md
	return m
}

// Mastra's semanticRecall.filter: resource-scoped recall narrowed to one
// project's messages (the "Projects" use), AND-ed with the scope.
func TestSemanticRecallFilterByProject(t *testing.T) {
	cfg := core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 0},
		SemanticRecall: &core.SemanticRecall{TopK: 3, MessageRange: &core.MessageRange{}, Scope: core.ScopeResource, Mode: "vector",
			Filter: mustParse(t, map[string]any{"projectId": map[string]any{"$eq": "a"}})}}
	m, err := core.New(core.Options{Store: memstore.New(), Vector: local.New(), Embedder: local.NewHashEmbedder(64), Config: cfg, Tokenizer: testenv.ByteTokenizer{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range []struct{ id, res string }{{"t1", "r"}, {"t2", "r"}, {"t3", "r"}, {"o", "other"}} {
		if _, err := m.CreateThread(ctx, core.ThreadInput{ID: th.id, ResourceID: th.res}); err != nil {
			t.Fatal(err)
		}
	}
	a, b := map[string]any{"projectId": "a"}, map[string]any{"projectId": "b"}
	msgs := []core.Message{
		withMeta(userAt("a1", "t1", "r", "my cat whiskers likes tuna", T(1)), a),
		withMeta(userAt("a2", "t1", "r", "the cat whiskers sleeps all day", T(2)), a),
		withMeta(userAt("b1", "t2", "r", "whiskers the cat chased a mouse", T(3)), b),
		withMeta(userAt("b2", "t2", "r", "cat whiskers cat whiskers cat", T(4)), b),
		userAt("n1", "t2", "r", "whiskers the cat, no project", T(5)),
	}
	if _, err := m.SaveMessages(ctx, msgs, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := m.SaveMessages(ctx, []core.Message{withMeta(userAt("x1", "o", "other", "whiskers the cat", T(6)), a)}, nil); err != nil {
		t.Fatal(err)
	}
	res, err := m.Recall(ctx, core.RecallQuery{ThreadID: "t3", ResourceID: "r", VectorSearch: "whiskers the cat"})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "project a", ids(res.Messages), []string{"a1", "a2"})

	// A per-call config replaces the filter, as Mastra's per-call options do.
	over := &core.Config{SemanticRecall: &core.SemanticRecall{Filter: mustParse(t, map[string]any{
		"$or": []any{map[string]any{"projectId": "b"}, map[string]any{"projectId": map[string]any{"$exists": false}}}})}}
	res, err = m.Recall(ctx, core.RecallQuery{ThreadID: "t3", ResourceID: "r", VectorSearch: "whiskers the cat", Config: over})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "project b or none", ids(res.Messages), []string{"b1", "b2", "n1"})
}

// An invalid semanticRecall.filter is a configuration error, found by New.
func TestSemanticRecallFilterInvalidConfig(t *testing.T) {
	cfg := core.Config{SemanticRecall: &core.SemanticRecall{Filter: message.Filter{Op: "$regex", Key: "projectId", Value: "a"}}}
	_, err := core.New(core.Options{Store: memstore.New(), Vector: local.New(), Embedder: local.NewHashEmbedder(64), Config: cfg, Tokenizer: testenv.ByteTokenizer{}})
	if !errors.Is(err, memerr.ErrInvalidConfig) {
		t.Fatalf("got %v", err)
	}
}

// Mastra's recall filter.metadata: every field must match, with exact
// types; the filter applies before totals and paging, on the count and the
// token-budgeted history alike.
func TestRecallFilterMetadata(t *testing.T) {
	{
		m := newMem(t, memstore.New(), core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 10000}})
		if _, err := m.CreateThread(ctx, core.ThreadInput{ID: "t", ResourceID: "r"}); err != nil {
			t.Fatal(err)
		}
		msgs := []core.Message{
			withMeta(userAt("m1", "t", "r", "one", T(1)), map[string]any{"status": "done", "priority": "high"}),
			withMeta(userAt("m2", "t", "r", "two", T(2)), map[string]any{"status": "done", "priority": "low"}),
			withMeta(userAt("m3", "t", "r", "three", T(3)), map[string]any{"status": "open", "priority": "high"}),
			withMeta(userAt("m4", "t", "r", "four", T(4)), map[string]any{"status": "done", "priority": "high", "n": 1}),
			userAt("m5", "t", "r", "five", T(5)),
		}
		if _, err := m.SaveMessages(ctx, msgs, nil); err != nil {
			t.Fatal(err)
		}
		f := mustParse(t, map[string]any{"status": "done", "priority": "high"})
		res, err := m.Recall(ctx, core.RecallQuery{ThreadID: "t", ResourceID: "r", Metadata: f})
		if err != nil {
			t.Fatal(err)
		}
		same(t, "done and high", ids(res.Messages), []string{"m1", "m4"})
		res, err = m.Recall(ctx, core.RecallQuery{ThreadID: "t", PerPage: 1, IncludeTotal: true, Metadata: f})
		if err != nil {
			t.Fatal(err)
		}
		if same(t, "newest page", ids(res.Messages), []string{"m4"}); res.Total != 2 || !res.HasMore {
			t.Fatalf("total %d more %v", res.Total, res.HasMore)
		}
		res, err = m.Recall(ctx, core.RecallQuery{ThreadID: "t", PerPage: store.PerPageAll, Metadata: mustParse(t, map[string]any{"n": "1"})})
		if err != nil {
			t.Fatal(err)
		}
		same(t, "type-exact", ids(res.Messages), nil)
		_, err = m.Recall(ctx, core.RecallQuery{ThreadID: "t", Metadata: message.Filter{Op: message.OpIn, Key: "status", Values: []any{[]any{}}}})
		if !errors.Is(err, memerr.ErrInvalidArgument) {
			t.Fatalf("invalid filter: %v", err)
		}
	}
}

// Updating a message's metadata updates what semanticRecall.filter sees.
func TestSemanticRecallFilterAfterMetadataUpdate(t *testing.T) {
	cfg := core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 0},
		SemanticRecall: &core.SemanticRecall{TopK: 3, MessageRange: &core.MessageRange{}, Scope: core.ScopeThread,
			Filter: mustParse(t, map[string]any{"pinned": true})}}
	m, err := core.New(core.Options{Store: memstore.New(), Vector: local.New(), Embedder: local.NewHashEmbedder(64), Config: cfg, Tokenizer: testenv.ByteTokenizer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.CreateThread(ctx, core.ThreadInput{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.SaveMessages(ctx, []core.Message{userAt("a", "t", "r", "the parcel ships on monday", T(1))}, nil); err != nil {
		t.Fatal(err)
	}
	recall := func() []string {
		res, err := m.Recall(ctx, core.RecallQuery{ThreadID: "t", ResourceID: "r", VectorSearch: "parcel monday"})
		if err != nil {
			t.Fatal(err)
		}
		return ids(res.Messages)
	}
	same(t, "before", recall(), nil)
	if _, err := m.UpdateMessages(ctx, []core.MessageUpdate{{ID: "a", Content: &core.ContentUpdate{Metadata: map[string]any{"pinned": true}}}}); err != nil {
		t.Fatal(err)
	}
	same(t, "after", recall(), []string{"a"})
}

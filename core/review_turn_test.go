package core_test

import (
	"errors"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/vector/local"
)

// retainFullInput with an echo of stored messages (same ids): the prompt holds
// each message once (the stored copy wins over the echo).
func TestReviewRetainFullInputNoDuplicatePrompt(t *testing.T) {
	s := memstore.New()
	m := newMem(t, s, core.Config{})
	u1, a1 := userAt("u1", "t", "r", "hello", T(1)), userAt("a1", "t", "r", "hi there", T(2))
	a1.Role = core.RoleAssistant
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{u1, a1}})
	if err != nil {
		t.Fatal(err)
	}
	if err := turn.Commit(ctx, nil); err != nil {
		t.Fatal(err)
	}
	u2 := userAt("u2", "t", "r", "next", T(3))
	turn, err = m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{u1, a1, u2},
		Config: &core.Config{RetainFullInput: core.Bool(true)}})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "prompt", ids(conv(turn.Messages())), []string{"u1", "a1", "u2"})
}

// Recall with history disabled (maxTokens 0) and a vector search returns only
// the semantic hits and their ranges, not the whole thread.
func TestReviewRecallHistoryDisabledOnlyHits(t *testing.T) {
	s := memstore.New()
	cfg := core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 0},
		SemanticRecall: &core.SemanticRecall{TopK: 1, MessageRange: &core.MessageRange{}, Scope: core.ScopeThread}}
	m, err := core.New(core.Options{Store: s, Vector: local.New(), Embedder: local.NewHashEmbedder(64), Config: cfg, Tokenizer: byteTok{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.CreateThread(ctx, core.ThreadInput{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	var msgs []core.Message
	for i, txt := range []string{"my cat is called whiskers", "the weather is rainy", "pizza for dinner", "football on sunday"} {
		msgs = append(msgs, userAt(string(rune('a'+i)), "t", "r", txt, T(i)))
	}
	if _, err := m.SaveMessages(ctx, msgs, nil); err != nil {
		t.Fatal(err)
	}
	res, err := m.Recall(ctx, core.RecallQuery{ThreadID: "t", ResourceID: "r", VectorSearch: "whiskers the cat"})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "recall", ids(res.Messages), []string{"a"})
}

// Recall on the token path honours the caller's date range.
func TestReviewRecallTokenPathHonoursRange(t *testing.T) {
	s := memstore.New()
	m := newMem(t, s, core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 10000}})
	if _, err := m.CreateThread(ctx, core.ThreadInput{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	var msgs []core.Message
	for i := range 4 {
		msgs = append(msgs, userAt(string(rune('a'+i)), "t", "r", "x", T(i)))
	}
	if _, err := m.SaveMessages(ctx, msgs, nil); err != nil {
		t.Fatal(err)
	}
	start, end := T(1), T(2)
	res, err := m.Recall(ctx, core.RecallQuery{ThreadID: "t", Range: core.DateRange{Start: &start, End: &end}})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "recall", ids(res.Messages), []string{"b", "c"})
}

// SaveMessages stores and indexes alike: a read-only config (which governs
// turns) does not leave saved messages without vectors.
func TestReviewSaveMessagesReadOnlyStillIndexed(t *testing.T) {
	s := memstore.New()
	cfg := core.Config{ReadOnly: core.Bool(true),
		SemanticRecall: &core.SemanticRecall{TopK: 1, MessageRange: &core.MessageRange{}, Scope: core.ScopeThread}}
	m, err := core.New(core.Options{Store: s, Vector: local.New(), Embedder: local.NewHashEmbedder(64), Config: cfg, Tokenizer: byteTok{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.CreateThread(ctx, core.ThreadInput{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	var msgs []core.Message
	for i, txt := range []string{"my cat is called whiskers", "the weather is rainy", "pizza for dinner"} {
		msgs = append(msgs, userAt(string(rune('a'+i)), "t", "r", txt, T(i)))
	}
	if _, err := m.SaveMessages(ctx, msgs, nil); err != nil {
		t.Fatal(err)
	}
	res, err := m.Recall(ctx, core.RecallQuery{ThreadID: "t", ResourceID: "r", VectorSearch: "whiskers the cat",
		Config: &core.Config{LastMessages: core.NoHistory}})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "recall", ids(res.Messages), []string{"a"})
}

// An input message whose id is stored in another thread is not an echo of
// this thread: it must not silently vanish from the prompt and the save.
func TestReviewInputIDOfOtherThreadNotDropped(t *testing.T) {
	s := memstore.New()
	m := newMem(t, s, core.Config{})
	if _, err := m.CreateThread(ctx, core.ThreadInput{ID: "other", ResourceID: "r2"}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.SaveMessages(ctx, []core.Message{userAt("x", "other", "r2", "secret of r2", T(1))}, nil); err != nil {
		t.Fatal(err)
	}
	in := core.NewMessage(core.RoleUser, "hello")
	in.ID = "x"
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{in}})
	if err != nil {
		return // a clear error is fine too
	}
	same(t, "prompt", ids(conv(turn.Messages())), []string{"x"})
	if err := turn.Commit(ctx, nil); !errors.Is(err, core.ErrResourceMismatch) {
		t.Fatalf("commit of an id owned by another resource: err = %v, want ErrResourceMismatch", err)
	}
	got, _ := m.Recall(ctx, core.RecallQuery{ThreadID: "other", PerPage: core.PerPageAll})
	if len(got.Messages) != 1 || got.Messages[0].Text() != "secret of r2" {
		t.Fatalf("other resource's message changed: %v", got.Messages)
	}
}

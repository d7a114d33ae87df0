package core_test

import (
	"errors"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/internal/testenv"
)

// Recall with history disabled (maxTokens 0) and a vector search returns only
// the semantic hits and their ranges, not the whole thread.
func TestRecallHistoryDisabledOnlyHits(t *testing.T) {
	s := memstore.New()
	cfg := core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 0},
		SemanticRecall: &core.SemanticRecall{TopK: 1, MessageRange: &core.MessageRange{}, Scope: core.ScopeThread}}
	m, err := core.New(core.Options{Store: s, Vector: local.New(), Embedder: local.NewHashEmbedder(64), Config: cfg, Tokenizer: testenv.ByteTokenizer{}})
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
func TestRecallTokenPathHonoursRange(t *testing.T) {
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
	res, err := m.Recall(ctx, core.RecallQuery{ThreadID: "t", Range: store.DateRange{Start: &start, End: &end}})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "recall", ids(res.Messages), []string{"b", "c"})
}

// SaveMessages stores and indexes alike: a read-only config (which governs
// turns) does not leave saved messages without vectors.
func TestSaveMessagesReadOnlyStillIndexed(t *testing.T) {
	s := memstore.New()
	cfg := core.Config{ReadOnly: core.Bool(true),
		SemanticRecall: &core.SemanticRecall{TopK: 1, MessageRange: &core.MessageRange{}, Scope: core.ScopeThread}}
	m, err := core.New(core.Options{Store: s, Vector: local.New(), Embedder: local.NewHashEmbedder(64), Config: cfg, Tokenizer: testenv.ByteTokenizer{}})
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

// UpdateMessages with a malformed tool part is rejected, not a panic.
func TestUpdateMessagesBadPartNoPanic(t *testing.T) {
	m := newMem(t, memstore.New(), core.Config{})
	if _, err := m.CreateThread(ctx, core.ThreadInput{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.SaveMessages(ctx, []core.Message{userAt("u1", "t", "r", "hi", T(1))}, nil); err != nil {
		t.Fatal(err)
	}
	_, err := m.UpdateMessages(ctx, []core.MessageUpdate{{ID: "u1", Content: &core.ContentUpdate{Parts: []core.Part{badToolPart}}}})
	if !errors.Is(err, core.ErrInvalidMessage) {
		t.Fatalf("err = %v, want ErrInvalidMessage", err)
	}
}

// Two updates of one message in one call both apply.
func TestUpdateMessagesSameIDTwice(t *testing.T) {
	m := newMem(t, memstore.New(), core.Config{})
	if _, err := m.CreateThread(ctx, core.ThreadInput{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.SaveMessages(ctx, []core.Message{userAt("u1", "t", "r", "hi", T(1))}, nil); err != nil {
		t.Fatal(err)
	}
	role := core.RoleAssistant
	if _, err := m.UpdateMessages(ctx, []core.MessageUpdate{{ID: "u1", Role: &role},
		{ID: "u1", Content: &core.ContentUpdate{Parts: []core.Part{core.TextPart("edited")}}}}); err != nil {
		t.Fatal(err)
	}
	got, _ := m.Recall(ctx, core.RecallQuery{ThreadID: "t", PerPage: store.PerPageAll})
	if len(got.Messages) != 1 || got.Messages[0].Role != core.RoleAssistant || got.Messages[0].Text() != "edited" {
		t.Fatalf("got %+v", got.Messages)
	}
}

// With the default clock and ids, saved messages get ids and createdAt that
// increase within a batch and across batches, and createdAt is the time of
// the save.
func TestSaveMessagesDefaultClockIncreases(t *testing.T) {
	s := memstore.New()
	seed(t, s, "t", "r")
	m, err := core.New(core.Options{Store: s, Tokenizer: testenv.ByteTokenizer{}})
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now().Add(-time.Millisecond)
	var all []core.Message
	for range 3 {
		batch := make([]core.Message, 300)
		for i := range batch {
			batch[i] = core.NewMessage(core.RoleUser, "hello")
			batch[i].ThreadID, batch[i].ResourceID = "t", "r"
		}
		saved, err := m.SaveMessages(ctx, batch, nil)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, saved...)
	}
	after := time.Now().Add(time.Second)
	for i, msg := range all {
		if msg.CreatedAt.Before(before) || msg.CreatedAt.After(after) {
			t.Fatalf("message %d created at %v, saved between %v and %v", i, msg.CreatedAt, before, after)
		}
		if i > 0 && (msg.ID <= all[i-1].ID || !msg.CreatedAt.After(all[i-1].CreatedAt)) {
			t.Fatalf("message %d (%s, %v) does not follow %s, %v", i, msg.ID, msg.CreatedAt, all[i-1].ID, all[i-1].CreatedAt)
		}
	}
}

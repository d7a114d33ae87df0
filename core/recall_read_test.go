package core_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/vector/local"
)

// includeCounter counts the ListMessages calls that read include windows.
type includeCounter struct {
	*memstore.Store
	reads atomic.Int64
}

func (c *includeCounter) ListMessages(ctx context.Context, q store.MessageQuery) (store.MessagePage, error) {
	if len(q.Include) > 0 {
		c.reads.Add(1)
	}
	return c.Store.ListMessages(ctx, q)
}

// windowMemory stores three threads of one resource whose messages share
// words, so that semantic hits fall in several threads with overlapping
// context windows, and an empty thread "new".
func windowMemory(t *testing.T, s store.Store, cfg core.Config) *core.Memory {
	t.Helper()
	m, err := core.New(core.Options{Store: s, Vector: local.New(), Embedder: local.NewHashEmbedder(64), Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	topics := []string{"carrier", "hiking", "invoice", "garden"}
	n := 0
	for _, th := range []string{"a", "b", "c", "new"} {
		if _, err := m.CreateThread(ctx, core.ThreadInput{ID: th, ResourceID: "r"}); err != nil {
			t.Fatal(err)
		}
		if th == "new" {
			continue
		}
		var msgs []core.Message
		for i := range 8 {
			n++
			msg := userAt(fmt.Sprintf("%s%d", th, i), th, "r", fmt.Sprintf("message %d about the %s and the %s", n, topics[i%4], topics[(i+n)%4]), T(n))
			msgs = append(msgs, msg)
		}
		if _, err := m.SaveMessages(ctx, msgs, nil); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// Mastra's semantic recall returns each match with messageRange messages
// around it. The matches and their windows are read from the store in one
// query, and the windows are those the store's include windows give.
func TestSemanticRecallReadsMatchesWithTheirWindowsOnce(t *testing.T) {
	recall := &core.SemanticRecall{TopK: 3, Scope: core.ScopeResource, MessageRange: &core.MessageRange{Before: 2, After: 1}}
	for _, q := range []string{"the carrier", "hiking in the garden", "message 13 about the invoice"} {
		s := &includeCounter{Store: memstore.New()}
		m := windowMemory(t, s, core.Config{SemanticRecall: recall, MessageHistory: &core.MessageHistory{MaxTokens: 100000}})
		s.reads.Store(0)
		budgeted, err := m.Recall(ctx, core.RecallQuery{ThreadID: "new", ResourceID: "r", VectorSearch: q})
		if err != nil {
			t.Fatal(err)
		}
		if n := s.reads.Load(); n != 1 {
			t.Fatalf("%q: %d reads of matches and windows, want 1", q, n)
		}
		// The paged recall hands the include windows to the store.
		paged, err := m.Recall(ctx, core.RecallQuery{ThreadID: "new", ResourceID: "r", VectorSearch: q, PerPage: 1})
		if err != nil {
			t.Fatal(err)
		}
		got, want := ids(budgeted.Messages), ids(paged.Messages)
		if len(got) < 3 || !slices.Equal(got, want) {
			t.Fatalf("%q: recalled %v, the store's include windows hold %v", q, got, want)
		}
	}
}

// A turn reads its semantic matches and their windows in one query.
func TestTurnReadsRecallOnce(t *testing.T) {
	s := &includeCounter{Store: memstore.New()}
	m := windowMemory(t, s, core.Config{SemanticRecall: &core.SemanticRecall{TopK: 2, Scope: core.ScopeResource}})
	s.reads.Store(0)
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "new", ResourceID: "r", Input: []core.Message{core.NewMessage(core.RoleUser, "the invoice")}})
	if err != nil {
		t.Fatal(err)
	}
	if n := s.reads.Load(); n != 1 {
		t.Fatalf("%d reads of matches and windows, want 1", n)
	}
	// Matches of other threads come as one system message.
	if p := turn.Messages(); len(p) != 2 || p[0].Role != core.RoleSystem || !strings.Contains(p[0].Text(), "invoice") {
		t.Fatalf("prompt %v holds no recalled messages", p)
	}
}

package integration_test

import (
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/vector/local"
)

// With semantic recall on, a steady-state Commit is one PostgreSQL round
// trip, background work included: the unindexed queue is read once per
// resource, and again only when a marker can be there.
func TestPostgresCommitRoundTripsWithRecall(t *testing.T) {
	counter := &queryCounter{}
	s := openPG(t, counter)
	mem, err := core.New(core.Options{Store: s, Vector: local.New(), Embedder: local.NewHashEmbedder(384),
		Config: core.Config{LastMessages: core.LastN(10), SemanticRecall: &core.SemanticRecall{}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mem.CreateThread(bg, core.ThreadInput{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	commit := func(i int) int64 {
		tr, err := mem.Begin(bg, core.TurnRequest{ThreadID: "t", ResourceID: "r",
			Input: []core.Message{core.NewMessage(core.RoleUser, "what did we decide about the budget?")}})
		if err != nil {
			t.Fatal(err)
		}
		before := counter.n.Load()
		if err := tr.Commit(bg, []core.Message{core.NewMessage(core.RoleAssistant, "We cut travel by ten percent.")}); err != nil {
			t.Fatal(err)
		}
		if err := mem.Close(bg); err != nil { // waits for the background retry
			t.Fatal(err)
		}
		return counter.n.Load() - before
	}
	if n := commit(0); n != 2 {
		t.Fatalf("first Commit: %d round trips, want 2 (the save and the resource's one queue check)", n)
	}
	for i := 1; i < 5; i++ {
		if n := commit(i); n != 1 {
			t.Fatalf("Commit %d: %d round trips, want 1", i, n)
		}
	}
}

package core_test

import (
	"slices"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// TestOverlappingTurnsNeverHideUnseenInput: turn A stamps its question at
// Begin; meanwhile turn X commits and turn B trims X's messages, advancing
// the boundary past A's stamp; then A commits. A's question was seen by no
// boundary, so the next turn must load it (in its prompt or trimmed by its
// own budget), never skip it behind B's boundary.
func TestOverlappingTurnsNeverHideUnseenInput(t *testing.T) {
	m := newMem(t, memstore.New(), core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 500, AtMaxRemoveTokens: core.Int(0)}})
	begin := func(id string, cost int) *core.Turn {
		t.Helper()
		in := core.NewMessage(core.RoleUser, text(id, cost))
		in.ID = id
		turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{in}})
		if err != nil {
			t.Fatal(err)
		}
		return turn
	}
	commit := func(turn *core.Turn, id string) {
		t.Helper()
		out := core.NewMessage(core.RoleAssistant, text(id, 100))
		out.ID = id
		if err := turn.Commit(ctx, []core.Message{out}); err != nil {
			t.Fatal(err)
		}
	}
	a := begin("qA", 100)
	commit(begin("qX", 100), "aX")
	b := begin("qB", 400)
	if got := ids(b.Trimmed()); !slices.Contains(got, "aX") {
		t.Fatalf("setup: B trimmed %v, want aX (newer than A's question)", got)
	}
	commit(b, "aB")
	commit(a, "aA")
	c := begin("qC", 10)
	loaded := append(ids(c.Messages()), ids(c.Trimmed())...)
	if !slices.Contains(loaded, "qA") || !slices.Contains(loaded, "aA") {
		t.Fatalf("next turn loaded %v: A's question or answer is hidden behind a boundary that never saw it", loaded)
	}
}

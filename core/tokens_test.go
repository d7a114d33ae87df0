package core_test

import (
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// Token counts supplied with input are recounted, so a wrong count cannot
// break the budget.
func TestSuppliedTokenCountsIgnored(t *testing.T) {
	m := newMem(t, memstore.New(), tokenBudget(100, 0))
	in := core.NewMessage(core.RoleUser, text("big", 90))
	in.Tokens, in.TokenEncoding = 1, "bytes"
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{in}})
	if err != nil {
		t.Fatal(err)
	}
	if got := turn.Messages()[0].Tokens; got != 90 {
		t.Fatalf("input counted as %d tokens, want 90", got)
	}
}

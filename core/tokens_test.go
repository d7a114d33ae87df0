package core_test

import (
	"fmt"
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

// A batch large enough to be counted on several goroutines (~128 KB of
// text, twice parallelCountBytes) gets every message counted exactly once,
// each with its own count.
func TestSaveMessagesCountsLargeBatch(t *testing.T) {
	s := memstore.New()
	m := newMem(t, s, core.Config{})
	seed(t, s, "t", "r")
	var batch []core.Message
	for i := range 500 {
		batch = append(batch, userAt(fmt.Sprint("m", i), "t", "r", text(fmt.Sprint(i), 10+i), T(i)))
	}
	before := m.TokenizedMessages()
	saved, err := m.SaveMessages(ctx, batch, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := m.TokenizedMessages() - before; n != 500 {
		t.Fatalf("tokenized %d messages, want 500", n)
	}
	for i, msg := range saved {
		if msg.Tokens != 10+i || msg.TokenEncoding != "bytes" {
			t.Fatalf("message %d counted %d (%q), want %d", i, msg.Tokens, msg.TokenEncoding, 10+i)
		}
	}
}

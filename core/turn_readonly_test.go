package core_test

import (
	"errors"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// TestTurnRequestReadOnly: a turn asked to be read-only by its request (the
// config allowing writes) creates no thread and its Commit stores nothing;
// the next turn without the field writes as before.
func TestTurnRequestReadOnly(t *testing.T) {
	m := newMem(t, memstore.New(), core.Config{})
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", ReadOnly: true,
		Input: []core.Message{core.NewMessage(core.RoleUser, "peek")}})
	if err != nil {
		t.Fatal(err)
	}
	if err := turn.Commit(ctx, []core.Message{core.NewMessage(core.RoleAssistant, "ok")}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.GetThread(ctx, "t", "r"); !errors.Is(err, core.ErrThreadNotFound) {
		t.Fatalf("a read-only turn created its thread: %v", err)
	}
	turn, err = m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{core.NewMessage(core.RoleUser, "write")}})
	if err != nil {
		t.Fatal(err)
	}
	if err := turn.Commit(ctx, []core.Message{core.NewMessage(core.RoleAssistant, "ok")}); err != nil {
		t.Fatal(err)
	}
	page, err := m.Recall(ctx, core.RecallQuery{ThreadID: "t", ResourceID: "r"})
	if err != nil || len(page.Messages) != 2 {
		t.Fatalf("after a writing turn: %d messages, %v; want 2 (nothing of the read-only turn)", len(page.Messages), err)
	}
}

package core_test

import (
	"errors"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
)

var badToolPart = core.Part{Type: core.PartToolInvocation} // no ToolInvocation

// A context message with a malformed tool part is rejected, not a panic.
func TestReviewBeginBadContextNoPanic(t *testing.T) {
	m := newMem(t, memstore.New(), core.Config{})
	bad := core.Message{Role: core.RoleAssistant, Content: core.Content{Parts: []core.Part{badToolPart}}}
	_, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r",
		Input: []core.Message{core.NewMessage(core.RoleUser, "hi")}, Context: []core.Message{bad}})
	if !errors.Is(err, core.ErrInvalidMessage) {
		t.Fatalf("err = %v, want ErrInvalidMessage", err)
	}
	if _, err := m.GetThread(ctx, "t", ""); !errors.Is(err, core.ErrThreadNotFound) {
		t.Fatalf("bad input created the thread: %v", err)
	}
}

// UpdateMessages with a malformed tool part is rejected, not a panic.
func TestReviewUpdateMessagesBadPartNoPanic(t *testing.T) {
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
func TestReviewUpdateMessagesSameIDTwice(t *testing.T) {
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
	got, _ := m.Recall(ctx, core.RecallQuery{ThreadID: "t", PerPage: core.PerPageAll})
	if len(got.Messages) != 1 || got.Messages[0].Role != core.RoleAssistant || got.Messages[0].Text() != "edited" {
		t.Fatalf("got %+v", got.Messages)
	}
}

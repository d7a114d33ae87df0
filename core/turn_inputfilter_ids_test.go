package core_test

import (
	"errors"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// retainFullInput with an echo of stored messages (same ids): the prompt holds
// each message once (the stored copy wins over the echo).
func TestRetainFullInputNoDuplicatePrompt(t *testing.T) {
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

// An input message whose id is stored in another thread is not an echo of
// this thread: it must not silently vanish from the prompt and the save.
func TestInputIDOfOtherThreadNotDropped(t *testing.T) {
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
	got, _ := m.Recall(ctx, core.RecallQuery{ThreadID: "other", PerPage: store.PerPageAll})
	if len(got.Messages) != 1 || got.Messages[0].Text() != "secret of r2" {
		t.Fatalf("other resource's message changed: %v", got.Messages)
	}
}

package core_test

import (
	"context"
	"errors"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// failingList fails every ListMessages.
type failingList struct{ fullStore }

func (failingList) ListMessages(context.Context, store.MessageQuery) (store.MessagePage, error) {
	return store.MessagePage{}, errors.New("disk on fire")
}

// An error of Begin names the step it came from and keeps its code.
func TestBeginErrorNamesStep(t *testing.T) {
	s := failingList{memstore.New()}
	m := newMem(t, s, core.Config{})
	_, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r",
		Input: []core.Message{core.NewMessage(core.RoleUser, "hi")}})
	var e *core.Error
	if !errors.As(err, &e) || e.Op != "Begin: history: ListMessages" || !errors.Is(err, core.ErrStorage) {
		t.Fatalf("err = %v (op %q), want a storage error from the history step", err, e.Op)
	}
	_, err = m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "other"})
	if !errors.As(err, &e) || e.Op != "Begin: thread" || !errors.Is(err, core.ErrResourceMismatch) {
		t.Fatalf("err = %v, want a resource mismatch from the thread step", err)
	}
}

// A cancelled context ends Begin with CodeCanceled, matching both the
// sentinel and context.Canceled, before anything is read or written.
func TestBeginCancelled(t *testing.T) {
	m := newMem(t, memstore.New(), core.Config{})
	c, cancel := context.WithCancel(ctx)
	cancel()
	_, err := m.Begin(c, core.TurnRequest{ThreadID: "t", ResourceID: "r"})
	if !errors.Is(err, core.ErrCanceled) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want ErrCanceled wrapping context.Canceled", err)
	}
	if _, err := m.GetThread(ctx, "t", "r"); !errors.Is(err, core.ErrThreadNotFound) {
		t.Fatalf("a cancelled Begin created the thread: %v", err)
	}
}

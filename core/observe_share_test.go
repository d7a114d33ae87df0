package core_test

import (
	"errors"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// Mastra's shareTokenBudget: the unobserved messages may use the room the
// observations leave in messageTokens + observationTokens, never less than
// messageTokens, and the room shrinks as the observations grow.
func TestShareTokenBudgetExpandsIntoUnusedObservationSpace(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) { testShareTokenBudget(t, s) })
}

func testShareTokenBudget(t *testing.T, s store.Store) {
	const mt, ot = 100, 400
	obs := &observerModel{}
	cfg := observationConfig(obs, &reflectorModel{}, mt, ot)
	cfg.ObservationalMemory.ShareTokenBudget = true
	m := newMem(t, s, cfg)
	pastBase, observedWithRoom := false, false
	for i := 0; i < 60; i++ {
		observedTurn(t, m, "t", "r", i)
		rec, unobserved := unobservedTokens(t, m, s)
		limit := max(mt+ot-rec.ObservationTokens, mt)
		if unobserved > limit {
			t.Fatalf("turn %d: %d unobserved tokens left past the shared threshold %d (observations %d)", i, unobserved, limit, rec.ObservationTokens)
		}
		pastBase = pastBase || unobserved > mt
		observedWithRoom = observedWithRoom || (rec.ObservationTokens > 0 && limit > mt)
	}
	if !pastBase {
		t.Fatal("the unobserved messages never used the observations' room (never past messageTokens)")
	}
	if obs.calls.Load() == 0 || !observedWithRoom {
		t.Fatalf("observer calls %d, observed with room left %v: the turns did not cross the shared threshold", obs.calls.Load(), observedWithRoom)
	}
	for tag, n := range obs.observed() {
		if n != 1 {
			t.Fatalf("%s observed %d times", tag, n)
		}
	}
}

// unobservedTokens returns the record of thread t and the stored token
// counts of its messages the record has not observed.
func unobservedTokens(t *testing.T, m *core.Memory, s store.Store) (store.ObservationRecord, int) {
	t.Helper()
	rec, err := m.Observations(ctx, "t", "r", nil)
	if err != nil {
		t.Fatal(err)
	}
	page, err := s.ListMessages(ctx, store.MessageQuery{ThreadID: "t", ResourceID: "r", PerPage: store.PerPageAll})
	if err != nil {
		t.Fatal(err)
	}
	unobserved := 0
	for _, msg := range page.Messages {
		if msg.Tokens <= 0 {
			t.Fatalf("message %s has no stored token count", msg.ID)
		}
		if !rec.Observed(msg.CreatedAt, msg.ID) {
			unobserved += msg.Tokens
		}
	}
	return rec, unobserved
}

// Without shareTokenBudget the threshold stays messageTokens whatever the
// observations leave.
func TestShareTokenBudgetOffKeepsMessageTokens(t *testing.T) {
	s := memstore.New()
	obs := &observerModel{}
	m := newMem(t, s, observationConfig(obs, &reflectorModel{}, 100, 400))
	for i := 0; i < 30; i++ {
		observedTurn(t, m, "t", "r", i)
		if _, unobserved := unobservedTokens(t, m, s); unobserved > 100 {
			t.Fatalf("turn %d: %d unobserved tokens past messageTokens 100", i, unobserved)
		}
	}
}

// Mastra refuses shareTokenBudget with async buffering ("shareTokenBudget
// requires async buffering to be disabled").
func TestShareTokenBudgetRequiresAsyncBufferingDisabled(t *testing.T) {
	obs := &observerModel{}
	c := &core.ObservationalMemoryConfig{Model: obs, ShareTokenBudget: true, Observation: core.ObservationConfig{BufferTokens: 0.2}}
	_, err := core.New(core.Options{Store: memstore.New(), Config: core.Config{ObservationalMemory: c}})
	if !errors.Is(err, core.ErrInvalidConfig) {
		t.Fatalf("shareTokenBudget with bufferTokens: err = %v, want ErrInvalidConfig", err)
	}
	// Merged: the base's shared budget stays on under an override that does not set it.
	base := core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{Model: obs, ShareTokenBudget: true}}
	over := &core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{Observation: core.ObservationConfig{MessageTokens: 50}}}
	if got := base.Merge(over).ObservationalMemory; !got.ShareTokenBudget || got.Observation.MessageTokens != 50 {
		t.Fatalf("merge = %+v", got)
	}
	if got := (core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{Model: obs}}).Merge(&core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{ShareTokenBudget: true}}).ObservationalMemory; !got.ShareTokenBudget {
		t.Fatalf("override's shareTokenBudget lost: %+v", got)
	}
}

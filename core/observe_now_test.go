package core_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// ObserveNow observes every unobserved message, below the threshold too,
// each once; the next turn sees the observations instead of the messages.
// ReflectNow then condenses them into a new generation.
func TestObserveNowAndReflectNow(t *testing.T) {
	obs, ref := &observerModel{}, &reflectorModel{}
	m := newMem(t, memstore.New(), observationConfig(obs, ref, 100000, 100000))
	for i := range 3 {
		observedTurn(t, m, "now", "r", i)
	}
	if obs.calls.Load() != 0 {
		t.Fatal("observed below the threshold before ObserveNow")
	}
	rec, err := m.ObserveNow(ctx, "now", "r", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tag := range []string{"m0u", "m0a", "m1u", "m1a", "m2u", "m2a"} {
		if obs.observed()[tag] != 1 || !strings.Contains(rec.Observations, "saw "+tag) {
			t.Fatalf("%s observed %d times; record %q", tag, obs.observed()[tag], rec.Observations)
		}
	}
	calls := obs.calls.Load()
	if _, err := m.ObserveNow(ctx, "now", "r", nil); err != nil || obs.calls.Load() != calls {
		t.Fatalf("ObserveNow with nothing new called the observer (%v)", err)
	}
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "now", ResourceID: "r", Input: []core.Message{core.NewMessage(core.RoleUser, "next")}})
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range turn.Messages() {
		if msg.Source == core.SourceMemory {
			t.Fatalf("an observed message is still in the prompt: %s", msg.Text())
		}
	}
	if sys := strings.Join(systemTexts(turn.Messages()), "\n"); !strings.Contains(sys, "saw m2a") {
		t.Fatalf("the prompt lacks the observations: %q", sys)
	}
	rec, err = m.ReflectNow(ctx, "now", "r", nil)
	if err != nil {
		t.Fatal(err)
	}
	if ref.calls.Load() != 1 || rec.Generation != 1 || !strings.Contains(rec.Observations, "reflection 1 of 6 lines") {
		t.Fatalf("ReflectNow: %d calls, generation %d, %q", ref.calls.Load(), rec.Generation, rec.Observations)
	}
}

// A failed observer call is returned, and the messages stay unobserved for
// the next call.
func TestObserveNowFailure(t *testing.T) {
	obs := &observerModel{}
	obs.hook = func(_ context.Context, call int64) error {
		if call == 1 {
			return errors.New("observer down")
		}
		return nil
	}
	m := newMem(t, memstore.New(), observationConfig(obs, &reflectorModel{}, 100000, 100000))
	observedTurn(t, m, "fail", "r", 0)
	if _, err := m.ObserveNow(ctx, "fail", "r", nil); !errors.Is(err, memerr.ErrObservation) {
		t.Fatalf("ObserveNow with the observer down: %v", err)
	}
	rec, err := m.ObserveNow(ctx, "fail", "r", nil)
	if err != nil || !strings.Contains(rec.Observations, "saw m0a") {
		t.Fatalf("retry: %v, %q", err, rec.Observations)
	}
}

// Bad calls fail with typed errors and change nothing.
func TestObserveNowBadInput(t *testing.T) {
	off := newMem(t, memstore.New(), core.Config{})
	if _, err := off.ObserveNow(ctx, "t", "r", nil); !errors.Is(err, memerr.ErrInvalidConfig) {
		t.Fatalf("ObserveNow without observational memory: %v", err)
	}
	obs := &observerModel{}
	m := newMem(t, memstore.New(), observationConfig(obs, &reflectorModel{}, 100000, 100000))
	if _, err := m.ReflectNow(ctx, "missing", "r", nil); !errors.Is(err, memerr.ErrThreadNotFound) {
		t.Fatalf("ReflectNow on a missing thread: %v", err)
	}
	observedTurn(t, m, "mine", "r", 0)
	if _, err := m.ObserveNow(ctx, "mine", "other", nil); !errors.Is(err, memerr.ErrResourceMismatch) {
		t.Fatalf("ObserveNow on another resource's thread: %v", err)
	}
	if _, err := m.ObserveNow(ctx, "", "r", nil); !errors.Is(err, memerr.ErrMissingThreadID) {
		t.Fatalf("ObserveNow without a thread id: %v", err)
	}
	if obs.calls.Load() != 0 {
		t.Fatal("a refused call reached the observer")
	}
}

// Instruction is appended to the built-in system prompts of the observer
// and the reflector, and to prompts that replace them.
func TestObservationInstructionAppended(t *testing.T) {
	var systems []string
	record := modelFunc(func(_ context.Context, system, prompt string) (string, error) {
		systems = append(systems, system)
		return "- [2026-10-30] (low) noted", nil
	})
	cfg := observationConfig(record, record, 100000, 100000)
	cfg.ObservationalMemory.Instruction = "Keep every date the user names."
	m := newMem(t, memstore.New(), cfg)
	observedTurn(t, m, "ins", "r", 0)
	if _, err := m.ObserveNow(ctx, "ins", "r", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := m.ReflectNow(ctx, "ins", "r", nil); err != nil {
		t.Fatal(err)
	}
	over := &core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{ObserverInstructions: "Observe tersely."}}
	observedTurn(t, m, "ins", "r", 1)
	if _, err := m.ObserveNow(ctx, "ins", "r", over); err != nil {
		t.Fatal(err)
	}
	if len(systems) != 3 {
		t.Fatalf("%d model calls, want 3", len(systems))
	}
	for i, want := range []string{"observer", "reflector", "Observe tersely."} {
		if !strings.Contains(systems[i], want) || !strings.HasSuffix(systems[i], "\n\nKeep every date the user names.") {
			t.Fatalf("system prompt %d = %q", i, systems[i])
		}
	}
}

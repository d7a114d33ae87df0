package core_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
)

// hintModel answers as observer and reflector with observation lines and
// the continuation-hint sections, and records the system prompts.
type hintModel struct {
	mu      sync.Mutex
	systems []string
	replies []string
}

func (h *hintModel) Generate(_ context.Context, system, _ string) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.systems = append(h.systems, system)
	r := h.replies[0]
	h.replies = h.replies[1:]
	return r, nil
}

// Mastra's continuation hints: by default the observer and the reflector
// are asked for <current-task> and <suggested-response>; the hints are kept
// out of the observations, stored on the thread, and shown after the
// observations and before the continuation reminder; a section a later
// reply leaves out keeps its value.
func TestContinuationHintsRegisteredByDefault(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		model := &hintModel{replies: []string{
			"- [2026-10-30] (high) Ada wants a hotel in Lisbon\n<current-task>Find Ada a hotel in Lisbon</current-task>\n<suggested-response>Ask which dates she travels.</suggested-response>",
			"- [2026-10-30] (high) Ada: hotel in Lisbon\n<suggested-response>Offer two hotels.</suggested-response>",
		}}
		m := newMem(t, s, observationConfig(model, model, 100000, 100000))
		observedTurn(t, m, "h", "r", 0)
		rec, err := m.ObserveNow(ctx, "h", "r", nil)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(rec.Observations, "current-task") || strings.Contains(rec.Observations, "Ask which dates") {
			t.Fatalf("hints stored as observations: %q", rec.Observations)
		}
		if !strings.Contains(model.systems[0], "<current-task>") || !strings.Contains(model.systems[0], "<suggested-response>") {
			t.Fatalf("observer not asked for hints: %q", model.systems[0])
		}
		sys := beginSystem(t, m, "h")
		n := len(sys)
		if n < 4 || sys[n-3] != "<current-task>\nFind Ada a hotel in Lisbon\n</current-task>" ||
			sys[n-2] != "<suggested-response>\nAsk which dates she travels.\n</suggested-response>" || !strings.Contains(sys[n-1], "system-reminder") {
			t.Fatalf("system messages: %q", sys)
		}
		if _, err := m.ReflectNow(ctx, "h", "r", nil); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(model.systems[1], "<suggested-response>") {
			t.Fatalf("reflector not asked for hints: %q", model.systems[1])
		}
		sys = beginSystem(t, m, "h")
		n = len(sys)
		if sys[n-3] != "<current-task>\nFind Ada a hotel in Lisbon\n</current-task>" || sys[n-2] != "<suggested-response>\nOffer two hotels.\n</suggested-response>" {
			t.Fatalf("system messages after reflection: %q", sys)
		}
	})
}

// With DisableContinuationHints the models are not asked for hints and
// hints stored earlier are no longer shown.
func TestContinuationHintsOmittedWhenDisabled(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		model := &hintModel{replies: []string{
			"- [2026-10-30] (high) Ada wants a hotel\n<current-task>Find a hotel</current-task>",
			"- [2026-10-30] (low) more",
		}}
		m := newMem(t, s, observationConfig(model, model, 100000, 100000))
		observedTurn(t, m, "h", "r", 0)
		if _, err := m.ObserveNow(ctx, "h", "r", nil); err != nil {
			t.Fatal(err)
		}
		off := &core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{DisableContinuationHints: true}}
		observedTurn(t, m, "h", "r", 1)
		if _, err := m.ObserveNow(ctx, "h", "r", off); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(model.systems[1], "<current-task>") {
			t.Fatalf("observer asked for hints although disabled: %q", model.systems[1])
		}
		turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "h", ResourceID: "r", Config: off, Input: []core.Message{core.NewMessage(core.RoleUser, "next")}})
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range systemTexts(turn.Messages()) {
			if strings.Contains(text, "Find a hotel") {
				t.Fatalf("a stored hint is shown although disabled: %q", text)
			}
		}
		if sys := beginSystem(t, m, "h"); !strings.Contains(strings.Join(sys, "\n"), "Find a hotel") {
			t.Fatalf("the stored hint is gone with hints enabled again: %q", sys)
		}
	})
}

func beginSystem(t *testing.T, m *core.Memory, thread string) []string {
	readOnly := true
	t.Helper()
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: thread, ResourceID: "r", Config: &core.Config{ReadOnly: &readOnly}, Input: []core.Message{core.NewMessage(core.RoleUser, "next")}})
	if err != nil {
		t.Fatal(err)
	}
	return systemTexts(turn.Messages())
}

// ClearObservations deletes the continuation hints too (of every thread of
// the resource in resource scope): observations made after the clear never
// come back with the hints of the cleared ones.
func TestClearObservationsDeletesHints(t *testing.T) {
	for _, scope := range []core.Scope{core.ScopeThread, core.ScopeResource} {
		t.Run(string(scope), func(t *testing.T) {
			eachBackend(t, func(t *testing.T, s store.Store) {
				threads := []string{"h"}
				replies := []string{"- [2026-10-30] (high) Ada wants a hotel\n<current-task>Find a hotel</current-task>"}
				if scope == core.ScopeResource {
					threads = append(threads, "h2")
					replies = append(replies, "- [2026-10-30] (high) Ada wants a train\n<current-task>Book a train</current-task>")
				}
				model := &hintModel{replies: append(replies, "- [2026-10-30] (low) Ada asked about the weather")}
				cfg := observationConfig(model, model, 100000, 100000)
				cfg.ObservationalMemory.Scope = scope
				m := newMem(t, s, cfg)
				for i, th := range threads {
					observedTurn(t, m, th, "r", i)
					if _, err := m.ObserveNow(ctx, th, "r", nil); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := m.ClearObservations(ctx, "h", "r", nil); err != nil {
					t.Fatal(err)
				}
				for _, th := range threads {
					got, err := store.Check(s).GetThread(ctx, th)
					if err != nil {
						t.Fatal(err)
					}
					if _, ok := got.Metadata["observationalMemory"]; ok {
						t.Fatalf("thread %s keeps its hints after the clear: %v", th, got.Metadata)
					}
				}
				if _, err := m.ObserveNow(ctx, "h", "r", nil); err != nil {
					t.Fatal(err)
				}
				sys := strings.Join(beginSystem(t, m, "h"), "\n")
				if !strings.Contains(sys, "weather") || strings.Contains(sys, "Find a hotel") || strings.Contains(sys, "Book a train") {
					t.Fatalf("system messages after the clear and a new observation: %q", sys)
				}
			})
		})
	}
}

package core_test

import (
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
)

// passport is the guest's message that a move must not lose (tag m90u for
// the scripted observer).
const passport = "m90u: my passport number is ZX-31337"

// seedPassportMove saves the guest's passport message at T(0) and alice's
// messages an hour later, and observes both resources (or threads): alice's
// cursor is then far past the guest's message, and the guest's observation
// of it is the guest's.
func seedPassportMove(t *testing.T, m *core.Memory) {
	t.Helper()
	for _, th := range [][2]string{{"g", "guest"}, {"a", "alice"}} {
		if _, err := m.CreateThread(ctx, core.ThreadInput{ID: th[0], ResourceID: th[1]}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.SaveMessages(ctx, []core.Message{
		userAt("p", "g", "guest", passport, T(0)),
		userAt("a1", "a", "alice", "m91u: I booked a flight", T(3600)),
		userAt("a2", "a", "alice", "m92u: window seat please", T(3601)),
	}, nil); err != nil {
		t.Fatal(err)
	}
	for _, th := range [][2]string{{"g", "guest"}, {"a", "alice"}} {
		if _, err := m.ObserveNow(ctx, th[0], th[1], nil); err != nil {
			t.Fatal(err)
		}
	}
}

// promptHasPassport reports whether a turn of the moved thread under alice
// shows the passport message, as history or as an observation naming it.
func promptHasPassport(t *testing.T, m *core.Memory) (history, observed bool) {
	t.Helper()
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "g", ResourceID: "alice",
		Input: []core.Message{core.NewMessage(core.RoleUser, "what is my passport number?")}})
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range turn.Messages() {
		history = history || (msg.Source == core.SourceMemory && strings.Contains(msg.Text(), "ZX-31337"))
	}
	return history, strings.Contains(strings.Join(systemTexts(turn.Messages()), "\n"), "saw m90u")
}

// A move loses nothing with resource-scoped observational memory: alice's
// record never observed the guest's messages, though its cursor is past
// them, so the moved thread's turns show them as history until alice's
// observer observes them, and its next observation does (once). As in
// Mastra, the guest's observations stay with the guest.
func TestMoveThreadResourceObservationsKeepMovedMessages(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		obs := &observerModel{}
		cfg := observationConfig(obs, &reflectorModel{}, 100000, 100000)
		cfg.ObservationalMemory.Scope = core.ScopeResource
		m := newMem(t, s, cfg)
		seedPassportMove(t, m)
		if _, err := m.MoveThread(ctx, "g", "alice"); err != nil {
			t.Fatal(err)
		}
		if history, observed := promptHasPassport(t, m); !history || observed {
			t.Fatalf("after the move: passport in history %v, in observations %v; want history", history, observed)
		}
		rec, err := m.ObserveNow(ctx, "g", "alice", nil)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(rec.Observations, "saw m90u") || len(rec.UnobservedMessageIDs) != 0 {
			t.Fatalf("alice's observation after the move: %q, unobserved %v", rec.Observations, rec.UnobservedMessageIDs)
		}
		if history, observed := promptHasPassport(t, m); history || !observed {
			t.Fatalf("after observing: passport in history %v, in observations %v; want observations", history, observed)
		}
		// The next cycle observes nothing again; the guest keeps its own.
		if _, err := m.ObserveNow(ctx, "g", "alice", nil); err != nil {
			t.Fatal(err)
		}
		if n := obs.observed()["m90u"]; n != 2 { // once by the guest, once by alice
			t.Fatalf("the passport message was observed %d times", n)
		}
		guest, err := m.Observations(ctx, "b", "guest", nil)
		if err != nil || !strings.Contains(guest.Observations, "saw m90u") {
			t.Fatalf("guest's observations: %q, %v", guest.Observations, err)
		}
	})
}

// Thread-scoped observations are keyed by the thread and move with it: the
// moved thread's turns under alice show the guest-time observation.
func TestMoveThreadThreadObservationsMoveWithTheThread(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		obs := &observerModel{}
		m := newMem(t, s, observationConfig(obs, &reflectorModel{}, 100000, 100000))
		seedPassportMove(t, m)
		if _, err := m.MoveThread(ctx, "g", "alice"); err != nil {
			t.Fatal(err)
		}
		if history, observed := promptHasPassport(t, m); history || !observed {
			t.Fatalf("after the move: passport in history %v, in observations %v; want observations", history, observed)
		}
		if _, err := m.ObserveNow(ctx, "g", "alice", nil); err != nil {
			t.Fatal(err)
		}
		if n := obs.observed()["m90u"]; n != 1 {
			t.Fatalf("the passport message was observed %d times", n)
		}
	})
}

package core_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
)

// A clone into another resource that has messages but no observation
// record yet takes the source resource's record along (CloneThread), and
// loses none of the resource's own messages: the copied record never
// observed them, though its cursor is past them, so the resource's turns
// show them as history until its next observation covers them (once).
func TestCloneThreadResourceObservationsKeepTheResourcesMessages(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		cfg := observationConfig(&observerModel{}, &reflectorModel{}, 100000, 100000)
		cfg.ObservationalMemory.Scope = core.ScopeResource
		m := newMem(t, s, cfg)
		for _, th := range [][2]string{{"a", "alice"}, {"g", "guest"}} {
			if _, err := m.CreateThread(ctx, core.ThreadInput{ID: th[0], ResourceID: th[1]}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := m.SaveMessages(ctx, []core.Message{
			userAt("p", "a", "alice", passport, T(0)),
			userAt("g1", "g", "guest", "m91u: I booked a flight", T(3600)),
		}, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := m.ObserveNow(ctx, "g", "guest", nil); err != nil {
			t.Fatal(err)
		}
		if _, _, err := m.CloneThread(ctx, core.CloneOptions{SourceThreadID: "g", NewThreadID: "c", ResourceID: "alice"}); err != nil {
			t.Fatal(err)
		}
		if history, observed := seesPassport(t, m, "a"); !history || observed {
			t.Fatalf("after the clone: passport in history %v, in observations %v; want history", history, observed)
		}
		if rec := observePassportOnce(t, m, "a"); len(rec.UnobservedMessageIDs) != 0 {
			t.Fatalf("alice's record still lists %v as unobserved", rec.UnobservedMessageIDs)
		}
	})
}

// A clone into a resource with its own observation record (never
// overwritten) loses none of the copies: the record never observed them,
// though its cursor is past them, so the clone's turns show them as history
// until the resource's next observation covers them (once).
func TestCloneThreadResourceObservationsKeepTheCopies(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		cfg := observationConfig(&observerModel{}, &reflectorModel{}, 100000, 100000)
		cfg.ObservationalMemory.Scope = core.ScopeResource
		m := newMem(t, s, cfg)
		seedPassportMove(t, m) // alice's record has its own cursor an hour past the passport
		if _, _, err := m.CloneThread(ctx, core.CloneOptions{SourceThreadID: "g", NewThreadID: "a", ResourceID: "alice"}); err == nil {
			t.Fatal("cloned onto alice's existing thread")
		}
		if _, _, err := m.CloneThread(ctx, core.CloneOptions{SourceThreadID: "g", NewThreadID: "c", ResourceID: "alice"}); err != nil {
			t.Fatal(err)
		}
		if history, observed := seesPassport(t, m, "c"); !history || observed {
			t.Fatalf("after the clone: passport in history %v, in observations %v; want history", history, observed)
		}
		if rec := observePassportOnce(t, m, "c"); len(rec.UnobservedMessageIDs) != 0 {
			t.Fatalf("alice's record still lists %v as unobserved", rec.UnobservedMessageIDs)
		}
	})
}

// observePassportOnce runs alice's observer now on thread and checks that
// its observations name the passport message once and that the thread's
// turns show it as an observation, not as history. It returns the record.
func observePassportOnce(t *testing.T, m *core.Memory, thread string) store.ObservationRecord {
	t.Helper()
	rec, err := m.ObserveNow(ctx, thread, "alice", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(rec.Observations, "saw m90u"); n != 1 {
		t.Fatalf("alice's observations name the passport %d times: %q", n, rec.Observations)
	}
	if history, observed := seesPassport(t, m, thread); history || !observed {
		t.Fatalf("after alice's observation: passport in history %v, in observations %v; want observations", history, observed)
	}
	return rec
}

// seesPassport reports whether a turn of alice's thread shows the passport
// message, as history or as an observation naming it.
func seesPassport(t *testing.T, m *core.Memory, thread string) (history, observed bool) {
	t.Helper()
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: thread, ResourceID: "alice",
		Input: []core.Message{core.NewMessage(core.RoleUser, "what is my passport number?")}})
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range turn.Messages() {
		history = history || (msg.Source == core.SourceMemory && strings.Contains(msg.Text(), "ZX-31337"))
	}
	return history, strings.Contains(strings.Join(systemTexts(turn.Messages()), "\n"), "saw m90u")
}

// A clone within one resource shares the resource's observation record:
// what the record has not observed of the source (a thread moved in from
// another resource, listed as unobserved) it has not observed of the
// copies either, so the clone's turns show them as history, also once the
// source has moved on and no longer shows them as another thread's.
func TestCloneThreadResourceObservationsKeepUnobservedCopies(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		cfg := observationConfig(&observerModel{}, &reflectorModel{}, 100000, 100000)
		cfg.ObservationalMemory.Scope = core.ScopeResource
		m := newMem(t, s, cfg)
		seedPassportMove(t, m) // alice's cursor is an hour past the passport
		if _, err := m.MoveThread(ctx, "g", "alice"); err != nil {
			t.Fatal(err)
		}
		_, copies, err := m.CloneThread(ctx, core.CloneOptions{SourceThreadID: "g", NewThreadID: "c"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.MoveThread(ctx, "g", "guest"); err != nil {
			t.Fatal(err)
		}
		if history, observed := seesPassport(t, m, "c"); !history || observed {
			t.Fatalf("after the clone: passport in history %v, in observations %v; want history", history, observed)
		}
		if rec := observePassportOnce(t, m, "c"); slices.Contains(rec.UnobservedMessageIDs, copies[0].ID) {
			t.Fatalf("alice's record still lists the copy %s as unobserved: %v", copies[0].ID, rec.UnobservedMessageIDs)
		}
	})
}

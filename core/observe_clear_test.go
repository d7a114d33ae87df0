package core_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
)

// ClearObservations resets the record (Mastra's clear): observations,
// cursor and archived generations go, the next turn sees the stored
// messages again, and ObserveNow observes them anew, each once more.
func TestClearObservations(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		obs, ref := &observerModel{}, &reflectorModel{}
		m := newMem(t, s, observationConfig(obs, ref, 100000, 100000))
		for i := range 3 {
			observedTurn(t, m, "c", "r", i)
		}
		observedTurn(t, m, "keep", "r", 9)
		if _, err := m.ObserveNow(ctx, "c", "r", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := m.ReflectNow(ctx, "c", "r", nil); err != nil {
			t.Fatal(err)
		}
		kept, err := m.ObserveNow(ctx, "keep", "r", nil)
		if err != nil {
			t.Fatal(err)
		}
		before, err := m.Observations(ctx, "c", "r", nil)
		if err != nil || before.Generation != 1 {
			t.Fatalf("before clear: %+v, %v", before, err)
		}
		cleared, err := m.ClearObservations(ctx, "c", "r", nil)
		if err != nil {
			t.Fatal(err)
		}
		if cleared.Observations != "" || !cleared.LastObservedAt.IsZero() || cleared.Generation != 0 || cleared.Version != before.Version+1 {
			t.Fatalf("cleared record = %+v", cleared)
		}
		if gens, err := store.Check(s).ListObservationGenerations(ctx, "thread:c"); err != nil || len(gens) != 0 {
			t.Fatalf("archived generations after clear: %+v, %v", gens, err)
		}
		if other, err := m.Observations(ctx, "keep", "r", nil); err != nil || other.Observations != kept.Observations {
			t.Fatalf("another thread's record changed: %+v, %v", other, err)
		}
		turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "c", ResourceID: "r", Input: []core.Message{core.NewMessage(core.RoleUser, "next")}})
		if err != nil {
			t.Fatal(err)
		}
		if sys := strings.Join(systemTexts(turn.Messages()), "\n"); strings.Contains(sys, "saw m") || strings.Contains(sys, "reflection") {
			t.Fatalf("the prompt still shows observations: %q", sys)
		}
		memory := 0
		for _, msg := range turn.Messages() {
			if msg.Source == core.SourceMemory {
				memory++
			}
		}
		if memory != 6 {
			t.Fatalf("%d remembered messages after clear, want the 6 stored ones", memory)
		}
		rec, err := m.ObserveNow(ctx, "c", "r", nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tag := range []string{"m0u", "m0a", "m1u", "m1a", "m2u", "m2a"} {
			if obs.observed()[tag] != 2 || !strings.Contains(rec.Observations, "saw "+tag) {
				t.Fatalf("%s observed %d times in all (want once before and once after the clear); record %q", tag, obs.observed()[tag], rec.Observations)
			}
		}
	})
}

// Bad calls fail with typed errors and change nothing.
func TestClearObservationsBadInput(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		off := newMem(t, s, core.Config{})
		if _, err := off.ClearObservations(ctx, "t", "r", nil); !errors.Is(err, memerr.ErrInvalidConfig) {
			t.Fatalf("without observational memory: %v", err)
		}
		m := newMem(t, s, observationConfig(&observerModel{}, &reflectorModel{}, 100000, 100000))
		observedTurn(t, m, "mine", "r", 0)
		want, err := m.ObserveNow(ctx, "mine", "r", nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			thread, res string
			err         error
		}{
			{"missing", "r", memerr.ErrThreadNotFound},
			{"mine", "other", memerr.ErrResourceMismatch},
			{"", "r", memerr.ErrMissingThreadID},
		} {
			if _, err := m.ClearObservations(ctx, c.thread, c.res, nil); !errors.Is(err, c.err) {
				t.Fatalf("ClearObservations(%q, %q) = %v, want %v", c.thread, c.res, err, c.err)
			}
		}
		if got, err := m.Observations(ctx, "mine", "r", nil); err != nil || got.Version != want.Version || got.Observations != want.Observations {
			t.Fatalf("a refused clear changed the record: %+v, %v", got, err)
		}
	})
}

// A clear by another process while an observer call is in flight: the
// observer's write loses its compare-and-set against the cleared record, so
// the cleared observations never come back; the cycle starts over from the
// cleared record and observes every message once more.
func TestClearObservationsDuringObservation(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		plain := &observerModel{}
		a := newMem(t, s, observationConfig(plain, &reflectorModel{}, 100000, 100000))
		for i := range 2 {
			observedTurn(t, a, "race", "r", i)
		}
		if _, err := a.ObserveNow(ctx, "race", "r", nil); err != nil {
			t.Fatal(err)
		}
		observedTurn(t, a, "race", "r", 2)

		entered, release := make(chan struct{}), make(chan struct{})
		slow := &observerModel{hook: func(_ context.Context, call int64) error {
			if call == 1 {
				close(entered)
				<-release
			}
			return nil
		}}
		b := newMem(t, s, observationConfig(slow, &reflectorModel{}, 100000, 100000))
		done := make(chan error, 1)
		var rec store.ObservationRecord
		go func() {
			var err error
			rec, err = b.ObserveNow(ctx, "race", "r", nil)
			done <- err
		}()
		<-entered
		if _, err := a.ClearObservations(ctx, "race", "r", nil); err != nil {
			t.Fatal(err)
		}
		close(release)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if strings.Count(rec.Observations, "saw m0u") != 1 || strings.Count(rec.Observations, "saw m2a") != 1 {
			t.Fatalf("record after the race: %q", rec.Observations)
		}
		for _, tag := range []string{"m0u", "m0a", "m1u", "m1a", "m2u", "m2a"} {
			if slow.observed()[tag] < 1 || !strings.Contains(rec.Observations, "saw "+tag) {
				t.Fatalf("%s not observed after the clear; record %q", tag, rec.Observations)
			}
		}
		if got := slow.observed()["m0u"]; got != 1 {
			t.Fatalf("m0u sent to the observer %d times after the clear, want 1 (the lost batch held only m2)", got)
		}
	})
}

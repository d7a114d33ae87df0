package storetest

import (
	"testing"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
)

// testObservationsClear: ClearObservations empties the record and its
// archived generations in one write, bumps the version (a compare-and-set
// against the cleared record fails), leaves other keys alone, and refuses a
// missing thread or a bad key without writing.
func testObservationsClear(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	mustThread(t, s, "B", "r")
	key := "thread:A"
	g0 := putObs(t, s, store.ObservationRecord{Key: key, Observations: "a", ObservationTokens: 1, LastObservedAt: T(2), ObservedMessageIDs: []string{"m2"}}, 0)
	g1 := putObs(t, s, store.ObservationRecord{Key: key, Observations: "b", ObservationTokens: 1, Generation: 1, LastObservedAt: T(3), ObservedMessageIDs: []string{"m3"}}, g0.Version)
	other := putObs(t, s, store.ObservationRecord{Key: "thread:B", Observations: "keep", ObservationTokens: 1, LastObservedAt: T(1)}, 0)
	res := putObs(t, s, store.ObservationRecord{Key: "resource:r", Observations: "keep too", ObservationTokens: 2, LastObservedAt: T(1),
		UnobservedMessageIDs: []string{"moved"}}, 0)

	cleared, err := s.ClearObservations(ctx(), key)
	if err != nil {
		t.Fatal(err)
	}
	want := store.ObservationRecord{Key: key, Version: g1.Version + 1}
	sameObs(t, "clear result", cleared, want)
	if cleared.UpdatedAt.IsZero() {
		t.Fatal("UpdatedAt not set")
	}
	sameObs(t, "stored after clear", getObs(t, s, key), want)
	if gens, err := s.ListObservationGenerations(ctx(), key); err != nil || len(gens) != 0 {
		t.Fatalf("generations after clear = %+v, %v", gens, err)
	}
	sameObs(t, "other thread", getObs(t, s, "thread:B"), other)
	sameObs(t, "resource record", getObs(t, s, "resource:r"), res)

	// A writer that read the cleared record loses its compare-and-set.
	_, err = s.PutObservations(ctx(), store.ObservationRecord{Key: key, Observations: "stale", Generation: 1, LastObservedAt: T(4)}, g1.Version)
	wantCode(t, err, memerr.ErrConflict)
	// Observing starts over: the cursor may start anywhere, at generation 0,
	// and a later reflection archives the new generation only.
	n0 := putObs(t, s, store.ObservationRecord{Key: key, Observations: "again", ObservationTokens: 1, LastObservedAt: T(1)}, cleared.Version)
	n1 := putObs(t, s, store.ObservationRecord{Key: key, Observations: "again, reflected", ObservationTokens: 2, Generation: 1, LastObservedAt: T(1)}, n0.Version)
	gens, err := s.ListObservationGenerations(ctx(), key)
	if err != nil || len(gens) != 1 {
		t.Fatalf("generations after clear and reflection = %+v, %v", gens, err)
	}
	sameObs(t, "new generation 0", gens[0], n0)
	sameObs(t, "active", getObs(t, s, key), n1)

	// Resource records clear the same way; clearing twice bumps again.
	for i := 1; i <= 2; i++ {
		r, err := s.ClearObservations(ctx(), "resource:r")
		if err != nil || r.Version != res.Version+int64(i) || r.Observations != "" || !r.LastObservedAt.IsZero() {
			t.Fatalf("clear %d of resource:r = %+v, %v", i, r, err)
		}
		if stored := getObs(t, s, "resource:r"); stored.UnobservedMessageIDs != nil {
			t.Fatalf("clear %d of resource:r left unobserved ids %v", i, stored.UnobservedMessageIDs)
		}
	}
	// A never-written record is returned as is.
	if r, err := s.ClearObservations(ctx(), "resource:nobody"); err != nil || r.Version != 0 || r.Key != "resource:nobody" {
		t.Fatalf("clear of a never-written record = %+v, %v", r, err)
	}
	sameObs(t, "never-written stays", getObs(t, s, "resource:nobody"), store.ObservationRecord{Key: "resource:nobody"})

	// Bad input changes nothing.
	_, err = s.ClearObservations(ctx(), "thread:missing")
	wantCode(t, err, memerr.ErrThreadNotFound)
	for _, bad := range []string{"", "thread:", "user:r", "A"} {
		if _, err := s.ClearObservations(ctx(), bad); err == nil {
			t.Fatalf("ClearObservations(%q) accepted", bad)
		}
	}
	sameObs(t, "other thread after refusals", getObs(t, s, "thread:B"), other)
}

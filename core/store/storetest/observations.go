package storetest

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
)

func getObs(t *testing.T, s *store.Checked, key string) store.ObservationRecord {
	t.Helper()
	r, err := s.GetObservations(ctx(), key)
	if err != nil {
		t.Fatalf("GetObservations(%s): %v", key, err)
	}
	return r
}

func putObs(t *testing.T, s *store.Checked, rec store.ObservationRecord, expect int64) store.ObservationRecord {
	t.Helper()
	out, err := s.PutObservations(ctx(), rec, expect)
	if err != nil {
		t.Fatalf("PutObservations(%s, %d): %v", rec.Key, expect, err)
	}
	return out
}

func sameObs(t *testing.T, what string, got, want store.ObservationRecord) {
	t.Helper()
	if got.Key != want.Key || got.Observations != want.Observations || got.ObservationTokens != want.ObservationTokens ||
		got.Generation != want.Generation || !got.LastObservedAt.Equal(want.LastObservedAt) ||
		fmt.Sprint(got.ObservedMessageIDs) != fmt.Sprint(want.ObservedMessageIDs) ||
		fmt.Sprint(got.UnobservedMessageIDs) != fmt.Sprint(want.UnobservedMessageIDs) || got.Version != want.Version {
		t.Fatalf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

func testObservationsRoundTrip(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	key := store.ObservationKey(store.ScopeThread, "A", "r")
	zero := getObs(t, s, key)
	sameObs(t, "never written", zero, store.ObservationRecord{Key: key})
	rec := store.ObservationRecord{Key: key, Observations: "- [2026-10-30] (high) user is allergic to peanuts\n- ünïcödé ✓ '); DROP TABLE x; --",
		ObservationTokens: 17, LastObservedAt: T(5), ObservedMessageIDs: []string{"m4", "m5"}, UnobservedMessageIDs: []string{"moved-1", "moved-2"}}
	got := putObs(t, s, rec, 0)
	want := rec
	want.Version = 1
	sameObs(t, "put result", got, want)
	if got.UpdatedAt.IsZero() {
		t.Fatal("UpdatedAt not set")
	}
	sameObs(t, "stored", getObs(t, s, key), want)
	rec.Observations += "\n- [2026-10-30] (low) more"
	rec.LastObservedAt, rec.ObservedMessageIDs, rec.UnobservedMessageIDs = T(6), nil, []string{"moved-2"}
	want = rec
	want.Version = 2
	sameObs(t, "second put", putObs(t, s, rec, 1), want)
	sameObs(t, "stored again", getObs(t, s, key), want)

	// Thread keys need the thread; resource keys need nothing.
	_, err := s.PutObservations(ctx(), store.ObservationRecord{Key: "thread:missing"}, 0)
	wantCode(t, err, memerr.ErrThreadNotFound)
	res := putObs(t, s, store.ObservationRecord{Key: "resource:nobody", Observations: "x", ObservationTokens: 1}, 0)
	if res.Version != 1 || getObs(t, s, "resource:nobody").Observations != "x" {
		t.Fatalf("resource record: %+v", res)
	}
	if other := getObs(t, s, store.ObservationKey(store.ScopeResource, "A", "r")); other.Version != 0 {
		t.Fatalf("resource:r shares the thread's record: %+v", other)
	}
	for _, bad := range []string{"", "thread:", "resource:", "user:r", "A"} {
		if _, err := s.GetObservations(ctx(), bad); err == nil {
			t.Fatalf("GetObservations(%q) accepted", bad)
		}
		if _, err := s.PutObservations(ctx(), store.ObservationRecord{Key: bad}, 0); err == nil {
			t.Fatalf("PutObservations(%q) accepted", bad)
		}
	}
}

func testObservationsConflict(t *testing.T, s *store.Checked) {
	key := "resource:r"
	first := putObs(t, s, store.ObservationRecord{Key: key, Observations: "one", ObservationTokens: 1, LastObservedAt: T(1)}, 0)
	for _, expect := range []int64{0, 2, 7} {
		_, err := s.PutObservations(ctx(), store.ObservationRecord{Key: key, Observations: "stale", LastObservedAt: T(2)}, expect)
		wantCode(t, err, memerr.ErrConflict)
	}
	sameObs(t, "after conflicts", getObs(t, s, key), first)
	// The cursor never moves backwards, not even with the right version.
	_, err := s.PutObservations(ctx(), store.ObservationRecord{Key: key, Observations: "back", LastObservedAt: T(0)}, 1)
	wantCode(t, err, memerr.ErrInvalidArgument)
	_, err = s.PutObservations(ctx(), store.ObservationRecord{Key: key, Observations: "neg", ObservationTokens: -1, LastObservedAt: T(1)}, 1)
	wantCode(t, err, memerr.ErrInvalidArgument)
	sameObs(t, "after refusals", getObs(t, s, key), first)
}

func testObservationsGenerations(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	key := "thread:A"
	if gens, err := s.ListObservationGenerations(ctx(), key); err != nil || len(gens) != 0 {
		t.Fatalf("generations of a new key: %v %v", gens, err)
	}
	g0 := putObs(t, s, store.ObservationRecord{Key: key, Observations: "a\nb", ObservationTokens: 3, LastObservedAt: T(1), ObservedMessageIDs: []string{"m1"}}, 0)
	g0 = putObs(t, s, store.ObservationRecord{Key: key, Observations: "a\nb\nc", ObservationTokens: 5, LastObservedAt: T(2), ObservedMessageIDs: []string{"m2"}}, g0.Version)
	// Skipping a generation is refused.
	_, err := s.PutObservations(ctx(), store.ObservationRecord{Key: key, Generation: 2, LastObservedAt: T(2)}, g0.Version)
	wantCode(t, err, memerr.ErrInvalidArgument)
	g1 := putObs(t, s, store.ObservationRecord{Key: key, Observations: "abc", ObservationTokens: 1, Generation: 1, LastObservedAt: T(2), ObservedMessageIDs: []string{"m2"}}, g0.Version)
	g1 = putObs(t, s, store.ObservationRecord{Key: key, Observations: "abc\nd", ObservationTokens: 2, Generation: 1, LastObservedAt: T(3), ObservedMessageIDs: []string{"m3"}}, g1.Version)
	// A generation cannot go back either.
	_, err = s.PutObservations(ctx(), store.ObservationRecord{Key: key, Generation: 0, LastObservedAt: T(3)}, g1.Version)
	wantCode(t, err, memerr.ErrInvalidArgument)
	g2 := putObs(t, s, store.ObservationRecord{Key: key, Observations: "abcd", ObservationTokens: 1, Generation: 2, LastObservedAt: T(3), ObservedMessageIDs: []string{"m3"}}, g1.Version)
	sameObs(t, "active", getObs(t, s, key), g2)
	gens, err := s.ListObservationGenerations(ctx(), key)
	if err != nil || len(gens) != 2 {
		t.Fatalf("generations = %+v, %v", gens, err)
	}
	sameObs(t, "generation 0", gens[0], g0)
	sameObs(t, "generation 1", gens[1], g1)
	// Deleting the thread removes its record and generations.
	if err := s.DeleteThread(ctx(), "A"); err != nil {
		t.Fatal(err)
	}
	if r := getObs(t, s, key); r.Version != 0 || r.Observations != "" {
		t.Fatalf("record survived DeleteThread: %+v", r)
	}
	if gens, _ := s.ListObservationGenerations(ctx(), key); len(gens) != 0 {
		t.Fatalf("generations survived DeleteThread: %+v", gens)
	}
	// A first reflection of a never-written key archives nothing.
	putObs(t, s, store.ObservationRecord{Key: "resource:r", Observations: "x", Generation: 1}, 0)
	if gens, _ := s.ListObservationGenerations(ctx(), "resource:r"); len(gens) != 0 {
		t.Fatalf("archived a never-written generation: %+v", gens)
	}
	// A new record may start at any generation (a clone keeps its source's).
	if r := putObs(t, s, store.ObservationRecord{Key: "resource:r2", Observations: "y", Generation: 7}, 0); r.Generation != 7 {
		t.Fatalf("new record at generation 7 stored as %d", r.Generation)
	}
	if gens, _ := s.ListObservationGenerations(ctx(), "resource:r2"); len(gens) != 0 {
		t.Fatalf("archived a never-written generation: %+v", gens)
	}
}

func testResourceMessages(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	mustThread(t, s, "B", "r")
	mustThread(t, s, "C", "other")
	mustSave(t, s, msg("a1", "A", "r", "a1", T(1)), msg("b1", "B", "r", "b1", T(2)), msg("a2", "A", "r", "a2", T(3)),
		msg("c1", "C", "other", "c1", T(2)), msg("b2", "B", "r", "b2", T(3)), msg("b3", "B", "r", "b3", T(5)))
	lr := func(q store.ResourceMessageQuery) []string {
		t.Helper()
		out, err := s.ListResourceMessages(ctx(), q)
		if err != nil {
			t.Fatalf("ListResourceMessages(%+v): %v", q, err)
		}
		return ids(out)
	}
	eq(t, "all", lr(store.ResourceMessageQuery{ResourceID: "r", Limit: 100}), []string{"a1", "b1", "a2", "b2", "b3"})
	eq(t, "since (inclusive)", lr(store.ResourceMessageQuery{ResourceID: "r", Since: T(3), Limit: 100}), []string{"a2", "b2", "b3"})
	eq(t, "oldest 2", lr(store.ResourceMessageQuery{ResourceID: "r", Limit: 2}), []string{"a1", "b1"})
	eq(t, "newest 2", lr(store.ResourceMessageQuery{ResourceID: "r", Limit: 2, Direction: store.Desc}), []string{"b3", "b2"})
	eq(t, "other resource", lr(store.ResourceMessageQuery{ResourceID: "other", Limit: 100}), []string{"c1"})
	eq(t, "unknown resource", lr(store.ResourceMessageQuery{ResourceID: "nobody", Limit: 100}), []string{})
	eq(t, "until (exclusive)", lr(store.ResourceMessageQuery{ResourceID: "r", Since: T(2), Until: T(5), Limit: 100}), []string{"b1", "a2", "b2"})
	exclude := []string{"a1", "b2", "c1", "unknown"}
	eq(t, "excluded", lr(store.ResourceMessageQuery{ResourceID: "r", Limit: 100, ExcludeIDs: exclude}), []string{"b1", "a2", "b3"})
	eq(t, "excluded before the limit", lr(store.ResourceMessageQuery{ResourceID: "r", Limit: 2, ExcludeIDs: exclude}), []string{"b1", "a2"})
	eq(t, "excluded, newest 2", lr(store.ResourceMessageQuery{ResourceID: "r", Limit: 2, Direction: store.Desc, ExcludeIDs: exclude}), []string{"b3", "a2"})
	out, _ := s.ListResourceMessages(ctx(), store.ResourceMessageQuery{ResourceID: "r", Limit: 1})
	if len(out) != 1 || out[0].Text() != "a1" || out[0].ThreadID != "A" || out[0].ResourceID != "r" || !out[0].CreatedAt.Equal(T(1)) {
		t.Fatalf("message fields: %+v", out)
	}
	for _, q := range []store.ResourceMessageQuery{{ResourceID: "r"}, {ResourceID: "", Limit: 1}, {ResourceID: "r", Limit: 1, Direction: "sideways"},
		{ResourceID: "r", Limit: 1, ExcludeIDs: []string{""}}, {ResourceID: "r", Limit: 1, ExcludeIDs: []string{"a\x00"}}} {
		if _, err := s.ListResourceMessages(ctx(), q); err == nil {
			t.Fatalf("ListResourceMessages(%+v) accepted", q)
		}
	}
}

// testSharedObservationsRace: in every round two handles write the same
// version at once; exactly one wins, the other gets ErrConflict. Every third
// round is a reflection, whose archived generation must exist exactly once.
func testSharedObservationsRace(t *testing.T, a, b *store.Checked) {
	mustThread(t, a, "A", "r")
	key := "thread:A"
	const rounds = 24
	var log []string // winning texts, in order
	for round := 0; round < rounds; round++ {
		cur := getObs(t, b, key)
		reflection := round%3 == 2
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins, conflicts := 0, 0
		start := make(chan struct{})
		for w, s := range []*store.Checked{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				next := cur.Clone()
				line := fmt.Sprintf("r%d-w%d", round, w)
				next.Observations = strings.TrimPrefix(next.Observations+"\n"+line, "\n")
				if reflection {
					next.Observations, next.Generation = line, cur.Generation+1
				}
				next.LastObservedAt = T(round)
				<-start
				_, err := s.PutObservations(ctx(), next, cur.Version)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					wins++
					log = append(log, line)
				case errors.Is(err, memerr.ErrConflict):
					conflicts++
				default:
					t.Errorf("round %d writer %d: %v", round, w, err)
				}
			}()
		}
		close(start)
		wg.Wait()
		if wins != 1 || conflicts != 1 {
			t.Fatalf("round %d: %d wins, %d conflicts; want exactly one of each", round, wins, conflicts)
		}
	}
	final := getObs(t, a, key)
	if final.Version != rounds || final.Generation != rounds/3 {
		t.Fatalf("final version %d generation %d, want %d and %d", final.Version, final.Generation, rounds, rounds/3)
	}
	gens, err := a.ListObservationGenerations(ctx(), key)
	if err != nil || len(gens) != rounds/3 {
		t.Fatalf("generations %d (%v), want %d", len(gens), err, rounds/3)
	}
	for i, g := range gens {
		if g.Generation != i {
			t.Fatalf("generation %d archived as %d", i, g.Generation)
		}
	}
	// The last round was a reflection: the active text is its winner alone,
	// and the archived generation before it holds the two appends after the
	// previous reflection.
	if final.Observations != log[rounds-1] {
		t.Fatalf("active observations %q, want %q", final.Observations, log[rounds-1])
	}
	if prev := gens[len(gens)-1]; prev.Observations != strings.Join(log[rounds-4:rounds-1], "\n") {
		t.Fatalf("last archived generation %q, want %q", prev.Observations, strings.Join(log[rounds-4:rounds-1], "\n"))
	}
}

package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
)

// TestExportThreadlessResources: exporting everything includes resources
// that have working memory or metadata but no thread, and importing the
// export elsewhere gives the same bytes back.
func TestExportThreadlessResources(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		seed(t, b.store)
		if _, err := b.store.PutWorkingMemory(ctx, core.ScopeResource, "solo", "# Solo\n- likes tea", 0); err != nil {
			t.Fatal(err)
		}
		if _, err := b.store.UpdateResource(ctx, "meta-only", map[string]any{"plan": "pro"}); err != nil {
			t.Fatal(err)
		}
		observed := store.ObservationRecord{Key: store.ObservationKey(core.ScopeResource, "", "observed-only"), Observations: "- prefers email"}
		if _, err := b.store.PutObservations(ctx, observed, 0); err != nil {
			t.Fatal(err)
		}
		all := b.agentmem(t, "", "export").ok(t).stdout
		for _, want := range []string{`"id":"solo"`, `likes tea`, `"id":"meta-only"`, `"plan":"pro"`, `"id":"observed-only"`, `prefers email`} {
			if !strings.Contains(all, want) {
				t.Fatalf("export lacks %s:\n%s", want, all)
			}
		}
		dst := sqliteBackend(t)
		dst.agentmem(t, all, "--write", "import", "-").ok(t)
		if again := dst.agentmem(t, "", "export").ok(t).stdout; again != all {
			t.Fatalf("round trip differs:\n%s\n---\n%s", all, again)
		}
		wm, err := dst.store.GetWorkingMemory(ctx, core.ScopeResource, "solo")
		if err != nil || wm.Data != "# Solo\n- likes tea" {
			t.Fatalf("imported working memory = %+v %v", wm, err)
		}
		obs, err := dst.store.GetObservations(ctx, observed.Key)
		if err != nil || obs.Observations != observed.Observations {
			t.Fatalf("imported observations = %+v %v", obs, err)
		}
	})
}

// TestExportKeepsBufferedObservations: the buffered chunks and reflection
// of an observation record travel with it through export and import, so
// their observer work is not lost (and not redone) on the other side.
func TestExportKeepsBufferedObservations(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		seed(t, b.store)
		key := store.ObservationKey(core.ScopeThread, "trip", "ada")
		cur, err := b.store.GetObservations(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		at := cur.LastObservedAt.Add(time.Minute)
		cur.Buffer = store.ObservationBuffer{
			Chunks: []store.BufferedChunk{{Observations: "* Ada asked for a late checkout", Tokens: 7, MessageTokens: 30, Generation: cur.Generation,
				Messages: []store.ObservedMessage{{ID: "trip-3", CreatedAt: at}}, CreatedAt: at}},
			Reflection: &store.BufferedReflection{Observations: "* Ada: Lisbon, Casa Azul", Tokens: 6, Generation: cur.Generation,
				InputLength: len(cur.Observations), InputHash: "0011223344556677", CreatedAt: at},
		}
		if _, err := b.store.PutObservations(ctx, cur, cur.Version); err != nil {
			t.Fatal(err)
		}
		all := b.agentmem(t, "", "export").ok(t).stdout
		if !strings.Contains(all, "late checkout") || !strings.Contains(all, "Casa Azul\"") {
			t.Fatalf("export lacks the buffer:\n%s", all)
		}
		dst := sqliteBackend(t)
		dst.agentmem(t, all, "--write", "import", "-").ok(t)
		got, err := dst.store.GetObservations(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(cur.Buffer)
		if have, _ := json.Marshal(got.Buffer); string(have) != string(want) {
			t.Fatalf("imported buffer\n%s\nwant\n%s", have, want)
		}
		if again := dst.agentmem(t, "", "export").ok(t).stdout; again != all {
			t.Fatalf("round trip differs:\n%s\n---\n%s", all, again)
		}
	})
}

// TestExportKeepsUnobservedMessageIDs: the messages a resource record has
// not observed though its cursor is past them (a thread moved in) stay
// unobserved through export and import, so the other side observes them.
func TestExportKeepsUnobservedMessageIDs(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		seed(t, b.store)
		key := store.ObservationKey(core.ScopeResource, "", "ada")
		rec := store.ObservationRecord{Key: key, Observations: "- Ada flies often", ObservationTokens: 5, LastObservedAt: at(7200),
			UnobservedMessageIDs: []string{"trip-1", "trip-3"}}
		if _, err := b.store.PutObservations(ctx, rec, 0); err != nil {
			t.Fatal(err)
		}
		all := b.agentmem(t, "", "export").ok(t).stdout
		dst := sqliteBackend(t)
		dst.agentmem(t, all, "--write", "import", "-").ok(t)
		got, err := dst.store.GetObservations(ctx, key)
		if err != nil || strings.Join(got.UnobservedMessageIDs, ",") != "trip-1,trip-3" {
			t.Fatalf("imported record = %+v, %v", got, err)
		}
	})
}

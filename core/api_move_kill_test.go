package core_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/sqlite"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/analysis"
	"github.com/agentmem/agentmem/core/vector/local"
)

// Environment of the mover process that is killed mid-move.
const (
	moveEnvDB   = "AGENTMEM_MOVE_TEST_DB"
	moveEnvVec  = "AGENTMEM_MOVE_TEST_VECTORS"
	moveEnvStep = "AGENTMEM_MOVE_TEST_STEP"
)

func openMoveSQLite(t *testing.T, path string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestMoveThreadMoverProcess is the process the kill test starts: it moves
// thread A to "user" and stops for good at the step named in the
// environment, where the parent kills it. Run directly, it does nothing.
func TestMoveThreadMoverProcess(t *testing.T) {
	step := os.Getenv(moveEnvStep)
	if step == "" {
		return
	}
	s := openMoveSQLite(t, os.Getenv(moveEnvDB))
	m, _ := fileRecallMem(t, s, os.Getenv(moveEnvVec), analysis.English)
	hook := core.WithMoveStep(ctx, func(at string) {
		if at == step {
			fmt.Println("AT " + at)
			select {} // the parent kills the process here
		}
	})
	_, err := m.MoveThread(hook, "A", "user")
	fmt.Fprintf(os.Stderr, "MoveThread returned before step %s: %v\n", step, err)
	os.Exit(3)
}

// vectorRecords returns the ids of the vector records of a thread under a
// resource, each with how often a query returns it.
func vectorRecords(t *testing.T, vs *local.Store, resource, thread string) map[string]int {
	t.Helper()
	qv, err := local.NewHashEmbedder(64).Embed(ctx, []string{"where is my parcel"})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := vs.Query(ctx, vector.IndexName(64), vector.Query{Vector: qv[0], TopK: 10000,
		Filter: vector.Filter{ResourceID: resource, ThreadID: thread}})
	if err != nil {
		t.Fatalf("query %s/%s: %v", resource, thread, err)
	}
	out := map[string]int{}
	for _, h := range hits {
		if h.Meta.ResourceID != resource || h.Meta.ThreadID != thread {
			t.Fatalf("hit %s of %s/%s under %s/%s", h.ID, h.Meta.ResourceID, h.Meta.ThreadID, resource, thread)
		}
		out[h.ID]++
	}
	return out
}

func recordIDs(recs map[string]int) string {
	var out []string
	for id, n := range recs {
		out = append(out, fmt.Sprintf("%s×%d", id, n))
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// Mastra's updateThreadResourceId, made crash-safe: a process killed after
// any durable step of MoveThread leaves a state from which running the move
// again ends with every message and every vector of the thread under the
// new resource exactly once and none under the old (SQLite store, local
// vector file, a real subprocess killed at the step).
func TestMoveThreadResumesAfterKill(t *testing.T) {
	for _, step := range []string{"recorded", "marked", "old-vectors-deleted", "unobserved-recorded", "moved"} {
		for _, resume := range []string{"again", "next-write"} {
			t.Run(step+"/"+resume, func(t *testing.T) { testMoveKilledAt(t, step, resume) })
		}
	}
}

func testMoveKilledAt(t *testing.T, step, resume string) {
	dir := t.TempDir()
	dbPath, vecPath := filepath.Join(dir, "memory.db"), filepath.Join(dir, "vectors.bin")

	// A guest's thread A (with 12 messages) and thread B, indexed.
	s := openMoveSQLite(t, dbPath)
	m, vs := fileRecallMem(t, s, vecPath, analysis.English)
	var want []string
	for _, th := range []string{"A", "B"} {
		// "move" is the application's own key; the move's record never touches it.
		if _, err := m.CreateThread(ctx, core.ThreadInput{ID: th, ResourceID: "guest", Metadata: map[string]any{"move": "keep me"}}); err != nil {
			t.Fatal(err)
		}
	}
	var msgs []core.Message
	for i := range 12 {
		id := fmt.Sprintf("a%02d", i)
		want = append(want, id)
		msgs = append(msgs, userAt(id, "A", "guest", fmt.Sprintf("message %d about parcel number %d", i, i*7), T(i)))
	}
	msgs = append(msgs, userAt("b0", "B", "guest", "thread B stays with the guest", T(20)))
	if _, err := m.SaveMessages(ctx, msgs, nil); err != nil {
		t.Fatal(err)
	}
	before := vectorRecords(t, vs, "guest", "A")
	if len(before) < len(want) {
		t.Fatalf("indexed records of A: %s", recordIDs(before))
	}
	beforeB := recordIDs(vectorRecords(t, vs, "guest", "B"))
	// The new owner's resource observations are an hour past A's messages.
	if _, err := s.PutObservations(ctx, store.ObservationRecord{Key: "resource:user", Observations: "- user fact", LastObservedAt: T(3600)}, 0); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(ctx); err != nil { // background indexing retries
		t.Fatal(err)
	}
	vs.Close()
	s.Close()

	// The moving process is killed after step.
	killAt(t, "TestMoveThreadMoverProcess", step, moveEnvDB+"="+dbPath, moveEnvVec+"="+vecPath, moveEnvStep+"="+step)

	// Resume in this process.
	owner := "user"
	s = openMoveSQLite(t, dbPath)
	m, vs = fileRecallMem(t, s, vecPath, analysis.English)
	if step == "moved" {
		if got := vectorRecords(t, vs, "guest", "A"); len(got) != 0 {
			t.Fatalf("vectors of A left under the old resource after the store move: %s", recordIDs(got))
		}
	}
	switch resume {
	case "again":
		th, err := m.MoveThread(ctx, "A", "user")
		if err != nil || th.ResourceID != "user" || th.Metadata["agentmem.move"] != nil {
			t.Fatalf("resumed MoveThread = %+v, %v", th, err)
		}
		if stored, _ := m.GetThread(ctx, "A", "user"); stored.Metadata["agentmem.move"] != nil || stored.Metadata["move"] != "keep me" {
			t.Fatalf("the move record is left or the application's key changed: %v", stored.Metadata)
		}
	case "next-write":
		// The move is not run again: the next successful write of the
		// thread's owner (the new resource once the store moved it, else
		// still the guest) indexes what the killed process marked, so no
		// vector is lost.
		if step != "moved" {
			owner = "guest"
		}
		if _, err := m.CreateThread(ctx, core.ThreadInput{ID: "C", ResourceID: owner}); err != nil {
			t.Fatal(err)
		}
		if _, err := m.SaveMessages(ctx, []core.Message{userAt("c0", "C", owner, "signed in now", T(30))}, nil); err != nil {
			t.Fatal(err)
		}
		if err := m.Close(ctx); err != nil { // the retry runs in the background
			t.Fatal(err)
		}
	}
	other := map[string]string{"user": "guest", "guest": "user"}[owner]
	if th, err := s.GetThread(ctx, "A"); err != nil || th.Metadata["move"] != "keep me" {
		t.Fatalf("the application's metadata of A = %v, %v", th.Metadata, err)
	}

	// Every message of A under its owner exactly once, none under the other.
	for res, wantIDs := range map[string][]string{owner: want, other: {}} {
		page, err := s.ListMessages(ctx, store.MessageQuery{ThreadID: "A", ResourceID: res, PerPage: store.PerPageAll})
		if err != nil {
			t.Fatal(err)
		}
		same(t, "messages of A under "+res, ids(page.Messages), wantIDs)
	}
	all, err := s.ListResourceMessages(ctx, store.ResourceMessageQuery{ResourceID: owner, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, msg := range all {
		seen[msg.ID]++
	}
	for _, id := range want {
		if seen[id] != 1 {
			t.Fatalf("message %s appears %d times under %s", id, seen[id], owner)
		}
	}
	// Every vector record of A under its owner exactly once, none under the
	// other; thread B's records are untouched.
	after := vectorRecords(t, vs, owner, "A")
	for id := range before {
		before[id] = 1
	}
	// The new owner's observation record has not observed A's messages.
	rec, err := s.GetObservations(ctx, "resource:user")
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range all {
		if owner == "user" && msg.ThreadID == "A" && rec.Observed(msg.CreatedAt, msg.ID) {
			t.Fatalf("message %s of A counts as observed by %s's record %+v", msg.ID, owner, rec)
		}
	}
	if recordIDs(after) != recordIDs(before) {
		t.Fatalf("records under %s:\n got %s\nwant %s", owner, recordIDs(after), recordIDs(before))
	}
	if got := vectorRecords(t, vs, other, "A"); len(got) != 0 {
		t.Fatalf("records of A under %s: %s", other, recordIDs(got))
	}
	if got := recordIDs(vectorRecords(t, vs, "guest", "B")); got != beforeB {
		t.Fatalf("records of B: %s, want %s", got, beforeB)
	}
	if n, err := m.Unindexed(ctx, ""); err != nil || n != 0 {
		t.Fatalf("unindexed after the resumed move = %d, %v", n, err)
	}
	// Semantic recall of the owner finds the thread.
	res, err := m.Recall(ctx, core.RecallQuery{ThreadID: "A", ResourceID: owner, VectorSearch: "parcel number 21",
		Config: &core.Config{LastMessages: core.NoHistory}})
	if err != nil || len(res.Messages) == 0 {
		t.Fatalf("recall under %s = %v, %v", owner, ids(res.Messages), err)
	}
}

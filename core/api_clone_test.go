package core_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// CloneThread copies the messages with new ids, the title and the working
// memory, and its options (limit, ids) select what is copied.
func TestCloneThread(t *testing.T) {
	s := memstore.New()
	m := newMem(t, s, core.Config{})
	if _, err := m.CreateThread(ctx, core.ThreadInput{ID: "src", ResourceID: "r", Title: "Original Thread", Metadata: map[string]any{"k": "v"}}); err != nil {
		t.Fatal(err)
	}
	var msgs []core.Message
	for i := 1; i <= 5; i++ {
		msgs = append(msgs, userAt(fmt.Sprint("msg-", i), "src", "r", fmt.Sprint("Message ", i), T(i)))
	}
	if _, err := m.SaveMessages(ctx, msgs, nil); err != nil {
		t.Fatal(err)
	}
	if err := m.UpdateWorkingMemory(ctx, "src", "r", "thread notes", &core.Config{WorkingMemory: &core.WorkingMemoryConfig{Enabled: true, Scope: core.ScopeThread}}); err != nil {
		t.Fatal(err)
	}
	th, copies, err := m.CloneThread(ctx, core.CloneOptions{SourceThreadID: "src"})
	if err != nil {
		t.Fatal(err)
	}
	clone, _ := th.Metadata["clone"].(map[string]any)
	if th.Title != "Clone of Original Thread" || th.ResourceID != "r" || clone["sourceThreadId"] != "src" || clone["lastMessageId"] != "msg-5" || th.Metadata["k"] != "v" {
		t.Fatalf("clone thread = %+v", th)
	}
	if len(copies) != 5 {
		t.Fatalf("copied %d", len(copies))
	}
	for i, c := range copies {
		if c.ID == msgs[i].ID || c.ThreadID != th.ID || c.Text() != msgs[i].Text() || !c.CreatedAt.Equal(msgs[i].CreatedAt) {
			t.Fatalf("copy %d = %+v", i, c)
		}
	}
	wm, err := m.GetWorkingMemory(ctx, th.ID, "r", &core.Config{WorkingMemory: &core.WorkingMemoryConfig{Enabled: true, Scope: core.ScopeThread}})
	if err != nil || wm != "thread notes" {
		t.Fatalf("working memory not cloned: %q %v", wm, err)
	}
	_, copies, _ = m.CloneThread(ctx, core.CloneOptions{SourceThreadID: "src", MessageLimit: 2})
	if len(copies) != 2 || copies[0].Text() != "Message 4" || copies[1].Text() != "Message 5" {
		t.Fatalf("limit = %v", copies)
	}
	_, copies, _ = m.CloneThread(ctx, core.CloneOptions{SourceThreadID: "src", MessageIDs: []string{"msg-1", "msg-3"}})
	if len(copies) != 2 || copies[0].Text() != "Message 1" || copies[1].Text() != "Message 3" {
		t.Fatalf("ids = %v", copies)
	}
	start, end := T(2), T(3)
	_, copies, _ = m.CloneThread(ctx, core.CloneOptions{SourceThreadID: "src", Range: store.DateRange{Start: &start, End: &end}})
	if len(copies) != 2 {
		t.Fatalf("range = %v", copies)
	}
	if err := m.UpdateWorkingMemory(ctx, "src", "r", "resource notes", &core.Config{WorkingMemory: &core.WorkingMemoryConfig{Enabled: true}}); err != nil {
		t.Fatal(err)
	}
	title := "Custom"
	th, _, err = m.CloneThread(ctx, core.CloneOptions{SourceThreadID: "src", NewThreadID: "fixed", ResourceID: "r2", Title: &title})
	if err != nil || th.ID != "fixed" || th.ResourceID != "r2" || th.Title != "Custom" {
		t.Fatalf("custom = %+v %v", th, err)
	}
	if wm, _ := m.GetWorkingMemory(ctx, "fixed", "r2", &core.Config{WorkingMemory: &core.WorkingMemoryConfig{Enabled: true}}); wm != "resource notes" {
		t.Fatalf("resource working memory not copied to the new resource: %q", wm)
	}
	_, _, err = m.CloneThread(ctx, core.CloneOptions{SourceThreadID: "src", NewThreadID: "fixed"})
	if !errors.Is(err, core.ErrThreadExists) || err.Error() != "CloneThread: Thread with id fixed already exists" {
		t.Fatalf("existing target: %v", err)
	}
	_, _, err = m.CloneThread(ctx, core.CloneOptions{SourceThreadID: "non-existent-thread"})
	if !errors.Is(err, core.ErrThreadNotFound) {
		t.Fatalf("missing source: %v", err)
	}
}

// The thread's observations follow the clone with remapped ids;
// the source record is untouched.
func TestCloneThreadObservations(t *testing.T) {
	s := memstore.New()
	m := newMem(t, s, core.Config{})
	if _, err := m.CreateThread(ctx, core.ThreadInput{ID: "src", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	saved, err := m.SaveMessages(ctx, []core.Message{userAt("m1", "src", "r", "one", T(1)), userAt("m2", "src", "r", "two", T(2))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := store.ObservationRecord{Key: "thread:src", Observations: "- [2026-10-30] (high) user said one and two",
		ObservationTokens: 12, LastObservedAt: saved[1].CreatedAt, ObservedMessageIDs: []string{"m1", "m2"}}
	if _, err := s.PutObservations(ctx, rec, 0); err != nil {
		t.Fatal(err)
	}
	th, copies, err := m.CloneThread(ctx, core.CloneOptions{SourceThreadID: "src"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.GetObservations(ctx, "thread:"+th.ID)
	if err != nil || got.Observations != rec.Observations || got.ObservationTokens != 12 || !got.LastObservedAt.Equal(rec.LastObservedAt) {
		t.Fatalf("cloned record = %+v, %v", got, err)
	}
	same(t, "remapped ids", got.ObservedMessageIDs, []string{copies[0].ID, copies[1].ID})
	orig, _ := s.GetObservations(ctx, "thread:src")
	same(t, "source ids", orig.ObservedMessageIDs, []string{"m1", "m2"})
}

// seedObserved creates thread src of resource r with messages m1, m2 and an
// observation record under key, observed up to m2.
func seedObserved(t *testing.T, s *memstore.Store, m *core.Memory, key string) (store.ObservationRecord, []core.Message) {
	t.Helper()
	if _, err := m.CreateThread(ctx, core.ThreadInput{ID: "src", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	saved, err := m.SaveMessages(ctx, []core.Message{userAt("m1", "src", "r", "one", T(1)), userAt("m2", "src", "r", "two", T(2))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := s.PutObservations(ctx, store.ObservationRecord{Key: key, Observations: "- [2026-10-30] (high) user said one",
		ObservationTokens: 9, LastObservedAt: saved[1].CreatedAt, ObservedMessageIDs: []string{"m1", "m2"}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return rec, saved
}

// Mastra (clone-thread-om.test.ts): "should clone only the current OM
// generation (not old history)": the clone keeps the generation number of the
// active record; archived generations stay with the source.
func TestCloneThreadShouldCloneOnlyTheCurrentOMGeneration(t *testing.T) {
	s := memstore.New()
	m := newMem(t, s, core.Config{})
	rec, _ := seedObserved(t, s, m, "thread:src")
	next := rec.Clone()
	next.Observations, next.Generation = "- [2026-10-30] (high) reflected", 1
	if _, err := s.PutObservations(ctx, next, rec.Version); err != nil {
		t.Fatal(err)
	}
	th, _, err := m.CloneThread(ctx, core.CloneOptions{SourceThreadID: "src"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.GetObservations(ctx, "thread:"+th.ID)
	if err != nil || got.Generation != 1 || got.Observations != next.Observations {
		t.Fatalf("cloned record = %+v, %v; want generation 1", got, err)
	}
	if old, err := s.ListObservationGenerations(ctx, "thread:"+th.ID); err != nil || len(old) != 0 {
		t.Fatalf("clone has archived generations %v, %v", old, err)
	}
}

// Mastra (clone-thread-om.test.ts): "should clone resource-scoped OM with
// remapped thread tags when resourceId changes" and "should NOT duplicate
// resource-scoped OM when resourceId is unchanged".
func TestCloneThreadShouldCloneResourceScopedOMWhenResourceIdChanges(t *testing.T) {
	s := memstore.New()
	m := newMem(t, s, core.Config{})
	rec, _ := seedObserved(t, s, m, "resource:r")
	noThreadRecord := func(th core.Thread) {
		t.Helper()
		if got, _ := s.GetObservations(ctx, "thread:"+th.ID); got.Version != 0 {
			t.Fatalf("thread record created for a resource-scoped source: %+v", got)
		}
	}
	th, _, err := m.CloneThread(ctx, core.CloneOptions{SourceThreadID: "src"})
	if err != nil {
		t.Fatal(err)
	}
	noThreadRecord(th)
	_, copies, err := m.CloneThread(ctx, core.CloneOptions{SourceThreadID: "src", ResourceID: "r2"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.GetObservations(ctx, "resource:r2")
	if err != nil || got.Version == 0 || got.Observations != rec.Observations || got.ObservationTokens != rec.ObservationTokens {
		t.Fatalf("resource record of r2 = %+v, %v", got, err)
	}
	same(t, "remapped ids", got.ObservedMessageIDs, []string{copies[0].ID, copies[1].ID})
	orig, _ := s.GetObservations(ctx, "resource:r")
	if fmt.Sprint(orig.ObservedMessageIDs) != "[m1 m2]" {
		t.Fatalf("source record changed: %+v", orig)
	}
}

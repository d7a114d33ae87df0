package core_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// Scenarios 70 and 71.
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
	_, copies, _ = m.CloneThread(ctx, core.CloneOptions{SourceThreadID: "src", Range: core.DateRange{Start: &start, End: &end}})
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

// Scenario 73: the thread's observations follow the clone with remapped ids;
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
	rec := core.ObservationRecord{Key: "thread:src", Observations: "- [2026-10-30] (high) user said one and two",
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

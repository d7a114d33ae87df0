package core_test

import (
	"errors"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
)

func lineageMem(t *testing.T, s store.Store) *core.Memory {
	t.Helper()
	m := newMem(t, s, core.Config{})
	if _, err := m.CreateThread(ctx, core.ThreadInput{ID: "orig", ResourceID: "r", Title: "Original"}); err != nil {
		t.Fatal(err)
	}
	var msgs []core.Message
	for i, id := range []string{"m1", "m2", "m3", "m4", "m5"} {
		msgs = append(msgs, userAt(id, "orig", "r", "text "+id, T(i)))
	}
	if _, err := m.SaveMessages(ctx, msgs, nil); err != nil {
		t.Fatal(err)
	}
	return m
}

func clone(t *testing.T, m *core.Memory, o core.CloneOptions) (core.Thread, []core.Message) {
	t.Helper()
	th, msgs, err := m.CloneThread(ctx, o)
	if err != nil {
		t.Fatalf("CloneThread(%+v): %v", o, err)
	}
	return th, msgs
}

func threadIDsOf(ts []core.Thread) []string {
	out := []string{}
	for _, th := range ts {
		out = append(out, th.ID)
	}
	return out
}

// Mastra: isClone is true for a cloned thread and false for the original;
// getCloneMetadata returns the source, the clone time and the last copied
// message.
func TestIsCloneIdentifiesClonedThreads(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		m := lineageMem(t, s)
		c, _ := clone(t, m, core.CloneOptions{SourceThreadID: "orig", NewThreadID: "c1"})
		stored, err := m.GetThread(ctx, "c1", "r")
		if err != nil {
			t.Fatal(err)
		}
		orig, _ := m.GetThread(ctx, "orig", "r")
		if !core.IsClone(c) || !core.IsClone(stored) || core.IsClone(orig) {
			t.Fatalf("IsClone: returned %v, stored %v, original %v", core.IsClone(c), core.IsClone(stored), core.IsClone(orig))
		}
		info, ok := core.CloneInfoOf(stored)
		if !ok || info.SourceThreadID != "orig" || info.LastMessageID != "m5" || info.ClonedAt.IsZero() ||
			info.ClonedAt.Before(time.Now().Add(-time.Hour)) {
			t.Fatalf("CloneInfoOf = %+v, %v", info, ok)
		}
		// A user's metadata that merely has a "clone" key of another shape is no clone.
		if _, err := m.UpdateThread(ctx, "orig", core.ThreadUpdate{Metadata: map[string]any{"clone": "yes"}}); err != nil {
			t.Fatal(err)
		}
		orig, _ = m.GetThread(ctx, "orig", "r")
		if core.IsClone(orig) {
			t.Fatal("a string metadata.clone counts as a clone record")
		}
	})
}

// Mastra: getSourceThread returns the source of a clone, and null for an
// original, an unknown id or a deleted source.
func TestCloneSourceReturnsTheSourceThread(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		m := lineageMem(t, s)
		clone(t, m, core.CloneOptions{SourceThreadID: "orig", NewThreadID: "c1"})
		src, ok, err := m.CloneSource(ctx, "c1")
		if err != nil || !ok || src.ID != "orig" || src.Title != "Original" {
			t.Fatalf("CloneSource(c1) = %+v, %v, %v", src, ok, err)
		}
		for _, id := range []string{"orig", "unknown"} {
			if _, ok, err := m.CloneSource(ctx, id); ok || err != nil {
				t.Fatalf("CloneSource(%s) = %v, %v; want not found", id, ok, err)
			}
		}
		if err := m.DeleteThread(ctx, "orig"); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := m.CloneSource(ctx, "c1"); ok || err != nil {
			t.Fatalf("CloneSource after the source was deleted = %v, %v", ok, err)
		}
		if _, _, err := m.CloneSource(ctx, ""); !errors.Is(err, core.ErrMissingThreadID) {
			t.Fatalf("CloneSource(\"\") = %v", err)
		}
	})
}

// Mastra: listClones lists the direct clones of a thread in the source's
// resource, or in the resource given.
func TestListClonesListsDirectClonesOfASource(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		m := lineageMem(t, s)
		clone(t, m, core.CloneOptions{SourceThreadID: "orig", NewThreadID: "c1"})
		clone(t, m, core.CloneOptions{SourceThreadID: "orig", NewThreadID: "c2"})
		clone(t, m, core.CloneOptions{SourceThreadID: "c1", NewThreadID: "c1a"}) // a clone of a clone
		clone(t, m, core.CloneOptions{SourceThreadID: "orig", NewThreadID: "x1", ResourceID: "other"})
		got, err := m.ListClones(ctx, "orig", "")
		if err != nil {
			t.Fatal(err)
		}
		ids := threadIDsOf(got)
		if len(ids) != 2 || !(ids[0] == "c1" && ids[1] == "c2" || ids[0] == "c2" && ids[1] == "c1") {
			t.Fatalf("ListClones(orig) = %v, want c1 and c2", ids)
		}
		for _, c := range []struct {
			src, res string
			want     []string
		}{{"orig", "other", []string{"x1"}}, {"c1", "", []string{"c1a"}}, {"c2", "", []string{}}, {"unknown", "", []string{}}} {
			got, err := m.ListClones(ctx, c.src, c.res)
			if err != nil {
				t.Fatal(err)
			}
			same(t, "ListClones("+c.src+", "+c.res+")", threadIDsOf(got), c.want)
		}
		if _, err := m.ListClones(ctx, "orig", "bad\x00"); !errors.Is(err, core.ErrInvalidArgument) {
			t.Fatalf("bad resource id: %v", err)
		}
	})
}

// Mastra: getCloneHistory returns the chain from the original to the
// thread, the original alone for an original, and [] for an unknown id.
func TestCloneHistoryReturnsChainFromOriginal(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		m := lineageMem(t, s)
		clone(t, m, core.CloneOptions{SourceThreadID: "orig", NewThreadID: "c1"})
		clone(t, m, core.CloneOptions{SourceThreadID: "c1", NewThreadID: "c2"})
		clone(t, m, core.CloneOptions{SourceThreadID: "c2", NewThreadID: "c3"})
		for id, want := range map[string][]string{"c3": {"orig", "c1", "c2", "c3"}, "c1": {"orig", "c1"},
			"orig": {"orig"}, "unknown": {}} {
			got, err := m.CloneHistory(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			same(t, "CloneHistory("+id+")", threadIDsOf(got), want)
		}
		// A source deleted in the middle ends the chain there.
		if err := m.DeleteThread(ctx, "c1"); err != nil {
			t.Fatal(err)
		}
		got, _ := m.CloneHistory(ctx, "c3")
		same(t, "CloneHistory after a deleted link", threadIDsOf(got), []string{"c2", "c3"})
		// Metadata edited into a cycle ends at the first repeated thread.
		if _, err := m.UpdateThread(ctx, "c2", core.ThreadUpdate{Metadata: map[string]any{
			"clone": map[string]any{"sourceThreadId": "c3"}}}); err != nil {
			t.Fatal(err)
		}
		got, err := m.CloneHistory(ctx, "c3")
		if err != nil {
			t.Fatal(err)
		}
		same(t, "CloneHistory of a cycle", threadIDsOf(got), []string{"c2", "c3"})
	})
}

// Mastra's cloneThread options: messageLimit keeps the newest N, and
// messageFilter's startDate/endDate (inclusive) and messageIds select
// before the limit applies.
func TestCloneThreadMessageLimitAndFilter(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		m := lineageMem(t, s)
		start, end := T(1), T(3)
		for _, c := range []struct {
			o    core.CloneOptions
			want []string
		}{
			{core.CloneOptions{MessageLimit: 2}, []string{"m4", "m5"}},
			{core.CloneOptions{Range: store.DateRange{Start: &start, End: &end}}, []string{"m2", "m3", "m4"}},
			{core.CloneOptions{MessageIDs: []string{"m1", "m3", "m5", "nope"}}, []string{"m1", "m3", "m5"}},
			{core.CloneOptions{MessageIDs: []string{"m1", "m3", "m4", "m5"}, Range: store.DateRange{Start: &start, End: &end}, MessageLimit: 1}, []string{"m4"}},
		} {
			c.o.SourceThreadID = "orig"
			th, copies := clone(t, m, c.o)
			var texts []string
			for _, msg := range copies {
				texts = append(texts, msg.Text()[len("text "):])
				if msg.ThreadID != th.ID {
					t.Fatalf("copy %s in thread %s", msg.ID, msg.ThreadID)
				}
			}
			same(t, "cloned messages", texts, c.want)
			info, _ := core.CloneInfoOf(th)
			if info.LastMessageID != c.want[len(c.want)-1] {
				t.Fatalf("lastMessageId = %q, want %q", info.LastMessageID, c.want[len(c.want)-1])
			}
		}
	})
}

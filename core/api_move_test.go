package core_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector/local"
)

// moveMem is a Memory over s with semantic recall on an in-process vector
// store and working memory in scope.
func moveMem(t *testing.T, s store.Store, scope core.Scope) (*core.Memory, *local.Store) {
	t.Helper()
	vs := local.New()
	m, err := core.New(core.Options{Store: s, Vector: vs, Embedder: local.NewHashEmbedder(64), Config: core.Config{
		SemanticRecall: &core.SemanticRecall{TopK: 3, MessageRange: &core.MessageRange{}},
		WorkingMemory:  &core.WorkingMemoryConfig{Enabled: true, Scope: scope}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close(ctx) })
	return m, vs
}

func seedGuest(t *testing.T, m *core.Memory) {
	t.Helper()
	for _, th := range []string{"A", "B"} {
		if _, err := m.CreateThread(ctx, core.ThreadInput{ID: th, ResourceID: "guest", Title: "thread " + th}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.SaveMessages(ctx, []core.Message{
		userAt("m1", "A", "guest", "My order ships with DHL", T(1)),
		userAt("m2", "A", "guest", "The parcel number is 4711", T(2)),
		userAt("b1", "B", "guest", "I like green tea", T(3)),
	}, nil); err != nil {
		t.Fatal(err)
	}
	// Index retries run in the background after a save.
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

func recallOf(t *testing.T, m *core.Memory, thread, resource, query string) []string {
	t.Helper()
	res, err := m.Recall(ctx, core.RecallQuery{ThreadID: thread, ResourceID: resource, VectorSearch: query,
		Config: &core.Config{LastMessages: core.NoHistory}})
	if err != nil {
		t.Fatalf("Recall(%s, %s): %v", thread, resource, err)
	}
	return ids(res.Messages)
}

// Mastra: updateThreadResourceId moves the thread and all its messages to
// the new resource, preserves createdAt, and (with semantic recall) moves
// the message vectors so the new owner's resource-scoped recall finds them.
func TestMoveThreadMovesThreadMessagesAndVectorsPreservingCreatedAt(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		m, vs := moveMem(t, s, core.ScopeResource)
		seedGuest(t, m)
		before, _ := m.GetThread(ctx, "A", "")
		th, err := m.MoveThread(ctx, "A", "user")
		if err != nil {
			t.Fatal(err)
		}
		if th.ResourceID != "user" || !th.CreatedAt.Equal(before.CreatedAt) || th.Title != "thread A" || th.Metadata["agentmem.move"] != nil {
			t.Fatalf("moved = %+v, before %+v", th, before)
		}
		if _, err := m.GetThread(ctx, "A", "guest"); !errors.Is(err, core.ErrThreadNotFound) {
			t.Fatalf("the old owner still sees the thread: %v", err)
		}
		res, err := m.Recall(ctx, core.RecallQuery{ThreadID: "A", ResourceID: "user", PerPage: store.PerPageAll})
		if err != nil {
			t.Fatal(err)
		}
		same(t, "messages", ids(res.Messages), []string{"m1", "m2"})
		for _, msg := range res.Messages {
			if msg.ResourceID != "user" {
				t.Fatalf("message %s of %s", msg.ID, msg.ResourceID)
			}
		}
		// A new thread of the new owner recalls the moved messages; the old
		// owner's threads no longer do.
		if _, err := m.CreateThread(ctx, core.ThreadInput{ID: "U", ResourceID: "user"}); err != nil {
			t.Fatal(err)
		}
		if got := recallOf(t, m, "U", "user", "parcel number"); len(got) == 0 || got[0] == "b1" {
			t.Fatalf("new owner's recall = %v", got)
		}
		for _, id := range recallOf(t, m, "B", "guest", "parcel number DHL") {
			if id == "m1" || id == "m2" {
				t.Fatalf("the old owner recalls moved message %s", id)
			}
		}
		if n := len(vectorRecords(t, vs, "guest", "A")); n != 0 {
			t.Fatalf("%d vector records of A left under the old resource", n)
		}
		if n := len(vectorRecords(t, vs, "user", "A")); n != 2 {
			t.Fatalf("%d vector records of A under the new resource, want 2", n)
		}
		if n, _ := m.Unindexed(ctx, ""); n != 0 {
			t.Fatalf("unindexed after the move = %d", n)
		}
	})
}

// Mastra: updateThreadResourceId is a no-op when the thread already
// belongs to the target resource, and throws for a missing thread.
func TestMoveThreadSameResourceIsNoOpAndMissingThreadNotFound(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		m, _ := moveMem(t, s, core.ScopeResource)
		seedGuest(t, m)
		before, _ := m.GetThread(ctx, "A", "")
		th, err := m.MoveThread(ctx, "A", "guest")
		if err != nil || th.ResourceID != "guest" || !th.UpdatedAt.Equal(before.UpdatedAt) {
			t.Fatalf("same-resource move = %+v, %v; before %+v", th, err, before)
		}
		if _, err := m.MoveThread(ctx, "missing", "user"); !errors.Is(err, core.ErrThreadNotFound) {
			t.Fatalf("missing thread: %v", err)
		}
		for _, c := range []struct {
			thread, resource string
			want             error
		}{{"A", "", core.ErrMissingResourceID}, {"", "user", core.ErrMissingThreadID}, {"A", "x\x00", core.ErrInvalidArgument}} {
			if _, err := m.MoveThread(ctx, c.thread, c.resource); !errors.Is(err, c.want) {
				t.Fatalf("MoveThread(%q, %q) = %v, want %v", c.thread, c.resource, err, c.want)
			}
		}
		if th, _ := m.GetThread(ctx, "A", ""); th.ResourceID != "guest" {
			t.Fatalf("bad input moved the thread to %q", th.ResourceID)
		}
	})
}

// As in Mastra, whose transfer changes only the thread and its messages,
// resource-scoped working memory is not merged: each resource keeps its own.
// Thread-scoped working memory goes with the thread.
func TestMoveThreadLeavesResourceWorkingMemoryAndMovesThreadWorkingMemory(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		m, _ := moveMem(t, s, core.ScopeResource)
		seedGuest(t, m)
		threadScope := &core.Config{WorkingMemory: &core.WorkingMemoryConfig{Enabled: true, Scope: core.ScopeThread}}
		if err := m.UpdateWorkingMemory(ctx, "A", "guest", "# Guest\nname: Ann", nil); err != nil {
			t.Fatal(err)
		}
		if err := m.UpdateWorkingMemory(ctx, "A", "guest", "# Thread\norder: 4711", threadScope); err != nil {
			t.Fatal(err)
		}
		if _, err := m.MoveThread(ctx, "A", "user"); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, c := range []struct {
			key, thread, resource string
			cfg                   *core.Config
		}{{"user", "A", "user", nil}, {"guest", "B", "guest", nil}, {"thread", "A", "user", threadScope}} {
			wm, err := m.GetWorkingMemory(ctx, c.thread, c.resource, c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			got[c.key] = wm
		}
		if got["guest"] != "# Guest\nname: Ann" || got["user"] == got["guest"] || got["thread"] != "# Thread\norder: 4711" {
			t.Fatalf("working memory after the move: %q", fmt.Sprint(got))
		}
	})
}

// Without a vector store the move records the old owner for a later call
// with one; a clone does not inherit that record.
func TestMoveThreadWithoutVectorStoreKeepsTheRecordForLater(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		m := newMem(t, s, core.Config{})
		if _, err := m.CreateThread(ctx, core.ThreadInput{ID: "A", ResourceID: "guest"}); err != nil {
			t.Fatal(err)
		}
		th, err := m.MoveThread(ctx, "A", "user")
		if err != nil {
			t.Fatal(err)
		}
		rec, _ := th.Metadata["agentmem.move"].(map[string]any)
		if th.ResourceID != "user" || fmt.Sprint(rec["fromResourceIds"]) != "[guest]" {
			t.Fatalf("moved without vectors = %+v", th)
		}
		c, _, err := m.CloneThread(ctx, core.CloneOptions{SourceThreadID: "A"})
		if err != nil {
			t.Fatal(err)
		}
		if c.Metadata["agentmem.move"] != nil {
			t.Fatalf("the clone inherited the move record: %v", c.Metadata)
		}
		// A Memory with a vector store finishes the move and drops the record.
		m2, _ := moveMem(t, s, core.ScopeResource)
		th, err = m2.MoveThread(ctx, "A", "user")
		if err != nil || th.Metadata["agentmem.move"] != nil {
			t.Fatalf("finishing the move = %+v, %v", th, err)
		}
	})
}

// A thread moved back before its first move finished keeps both resources
// in its move record (the vector records of either may still exist), on a
// store that keeps the values it is given as well as on one that encodes
// them.
func TestMoveThreadBackKeepsEveryResourceInTheRecord(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		m := newMem(t, s, core.Config{})
		if _, err := m.CreateThread(ctx, core.ThreadInput{ID: "A", ResourceID: "guest"}); err != nil {
			t.Fatal(err)
		}
		for _, to := range []string{"user", "guest"} {
			if _, err := m.MoveThread(ctx, "A", to); err != nil {
				t.Fatal(err)
			}
		}
		th, err := m.GetThread(ctx, "A", "")
		if err != nil {
			t.Fatal(err)
		}
		if got := core.PendingMoveSources(th); fmt.Sprint(got) != "[guest user]" || fmt.Sprint(th.Metadata["agentmem.move"]) != "map[fromResourceIds:[guest user]]" {
			t.Fatalf("moved to user and back: pending %q, record %v", got, th.Metadata["agentmem.move"])
		}
	})
}

// The move's progress record has its own namespaced key: the application's
// "move" key survives a move, also one that stops half-way and is finished
// by a second call. A record of an earlier version under "move" (exactly
// its shape) is still finished and removed.
func TestMoveThreadKeepsTheApplicationsMoveKey(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		m, _ := moveMem(t, s, core.ScopeResource)
		seedGuest(t, m)
		if _, err := m.UpdateThread(ctx, "A", core.ThreadUpdate{Metadata: map[string]any{"move": "keep me"}}); err != nil {
			t.Fatal(err)
		}
		// Stopped after the record is written: the next step's write fails.
		stop, cancel := context.WithCancel(ctx)
		hook := core.WithMoveStep(stop, func(step string) {
			if step == "recorded" {
				cancel()
			}
		})
		if _, err := m.MoveThread(hook, "A", "user"); err == nil {
			t.Fatal("the interrupted move succeeded")
		}
		th, err := m.GetThread(ctx, "A", "")
		if err != nil || th.Metadata["move"] != "keep me" || th.Metadata["agentmem.move"] == nil {
			t.Fatalf("after the interrupted move: %v, %v", th.Metadata, err)
		}
		if th, err = m.MoveThread(ctx, "A", "user"); err != nil || th.Metadata["move"] != "keep me" || th.Metadata["agentmem.move"] != nil {
			t.Fatalf("resumed move = %v, %v", th.Metadata, err)
		}

		// Thread B carries an earlier version's record: finished and removed.
		legacy := map[string]any{"fromResourceIds": []any{"old"}}
		if _, err := s.UpdateThread(ctx, "B", nil, map[string]any{"move": legacy}); err != nil {
			t.Fatal(err)
		}
		if th, err = m.MoveThread(ctx, "B", "guest"); err != nil || th.Metadata["move"] != nil {
			t.Fatalf("finishing an earlier version's move = %v, %v", th.Metadata, err)
		}
		// A value of any other shape is the application's.
		for _, app := range []any{map[string]any{"fromResourceIds": []any{"guest"}, "by": "app"}, map[string]any{"fromResourceIds": []any{"guest", 7}}} {
			if _, err := s.UpdateThread(ctx, "B", nil, map[string]any{"move": app}); err != nil {
				t.Fatal(err)
			}
			if th, err = m.MoveThread(ctx, "B", "user"); err != nil || fmt.Sprint(th.Metadata["move"]) != fmt.Sprint(app) {
				t.Fatalf("move with the application's value %v = %v, %v", app, th.Metadata, err)
			}
			if _, err := m.MoveThread(ctx, "B", "guest"); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// Recall checks each hit's message against the store: the vector records
// that a move without a vector store leaves under the old resource never
// return the moved messages for it.
func TestRecallLeavesOutHitsNowOfAnotherResource(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		m, vs := moveMem(t, s, core.ScopeResource)
		seedGuest(t, m)
		if _, err := newMem(t, s, core.Config{}).MoveThread(ctx, "A", "user"); err != nil {
			t.Fatal(err)
		}
		if n := len(vectorRecords(t, vs, "guest", "A")); n == 0 {
			t.Fatal("no vector records of A left under the old resource")
		}
		for _, id := range recallOf(t, m, "B", "guest", "parcel number DHL") {
			if id == "m1" || id == "m2" {
				t.Fatalf("the old owner recalls moved message %s", id)
			}
		}
	})
}

package postgres

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

func TestListThreadsPastLastPage(t *testing.T) {
	s := openFresh(t)
	for i := 0; i < 5; i++ {
		if _, err := s.SaveThread(bg(), store.Thread{ID: fmt.Sprint("t", i), ResourceID: "r", Metadata: map[string]any{"k": "v"}}); err != nil {
			t.Fatal(err)
		}
	}
	p, err := s.ListThreads(bg(), store.ThreadQuery{ResourceID: "r", Metadata: map[string]any{"k": "v"}, PerPage: 2, Page: 7})
	if err != nil || len(p.Threads) != 0 || p.Total != 5 || p.HasMore || p.Page != 7 {
		t.Fatalf("past the end: %+v %v", p, err)
	}
}

func TestSaveMessagesBatchSemantics(t *testing.T) {
	s := openFresh(t)
	for _, id := range []string{"a", "b"} {
		if _, err := s.SaveThread(bg(), store.Thread{ID: id, ResourceID: "r"}); err != nil {
			t.Fatal(err)
		}
	}
	at := time.Date(2026, 6, 1, 0, 0, 0, 987654321, time.UTC)
	m := func(id, thread, text string, ts time.Time) message.Message {
		x := message.NewMessage(message.RoleUser, text)
		x.ID, x.ThreadID, x.ResourceID, x.CreatedAt = id, thread, "r", ts
		return x
	}
	// A repeated id behaves like two consecutive saves.
	out, err := s.SaveMessages(bg(), []message.Message{m("x", "a", "first", at), m("y", "a", "y", at), m("x", "b", "second", at.Add(time.Hour))})
	if err != nil {
		t.Fatal(err)
	}
	if !out[0].CreatedAt.Equal(at.Truncate(time.Microsecond)) || out[0].Seq != out[2].Seq || out[0].Seq == out[1].Seq {
		t.Fatalf("returned %+v", out)
	}
	got, _ := s.GetMessages(bg(), []string{"x"})
	if len(got) != 1 || got[0].Text() != "second" || got[0].ThreadID != "b" || !got[0].CreatedAt.Equal(at.Truncate(time.Microsecond)) {
		t.Fatalf("stored %+v", got)
	}
	// A refused batch writes nothing, not even the thread bump.
	before, _ := s.GetThread(bg(), "a")
	_, err = s.SaveMessages(bg(), []message.Message{m("z", "a", "z", at), m("w", "missing", "w", at)})
	if !errors.Is(err, memerr.ErrThreadNotFound) {
		t.Fatalf("err = %v", err)
	}
	after, _ := s.GetThread(bg(), "a")
	if !after.UpdatedAt.Equal(before.UpdatedAt) {
		t.Fatal("refused batch bumped the thread")
	}
	if got, _ := s.GetMessages(bg(), []string{"z", "w"}); len(got) != 0 {
		t.Fatalf("refused batch wrote %v", got)
	}
}

func TestResourceAndWorkingMemoryDetails(t *testing.T) {
	s := store.Check(openFresh(t))
	r, err := s.UpdateResource(bg(), "r", nil)
	if err != nil || r.Metadata != nil || r.CreatedAt.IsZero() {
		t.Fatalf("create without metadata: %+v %v", r, err)
	}
	r, err = s.UpdateResource(bg(), "r", map[string]any{"a": "1", "b": map[string]any{"c": true}})
	if err != nil || !reflect.DeepEqual(r.Metadata, map[string]any{"a": "1", "b": map[string]any{"c": true}}) {
		t.Fatalf("merge: %+v %v", r, err)
	}
	r, err = s.UpdateResource(bg(), "r", map[string]any{"a": nil})
	if err != nil || !reflect.DeepEqual(r.Metadata, map[string]any{"b": map[string]any{"c": true}}) {
		t.Fatalf("delete key: %+v %v", r, err)
	}
	// A resource created by UpdateResource has working-memory version 0.
	wm, err := s.PutWorkingMemory(bg(), store.ScopeResource, "r", "hello", 0)
	if err != nil || wm.Version != 1 || wm.Data != "hello" || wm.UpdatedAt.IsZero() {
		t.Fatalf("put: %+v %v", wm, err)
	}
	// Never-written resource working memory, and an unknown resource with a
	// non-zero expected version, conflict rather than create.
	if _, err := s.PutWorkingMemory(bg(), store.ScopeResource, "new", "x", 3); !errors.Is(err, memerr.ErrConflict) {
		t.Fatalf("expect 3 on missing resource: %v", err)
	}
	if _, err := s.GetResource(bg(), "new"); !errors.Is(err, memerr.ErrNotFound) {
		t.Fatalf("conflicting put created the resource: %v", err)
	}
	if _, err := s.GetWorkingMemory(bg(), "bogus", "r"); !errors.Is(err, memerr.ErrInvalidArgument) {
		t.Fatalf("bad scope: %v", err)
	}
	if _, err := s.PutWorkingMemory(bg(), store.ScopeThread, "", "x", 0); !errors.Is(err, memerr.ErrMissingThreadID) {
		t.Fatalf("empty thread id: %v", err)
	}
}

// TestSaveMessagesRowsNewerThanSnapshot drives the two retry paths of
// SaveMessages deterministically with a concurrent, uncommitted transaction:
// a message id inserted for another resource after the statement's snapshot
// is still refused (not taken over), and a message moved to a thread the
// statement did not lock is saved and bumps the thread it really left.
func TestSaveMessagesRowsNewerThanSnapshot(t *testing.T) {
	s := openFresh(t)
	for _, th := range []store.Thread{{ID: "a", ResourceID: "r1"}, {ID: "b", ResourceID: "r1"}, {ID: "c", ResourceID: "r1"}, {ID: "x", ResourceID: "r2"}} {
		if _, err := s.SaveThread(bg(), th); err != nil {
			t.Fatal(err)
		}
	}
	at := time.Date(2026, 6, 2, 0, 0, 0, 0, time.UTC)
	msg := func(id, thread, res string) message.Message {
		m := message.NewMessage(message.RoleUser, id+" in "+thread)
		m.ID, m.ThreadID, m.ResourceID, m.CreatedAt = id, thread, res, at
		return m
	}
	later := func(fn func(tx pgx.Tx) error, call func() error) error {
		tx, err := s.pool.Begin(bg())
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback(bg()) }()
		if err := fn(tx); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- call() }()
		time.Sleep(300 * time.Millisecond) // the call is now blocked on tx's rows
		if err := tx.Commit(bg()); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-done:
			return err
		case <-time.After(30 * time.Second):
			t.Fatal("call did not return")
			return nil
		}
	}

	// 1. Takeover of an id that appears after the snapshot.
	err := later(func(tx pgx.Tx) error {
		_, err := tx.Exec(bg(), "INSERT INTO "+s.q.messages+" (id, thread_id, resource_id, role, content, created_at) VALUES ('late', 'x', 'r2', 'user', '{}', now())")
		return err
	}, func() error {
		_, err := s.SaveMessages(bg(), []message.Message{msg("mine", "a", "r1"), msg("late", "a", "r1")})
		return err
	})
	if !errors.Is(err, memerr.ErrResourceMismatch) {
		t.Fatalf("takeover after snapshot: %v", err)
	}
	got, _ := s.GetMessages(bg(), []string{"late", "mine"})
	if len(got) != 1 || got[0].ThreadID != "x" || got[0].ResourceID != "r2" {
		t.Fatalf("takeover changed data: %+v", got)
	}

	// 2. A message moved to thread c after the snapshot, then saved into b.
	if _, err := s.SaveMessages(bg(), []message.Message{msg("m", "a", "r1")}); err != nil {
		t.Fatal(err)
	}
	before, _ := s.GetThread(bg(), "c")
	err = later(func(tx pgx.Tx) error {
		_, err := tx.Exec(bg(), "UPDATE "+s.q.messages+" SET thread_id = 'c' WHERE id = 'm'")
		return err
	}, func() error {
		_, err := s.SaveMessages(bg(), []message.Message{msg("m", "b", "r1")})
		return err
	})
	if err != nil {
		t.Fatalf("save after concurrent move: %v", err)
	}
	after, _ := s.GetThread(bg(), "c")
	got, _ = s.GetMessages(bg(), []string{"m"})
	if len(got) != 1 || got[0].ThreadID != "b" || !after.UpdatedAt.After(before.UpdatedAt) {
		t.Fatalf("moved message %+v; thread c updatedAt %v -> %v", got, before.UpdatedAt, after.UpdatedAt)
	}

	// 3. The same for DeleteMessages.
	before, _ = s.GetThread(bg(), "a")
	err = later(func(tx pgx.Tx) error {
		_, err := tx.Exec(bg(), "UPDATE "+s.q.messages+" SET thread_id = 'a' WHERE id = 'm'")
		return err
	}, func() error { return s.DeleteMessages(bg(), []string{"m"}) })
	if err != nil {
		t.Fatalf("delete after concurrent move: %v", err)
	}
	after, _ = s.GetThread(bg(), "a")
	if got, _ := s.GetMessages(bg(), []string{"m"}); len(got) != 0 || !after.UpdatedAt.After(before.UpdatedAt) {
		t.Fatalf("delete: left %+v; thread a updatedAt %v -> %v", got, before.UpdatedAt, after.UpdatedAt)
	}
}

package postgres

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

var evil = []string{
	`o'brien`, `x'); DROP TABLE threads; --`, `"; DROP SCHEMA public CASCADE; --`, `a;b`, `--`, `/* c */`,
	`ünï©ødé 漢字 🙂`, `\'\\`, `$1`, `%_`, `' OR '1'='1`, `{"a":1}`, `?|`, `E'\x41'`,
}

// TestInjectionAsData stores hostile strings as ids, titles, metadata keys and
// values, boundary ids and working memory, in a schema whose own name is
// hostile, and finds them back as plain data.
func TestInjectionAsData(t *testing.T) {
	schema := `agentmem "test"; DROP--` + freshSchema(t)[len("agentmem_test_"):]
	dropSchemaAtCleanup(t, testDSN(t), schema)
	raw := openSchema(t, schema)
	s := store.Check(raw)
	at := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	for i, id := range evil {
		res := "res " + id
		meta := map[string]any{id: id, "k": id}
		if _, err := s.SaveThread(bg(), store.Thread{ID: id, ResourceID: res, Title: id, Metadata: meta}); err != nil {
			t.Fatalf("SaveThread %q: %v", id, err)
		}
		th, err := s.GetThread(bg(), id)
		if err != nil || th.Title != id || !reflect.DeepEqual(th.Metadata, meta) {
			t.Fatalf("GetThread %q: %+v %v", id, th, err)
		}
		p, err := s.ListThreads(bg(), store.ThreadQuery{ResourceID: res, Metadata: map[string]any{"k": id}})
		if err != nil || len(p.Threads) != 1 || p.Threads[0].ID != id {
			t.Fatalf("ListThreads filter %q: %+v %v", id, p, err)
		}
		title := id + id
		up, err := s.UpdateThread(bg(), id, &title, map[string]any{id: nil, "v" + fmt.Sprint(i): id})
		if err != nil || up.Title != title || up.Metadata[id] != nil || up.Metadata["v"+fmt.Sprint(i)] != id {
			t.Fatalf("UpdateThread %q: %+v %v", id, up, err)
		}
		var batch []message.Message
		for j := 0; j < 3; j++ {
			m := message.NewMessage(message.RoleUser, id)
			m.ID, m.ThreadID, m.ResourceID, m.CreatedAt = fmt.Sprintf("%s#%d", id, j), id, res, at.Add(time.Duration(j)*time.Second)
			m.Type, m.TokenEncoding = id, id
			batch = append(batch, m)
		}
		if _, err := s.SaveMessages(bg(), batch); err != nil {
			t.Fatalf("SaveMessages %q: %v", id, err)
		}
		lp, err := s.ListMessages(bg(), store.MessageQuery{ThreadID: id, ResourceID: res, PerPage: 1,
			Include: []store.Include{{ID: id + "#1", Before: 1, After: 1}}})
		if err != nil || len(lp.Messages) != 1 || lp.Messages[0].Text() != id || lp.Messages[0].Type != id || len(lp.Included) != 2 {
			t.Fatalf("ListMessages %q: %+v %v", id, lp, err)
		}
		got, err := s.GetMessages(bg(), []string{id + "#2", id})
		if err != nil || len(got) != 1 || got[0].ID != id+"#2" {
			t.Fatalf("GetMessages %q: %+v %v", id, got, err)
		}
		b, err := s.AdvanceBoundary(bg(), id, res, store.Boundary{CreatedAt: at, MessageIDs: []string{id, id + "#0"}, MaxTokens: 5})
		if err != nil || !reflect.DeepEqual(b.MessageIDs, []string{id, id + "#0"}) {
			t.Fatalf("AdvanceBoundary %q: %+v %v", id, b, err)
		}
		if b, err = s.AdvanceBoundary(bg(), id, res, store.Boundary{CreatedAt: at, MessageIDs: []string{id + "'", id}, MaxTokens: 5}); err != nil ||
			!reflect.DeepEqual(b.MessageIDs, []string{id, id + "#0", id + "'"}) {
			t.Fatalf("AdvanceBoundary union %q: %+v %v", id, b, err)
		}
		for _, scope := range []store.Scope{store.ScopeThread, store.ScopeResource} {
			key := id
			if scope == store.ScopeResource {
				key = res
			}
			if _, err := s.PutWorkingMemory(bg(), scope, key, id, 0); err != nil {
				t.Fatalf("PutWorkingMemory %s %q: %v", scope, id, err)
			}
			wm, err := s.GetWorkingMemory(bg(), scope, key)
			if err != nil || wm.Data != id || wm.Version != 1 {
				t.Fatalf("GetWorkingMemory %s %q: %+v %v", scope, id, wm, err)
			}
		}
		if r, err := s.UpdateResource(bg(), res, map[string]any{id: id}); err != nil || r.Metadata[id] != id || r.WorkingMemory != id {
			t.Fatalf("UpdateResource %q: %+v %v", id, r, err)
		}
		if err := s.DeleteMessages(bg(), []string{id + "#0"}); err != nil {
			t.Fatal(err)
		}
	}
	all, err := s.ListThreads(bg(), store.ThreadQuery{PerPage: store.PerPageAll})
	if err != nil || all.Total != len(evil) {
		t.Fatalf("threads: %d %v, want %d", all.Total, err, len(evil))
	}
	var n int
	if err := raw.pool.QueryRow(bg(), "SELECT count(*) FROM "+raw.q.messages).Scan(&n); err != nil || n != 2*len(evil) {
		t.Fatalf("messages: %d %v", n, err)
	}
	// Untouched: the public schema and the database's other objects.
	if err := raw.pool.QueryRow(bg(), "SELECT count(*) FROM pg_namespace WHERE nspname = 'public'").Scan(&n); err != nil || n != 1 {
		t.Fatalf("public schema: %d %v", n, err)
	}
}

func TestUnstorableText(t *testing.T) {
	s := openFresh(t)
	if _, err := s.SaveThread(bg(), store.Thread{ID: "t", ResourceID: "r", Title: "nul \x00 inside"}); !errors.Is(err, memerr.ErrInvalidArgument) {
		t.Fatalf("NUL title: %v", err)
	}
	if _, err := s.SaveThread(bg(), store.Thread{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	m := message.NewMessage(message.RoleUser, "ok")
	m.ID, m.ThreadID, m.ResourceID, m.CreatedAt, m.Type = "m", "t", "r", time.Now(), "nul \x00 inside"
	_, err := s.SaveMessages(bg(), []message.Message{m})
	var pgErr *pgconn.PgError
	if !errors.Is(err, memerr.ErrInvalidMessage) || !errors.As(err, &pgErr) {
		t.Fatalf("NUL in type: %v", err)
	}
	// Content is JSON text: a NUL is stored as its escape and comes back.
	m = message.NewMessage(message.RoleUser, "nul \x00 inside")
	m.ID, m.ThreadID, m.ResourceID, m.CreatedAt = "m", "t", "r", time.Now()
	if _, err := s.SaveMessages(bg(), []message.Message{m}); err != nil {
		t.Fatalf("NUL in content: %v", err)
	}
	got, err := s.GetMessages(bg(), []string{"m"})
	if err != nil || len(got) != 1 || got[0].Content.Parts[0].Text != "nul \x00 inside" {
		t.Fatalf("NUL in content read back: %+v %v", got, err)
	}
}

// TestDriverErrorsWrapped: a failing statement matches core.ErrStorage and
// keeps the *pgconn.PgError reachable.
func TestDriverErrorsWrapped(t *testing.T) {
	s := openFresh(t)
	if _, err := s.pool.Exec(bg(), "DROP TABLE "+s.q.messages+" CASCADE"); err != nil {
		t.Fatal(err)
	}
	_, err := s.GetMessages(bg(), []string{"x"})
	var pgErr *pgconn.PgError
	if !errors.Is(err, memerr.ErrStorage) || !errors.As(err, &pgErr) || pgErr.Code != "42P01" {
		t.Fatalf("err = %v", err)
	}
	var ce *memerr.Error
	if !errors.As(err, &ce) || ce.Op != "GetMessages" {
		t.Fatalf("not a *core.Error with Op: %#v", err)
	}
}

// TestContextCancelsQuery: a SaveMessages blocked on a row lock held by
// another transaction returns when its context expires.
func TestContextCancelsQuery(t *testing.T) {
	s := openFresh(t)
	if _, err := s.SaveThread(bg(), store.Thread{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	tx, err := s.pool.Begin(bg())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(bg()) }()
	if _, err := tx.Exec(bg(), "SELECT 1 FROM "+s.q.threads+" WHERE id = 't' FOR UPDATE"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(bg(), 300*time.Millisecond)
	defer cancel()
	m := message.NewMessage(message.RoleUser, "blocked")
	m.ID, m.ThreadID, m.ResourceID, m.CreatedAt = "m", "t", "r", time.Now()
	start := time.Now()
	_, err = s.SaveMessages(ctx, []message.Message{m})
	if !errors.Is(err, memerr.ErrDeadlineExceeded) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("cancel took %v", d)
	}
	if err := tx.Rollback(bg()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // a statement still running on the server would now commit
	got, err := s.GetMessages(bg(), []string{"m"})
	if err != nil || len(got) != 0 {
		t.Fatalf("cancelled save wrote %v (%v)", got, err)
	}
	// Expired before the call.
	expired, cancel2 := context.WithDeadline(bg(), time.Now().Add(-time.Second))
	defer cancel2()
	if _, err := s.GetThread(expired, "t"); !errors.Is(err, memerr.ErrDeadlineExceeded) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("expired ctx: %v", err)
	}
}

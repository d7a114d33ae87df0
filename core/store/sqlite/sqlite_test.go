package sqlite

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 123456000, time.UTC)

func at(n int) time.Time { return t0.Add(time.Duration(n) * time.Second) }

func bg() context.Context { return context.Background() }

func openFile(t testing.TB, path string) *Store {
	t.Helper()
	s, err := Open(bg(), path)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func openTemp(t *testing.T) *Store {
	t.Helper()
	return openFile(t, filepath.Join(t.TempDir(), "memory.db"))
}

func thread(t testing.TB, s store.Store, id, res string) {
	t.Helper()
	if _, err := s.SaveThread(bg(), store.Thread{ID: id, ResourceID: res, Title: "t", CreatedAt: at(0), UpdatedAt: at(0)}); err != nil {
		t.Fatalf("SaveThread(%q): %v", id, err)
	}
}

func msgAt(id, th, res, text string, ts time.Time) message.Message {
	m := message.NewMessage(message.RoleUser, text)
	m.ID, m.ThreadID, m.ResourceID, m.CreatedAt = id, th, res, ts
	return m
}

func TestMemoryDB(t *testing.T) {
	s := openFile(t, ":memory:")
	thread(t, s, "t1", "r1")
	if _, err := s.SaveMessages(bg(), []message.Message{msgAt("m1", "t1", "r1", "hi", at(1))}); err != nil {
		t.Fatal(err)
	}
	p, err := s.ListMessages(bg(), store.MessageQuery{ThreadID: "t1", PerPage: store.PerPageAll, Include: []store.Include{{ID: "m1", Before: 1}}})
	if err != nil || len(p.Messages) != 1 {
		t.Fatalf("list = %+v, %v", p, err)
	}
	// A second in-memory store is a different database.
	s2 := openFile(t, ":memory:")
	if _, err := s2.GetThread(bg(), "t1"); !errors.Is(err, memerr.ErrThreadNotFound) {
		t.Fatalf("second :memory: store sees t1: %v", err)
	}
}

func TestMigrationsIdempotentAndReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a b?#%.db") // odd characters in the path
	s, err := Open(bg(), path)
	if err != nil {
		t.Fatal(err)
	}
	thread(t, s, "t1", "r1")
	saved, err := s.SaveMessages(bg(), []message.Message{msgAt("m1", "t1", "r1", "hello", at(1))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutWorkingMemory(bg(), store.ScopeResource, "r1", "# notes", 0); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		s = openFile(t, path)
		got, err := s.GetMessages(bg(), []string{"m1"})
		if err != nil || len(got) != 1 || got[0].Text() != "hello" || got[0].Seq != saved[0].Seq || !got[0].CreatedAt.Equal(at(1)) {
			t.Fatalf("reopen %d: %+v, %v", i, got, err)
		}
		wm, err := s.GetWorkingMemory(bg(), store.ScopeResource, "r1")
		if err != nil || wm.Data != "# notes" || wm.Version != 1 {
			t.Fatalf("reopen wm = %+v, %v", wm, err)
		}
		var n int
		if err := s.r.QueryRow(`SELECT COUNT(*) FROM schema_migrations`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		ms, _ := migrations()
		if n != len(ms) {
			t.Fatalf("schema_migrations has %d rows, want %d", n, len(ms))
		}
	}
}

func TestConcurrentOpens(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.db")
	const n = 8
	stores := make([]*Store, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stores[i], errs[i] = Open(bg(), path)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Open %d: %v", i, err)
		}
		t.Cleanup(func() { _ = stores[i].Close() })
	}
	var rows int
	ms, _ := migrations()
	if err := stores[0].r.QueryRow(`SELECT COUNT(*) FROM schema_migrations`).Scan(&rows); err != nil || rows != len(ms) {
		t.Fatalf("schema_migrations rows = %d, %v", rows, err)
	}
	var mode string
	if err := stores[0].r.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v", mode, err)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.db")
	s := openFile(t, path)
	if _, err := s.w.Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'future', 0)`); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(bg(), path); !errors.Is(err, memerr.ErrStorage) || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("Open of newer schema: %v", err)
	}
}

// TestSharedRaces runs racing writers on two handles of one file: boundary
// merges must union, working-memory versions must not be lost and message
// saves must all land.
func TestSharedRaces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.db")
	a, b := openFile(t, path), openFile(t, path)
	thread(t, a, "t1", "r1")
	const workers = 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for i := range workers {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("m%d", i)
			if _, err := s.AdvanceBoundary(bg(), "t1", "r1", store.Boundary{CreatedAt: at(5), MessageIDs: []string{id}, MaxTokens: 100}); err != nil {
				t.Error(err)
			}
			// After the boundary: a message inserted at or before it pulls it back.
			if _, err := s.SaveMessages(bg(), []message.Message{msgAt(id, "t1", "r1", id, at(10+i))}); err != nil {
				t.Error(err)
			}
			for {
				cur, err := s.GetWorkingMemory(bg(), store.ScopeThread, "t1")
				if err != nil {
					t.Error(err)
					return
				}
				_, err = s.PutWorkingMemory(bg(), store.ScopeThread, "t1", cur.Data+id+";", cur.Version)
				if errors.Is(err, memerr.ErrConflict) {
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				wins++
				mu.Unlock()
				return
			}
		}()
	}
	wg.Wait()
	th, err := b.GetThread(bg(), "t1")
	if err != nil || th.Boundary == nil || len(th.Boundary.MessageIDs) != workers {
		t.Fatalf("boundary = %+v, %v", th.Boundary, err)
	}
	wm, err := a.GetWorkingMemory(bg(), store.ScopeThread, "t1")
	if err != nil || wm.Version != workers || strings.Count(wm.Data, ";") != workers || wins != workers {
		t.Fatalf("wm = %+v (wins %d), %v", wm, wins, err)
	}
	p, err := a.ListMessages(bg(), store.MessageQuery{ThreadID: "t1", PerPage: store.PerPageAll, IncludeTotal: true})
	if err != nil || p.Total != workers {
		t.Fatalf("messages total = %d, %v", p.Total, err)
	}
}

// TestHistoryQueryUsesIndex checks that every query of a turn is an index
// range scan without a sort step.
func TestHistoryQueryUsesIndex(t *testing.T) {
	s := openTemp(t)
	cursor := &store.Cursor{CreatedAt: at(10), Seq: 5}
	start, end := at(1), at(20)
	queries := []store.MessageQuery{
		{ThreadID: "t1", PerPage: 40, Direction: store.Desc, Before: cursor},
		{ThreadID: "t1", ResourceID: "r1", PerPage: 40, Direction: store.Desc},
		{ThreadID: "t1", PerPage: store.PerPageAll, Range: store.DateRange{Start: &start, End: &end}},
	}
	for _, q := range queries {
		q, _ = store.NormalizeMessageQuery(q)
		query, args, _ := listQuery(q)
		plan := explain(t, s, query, args...)
		if !strings.Contains(plan, "USING INDEX messages_thread_created_seq") || strings.Contains(plan, "TEMP B-TREE") || strings.Contains(plan, "SCAN") {
			t.Fatalf("plan of %s:\n%s", query, plan)
		}
	}
	win := `SELECT ` + messageCols + ` FROM messages WHERE thread_id = ? AND (created_at, seq) <= (?, ?) ORDER BY created_at DESC, seq DESC LIMIT ?`
	if plan := explain(t, s, win, "t1", 1, 2, 3); !strings.Contains(plan, "USING INDEX messages_thread_created_seq") || strings.Contains(plan, "TEMP B-TREE") {
		t.Fatalf("window plan:\n%s", plan)
	}
	if plan := explain(t, s, `SELECT thread_id, created_at, seq FROM messages WHERE id = ?`, "m"); strings.Contains(plan, "SCAN") {
		t.Fatalf("target plan:\n%s", plan)
	}
	for _, col := range []string{"created_at", "updated_at"} {
		plan := explain(t, s, `SELECT `+threadCols+` FROM threads WHERE resource_id = ? ORDER BY `+col+` DESC, id DESC LIMIT 10`, "r")
		if strings.Contains(plan, "SCAN") || strings.Contains(plan, "TEMP B-TREE") {
			t.Fatalf("threads plan:\n%s", plan)
		}
	}
}

func explain(t *testing.T, s *Store, query string, args ...any) string {
	t.Helper()
	rows, err := s.r.Query(`EXPLAIN QUERY PLAN `+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		b.WriteString(detail + "\n")
	}
	return b.String()
}

func TestFailingBatchWritesNothing(t *testing.T) {
	s := store.Check(openTemp(t))
	thread(t, s, "t1", "r1")
	thread(t, s, "t2", "r2")
	before, _ := s.GetThread(bg(), "t1")
	bad := [][]message.Message{
		{msgAt("a", "t1", "r1", "a", at(1)), msgAt("b", "missing", "r1", "b", at(2))},
		{msgAt("a", "t1", "r1", "a", at(1)), msgAt("b", "t2", "r1", "b", at(2))},
		{msgAt("a", "t1", "r1", "a", at(1)), {ID: "b", ThreadID: "t1", ResourceID: "r1", CreatedAt: at(2)}},
		{msgAt("a", "t1", "r1", "a", at(1)), msgAt("b", "t1", "r1", "b", time.Time{})},
		{msgAt("a", "t1", "r1", "a", at(1)), msgAt(" ", "t1", "r1", "b", at(2))},
	}
	want := []error{memerr.ErrThreadNotFound, memerr.ErrResourceMismatch, memerr.ErrInvalidMessage, memerr.ErrInvalidMessage, memerr.ErrInvalidArgument}
	for i, batch := range bad {
		if _, err := s.SaveMessages(bg(), batch); !errors.Is(err, want[i]) {
			t.Fatalf("batch %d: err = %v, want %v", i, err, want[i])
		}
	}
	got, err := s.GetMessages(bg(), []string{"a", "b"})
	if err != nil || len(got) != 0 {
		t.Fatalf("failed batches wrote %v, %v", got, err)
	}
	after, _ := s.GetThread(bg(), "t1")
	if !after.UpdatedAt.Equal(before.UpdatedAt) {
		t.Fatalf("failed batch bumped updatedAt")
	}
	// A message may not be taken over by another resource.
	if _, err := s.SaveMessages(bg(), []message.Message{msgAt("a", "t1", "r1", "a", at(1))}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveMessages(bg(), []message.Message{msgAt("a", "t2", "r2", "hijack", at(1))}); !errors.Is(err, memerr.ErrResourceMismatch) {
		t.Fatalf("cross-resource upsert: %v", err)
	}
}

func TestInjectionAsData(t *testing.T) {
	s := store.Check(openTemp(t))
	nasty := []string{`it's "quoted"`, `x'; DROP TABLE messages; --`, `-- comment`, `日本語 🚀 ü`, `a\b%_*`, `$.x`}
	for i, id := range nasty {
		res := "r" + id
		meta := map[string]any{"k": id, "note": "v;--'" + id}
		if _, err := s.SaveThread(bg(), store.Thread{ID: id, ResourceID: res, Title: id, Metadata: meta, CreatedAt: at(i)}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SaveMessages(bg(), []message.Message{msgAt(id+"m", id, res, id, at(i))}); err != nil {
			t.Fatal(err)
		}
		th, err := s.GetThread(bg(), id)
		if err != nil || th.Title != id || th.Metadata["note"] != "v;--'"+id {
			t.Fatalf("thread %q = %+v, %v", id, th, err)
		}
		p, err := s.ListThreads(bg(), store.ThreadQuery{ResourceID: res, Metadata: map[string]any{"k": id}})
		if err != nil || len(p.Threads) != 1 || p.Threads[0].ID != id {
			t.Fatalf("filter %q = %+v, %v", id, p, err)
		}
		ms, err := s.ListMessages(bg(), store.MessageQuery{ThreadID: id, ResourceID: res, PerPage: 10})
		if err != nil || len(ms.Messages) != 1 || ms.Messages[0].Text() != id {
			t.Fatalf("messages %q = %+v, %v", id, ms, err)
		}
	}
	p, err := s.ListThreads(bg(), store.ThreadQuery{PerPage: store.PerPageAll})
	if err != nil || p.Total != len(nasty) {
		t.Fatalf("threads = %d, %v", p.Total, err)
	}
}

func TestLargeMessage(t *testing.T) {
	s := openTemp(t)
	thread(t, s, "t1", "r1")
	big := strings.Repeat("0123456789abcdef", 5<<20/16)
	if _, err := s.SaveMessages(bg(), []message.Message{msgAt("big", "t1", "r1", big, at(1))}); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetMessages(bg(), []string{"big"})
	if err != nil || len(got) != 1 || got[0].Text() != big {
		t.Fatalf("5 MB round trip failed: %v", err)
	}
}

func TestSubMicrosecondBounds(t *testing.T) {
	s := openTemp(t)
	thread(t, s, "t1", "r1")
	if _, err := s.SaveMessages(bg(), []message.Message{msgAt("m", "t1", "r1", "x", at(1))}); err != nil {
		t.Fatal(err)
	}
	half := at(1).Add(500 * time.Nanosecond)
	before := at(1).Add(-500 * time.Nanosecond)
	cases := []struct {
		r    store.DateRange
		want int
	}{
		{store.DateRange{Start: &half}, 0},
		{store.DateRange{Start: &before}, 1},
		{store.DateRange{End: &half}, 1},
		{store.DateRange{End: &before}, 0},
		{store.DateRange{End: &half, EndExclusive: true}, 1},
		{store.DateRange{Start: &before, StartExclusive: true}, 1},
	}
	for i, c := range cases {
		p, err := s.ListMessages(bg(), store.MessageQuery{ThreadID: "t1", PerPage: store.PerPageAll, Range: c.r})
		if err != nil || len(p.Messages) != c.want {
			t.Fatalf("case %d: %d messages, want %d (%v)", i, len(p.Messages), c.want, err)
		}
	}
	p, err := s.ListMessages(bg(), store.MessageQuery{ThreadID: "t1", PerPage: store.PerPageAll, Before: &store.Cursor{CreatedAt: half}})
	if err != nil || len(p.Messages) != 1 {
		t.Fatalf("cursor after message: %d, %v", len(p.Messages), err)
	}
}

func TestCursorSameTimestamp(t *testing.T) {
	s := openTemp(t)
	thread(t, s, "t1", "r1")
	var batch []message.Message
	for i := range 5 {
		batch = append(batch, msgAt(fmt.Sprintf("m%d", i), "t1", "r1", "x", at(1)))
	}
	saved, err := s.SaveMessages(bg(), batch)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.ListMessages(bg(), store.MessageQuery{ThreadID: "t1", PerPage: 2, Direction: store.Desc,
		Before: &store.Cursor{CreatedAt: at(1), Seq: saved[3].Seq}})
	if err != nil || len(p.Messages) != 2 || p.Messages[0].ID != "m2" || p.Messages[1].ID != "m1" || !p.HasMore {
		t.Fatalf("page = %+v, %v", p, err)
	}
}

func TestHugePage(t *testing.T) {
	s := openTemp(t)
	thread(t, s, "t1", "r1")
	tp, err := s.ListThreads(bg(), store.ThreadQuery{Page: math.MaxInt, PerPage: 100})
	if err != nil || len(tp.Threads) != 0 || tp.HasMore || tp.Total != 1 {
		t.Fatalf("threads = %+v, %v", tp, err)
	}
	mp, err := s.ListMessages(bg(), store.MessageQuery{ThreadID: "t1", Page: math.MaxInt, PerPage: 100})
	if err != nil || len(mp.Messages) != 0 || mp.HasMore {
		t.Fatalf("messages = %+v, %v", mp, err)
	}
}

func TestClosedStoreErrorsAreStorage(t *testing.T) {
	s, err := Open(bg(), filepath.Join(t.TempDir(), "memory.db"))
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	if _, err := s.GetThread(bg(), "t1"); !errors.Is(err, memerr.ErrStorage) {
		t.Fatalf("GetThread on closed store: %v", err)
	}
	if err := s.DeleteThread(bg(), "t1"); !errors.Is(err, memerr.ErrStorage) {
		t.Fatalf("DeleteThread on closed store: %v", err)
	}
}

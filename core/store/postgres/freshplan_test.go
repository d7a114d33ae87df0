package postgres

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// explain returns the plan of q's ListMessages statement, as ListMessages runs it.
func explain(t *testing.T, s *Store, q store.MessageQuery) string {
	t.Helper()
	q, err := store.NormalizeMessageQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	sql, args := s.listMessagesSQL(q)
	rows, done, err := s.queryIndexOrder(bg(), planGuard, "EXPLAIN "+sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { rows.Close(); _ = done() }()
	return planText(t, rows)
}

// explainWindow returns the plan ListWindow runs q's window statement with:
// prepared, as pgx prepares it, then executed under windowGuard, which
// keeps the generic plan.
func explainWindow(t *testing.T, s *Store, q store.MessageQuery) string {
	t.Helper()
	q, err := store.NormalizeMessageQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	sql, args := s.windowSQL(q)
	return explainPrepared(t, s, windowGuard, sql, args...)
}

// explainPrepared returns the plan of sql prepared, as pgx prepares it, and
// executed with args after the SET LOCAL statements of guard.
func explainPrepared(t *testing.T, s *Store, guard []string, sql string, args ...any) string {
	t.Helper()
	conn, err := s.pool.Acquire(bg())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Conn().Prepare(bg(), "explained", sql); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Conn().Deallocate(bg(), "explained") }()
	tx, err := conn.Begin(bg())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(bg()) }()
	for _, g := range guard {
		if _, err := tx.Exec(bg(), g); err != nil {
			t.Fatal(err)
		}
	}
	marks := make([]string, len(args))
	for i := range args {
		marks[i] = fmt.Sprint("$", i+1)
	}
	// The simple protocol writes the values into the text: EXECUTE takes no parameters.
	explainArgs := append([]any{pgx.QueryExecModeSimpleProtocol}, args...)
	rows, err := tx.Query(bg(), "EXPLAIN EXECUTE explained("+strings.Join(marks, ", ")+")", explainArgs...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	return planText(t, rows)
}

// planText joins the lines of an EXPLAIN.
func planText(t *testing.T, rows pgx.Rows) string {
	t.Helper()
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}

// TestWindowPlanOnFreshTable: on a table no ANALYZE has seen (autovacuum
// off for it, so statistics stay empty), a turn's window read over a long
// thread is still an index range scan in index order, never a scan and sort
// of the whole thread; ListWindow's statement keeps that plan as its
// generic plan.
func TestWindowPlanOnFreshTable(t *testing.T) {
	s := openFresh(t)
	if _, err := s.pool.Exec(bg(), "ALTER TABLE "+s.q.messages+" SET (autovacuum_enabled = false)"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveThread(bg(), store.Thread{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for lo := 0; lo < 20_000; lo += 2000 {
		var batch []message.Message
		for i := lo; i < lo+2000; i++ {
			m := message.NewMessage(message.RoleUser, "message text")
			m.ID, m.ThreadID, m.ResourceID = fmt.Sprint("m", i), "t", "r"
			m.CreatedAt = base.Add(time.Duration(i) * time.Second)
			batch = append(batch, m)
		}
		if _, err := s.SaveMessages(bg(), batch); err != nil {
			t.Fatal(err)
		}
	}
	var analyzed *time.Time
	if err := s.pool.QueryRow(bg(), "SELECT last_analyze FROM pg_stat_user_tables WHERE relid = $1::regclass", s.q.messages).Scan(&analyzed); err != nil || analyzed != nil {
		t.Fatalf("table analyzed (%v, %v): the test needs a fresh one", analyzed, err)
	}
	start := base.Add(10_000 * time.Second)
	cursor := &store.Cursor{CreatedAt: base.Add(19_000 * time.Second), Seq: 1 << 40}
	for name, q := range map[string]store.MessageQuery{
		"window":                {ThreadID: "t", ResourceID: "r", PerPage: 250, Direction: store.Desc},
		"window after boundary": {ThreadID: "t", ResourceID: "r", PerPage: 250, Direction: store.Desc, Range: store.DateRange{Start: &start}},
		"window before cursor":  {ThreadID: "t", ResourceID: "r", PerPage: 250, Direction: store.Desc, Before: cursor},
	} {
		for kind, plan := range map[string]string{"ListMessages": explain(t, s, q), "ListWindow": explainWindow(t, s, q)} {
			if !strings.Contains(plan, "Index Scan Backward using agentmem_messages_thread_created_seq_idx") || strings.Contains(plan, "Sort") {
				t.Errorf("%s, %s: not an index range scan in index order:\n%s", name, kind, plan)
			} else if kind == "ListWindow" && !strings.Contains(plan, "$1") {
				t.Errorf("%s, %s: not the generic plan:\n%s", name, kind, plan)
			} else {
				t.Logf("%s, %s:\n%s", name, kind, plan)
			}
		}
	}
}

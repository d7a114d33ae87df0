package postgres

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core"
)

// explain returns the plan of q's ListMessages statement, as ListMessages runs it.
func explain(t *testing.T, s *Store, q core.MessageQuery) string {
	t.Helper()
	q, err := core.NormalizeMessageQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	sql, args := s.listMessagesSQL(q)
	rows, done, err := s.queryIndexOrder(bg(), "EXPLAIN "+sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { rows.Close(); _ = done() }()
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	return strings.Join(plan, "\n")
}

// TestWindowPlanOnFreshTable: on a table no ANALYZE has seen (autovacuum
// off for it, so statistics stay empty), a turn's window read over a long
// thread is still an index range scan in index order, never a scan and sort
// of the whole thread.
func TestWindowPlanOnFreshTable(t *testing.T) {
	s := openFresh(t)
	if _, err := s.pool.Exec(bg(), "ALTER TABLE "+s.q.messages+" SET (autovacuum_enabled = false)"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveThread(bg(), core.Thread{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for lo := 0; lo < 20_000; lo += 2000 {
		var batch []core.Message
		for i := lo; i < lo+2000; i++ {
			m := core.NewMessage(core.RoleUser, "message text")
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
	cursor := &core.Cursor{CreatedAt: base.Add(19_000 * time.Second), Seq: 1 << 40}
	for name, q := range map[string]core.MessageQuery{
		"window":                {ThreadID: "t", ResourceID: "r", PerPage: 250, Direction: core.Desc},
		"window after boundary": {ThreadID: "t", ResourceID: "r", PerPage: 250, Direction: core.Desc, Range: core.DateRange{Start: &start}},
		"window before cursor":  {ThreadID: "t", ResourceID: "r", PerPage: 250, Direction: core.Desc, Before: cursor},
	} {
		plan := explain(t, s, q)
		if !strings.Contains(plan, "Index Scan Backward using messages_thread_created_seq_idx") || strings.Contains(plan, "Sort") {
			t.Errorf("%s: not an index range scan in index order:\n%s", name, plan)
		} else {
			t.Logf("%s:\n%s", name, plan)
		}
	}
}

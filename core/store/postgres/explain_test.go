package postgres

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// TestQueryPlansUseIndexes seeds 20,000 messages in 200 threads, ANALYZEs
// and checks that the history-window and include queries scan the
// (thread_id, created_at, seq) index, with the planner free to choose, and
// the window reads' generic plans too (under their guard); with 5,200
// threads, the generic plans of the saves of new messages find their thread
// by its primary key.
func TestQueryPlansUseIndexes(t *testing.T) {
	checkQueryPlans(t, openFresh(t))
}

// checkQueryPlans is TestQueryPlansUseIndexes on the store s.
func checkQueryPlans(t *testing.T, s *Store) {
	const threads, per = 200, 100
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var batch []message.Message
	for th := 0; th < threads; th++ {
		tid := fmt.Sprintf("t%03d", th)
		if _, err := s.SaveThread(bg(), store.Thread{ID: tid, ResourceID: fmt.Sprint("r", th%10)}); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < per; i++ {
			m := message.NewMessage(message.RoleUser, "message text")
			m.ID, m.ThreadID, m.ResourceID = fmt.Sprintf("%s-m%03d", tid, i), tid, fmt.Sprint("r", th%10)
			m.CreatedAt = base.Add(time.Duration(i) * time.Second)
			batch = append(batch, m)
		}
		if len(batch) >= 2000 {
			if _, err := s.SaveMessages(bg(), batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if len(batch) > 0 {
		if _, err := s.SaveMessages(bg(), batch); err != nil {
			t.Fatal(err)
		}
	}
	// More threads, so that the threads table is more than a few pages and
	// a save's generic plan has a reason to probe it by primary key (on a
	// table of a few pages a scan is cheaper, and the planner takes it).
	if _, err := s.pool.Exec(bg(), "INSERT INTO "+s.q.threads+" (id, resource_id, created_at, updated_at)"+
		" SELECT 'bulk-' || g, 'r0', now(), now() FROM generate_series(1, 5000) g"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(bg(), "ANALYZE "+s.q.messages+"; ANALYZE "+s.q.threads); err != nil {
		t.Fatal(err)
	}
	cursor := &store.Cursor{CreatedAt: base.Add(50 * time.Second), Seq: 1 << 40}
	queries := map[string]store.MessageQuery{
		"history window":               {ThreadID: "t123", PerPage: 40, Direction: store.Desc},
		"history window before cursor": {ThreadID: "t123", ResourceID: "r3", PerPage: 40, Direction: store.Desc, Before: cursor},
		"include windows": {ThreadID: "t123", PerPage: 0, Include: []store.Include{
			{ID: "t123-m050", Before: 3, After: 3}, {ID: "t007-m010", Before: 5, After: 1}}},
	}
	plans := map[string]string{}
	for name, q := range queries {
		plans[name] = explain(t, s, q)
		if q.Include == nil {
			plans[name+" (ListWindow)"] = explainWindow(t, s, q)
		}
	}
	for name, text := range plans {
		if !strings.Contains(text, "agentmem_messages_thread_created_seq_idx") || strings.Contains(text, "Seq Scan on agentmem_messages") {
			t.Errorf("%s: plan does not use agentmem_messages_thread_created_seq_idx:\n%s", name, text)
		} else {
			t.Logf("%s:\n%s", name, text)
		}
	}
	generic := []string{"SET LOCAL plan_cache_mode = force_generic_plan"}
	content, at := `{"format":2,"parts":[]}`, base
	saves := map[string]string{
		"new messages": explainPrepared(t, s, generic, s.q.saveNewMessages, []string{"x1", "x2"}, "t123", "r3",
			[]string{"user", "user"}, []string{"", ""}, []string{content, content}, []time.Time{at, at}, []int32{1, 1}, []string{"", ""}, at),
		"one new message": explainPrepared(t, s, generic, s.q.saveOneMessage, "x1", "t123", "r3", "user", "", content, at, int32(1), "", at),
	}
	for name, text := range saves {
		if !strings.Contains(text, "agentmem_threads_pkey") || strings.Contains(text, "Seq Scan") {
			t.Errorf("save of %s: generic plan does not find the thread by agentmem_threads_pkey:\n%s", name, text)
		} else {
			t.Logf("save of %s:\n%s", name, text)
		}
	}
}

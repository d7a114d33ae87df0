package sqlite

import (
	"database/sql"
	"fmt"
	"slices"
	"testing"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// Saves keep their statements prepared, and only a bounded set of them:
// after saves of every size from 1 to 7 messages and of 99 to 101, 250
// and 501 (more ids than one IN list holds), the Store holds exactly the
// statements of small saves (up to smallSave messages) and the full-size
// ones (a save of 501 new messages inserts them as SaveMessagesBulk does).
func TestPreparedStatementsBounded(t *testing.T) {
	s := openTemp(t)
	thread(t, s, "t", "r")
	n := 0
	for _, size := range []int{1, 2, 3, 4, 5, 6, 7, 99, 100, 101, 250, 501, 1, 2} {
		batch := make([]message.Message, size)
		for i := range batch {
			batch[i] = msgAt(fmt.Sprintf("m%05d", n), "t", "r", "text", at(n))
			n++
		}
		if _, err := s.SaveMessages(bg(), batch); err != nil {
			t.Fatalf("a save of %d: %v", size, err)
		}
	}
	want := []string{threadOwnerSQL, getThreadSQL, bumpThreadsSQL.text(1), upsertSQL.text(insertRows), storedOwnersSQL.text(maxIn), insertNewSQL.text(bulkRows)}
	for k := 1; k <= smallSave; k++ {
		want = append(want, upsertSQL.text(k), storedOwnersSQL.text(k))
	}
	got := cached(&s.wstmts)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("the Store holds %d statements, want %d:\n%q\nwant\n%q", len(got), len(want), got, want)
	}
}

// A turn's reads run prepared on the readers: the thread, and the history
// read of each filter.
func TestPreparedReads(t *testing.T) {
	s := openTemp(t)
	thread(t, s, "t", "r")
	if _, err := s.SaveMessages(bg(), []message.Message{msgAt("a", "t", "r", "text", at(1))}); err != nil {
		t.Fatal(err)
	}
	q := store.MessageQuery{ThreadID: "t", ResourceID: "r", PerPage: 10, Direction: store.Desc}
	for range 3 {
		if _, err := s.GetThread(bg(), "t"); err != nil {
			t.Fatal(err)
		}
		page, err := s.ListWindow(bg(), q, store.WindowFit{})
		if err != nil || len(page.Messages) != 1 {
			t.Fatalf("ListWindow: %d messages, %v", len(page.Messages), err)
		}
		if page, err := s.ListMessages(bg(), q); err != nil || len(page.Messages) != 1 {
			t.Fatalf("ListMessages: %d messages, %v", len(page.Messages), err)
		}
	}
	list, _, _ := listQuery(q)
	window, _, _ := listQueryCols(q, windowCols)
	got := cached(&s.rstmts)
	want := []string{getThreadSQL, list, window}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("the readers hold %q, want %q", got, want)
	}
}

// A cache keeps at most maxPrepared statements; a statement past the bound
// runs unprepared, and correctly.
func TestStmtCacheBound(t *testing.T) {
	s := openTemp(t)
	for i := range maxPrepared + 6 {
		query := fmt.Sprintf("SELECT %d + ?", i)
		stmts, err := s.rstmts.get(bg(), query)
		if err != nil {
			t.Fatal(err)
		}
		if cached := stmts[query] != nil; cached != (i < maxPrepared) {
			t.Fatalf("statement %d: cached %v", i, cached)
		}
		var n int
		if err := s.read(bg(), "test", func(tx *sql.Tx) error {
			return preparedTx{tx: tx, stmts: stmts}.QueryRowContext(bg(), query, 1).Scan(&n)
		}); err != nil || n != i+1 {
			t.Fatalf("statement %d: %d, %v", i, n, err)
		}
	}
	if n := len(cached(&s.rstmts)); n != maxPrepared {
		t.Fatalf("%d statements cached, want %d", n, maxPrepared)
	}
}

// cached returns the texts c holds, sorted.
func cached(c *stmtCache) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for q := range c.stmts {
		out = append(out, q)
	}
	slices.Sort(out)
	return out
}

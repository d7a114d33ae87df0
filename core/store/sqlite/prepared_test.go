package sqlite

import (
	"fmt"
	"slices"
	"testing"

	"github.com/agentmem/agentmem/core"
)

// Saves keep their statements prepared, and only a bounded set of them:
// after saves of every size from 1 to 7 messages and of 99 to 101, 250
// and 501 (more ids than one IN list holds), the Store holds exactly the
// statements of small saves (up to smallSave messages) and the full-size
// ones.
func TestPreparedStatementsBounded(t *testing.T) {
	s := openTemp(t)
	thread(t, s, "t", "r")
	n := 0
	for _, size := range []int{1, 2, 3, 4, 5, 6, 7, 99, 100, 101, 250, 501, 1, 2} {
		batch := make([]core.Message, size)
		for i := range batch {
			batch[i] = msgAt(fmt.Sprintf("m%05d", n), "t", "r", "text", at(n))
			n++
		}
		if _, err := s.SaveMessages(bg(), batch); err != nil {
			t.Fatalf("a save of %d: %v", size, err)
		}
	}
	want := []string{threadOwnerSQL, getThreadSQL, bumpThreadsSQL.text(1), upsertSQL.text(insertRows), storedOwnersSQL.text(maxIn)}
	for k := 1; k <= smallSave; k++ {
		want = append(want, upsertSQL.text(k), storedOwnersSQL.text(k))
	}
	var got []string
	s.stmtMu.Lock()
	for q := range s.stmts {
		got = append(got, q)
	}
	s.stmtMu.Unlock()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("the Store holds %d statements, want %d:\n%q\nwant\n%q", len(got), len(want), got, want)
	}
}

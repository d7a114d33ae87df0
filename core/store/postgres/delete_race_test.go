package postgres

import (
	"testing"
	"time"

	"github.com/agentmem/agentmem/core"
)

// TestDeleteThreadWaitsForObservationWrite: DeleteThread must remove the
// observation record that a PutObservations in flight (holding its lock on
// the thread) commits while the delete waits for that lock; otherwise the
// record outlives its thread and a new thread with the same id inherits it.
func TestDeleteThreadWaitsForObservationWrite(t *testing.T) {
	s := openFresh(t)
	if _, err := s.SaveThread(bg(), core.Thread{ID: "A", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	// PutObservations' own statements, paused before commit.
	tx, err := s.pool.Begin(bg())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(bg()) }()
	var one int32
	if err := tx.QueryRow(bg(), s.q.lockThread, "A").Scan(&one); err != nil {
		t.Fatal(err)
	}
	var version int64
	if err := tx.QueryRow(bg(), s.q.putObservations, "thread:A", "obs", int32(1), int32(0),
		nil, []string{}, int64(0), now()).Scan(&version); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.DeleteThread(bg(), "A") }()
	// Let DeleteThread start and wait for the thread lock.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var waiting int
		if err := s.pool.QueryRow(bg(), `SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND strpos(query, $1) > 0`, s.schema).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("DeleteThread never waited for the lock")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := tx.Commit(bg()); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetThread(bg(), "A"); err == nil {
		t.Fatal("thread survived DeleteThread")
	}
	if _, err := s.SaveThread(bg(), core.Thread{ID: "A", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	rec, err := s.GetObservations(bg(), "thread:A")
	if err != nil || rec.Version != 0 {
		t.Fatalf("new thread A inherited observations of the deleted one: %+v %v", rec, err)
	}
}

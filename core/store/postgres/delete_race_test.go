package postgres

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// TestDeleteThreadWaitsForObservationWrite: DeleteThread must remove the
// observation record that a PutObservations in flight (holding its lock on
// the thread) commits while the delete waits for that lock; otherwise the
// record outlives its thread and a new thread with the same id inherits it.
func TestDeleteThreadWaitsForObservationWrite(t *testing.T) {
	// PutObservations' own statements, paused before commit.
	s, tx := threadInTx(t)
	var one int32
	if err := tx.QueryRow(bg(), s.q.lockThread, "A").Scan(&one); err != nil {
		t.Fatal(err)
	}
	var version int64
	if err := tx.QueryRow(bg(), s.q.putObservations, "thread:A", "obs", int32(1), int32(0),
		nil, []string{}, int64(0), now(), "{}", []string{}).Scan(&version); err != nil {
		t.Fatal(err)
	}
	deleteWhileLocked(t, s, tx, "A")
	if _, err := s.GetThread(bg(), "A"); err == nil {
		t.Fatal("thread survived DeleteThread")
	}
	if _, err := s.SaveThread(bg(), store.Thread{ID: "A", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	rec, err := s.GetObservations(bg(), "thread:A")
	if err != nil || rec.Version != 0 {
		t.Fatalf("new thread A inherited observations of the deleted one: %+v %v", rec, err)
	}
}

// TestDeleteThreadWaitsForSave: the messages of a SaveMessages in flight
// (holding its lock on the thread) that commits while DeleteThread waits
// for that lock go with the thread (there is no foreign key to cascade),
// whichever of its statements the save ran.
func TestDeleteThreadWaitsForSave(t *testing.T) {
	at := now()
	content := `{"format":2,"parts":[]}`
	saves := map[string]func(s *Store, tx pgx.Tx) error{
		"save_messages": func(s *Store, tx pgx.Tx) error {
			_, err := tx.Exec(bg(), s.q.saveMessages, []string{"m1", "m2"}, []string{"A", "A"}, []string{"r", "r"},
				[]string{"user", "user"}, []string{"", ""}, []string{content, content},
				[]time.Time{at, at}, []int32{1, 1}, []string{"", ""}, at)
			return err
		},
		"save_new_messages": func(s *Store, tx pgx.Tx) error {
			_, err := tx.Exec(bg(), s.q.saveNewMessages, []string{"m1", "m2"}, "A", "r",
				[]string{"user", "user"}, []string{"", ""}, []string{content, content},
				[]time.Time{at, at}, []int32{1, 1}, []string{"", ""}, at)
			return err
		},
		"one message": func(s *Store, tx pgx.Tx) error {
			_, err := tx.Exec(bg(), s.q.saveOneMessage, "m1", "A", "r", "user", "", content, at, int32(1), "", at)
			return err
		},
	}
	for name, save := range saves {
		t.Run(name, func(t *testing.T) {
			// SaveMessages' own statement, paused before commit.
			s, tx := threadInTx(t)
			if err := save(s, tx); err != nil {
				t.Fatal(err)
			}
			var written int
			if err := tx.QueryRow(bg(), "SELECT count(*) FROM "+s.q.messages).Scan(&written); err != nil || written == 0 {
				t.Fatalf("the save wrote nothing: %d %v", written, err)
			}
			deleteWhileLocked(t, s, tx, "A")
			if got, err := s.GetMessages(bg(), []string{"m1", "m2"}); err != nil || len(got) != 0 {
				t.Fatalf("messages outlived their thread: %d %v", len(got), err)
			}
			// A save after the delete finds the thread gone.
			for _, n := range []int{1, 2} {
				var batch []message.Message
				for i := 0; i < n; i++ {
					m := message.NewMessage(message.RoleUser, "late")
					m.ID, m.ThreadID, m.ResourceID, m.CreatedAt = fmt.Sprint("late", i), "A", "r", time.Now()
					batch = append(batch, m)
				}
				if _, err := s.SaveMessages(bg(), batch); !errors.Is(err, memerr.ErrThreadNotFound) {
					t.Fatalf("save of %d into the deleted thread: %v", n, err)
				}
			}
		})
	}
}

// threadInTx opens a fresh store with thread A of resource r and begins a
// transaction, rolled back at the end of the test unless committed.
func threadInTx(t *testing.T) (*Store, pgx.Tx) {
	t.Helper()
	s := openFresh(t)
	if _, err := s.SaveThread(bg(), store.Thread{ID: "A", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	tx, err := s.pool.Begin(bg())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback(bg()) })
	return s, tx
}

// deleteWhileLocked runs DeleteThread(id) while tx holds the thread's lock,
// waits until it waits for that lock, commits tx and waits for the delete.
func deleteWhileLocked(t *testing.T, s *Store, tx pgx.Tx, id string) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- s.DeleteThread(bg(), id) }()
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
}

package observe

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
)

// Waiting for the lock ends with the caller's context, reported as a
// *memerr.Error that matches both the context error and its code.
func TestLockWaitHonoursContext(t *testing.T) {
	var r Runtime
	unlock, err := r.Lock(context.Background(), "thread:t", true)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = r.Lock(ctx, "thread:t", true)
	var e *memerr.Error
	if !errors.Is(err, context.Canceled) || !errors.Is(err, memerr.ErrCanceled) || !errors.As(err, &e) {
		t.Fatalf("lock wait = %v (%T); want *memerr.Error with CodeCanceled", err, err)
	}
}

// Without wait a taken lock fails at once with ErrBusy; other keys and a
// released lock are free.
func TestLockWithoutWait(t *testing.T) {
	var r Runtime
	ctx := context.Background()
	unlock, err := r.Lock(ctx, "k", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Lock(ctx, "k", false); !errors.Is(err, ErrBusy) {
		t.Fatalf("second lock = %v, want ErrBusy", err)
	}
	other, err := r.Lock(ctx, "other", false)
	if err != nil {
		t.Fatalf("lock of another key: %v", err)
	}
	other()
	unlock()
	again, err := r.Lock(ctx, "k", false)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	again()
	if len(r.locks) != 0 {
		t.Fatalf("released locks are kept: %v", r.locks)
	}
}

// Requests for a key whose job is running coalesce into one more run of the
// newest request.
func TestScheduleCoalesces(t *testing.T) {
	var r Runtime
	var wg sync.WaitGroup
	started, release := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var ran []int
	record := func(i int) func() {
		return func() { mu.Lock(); ran = append(ran, i); mu.Unlock() }
	}
	r.Schedule("k", &wg, func() { close(started); <-release; record(0)() })
	<-started
	for i := 1; i <= 3; i++ {
		r.Schedule("k", &wg, record(i))
	}
	close(release)
	wg.Wait()
	if len(ran) != 2 || ran[0] != 0 || ran[1] != 3 {
		t.Fatalf("runs = %v, want [0 3]", ran)
	}
	if len(r.jobs) != 0 {
		t.Fatalf("finished jobs are kept: %v", r.jobs)
	}
}

// An oversize note holds for the version it was taken at only.
func TestOversizeNotes(t *testing.T) {
	var r Runtime
	rec := store.ObservationRecord{Key: "thread:t", Version: 3}
	if r.ReflectedOversize(rec) {
		t.Fatal("oversize before any note")
	}
	r.NoteOversize(rec, true)
	if !r.ReflectedOversize(rec) {
		t.Fatal("note not kept")
	}
	if next := (store.ObservationRecord{Key: "thread:t", Version: 4}); r.ReflectedOversize(next) {
		t.Fatal("note holds for a newer version")
	}
	r.NoteOversize(rec, false)
	if r.ReflectedOversize(rec) {
		t.Fatal("note not cleared")
	}
}

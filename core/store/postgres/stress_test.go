package postgres

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// withPoolSize adds pool_max_conns to a connection string.
func withPoolSize(dsn string, n int) string {
	if strings.Contains(dsn, "://") {
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		return fmt.Sprintf("%s%spool_max_conns=%d", dsn, sep, n)
	}
	return fmt.Sprintf("%s pool_max_conns=%d", dsn, n)
}

// boundaryAtLeast reports whether got is not behind ref (same epoch assumed):
// a newer createdAt, or the same one with every id of ref.
func boundaryAtLeast(got, ref store.Boundary) bool {
	if got.CreatedAt.After(ref.CreatedAt) {
		return true
	}
	if !got.CreatedAt.Equal(ref.CreatedAt) {
		return false
	}
	for _, id := range ref.MessageIDs {
		if !slices.Contains(got.MessageIDs, id) {
			return false
		}
	}
	return true
}

// TestConcurrentLoadTwoPools: 32 goroutines save 500 messages each into one
// thread through two separate pools while AdvanceBoundary races on the same
// thread; every message is stored once, in one total order, and the boundary
// never moves backwards.
func TestConcurrentLoadTwoPools(t *testing.T) {
	schema := freshSchema(t)
	dsn := withPoolSize(testDSN(t), 12)
	ctx, cancel := context.WithTimeout(bg(), 3*time.Minute)
	defer cancel()
	var stores [2]*Store
	for i := range stores {
		s, err := Open(ctx, dsn, WithSchema(schema))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		stores[i] = s
	}
	if _, err := stores[0].SaveThread(ctx, store.Thread{ID: "hot", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}

	const workers, each = 32, 500
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	var (
		wg, bwg  sync.WaitGroup
		errMu    sync.Mutex
		firstErr error
	)
	fail := func(err error) {
		errMu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		errMu.Unlock()
		cancel()
	}

	// Boundary racers and a watcher run until the writers are done.
	stop := make(chan struct{})
	var candMu sync.Mutex
	var cands []store.Boundary
	for r := 0; r < 4; r++ {
		bwg.Add(1)
		go func(r int) {
			defer bwg.Done()
			rng := rand.New(rand.NewSource(int64(r)))
			var last store.Boundary
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				at := base.Add(time.Duration(rng.Intn(400)) * time.Millisecond)
				cand := store.Boundary{CreatedAt: at, MessageIDs: []string{fmt.Sprintf("b%d-%d", r, i%3)}, MaxTokens: 1000, AtMaxRemoveTokens: 100}
				got, err := stores[(r+i)%2].AdvanceBoundary(ctx, "hot", "r", cand)
				if err != nil {
					fail(fmt.Errorf("AdvanceBoundary: %w", err))
					return
				}
				candMu.Lock()
				cands = append(cands, cand)
				candMu.Unlock()
				if !boundaryAtLeast(got, cand) || !boundaryAtLeast(got, last) {
					fail(fmt.Errorf("boundary went backwards: got %+v after %+v for candidate %+v", got, last, cand))
					return
				}
				last = got
			}
		}(r)
	}
	bwg.Add(1)
	go func() {
		defer bwg.Done()
		var last store.Boundary
		for {
			select {
			case <-stop:
				return
			default:
			}
			th, err := stores[1].GetThread(ctx, "hot")
			if err != nil {
				fail(err)
				return
			}
			if th.Boundary != nil {
				if !boundaryAtLeast(*th.Boundary, last) {
					fail(fmt.Errorf("stored boundary went backwards: %+v after %+v", *th.Boundary, last))
					return
				}
				last = *th.Boundary
			}
			time.Sleep(time.Millisecond)
		}
	}()

	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(1000 + w)))
			for sent := 0; sent < each; {
				k := min(1+rng.Intn(5), each-sent)
				batch := make([]message.Message, k)
				for j := range batch {
					m := message.NewMessage(message.RoleUser, "load")
					m.ID, m.ThreadID, m.ResourceID = fmt.Sprintf("w%02d-%03d", w, sent+j), "hot", "r"
					// Many equal timestamps, all after every boundary candidate: a
					// message inserted at or before the boundary pulls it back.
					m.CreatedAt = base.Add(time.Duration(500+rng.Intn(200)) * time.Millisecond)
					batch[j] = m
				}
				out, err := stores[rng.Intn(2)].SaveMessages(ctx, batch)
				if err != nil {
					fail(fmt.Errorf("worker %d: %w", w, err))
					return
				}
				for _, m := range out {
					if m.Seq <= 0 {
						fail(fmt.Errorf("message %s has no seq", m.ID))
						return
					}
				}
				sent += k
			}
		}(w)
	}
	wg.Wait()
	close(stop)
	bwg.Wait()
	if firstErr != nil {
		t.Fatal(firstErr)
	}

	p, err := stores[0].ListMessages(ctx, store.MessageQuery{ThreadID: "hot", PerPage: store.PerPageAll, IncludeTotal: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Total != workers*each || len(p.Messages) != workers*each {
		t.Fatalf("stored %d (total %d), want %d", len(p.Messages), p.Total, workers*each)
	}
	seen := make(map[string]bool, len(p.Messages))
	seqs := make(map[int64]bool, len(p.Messages))
	for i, m := range p.Messages {
		if seen[m.ID] || seqs[m.Seq] {
			t.Fatalf("duplicate id %s or seq %d", m.ID, m.Seq)
		}
		seen[m.ID], seqs[m.Seq] = true, true
		if i > 0 && !message.Less(&p.Messages[i-1], &m) {
			t.Fatalf("order broken at %d", i)
		}
	}
	for w := 0; w < workers; w++ {
		for i := 0; i < each; i++ {
			if id := fmt.Sprintf("w%02d-%03d", w, i); !seen[id] {
				t.Fatalf("message %s missing", id)
			}
		}
	}

	// The final boundary is the newest candidate with the union of its ids.
	var newest time.Time
	for _, c := range cands {
		if c.CreatedAt.After(newest) {
			newest = c.CreatedAt
		}
	}
	want := map[string]bool{}
	for _, c := range cands {
		if c.CreatedAt.Equal(newest) {
			for _, id := range c.MessageIDs {
				want[id] = true
			}
		}
	}
	th, err := stores[0].GetThread(ctx, "hot")
	if err != nil || th.Boundary == nil {
		t.Fatalf("final thread %+v %v", th, err)
	}
	got := map[string]bool{}
	for _, id := range th.Boundary.MessageIDs {
		if got[id] {
			t.Fatalf("duplicate id %s in boundary %v", id, th.Boundary.MessageIDs)
		}
		got[id] = true
	}
	if !th.Boundary.CreatedAt.Equal(newest) || fmt.Sprint(sortedKeys(got)) != fmt.Sprint(sortedKeys(want)) {
		t.Fatalf("final boundary %+v, want createdAt %v ids %v", *th.Boundary, newest, sortedKeys(want))
	}
	t.Logf("%d messages, %d boundary advances", len(p.Messages), len(cands))
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestConcurrentMixedNoDeadlock races saves (with moves between threads),
// deletes, boundary advances and thread updates over a small set of ids on
// two pools. Every statement locks threads before messages, so none may fail
// (a deadlock would surface as core.ErrStorage).
func TestConcurrentMixedNoDeadlock(t *testing.T) {
	schema := freshSchema(t)
	ctx, cancel := context.WithTimeout(bg(), 2*time.Minute)
	defer cancel()
	var stores [2]*Store
	for i := range stores {
		stores[i] = openSchema(t, schema)
	}
	threads := []string{"a", "b", "c", "d"}
	for _, id := range threads {
		if _, err := stores[0].SaveThread(ctx, store.Thread{ID: id, ResourceID: "r"}); err != nil {
			t.Fatal(err)
		}
	}
	base := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := 0; w < 12; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(w)))
			for i := 0; i < 150; i++ {
				s := stores[rng.Intn(2)]
				var err error
				switch op := rng.Intn(10); {
				case op < 5:
					batch := make([]message.Message, 1+rng.Intn(6))
					for j := range batch {
						m := message.NewMessage(message.RoleUser, "x")
						m.ID, m.ThreadID, m.ResourceID = fmt.Sprint("m", rng.Intn(25)), threads[rng.Intn(len(threads))], "r"
						m.CreatedAt = base.Add(time.Duration(rng.Intn(50)) * time.Second)
						batch[j] = m
					}
					_, err = s.SaveMessages(ctx, batch)
				case op < 7:
					ids := make([]string, 1+rng.Intn(4))
					for j := range ids {
						ids[j] = fmt.Sprint("m", rng.Intn(25))
					}
					err = s.DeleteMessages(ctx, ids)
				case op < 9:
					_, err = s.AdvanceBoundary(ctx, threads[rng.Intn(len(threads))], "r",
						store.Boundary{CreatedAt: base.Add(time.Duration(rng.Intn(50)) * time.Second), MessageIDs: []string{fmt.Sprint("m", rng.Intn(25))}, MaxTokens: 10})
				default:
					title := fmt.Sprint("w", w, "-", i)
					_, err = s.UpdateThread(ctx, threads[rng.Intn(len(threads))], &title, map[string]any{"w": float64(w)})
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// Each stored message is in exactly one thread.
	total := 0
	for _, id := range threads {
		p, err := stores[0].ListMessages(ctx, store.MessageQuery{ThreadID: id, PerPage: store.PerPageAll})
		if err != nil {
			t.Fatal(err)
		}
		total += len(p.Messages)
	}
	var n int
	if err := stores[0].pool.QueryRow(ctx, "SELECT count(*) FROM "+stores[0].q.messages).Scan(&n); err != nil || n != total {
		t.Fatalf("messages %d, listed %d, %v", n, total, err)
	}
}

package storetest

import (
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

func bnd(at int, max, remove int, ids ...string) store.Boundary {
	return store.Boundary{CreatedAt: T(at), MessageIDs: ids, MaxTokens: max, AtMaxRemoveTokens: remove}
}

func advance(t *testing.T, s *store.Checked, thread string, b store.Boundary) store.Boundary {
	t.Helper()
	out, err := s.AdvanceBoundary(ctx(), thread, "r", b)
	if err != nil {
		t.Fatalf("AdvanceBoundary: %v", err)
	}
	return out
}

func stored(t *testing.T, s *store.Checked, thread string) store.Boundary {
	t.Helper()
	th, err := s.GetThread(ctx(), thread)
	if err != nil || th.Boundary == nil {
		t.Fatalf("no stored boundary: %+v %v", th, err)
	}
	return *th.Boundary
}

func sameBoundary(t *testing.T, what string, got, want store.Boundary) {
	t.Helper()
	if !got.CreatedAt.Equal(want.CreatedAt) || fmt.Sprint(got.MessageIDs) != fmt.Sprint(want.MessageIDs) ||
		got.MaxTokens != want.MaxTokens || got.AtMaxRemoveTokens != want.AtMaxRemoveTokens {
		t.Fatalf("%s: boundary %+v, want %+v", what, got, want)
	}
}

func testBoundaryMonotonic(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	advance(t, s, "A", bnd(1, 100, 25, "first"))
	got := advance(t, s, "A", bnd(0, 100, 25, "older"))
	sameBoundary(t, "older ignored", got, bnd(1, 100, 25, "first"))
	got = advance(t, s, "A", bnd(1, 100, 25, "second", "first"))
	sameBoundary(t, "union", got, bnd(1, 100, 25, "first", "second"))
	sameBoundary(t, "stored", stored(t, s, "A"), bnd(1, 100, 25, "first", "second"))
	got = advance(t, s, "A", bnd(2, 100, 25, "newer"))
	sameBoundary(t, "newer", got, bnd(2, 100, 25, "newer"))

	// Concurrent newer and older candidates: newest wins.
	mustThread(t, s, "B", "r")
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, _ = s.AdvanceBoundary(ctx(), "B", "r", bnd(i%5, 100, 25, fmt.Sprint("m", i%5)))
		}(i)
	}
	wg.Wait()
	if b := stored(t, s, "B"); !b.CreatedAt.Equal(T(4)) {
		t.Fatalf("concurrent: stored %v, want %v", b.CreatedAt, T(4))
	}
}

func testBoundaryEpochs(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	advance(t, s, "A", bnd(5, 100, 25, "a"))
	got := advance(t, s, "A", bnd(1, 200, 50, "b"))
	sameBoundary(t, "new epoch replaces", got, bnd(1, 200, 50, "b"))
}

func testBoundaryOwnership(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	_, err := s.AdvanceBoundary(ctx(), "A", "wrong", bnd(1, 100, 25, "x"))
	wantCode(t, err, memerr.ErrResourceMismatch)
	_, err = s.AdvanceBoundary(ctx(), "missing", "r", bnd(1, 100, 25, "x"))
	wantCode(t, err, memerr.ErrThreadNotFound)
	th, _ := s.GetThread(ctx(), "A")
	if th.Boundary != nil {
		t.Fatalf("wrong-resource advance wrote %+v", th.Boundary)
	}
}

func testBoundaryPreservesThread(t *testing.T, s *store.Checked) {
	_, err := s.SaveThread(ctx(), store.Thread{ID: "A", ResourceID: "r", Title: "Keep title", Metadata: map[string]any{"unrelated": true}, CreatedAt: T(0), UpdatedAt: T(0)})
	if err != nil {
		t.Fatal(err)
	}
	advance(t, s, "A", bnd(1, 32, 0, "old"))
	th, _ := s.GetThread(ctx(), "A")
	if th.Title != "Keep title" || !reflect.DeepEqual(th.Metadata, map[string]any{"unrelated": true}) {
		t.Fatalf("thread changed: %+v", th)
	}
	title := "New"
	if _, err := s.UpdateThread(ctx(), "A", &title, map[string]any{"x": "y"}); err != nil {
		t.Fatal(err)
	}
	sameBoundary(t, "after UpdateThread", stored(t, s, "A"), bnd(1, 32, 0, "old"))
}

func testConcurrentSaves(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	const workers, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				m := msg(fmt.Sprintf("w%d-%d", w, i), "A", "r", "x", T(i))
				if _, err := s.SaveMessages(ctx(), []message.Message{m}); err != nil {
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
	p := list(t, s, store.MessageQuery{ThreadID: "A", PerPage: store.PerPageAll})
	checkTotalOrder(t, p.Messages, workers*each)
}

// checkTotalOrder asserts n distinct messages in strictly increasing (CreatedAt, Seq).
func checkTotalOrder(t *testing.T, msgs []message.Message, n int) {
	t.Helper()
	seen := map[string]bool{}
	for i, m := range msgs {
		if seen[m.ID] {
			t.Fatalf("duplicate %s", m.ID)
		}
		seen[m.ID] = true
		if i > 0 && !message.Less(&msgs[i-1], &m) {
			t.Fatalf("order broken at %d: %v/%d then %v/%d", i, msgs[i-1].CreatedAt, msgs[i-1].Seq, m.CreatedAt, m.Seq)
		}
	}
	if len(seen) != n {
		t.Fatalf("stored %d messages, want %d", len(seen), n)
	}
}

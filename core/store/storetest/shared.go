package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

func testSharedVisibility(t *testing.T, a, b *store.Checked) {
	mustThread(t, a, "A", "r")
	mustSave(t, a, msg("m1", "A", "r", "from a", T(1)))
	p := list(t, b, store.MessageQuery{ThreadID: "A", PerPage: store.PerPageAll})
	eq(t, "b sees a", texts(p.Messages), []string{"from a"})
	mustSave(t, b, msg("m2", "A", "r", "from b", T(2)))
	eq(t, "a sees b", texts(list(t, a, store.MessageQuery{ThreadID: "A", PerPage: store.PerPageAll}).Messages), []string{"from a", "from b"})
}

func testSharedBoundaryRace(t *testing.T, a, b *store.Checked) {
	mustThread(t, a, "A", "r")
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			s := a
			if i%2 == 1 {
				s = b
			}
			if _, err := s.AdvanceBoundary(ctx(), "A", "r", bnd(i%7, 100, 25, fmt.Sprint("m", i%7))); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	if got := stored(t, b, "A"); !got.CreatedAt.Equal(T(6)) || fmt.Sprint(got.MessageIDs) != "[m6]" {
		t.Fatalf("race result %+v", got)
	}
}

func testSharedBoundaryUnion(t *testing.T, a, b *store.Checked) {
	mustThread(t, a, "A", "r")
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			s := a
			if i%2 == 1 {
				s = b
			}
			if _, err := s.AdvanceBoundary(ctx(), "A", "r", bnd(3, 100, 25, fmt.Sprint("id", i))); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	got := stored(t, a, "A")
	if len(got.MessageIDs) != 10 {
		t.Fatalf("union lost ids: %v", got.MessageIDs)
	}
}

func testSharedWorkingMemoryRace(t *testing.T, a, b *store.Checked) {
	// Each writer retries on conflict; every increment must survive.
	const writers, rounds = 4, 10
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			s := a
			if w%2 == 1 {
				s = b
			}
			for i := 0; i < rounds; i++ {
				for {
					cur, err := s.GetWorkingMemory(ctx(), store.ScopeResource, "r")
					if err != nil {
						t.Error(err)
						return
					}
					_, err = s.PutWorkingMemory(ctx(), store.ScopeResource, "r", cur.Data+"x", cur.Version)
					if err == nil {
						break
					}
					if !errors.Is(err, memerr.ErrConflict) {
						t.Error(err)
						return
					}
				}
			}
		}(w)
	}
	wg.Wait()
	got, _ := a.GetWorkingMemory(ctx(), store.ScopeResource, "r")
	if len(got.Data) != writers*rounds || got.Version != writers*rounds {
		t.Fatalf("lost updates: len %d version %d, want %d", len(got.Data), got.Version, writers*rounds)
	}
}

func testSharedSaveRace(t *testing.T, a, b *store.Checked) {
	mustThread(t, a, "A", "r")
	const workers, each = 6, 20
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			s := a
			if w%2 == 1 {
				s = b
			}
			for i := 0; i < each; i++ {
				batch := []message.Message{msg(fmt.Sprintf("w%d-%d-a", w, i), "A", "r", "x", T(i)), msg(fmt.Sprintf("w%d-%d-b", w, i), "A", "r", "y", T(i))}
				if _, err := s.SaveMessages(ctx(), batch); err != nil {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	checkTotalOrder(t, list(t, b, store.MessageQuery{ThreadID: "A", PerPage: store.PerPageAll}).Messages, workers*each*2)
}

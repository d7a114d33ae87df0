package storetest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// runMove runs the ThreadMover cases (Mastra's updateThreadResourceId) when
// the backend has the capability.
func runMove(t *testing.T, open Opener) {
	cases := []struct {
		name string
		fn   func(t *testing.T, s *store.Checked)
	}{
		{"MoveThreadMovesThreadAndMessagesPreservingCreatedAt", testMoveThreadMoves},
		{"MoveThreadSameResourceIsNoOp", testMoveThreadSameResource},
		{"MoveThreadMissingThreadNotFound", testMoveThreadMissing},
		{"MoveThreadBadInputChangesNothing", testMoveThreadBadInput},
		{"MoveThreadMarksMessagesUnindexed", testMoveThreadMarks},
		{"MoveThreadKeepsThreadStateLeavesResourceState", testMoveThreadState},
		{"MoveThreadNeverSplitsOwnershipUnderConcurrentMoves", testMoveThreadConcurrent},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := store.Check(open(t))
			t.Cleanup(func() { _ = s.Close() })
			if !s.CanMoveThreads() {
				t.Fatal("the store does not implement store.ThreadMover")
			}
			c.fn(t, s)
		})
	}
}

// seedMove stores thread A of resource "guest" with three messages, and a
// thread B of "guest" that stays.
func seedMove(t *testing.T, s *store.Checked) store.Thread {
	t.Helper()
	th := mustThread(t, s, "A", "guest")
	mustThread(t, s, "B", "guest")
	mustSave(t, s, msg("m1", "A", "guest", "one", T(1)), msg("m2", "A", "guest", "two", T(2)),
		msg("m3", "A", "guest", "three", T(3)), msg("b1", "B", "guest", "stays", T(4)))
	return th
}

func owners(t *testing.T, s *store.Checked, thread string) []string {
	t.Helper()
	var out []string
	for _, m := range list(t, s, store.MessageQuery{ThreadID: thread, PerPage: store.PerPageAll}).Messages {
		out = append(out, m.ResourceID)
	}
	return out
}

func testMoveThreadMoves(t *testing.T, s *store.Checked) {
	before := seedMove(t, s)
	got, err := s.MoveThread(ctx(), "A", "user")
	if err != nil {
		t.Fatalf("MoveThread: %v", err)
	}
	if got.ResourceID != "user" || !got.CreatedAt.Equal(before.CreatedAt) || got.UpdatedAt.Before(before.UpdatedAt) ||
		got.Title != before.Title {
		t.Fatalf("moved thread = %+v, from %+v", got, before)
	}
	th, err := s.GetThread(ctx(), "A")
	if err != nil || th.ResourceID != "user" || !th.CreatedAt.Equal(before.CreatedAt) {
		t.Fatalf("GetThread after move = %+v, %v", th, err)
	}
	eq(t, "owners of A", owners(t, s, "A"), []string{"user", "user", "user"})
	eq(t, "owners of B", owners(t, s, "B"), []string{"guest"})
	eq(t, "A under its old resource", ids(list(t, s, store.MessageQuery{ThreadID: "A", ResourceID: "guest", PerPage: store.PerPageAll}).Messages), []string{})
	eq(t, "A under its new resource", ids(list(t, s, store.MessageQuery{ThreadID: "A", ResourceID: "user", PerPage: store.PerPageAll}).Messages), []string{"m1", "m2", "m3"})
	for res, want := range map[string][]string{"guest": {"B"}, "user": {"A"}} {
		page, err := s.ListThreads(ctx(), store.ThreadQuery{ResourceID: res, PerPage: store.PerPageAll})
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "threads of "+res, threadIDs(page.Threads), want)
	}
	if _, _, obs, _ := s.Capabilities(); obs {
		msgs, err := s.ListResourceMessages(ctx(), store.ResourceMessageQuery{ResourceID: "user", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "messages of the new resource", ids(msgs), []string{"m1", "m2", "m3"})
	}
	// The thread now belongs to "user": saves under the old resource fail.
	_, err = s.SaveMessages(ctx(), msgs1("m4", "A", "guest"))
	wantCode(t, err, memerr.ErrResourceMismatch)
	mustSave(t, s, msgs1("m4", "A", "user")...)
	eq(t, "owners after a save", owners(t, s, "A"), []string{"user", "user", "user", "user"})
}

func testMoveThreadSameResource(t *testing.T, s *store.Checked) {
	seedMove(t, s)
	before, _ := s.GetThread(ctx(), "A")
	if err := s.ClearUnindexed(ctx(), []string{"m1", "m2", "m3"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.MoveThread(ctx(), "A", "guest")
	if err != nil || got.ResourceID != "guest" || !got.UpdatedAt.Equal(before.UpdatedAt) {
		t.Fatalf("same-resource MoveThread = %+v, %v; before %+v", got, err, before)
	}
	eq(t, "owners", owners(t, s, "A"), []string{"guest", "guest", "guest"})
	marked, err := s.ListUnindexed(ctx(), "", 10)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "marked by a no-op", ids(marked), []string{})
}

func testMoveThreadMissing(t *testing.T, s *store.Checked) {
	_, err := s.MoveThread(ctx(), "nope", "user")
	wantCode(t, err, memerr.ErrThreadNotFound)
}

func testMoveThreadBadInput(t *testing.T, s *store.Checked) {
	seedMove(t, s)
	for _, c := range []struct {
		thread, resource string
		want             error
	}{{"A", "", memerr.ErrMissingResourceID}, {"", "user", memerr.ErrMissingThreadID}, {"A", "bad\x00id", memerr.ErrInvalidArgument}} {
		_, err := s.MoveThread(ctx(), c.thread, c.resource)
		wantCode(t, err, c.want)
	}
	eq(t, "owners", owners(t, s, "A"), []string{"guest", "guest", "guest"})
}

func testMoveThreadMarks(t *testing.T, s *store.Checked) {
	seedMove(t, s)
	if _, err := s.MoveThread(ctx(), "A", "user"); err != nil {
		t.Fatal(err)
	}
	for res, want := range map[string][]string{"user": {"m1", "m2", "m3"}, "guest": {}} {
		marked, err := s.ListUnindexed(ctx(), res, 10)
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "unindexed of "+res, ids(marked), want)
	}
}

func testMoveThreadState(t *testing.T, s *store.Checked) {
	seedMove(t, s)
	if _, err := s.PutWorkingMemory(ctx(), store.ScopeThread, "A", "thread notes", 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutWorkingMemory(ctx(), store.ScopeResource, "guest", "guest profile", 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutWorkingMemory(ctx(), store.ScopeResource, "user", "user profile", 0); err != nil {
		t.Fatal(err)
	}
	b, err := s.AdvanceBoundary(ctx(), "A", "guest", store.Boundary{CreatedAt: T(2), MessageIDs: []string{"m2"}, MaxTokens: 10})
	if err != nil {
		t.Fatal(err)
	}
	_, _, obs, _ := s.Capabilities()
	key := store.ObservationKey(store.ScopeThread, "A", "")
	if obs {
		putObs(t, s, store.ObservationRecord{Key: key, Observations: "- thread fact", LastObservedAt: T(3), ObservedMessageIDs: []string{"m3"}}, 0)
		putObs(t, s, store.ObservationRecord{Key: store.ObservationKey(store.ScopeResource, "", "guest"), Observations: "- guest fact", LastObservedAt: T(3)}, 0)
	}
	if _, err := s.MoveThread(ctx(), "A", "user"); err != nil {
		t.Fatal(err)
	}
	th, _ := s.GetThread(ctx(), "A")
	if th.Boundary == nil || !th.Boundary.CreatedAt.Equal(b.CreatedAt) {
		t.Fatalf("boundary after move = %+v, want %+v", th.Boundary, b)
	}
	for _, c := range []struct {
		scope    store.Scope
		id, want string
	}{{store.ScopeThread, "A", "thread notes"}, {store.ScopeResource, "guest", "guest profile"}, {store.ScopeResource, "user", "user profile"}} {
		wm, err := s.GetWorkingMemory(ctx(), c.scope, c.id)
		if err != nil || wm.Data != c.want {
			t.Fatalf("working memory %s %s = %q, %v; want %q", c.scope, c.id, wm.Data, err, c.want)
		}
	}
	if obs {
		if got := getObs(t, s, key); got.Observations != "- thread fact" {
			t.Fatalf("thread observations after move = %+v", got)
		}
		if got := getObs(t, s, store.ObservationKey(store.ScopeResource, "", "user")); got.Version != 0 {
			t.Fatalf("the new resource got observations: %+v", got)
		}
		if got := getObs(t, s, store.ObservationKey(store.ScopeResource, "", "guest")); got.Observations != "- guest fact" {
			t.Fatalf("the old resource lost its observations: %+v", got)
		}
	}
}

func testMoveThreadConcurrent(t *testing.T, s *store.Checked) {
	seedMove(t, s)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, errs[i] = s.MoveThread(ctx(), "A", fmt.Sprintf("user%d", i%2))
		}(i)
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
		}
	}
	if ok == 0 {
		t.Fatalf("every concurrent move failed: %v", errs)
	}
	th, _ := s.GetThread(ctx(), "A")
	if th.ResourceID != "user0" && th.ResourceID != "user1" {
		t.Fatalf("thread owner = %q", th.ResourceID)
	}
	eq(t, "owners", owners(t, s, "A"), []string{th.ResourceID, th.ResourceID, th.ResourceID})
}

func msgs1(id, thread, resource string) []message.Message {
	return []message.Message{msg(id, thread, resource, "later", T(9))}
}

// runSharedMove runs the ThreadMover cases that need two handles.
func runSharedMove(t *testing.T, open PairOpener) {
	t.Run("MoveThreadRacesSaveWithoutSplitOwnership", func(t *testing.T) {
		ra, rb := open(t)
		a, b := store.Check(ra), store.Check(rb)
		t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
		if !a.CanMoveThreads() {
			t.Fatal("the store does not implement store.ThreadMover")
		}
		testSharedMoveRace(t, a, b)
	})
}

// A save into a thread under its old owner races the move of the thread:
// either the save lands first and its message moves too, or it is refused
// (ErrResourceMismatch); the thread and its messages never disagree.
func testSharedMoveRace(t *testing.T, a, b *store.Checked) {
	for i := range 20 {
		th := fmt.Sprintf("T%d", i)
		mustThread(t, a, th, "guest")
		mustSave(t, a, msg(th+"-0", th, "guest", "first", T(0)))
		var wg sync.WaitGroup
		var moveErr, saveErr error
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, moveErr = a.MoveThread(ctx(), th, "user")
		}()
		go func() {
			defer wg.Done()
			_, saveErr = b.SaveMessages(ctx(), []message.Message{msg(th+"-1", th, "guest", "racing", T(1))})
		}()
		wg.Wait()
		if moveErr != nil {
			t.Fatalf("MoveThread(%s): %v", th, moveErr)
		}
		if saveErr != nil && !errors.Is(saveErr, memerr.ErrResourceMismatch) {
			t.Fatalf("racing save: %v", saveErr)
		}
		want := []string{"user"}
		if saveErr == nil {
			want = append(want, "user")
		}
		eq(t, "owners of "+th, owners(t, a, th), want)
		marked, err := a.ListUnindexed(ctx(), "user", 100)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(ids(marked), th+"-0") {
			t.Fatalf("%s-0 is not marked unindexed under the new owner", th)
		}
	}
}

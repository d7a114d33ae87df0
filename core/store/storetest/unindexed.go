package storetest

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

func mark(t *testing.T, s *store.Checked, ids ...string) {
	t.Helper()
	if err := s.MarkUnindexed(ctx(), ids); err != nil {
		t.Fatalf("MarkUnindexed(%v): %v", ids, err)
	}
}

func unmark(t *testing.T, s *store.Checked, ids ...string) {
	t.Helper()
	if err := s.ClearUnindexed(ctx(), ids); err != nil {
		t.Fatalf("ClearUnindexed(%v): %v", ids, err)
	}
}

func unindexed(t *testing.T, s *store.Checked, resourceID string, limit int) []message.Message {
	t.Helper()
	out, err := s.ListUnindexed(ctx(), resourceID, limit)
	if err != nil {
		t.Fatalf("ListUnindexed(%q, %d): %v", resourceID, limit, err)
	}
	return out
}

// Markers are listed oldest first with the stored message, survive an
// upsert, and are cleared by id; unknown ids and empty lists are fine.
func testUnindexedMarkListClear(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	mustSave(t, s, msg("m1", "A", "r", "one", T(1)), msg("m2", "A", "r", "two", T(2)), msg("m3", "A", "r", "three", T(3)))
	eq(t, "nothing marked", ids(unindexed(t, s, "r", 10)), nil)
	mark(t, s)
	mark(t, s, "m3", "unknown")
	mark(t, s, "m1")
	got := unindexed(t, s, "r", 10)
	eq(t, "marked", ids(got), []string{"m1", "m3"})
	eq(t, "marked texts", texts(got), []string{"one", "three"})
	if got[0].ThreadID != "A" || got[0].ResourceID != "r" || !got[0].CreatedAt.Equal(T(1)) || got[0].Seq == 0 {
		t.Fatalf("listed message is incomplete: %+v", got[0])
	}
	// An upsert keeps the marker and the listing shows the stored content.
	mustSave(t, s, msg("m3", "A", "r", "three, edited", T(9)))
	eq(t, "after upsert", texts(unindexed(t, s, "r", 10)), []string{"one", "three, edited"})
	unmark(t, s, "m1", "m2", "unknown")
	unmark(t, s)
	eq(t, "after clear", ids(unindexed(t, s, "r", 10)), []string{"m3"})
	unmark(t, s, "m3")
	eq(t, "all cleared", ids(unindexed(t, s, "", 10)), nil)
}

// Marking a marked message again (in one call or several) keeps one marker.
func testUnindexedIdempotent(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	mustSave(t, s, msg("m1", "A", "r", "one", T(1)), msg("m2", "A", "r", "two", T(2)))
	mark(t, s, "m2", "m2", "m1")
	mark(t, s, "m1", "m2")
	mark(t, s, "m2")
	eq(t, "marked once", ids(unindexed(t, s, "r", 10)), []string{"m1", "m2"})
	unmark(t, s, "m1", "m1")
	eq(t, "cleared once", ids(unindexed(t, s, "r", 10)), []string{"m2"})
	mark(t, s, "m1")
	eq(t, "marked again", ids(unindexed(t, s, "r", 10)), []string{"m1", "m2"})
}

// Deleting a message or its thread removes the marker; a message saved
// again under the id of a deleted one is not marked.
func testUnindexedCascade(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	mustThread(t, s, "B", "r")
	mustSave(t, s, msg("a1", "A", "r", "a1", T(1)), msg("a2", "A", "r", "a2", T(2)),
		msg("b1", "B", "r", "b1", T(3)), msg("b2", "B", "r", "b2", T(4)))
	mark(t, s, "a1", "a2", "b1", "b2")
	if err := s.DeleteMessages(ctx(), []string{"a2"}); err != nil {
		t.Fatal(err)
	}
	eq(t, "after DeleteMessages", ids(unindexed(t, s, "r", 10)), []string{"a1", "b1", "b2"})
	if err := s.DeleteThread(ctx(), "B"); err != nil {
		t.Fatal(err)
	}
	eq(t, "after DeleteThread", ids(unindexed(t, s, "r", 10)), []string{"a1"})
	mustThread(t, s, "B", "r")
	mustSave(t, s, msg("a2", "A", "r", "a2 again", T(5)), msg("b1", "B", "r", "b1 again", T(6)))
	eq(t, "saved again", ids(unindexed(t, s, "r", 10)), []string{"a1"})
	// Marking deleted ids is ignored.
	if err := s.DeleteMessages(ctx(), []string{"a1"}); err != nil {
		t.Fatal(err)
	}
	mark(t, s, "a1", "b2")
	eq(t, "deleted ids", ids(unindexed(t, s, "", 10)), nil)
}

// The limit keeps the oldest markers, in (CreatedAt, Seq) order whatever
// the order of marking.
func testUnindexedLimit(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	mustSave(t, s, msg("m4", "A", "r", "four", T(4)), msg("m2", "A", "r", "two", T(2)))
	mustSave(t, s, msg("m3", "A", "r", "three", T(2)), msg("m1", "A", "r", "one", T(1)))
	mark(t, s, "m4")
	mark(t, s, "m3", "m2")
	mark(t, s, "m1")
	eq(t, "limit 1", ids(unindexed(t, s, "r", 1)), []string{"m1"})
	eq(t, "limit 3", ids(unindexed(t, s, "r", 3)), []string{"m1", "m2", "m3"})
	eq(t, "limit 10", ids(unindexed(t, s, "r", 10)), []string{"m1", "m2", "m3", "m4"})
	eq(t, "any resource, limit 2", ids(unindexed(t, s, "", 2)), []string{"m1", "m2"})
	for _, limit := range []int{0, -1} {
		_, err := s.ListUnindexed(ctx(), "r", limit)
		wantCode(t, err, memerr.ErrInvalidArgument)
	}
	_, err := s.ListUnindexed(ctx(), "  ", 1)
	wantCode(t, err, memerr.ErrMissingResourceID)
}

// A resource sees only its own markers; "" lists every resource's.
func testUnindexedResourceFilter(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r1")
	mustThread(t, s, "B", "r2")
	mustSave(t, s, msg("a1", "A", "r1", "a1", T(1)), msg("b1", "B", "r2", "b1", T(2)), msg("a2", "A", "r1", "a2", T(3)))
	mark(t, s, "a1", "b1", "a2")
	eq(t, "r1", ids(unindexed(t, s, "r1", 10)), []string{"a1", "a2"})
	eq(t, "r2", ids(unindexed(t, s, "r2", 10)), []string{"b1"})
	eq(t, "r3", ids(unindexed(t, s, "r3", 10)), nil)
	eq(t, "all", ids(unindexed(t, s, "", 10)), []string{"a1", "b1", "a2"})
	unmark(t, s, "b1")
	eq(t, "r2 cleared", ids(unindexed(t, s, "r2", 10)), nil)
	eq(t, "r1 kept", ids(unindexed(t, s, "r1", 10)), []string{"a1", "a2"})
}

// Markers are durable state of the database: another handle (process) sees
// and clears them.
func testSharedUnindexed(t *testing.T, a, b *store.Checked) {
	mustThread(t, a, "A", "r")
	mustSave(t, a, msg("m1", "A", "r", "one", T(1)), msg("m2", "A", "r", "two", T(2)))
	mark(t, a, "m2", "m1")
	eq(t, "b sees a's markers", ids(unindexed(t, b, "r", 10)), []string{"m1", "m2"})
	unmark(t, b, "m1")
	eq(t, "a sees b's clear", ids(unindexed(t, a, "r", 10)), []string{"m2"})
}

// Marks racing deletes of their messages and threads never fail and leave
// no marker of a deleted message behind.
func testSharedUnindexedDeleteRace(t *testing.T, a, b *store.Checked) {
	var all []string
	for th := range 4 {
		thread := fmt.Sprint("T", th)
		mustThread(t, a, thread, "r")
		var batch []message.Message
		for i := range 20 {
			id := fmt.Sprintf("%s-m%02d", thread, i)
			batch = append(batch, msg(id, thread, "r", id, T(th*100+i)))
			all = append(all, id)
		}
		mustSave(t, a, batch...)
	}
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				ids := slices.Clone(all)
				if (w+i)%2 == 1 {
					slices.Reverse(ids)
				}
				if err := a.MarkUnindexed(ctx(), ids); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for th := range 4 {
			thread := fmt.Sprint("T", th)
			if err := b.DeleteMessages(ctx(), []string{thread + "-m19", thread + "-m00", thread + "-m07"}); err != nil {
				t.Error(err)
				return
			}
			if th%2 == 0 {
				if err := b.DeleteThread(ctx(), thread); err != nil {
					t.Error(err)
					return
				}
			}
		}
	}()
	wg.Wait()
	if t.Failed() {
		return
	}
	mark(t, a, all...)
	left := unindexed(t, b, "r", 1000)
	if len(left) != 2*17 {
		t.Fatalf("%d markers left, want 34 (two threads of 17 messages)", len(left))
	}
	for _, m := range left {
		if m.ThreadID != "T1" && m.ThreadID != "T3" {
			t.Fatalf("marker of deleted message %s survives", m.ID)
		}
	}
}

package storetest

import (
	"math"
	"testing"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// testHugePagingValues: page numbers and include ranges are caller input (an
// HTTP query parameter, say). Values whose products overflow an int must
// give an empty page or the whole window, never a panic or a storage error.
func testHugePagingValues(t *testing.T, s *store.Checked) {
	fiveInA(t, s)
	tp, err := s.ListThreads(ctx(), store.ThreadQuery{Page: math.MaxInt, PerPage: 100})
	if err != nil || len(tp.Threads) != 0 || tp.HasMore || tp.Total != 2 {
		t.Fatalf("ListThreads huge page: %+v %v", tp, err)
	}
	tp, err = s.ListThreads(ctx(), store.ThreadQuery{Page: math.MaxInt / 2, PerPage: 3})
	if err != nil || len(tp.Threads) != 0 || tp.HasMore || tp.Total != 2 {
		t.Fatalf("ListThreads overflowing page: %+v %v", tp, err)
	}
	p := list(t, s, store.MessageQuery{ThreadID: "A", Page: math.MaxInt, PerPage: 100, IncludeTotal: true})
	if len(p.Messages) != 0 || p.HasMore || p.Total != 5 {
		t.Fatalf("ListMessages huge page: %+v", p)
	}
	p = list(t, s, store.MessageQuery{ThreadID: "A", Page: math.MaxInt / 2, PerPage: 3})
	if len(p.Messages) != 0 || p.HasMore {
		t.Fatalf("ListMessages overflowing page: %+v", p)
	}
	p = list(t, s, store.MessageQuery{ThreadID: "A", PerPage: math.MaxInt, Direction: store.Desc})
	eq(t, "huge perPage", ids(p.Messages), []string{"M5", "M4", "M3", "M2", "M1"})
	if p.HasMore {
		t.Fatal("huge perPage: HasMore")
	}
	tp, err = s.ListThreads(ctx(), store.ThreadQuery{PerPage: math.MaxInt})
	if err != nil || len(tp.Threads) != 2 || tp.HasMore {
		t.Fatalf("ListThreads huge perPage: %+v %v", tp, err)
	}
	p = list(t, s, store.MessageQuery{ThreadID: "A", Include: []store.Include{{ID: "M3", Before: math.MaxInt, After: math.MaxInt}}})
	eq(t, "unbounded window", ids(p.Included), []string{"M1", "M2", "M3", "M4", "M5"})
	p = list(t, s, store.MessageQuery{ThreadID: "A", Include: []store.Include{{ID: "M3", Before: math.MaxInt - 1, After: 0}}})
	eq(t, "unbounded before", ids(p.Included), []string{"M1", "M2", "M3"})
}

// testMessagesBatchTakeover: an id repeated in one batch behaves like
// consecutive saves, so a later occurrence of another resource is a takeover
// (ErrResourceMismatch) and, the batch being atomic, nothing is written.
func testMessagesBatchTakeover(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r1")
	mustThread(t, s, "B", "r2")
	_, err := s.SaveMessages(ctx(), []message.Message{msg("x", "A", "r1", "mine", T(1)), msg("x", "B", "r2", "stolen", T(2))})
	wantCode(t, err, memerr.ErrResourceMismatch)
	if got, _ := s.GetMessages(ctx(), []string{"x"}); len(got) != 0 {
		t.Fatalf("refused batch wrote %+v", got)
	}
	// The same id twice within one resource is fine: the last one wins.
	out := mustSave(t, s, msg("y", "A", "r1", "first", T(1)), msg("y", "A", "r1", "second", T(2)))
	got, _ := s.GetMessages(ctx(), []string{"y"})
	if len(got) != 1 || got[0].Text() != "second" || !got[0].CreatedAt.Equal(T(1)) || out[1].Seq != got[0].Seq {
		t.Fatalf("repeated id: stored %+v, returned %+v", got, out)
	}
}

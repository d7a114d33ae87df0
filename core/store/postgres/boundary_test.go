package postgres

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/store"
)

// TestAdvanceBoundaryMatchesMergeBoundary replays random candidates and
// checks every stored value against store.MergeBoundary computed in Go.
func TestAdvanceBoundaryMatchesMergeBoundary(t *testing.T) {
	s := openFresh(t)
	if _, err := s.SaveThread(bg(), store.Thread{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(7))
	base := time.Date(2026, 2, 3, 4, 5, 6, 123456000, time.UTC)
	var want *store.Boundary
	for i := 0; i < 400; i++ {
		cand := store.Boundary{
			// A few timestamps, some differing only in the microseconds.
			CreatedAt:         base.Add(time.Duration(rng.Intn(4))*time.Second + time.Duration(rng.Intn(2))*time.Microsecond),
			MaxTokens:         100 * (1 + rng.Intn(2)),
			AtMaxRemoveTokens: 10,
		}
		switch rng.Intn(4) {
		case 0: // nil ids
		case 1:
			cand.MessageIDs = []string{}
		default:
			for j := rng.Intn(4); j >= 0; j-- {
				cand.MessageIDs = append(cand.MessageIDs, fmt.Sprint("m", rng.Intn(6)))
			}
		}
		got, err := s.AdvanceBoundary(bg(), "t", "r", cand)
		if err != nil {
			t.Fatal(err)
		}
		merged := store.MergeBoundary(want, cand)
		want = &merged
		if !got.CreatedAt.Equal(want.CreatedAt) || !reflect.DeepEqual(got.MessageIDs, want.MessageIDs) ||
			got.MaxTokens != want.MaxTokens || got.AtMaxRemoveTokens != want.AtMaxRemoveTokens {
			t.Fatalf("step %d: candidate %+v\n got %+v\nwant %+v", i, cand, got, *want)
		}
		th, err := s.GetThread(bg(), "t")
		if err != nil || th.Boundary == nil || !reflect.DeepEqual(*th.Boundary, got) {
			t.Fatalf("step %d: stored %+v, returned %+v (%v)", i, th.Boundary, got, err)
		}
	}
	// Stored shape: ISO createdAt with microseconds.
	var createdAt string
	if err := s.pool.QueryRow(bg(), "SELECT boundary->>'createdAt' FROM "+s.q.threads+" WHERE id = 't'").Scan(&createdAt); err != nil {
		t.Fatal(err)
	}
	if _, err := time.Parse("2006-01-02T15:04:05.000000Z", createdAt); err != nil {
		t.Fatalf("stored createdAt %q: %v", createdAt, err)
	}
}

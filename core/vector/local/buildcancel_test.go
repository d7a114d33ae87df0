package local

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/agentmem/agentmem/core/vector"
)

// cancelAfter returns a context and a Progress option that cancels it once a
// build has inserted at least n nodes, and the reports it received.
func cancelAfter(n int) (context.Context, func(BuildProgress), func() []BuildProgress) {
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var got []BuildProgress
	report := func(p BuildProgress) {
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
		if p.Done >= n {
			cancel()
		}
	}
	return ctx, report, func() []BuildProgress {
		mu.Lock()
		defer mu.Unlock()
		return append([]BuildProgress(nil), got...)
	}
}

// records returns n records of resource "r" with random 96-dimension vectors.
func records(n int) ([]vector.Record, [][]float32) {
	vecs := randomVectors(rand.New(rand.NewPCG(11, 12)), n, 96)
	recs := make([]vector.Record, n)
	for i, v := range vecs {
		recs[i] = vector.Record{ID: fmt.Sprint(i), Vector: v, Meta: vector.Meta{ResourceID: "r", ThreadID: "t", MessageID: fmt.Sprint(i)}}
	}
	return recs, vecs
}

// searchesAll checks that every record of resource "r" is found by its own
// vector.
func searchesAll(t *testing.T, s *Store, vecs [][]float32) {
	t.Helper()
	for i := 0; i < len(vecs); i += 97 {
		hits, err := s.Query(context.Background(), "ix", vector.Query{Vector: vecs[i], TopK: 1, Filter: vector.Filter{ResourceID: "r"}})
		if err != nil || len(hits) != 1 || hits[0].ID != fmt.Sprint(i) {
			t.Fatalf("search for record %d = %v %v", i, hits, err)
		}
	}
}

// TestUpsertBuildCancelled: a done ctx stops the graph build of a bulk
// Upsert with ctx's error; the records are written and searched exactly,
// and a later BuildGraphs completes the graph.
func TestUpsertBuildCancelled(t *testing.T) {
	ctx, report, reports := cancelAfter(graphStep)
	s := NewWithOptions(Options{ApproximateFrom: 100, Progress: report})
	defer s.Close()
	if err := s.EnsureIndex(context.Background(), vector.IndexSpec{Name: "ix", Dimension: 96}); err != nil {
		t.Fatal(err)
	}
	recs, vecs := records(4000)
	err := s.Upsert(ctx, "ix", recs)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Upsert with a context cancelled during the build = %v, want context.Canceled", err)
	}
	if rs := reports(); len(rs) == 0 || rs[len(rs)-1].Done >= rs[len(rs)-1].Total || rs[0].Index != "ix" || rs[0].Resource != "r" {
		t.Fatalf("reports = %v, want a stopped build of ix/r", rs)
	}
	if graphed, building := s.partitionState("ix", "r"); graphed || building {
		t.Fatalf("after the cancelled build: graph %v, building %v; want neither", graphed, building)
	}
	searchesAll(t, s, vecs)
	if err := s.BuildGraphs(context.Background(), "ix"); err != nil {
		t.Fatal(err)
	}
	if graphed, _ := s.partitionState("ix", "r"); !graphed {
		t.Fatal("BuildGraphs left no graph")
	}
	searchesAll(t, s, vecs)
}

// TestUpsertCancelledBefore: an Upsert whose ctx is already done writes
// nothing.
func TestUpsertCancelledBefore(t *testing.T) {
	s := New()
	defer s.Close()
	if err := s.EnsureIndex(context.Background(), vector.IndexSpec{Name: "ix", Dimension: 96}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	recs, vecs := records(10)
	if err := s.Upsert(ctx, "ix", recs); !errors.Is(err, context.Canceled) {
		t.Fatalf("Upsert with a done context = %v", err)
	}
	hits, err := s.Query(context.Background(), "ix", vector.Query{Vector: vecs[0], TopK: 10, Filter: vector.Filter{ResourceID: "r"}})
	if err != nil || len(hits) != 0 {
		t.Fatalf("after the refused Upsert the resource holds %v %v", hits, err)
	}
}

// TestBuildGraphsCancelled: a done ctx stops BuildGraphs in the middle of a
// graph with ctx's error, leaving the resource searched exactly.
func TestBuildGraphsCancelled(t *testing.T) {
	s, vecs := bulkStore(t, 3000)
	defer s.Close()
	ctx, report, _ := cancelAfter(2 * graphStep)
	s.progress = report
	if err := s.BuildGraphs(ctx, "ix"); !errors.Is(err, context.Canceled) {
		t.Fatalf("BuildGraphs with a context cancelled during the build = %v", err)
	}
	if graphed, building := s.partitionState("ix", "r"); graphed || building {
		t.Fatalf("after the cancelled BuildGraphs: graph %v, building %v; want neither", graphed, building)
	}
	searchesAll(t, s, vecs)
}

// TestBuildProgress: a bulk Upsert reports its build in order (each build
// or extension from 0), ending with every insertion done; batched writes
// report their extensions.
func TestBuildProgress(t *testing.T) {
	for _, batch := range []int{3000, 1500} {
		var got []BuildProgress
		s := NewWithOptions(Options{ApproximateFrom: 100, Progress: func(p BuildProgress) { got = append(got, p) }})
		if err := s.EnsureIndex(context.Background(), vector.IndexSpec{Name: "ix", Dimension: 96}); err != nil {
			t.Fatal(err)
		}
		recs, vecs := records(3000)
		for lo := 0; lo < len(recs); lo += batch {
			if err := s.Upsert(context.Background(), "ix", recs[lo:lo+batch]); err != nil {
				t.Fatal(err)
			}
		}
		if len(got) < 2 {
			t.Fatalf("batch %d: %d reports", batch, len(got))
		}
		for i := 1; i < len(got); i++ {
			if got[i].Done != 0 && got[i].Done < got[i-1].Done || got[i].Done > got[i].Total {
				t.Fatalf("batch %d: report %d went back: %v after %v", batch, i, got[i], got[i-1])
			}
		}
		if last := got[len(got)-1]; last.Done != last.Total || last.Total == 0 {
			t.Fatalf("batch %d: last report %v, want a finished build", batch, last)
		}
		searchesAll(t, s, vecs)
		s.Close()
	}
}

package local

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/vector"
)

// bulkStore returns a store whose partition "r" of index "ix" holds n random
// vectors, and whose missing graphs are always built in the background (as
// an opened file's are; writes do not build them). At 96 dimensions the
// vector chunks after the first are outside the heap.
func bulkStore(t *testing.T, n int) (*Store, [][]float32) {
	t.Helper()
	s := NewWithOptions(Options{ApproximateFrom: 1})
	s.inlineMax, s.indexOnWrite = 0, false
	ctx := context.Background()
	if err := s.EnsureIndex(ctx, vector.IndexSpec{Name: "ix", Dimension: 96}); err != nil {
		t.Fatal(err)
	}
	vecs := randomVectors(rand.New(rand.NewPCG(7, 9)), n, 96)
	recs := make([]vector.Record, n)
	for i, v := range vecs {
		recs[i] = vector.Record{ID: fmt.Sprint(i), Vector: v, Meta: vector.Meta{ResourceID: "r", ThreadID: "t", MessageID: fmt.Sprint(i)}}
	}
	if err := s.Upsert(ctx, "ix", recs); err != nil {
		t.Fatal(err)
	}
	return s, vecs
}

func (s *Store) partitionState(name, resource string) (graphed, building bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p := s.indexes[name].parts[resource]
	return p.graph != nil, p.building
}

// TestGraphBuildsInBackground: the first search of a large partition does
// not build its graph; it answers exactly while the graph is built beside it,
// and later searches use the installed graph.
func TestGraphBuildsInBackground(t *testing.T) {
	s, vecs := bulkStore(t, 3000)
	defer s.Close()
	q := vecs[42]
	hits, err := s.Query(context.Background(), "ix", vector.Query{Vector: q, TopK: 1, Filter: vector.Filter{ResourceID: "r"}})
	if err != nil || len(hits) != 1 || hits[0].ID != "42" {
		t.Fatalf("search during the build = %v %v", hits, err)
	}
	if graphed, building := s.partitionState("ix", "r"); graphed || !building {
		t.Fatalf("right after the first search: graph %v, building %v; want a build under way", graphed, building)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		graphed, building := s.partitionState("ix", "r")
		if graphed && !building {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the background build never installed a graph")
		}
		time.Sleep(10 * time.Millisecond)
	}
	hits, err = s.Query(context.Background(), "ix", vector.Query{Vector: q, TopK: 1, Filter: vector.Filter{ResourceID: "r"}})
	if err != nil || len(hits) != 1 || hits[0].ID != "42" {
		t.Fatalf("search through the graph = %v %v", hits, err)
	}
}

// TestCloseStopsGraphBuild: Close returns while a build is under way, and the
// build installs nothing.
func TestCloseStopsGraphBuild(t *testing.T) {
	s, vecs := bulkStore(t, 3000)
	if _, err := s.Query(context.Background(), "ix", vector.Query{Vector: vecs[0], TopK: 1, Filter: vector.Filter{ResourceID: "r"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if graphed, _ := s.partitionState("ix", "r"); graphed {
		t.Fatal("a build finished after Close installed its graph")
	}
}

// TestBuildGraphs: after a bulk load BuildGraphs returns once the graph is
// installed, also when a search started a background build before it.
func TestBuildGraphs(t *testing.T) {
	for _, searchFirst := range []bool{false, true} {
		s, vecs := bulkStore(t, 2000)
		ctx := context.Background()
		if searchFirst {
			if _, err := s.Query(ctx, "ix", vector.Query{Vector: vecs[0], TopK: 1, Filter: vector.Filter{ResourceID: "r"}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.BuildGraphs(ctx, "ix"); err != nil {
			t.Fatal(err)
		}
		if graphed, building := s.partitionState("ix", "r"); !graphed || building {
			t.Fatalf("searchFirst %v: after BuildGraphs graph %v, building %v", searchFirst, graphed, building)
		}
		if err := s.BuildGraphs(ctx, "missing"); err == nil {
			t.Error("BuildGraphs of a missing index succeeded")
		}
		s.Close()
		if err := s.BuildGraphs(ctx, "ix"); err == nil {
			t.Error("BuildGraphs after Close succeeded")
		}
	}
}

// TestUpsertIndexes: a bulk load leaves no exact-scan stretch behind it.
// When an Upsert returns, the written resource's graph covers every record
// but at most graphLag and is calibrated, whether the load came in one write
// (built outside the lock) or in batches (extended by the writes).
func TestUpsertIndexes(t *testing.T) {
	ctx := context.Background()
	vecs := randomVectors(rand.New(rand.NewPCG(3, 4)), 3000, 96)
	rec := func(i int) vector.Record {
		return vector.Record{ID: fmt.Sprint(i), Vector: vecs[i], Meta: vector.Meta{ResourceID: "r", ThreadID: "t", MessageID: fmt.Sprint(i)}}
	}
	for _, batch := range []int{3000, 700, 100} {
		s := NewWithOptions(Options{ApproximateFrom: 1000})
		if err := s.EnsureIndex(ctx, vector.IndexSpec{Name: "ix", Dimension: 96}); err != nil {
			t.Fatal(err)
		}
		for lo := 0; lo < len(vecs); lo += batch {
			var recs []vector.Record
			for i := lo; i < min(lo+batch, len(vecs)); i++ {
				recs = append(recs, rec(i))
			}
			if err := s.Upsert(ctx, "ix", recs); err != nil {
				t.Fatal(err)
			}
			s.mu.RLock()
			p := s.indexes["ix"].parts["r"]
			lag, beam, building := len(p.slots), 0, p.building
			if p.graph != nil {
				lag, beam = len(p.slots)-int(p.graph.n), p.graph.beam
			}
			s.mu.RUnlock()
			if min(lo+batch, len(vecs)) >= 1000 && (lag > graphLag || beam == 0 || building) {
				t.Fatalf("batch %d: after writing %d records the graph lags %d records (beam %d, building %v)",
					batch, lo+batch, lag, beam, building)
			}
		}
		hits, err := s.Query(ctx, "ix", vector.Query{Vector: vecs[1234], TopK: 1, Filter: vector.Filter{ResourceID: "r"}})
		if err != nil || len(hits) != 1 || hits[0].ID != "1234" {
			t.Fatalf("batch %d: search = %v %v", batch, hits, err)
		}
		s.Close()
	}
}

// TestParallelBuildRecall: a graph built by four workers finds as much of
// the exact top 10 as one built by one, at the smallest beam and a wider
// one, on a fixed set of random vectors, also when built in two steps (an
// extension). Workers only plan each batch's insertions and the plans are
// applied in node order, so the two graphs are the same link for link,
// which the test checks too.
func TestParallelBuildRecall(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	vecs := randomVectors(r, 4000, 64)
	queries := randomVectors(r, 50, 64)
	build := func(workers int, steps ...int32) *partition {
		p := newPartition("r", 1)
		for i, v := range vecs {
			p.put(vector.Record{ID: fmt.Sprint(i), Vector: v, Meta: vector.Meta{ThreadID: "t"}})
		}
		p.graph = newGraph(&p.vecs)
		for _, n := range steps {
			p.graph.add(n, workers)
		}
		return p
	}
	for _, steps := range [][]int32{{4000}, {1500, 4000}} {
		serial, parallel := build(1, steps...), build(4, steps...)
		for _, ef := range []int{hnswEfMin, 4 * hnswEfMin} {
			s, p := recallAt10Ef(serial, vecs, queries, ef), recallAt10Ef(parallel, vecs, queries, ef)
			t.Logf("steps %v, beam %d: recall@10 serial %.3f, 4 workers %.3f", steps, ef, s, p)
			if math.Abs(s-p) > 0.01 {
				t.Errorf("steps %v, beam %d: recall@10 of 4 workers %.3f, of 1 %.3f", steps, ef, p, s)
			}
		}
		a, b := serial.graph, parallel.graph
		if a.entry != b.entry || a.top != b.top || !slices.Equal(a.l0n, b.l0n) || !slices.Equal(a.l0, b.l0) ||
			!reflect.DeepEqual(a.up, b.up) {
			t.Errorf("steps %v: the graphs of 1 and 4 workers differ", steps)
		}
	}
}

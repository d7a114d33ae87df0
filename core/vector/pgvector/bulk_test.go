package pgvector_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/pgvector"
)

// hasANN reports whether index "bulk"'s approximate index exists.
func hasANN(t *testing.T, s *pgvector.Store) bool { return annOID(t, s) != 0 }

// annOID returns the OID of index "bulk"'s approximate index, 0 if none: a
// rebuilt index has a new one.
func annOID(t *testing.T, s *pgvector.Store) uint32 {
	t.Helper()
	var oid uint32
	if err := testPool(t).QueryRow(bg(), `SELECT coalesce(to_regclass($1)::oid, 0)`, `"`+s.Schema()+`".vectors_bulk_ann`).Scan(&oid); err != nil {
		t.Fatal(err)
	}
	return oid
}

// bulkRecords returns n records of resource with random vectors, ids from
// first on.
func bulkRecords(rng *rand.Rand, resource string, first, n int) []vector.Record {
	recs := make([]vector.Record, n)
	for i := range recs {
		id := fmt.Sprint(first + i)
		recs[i] = vector.Record{ID: id, Vector: randVec(rng), Text: "record " + id,
			Meta: vector.Meta{ResourceID: resource, ThreadID: "t", MessageID: id}}
	}
	return recs
}

// findsOwn checks that a search (through the approximate index: ExactBelow
// -1) for some records' own vectors returns them first.
func findsOwn(t *testing.T, s *pgvector.Store, recs []vector.Record) {
	t.Helper()
	for i := 0; i < len(recs); i += 199 {
		r := recs[i]
		hits, err := s.Query(bg(), "bulk", vector.Query{Vector: r.Vector, TopK: 1, Filter: vector.Filter{ResourceID: r.Meta.ResourceID}})
		if err != nil || len(hits) != 1 || hits[0].ID != r.ID {
			t.Fatalf("search for %s/%s = %v %v", r.Meta.ResourceID, r.ID, hits, err)
		}
	}
}

// TestUpsertBulk: a large load into a small index is written in full, with
// exact per-resource counts, and builds the approximate index after it; a
// load small next to the index goes through Upsert into the index it keeps;
// replacing records keeps the counts.
func TestUpsertBulk(t *testing.T) {
	s := openFresh(t, pgvector.Config{ExactBelow: -1, BuildMemory: "64MB"})
	spec := vector.IndexSpec{Name: "bulk", Dimension: scaleDim}
	spec.Config.HNSW.M, spec.Config.HNSW.EfConstruction = 8, 32
	if err := s.EnsureIndex(bg(), spec); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	big, small := bulkRecords(rng, "big", 0, 2500), bulkRecords(rng, "small", 0, 500)
	before := annOID(t, s)
	if err := s.UpsertBulk(bg(), "bulk", append(append([]vector.Record{}, big...), small...)); err != nil {
		t.Fatal(err)
	}
	built := annOID(t, s)
	if built == 0 || built == before {
		t.Fatalf("approximate index %d before UpsertBulk, %d after; want one built after the load", before, built)
	}
	findsOwn(t, s, big)
	findsOwn(t, s, small)
	more := bulkRecords(rng, "big", 2500, 1000)
	if err := s.UpsertBulk(bg(), "bulk", append(more, big[:200]...)); err != nil {
		t.Fatal(err)
	}
	if annOID(t, s) != built {
		t.Fatal("a load small next to the index rebuilt it")
	}
	findsOwn(t, s, more)
	if n := count(t, s, "vectors_bulk"); n != 4000 {
		t.Fatalf("table holds %d rows, want 4000", n)
	}
	var records int64
	if err := testPool(t).QueryRow(bg(), `SELECT records FROM "`+s.Schema()+`".vector_resources WHERE index_name = 'bulk' AND resource_id = 'big'`).Scan(&records); err != nil {
		t.Fatal(err)
	}
	if records != 3500 {
		t.Fatalf("resource big counts %d records, want 3500", records)
	}
}

// TestUpsertBulkRefused: a bad batch or a done context changes nothing: no
// row written, the approximate index kept.
func TestUpsertBulkRefused(t *testing.T) {
	s := openFresh(t, pgvector.Config{})
	if err := s.EnsureIndex(bg(), vector.IndexSpec{Name: "bulk", Dimension: scaleDim}); err != nil {
		t.Fatal(err)
	}
	recs := bulkRecords(rand.New(rand.NewPCG(1, 2)), "r", 0, 1500)
	bad := append([]vector.Record{}, recs...)
	bad[700].Vector = bad[700].Vector[:3]
	if err := s.UpsertBulk(bg(), "bulk", bad); !errors.Is(err, memerr.ErrEmbeddingDimensionMismatch) {
		t.Fatalf("UpsertBulk with a short vector = %v", err)
	}
	ctx, cancel := context.WithCancel(bg())
	cancel()
	if err := s.UpsertBulk(ctx, "bulk", recs); !errors.Is(err, context.Canceled) {
		t.Fatalf("UpsertBulk with a done context = %v", err)
	}
	if n := count(t, s, "vectors_bulk"); n != 0 || !hasANN(t, s) {
		t.Fatalf("after refused loads: %d rows, approximate index %v", n, hasANN(t, s))
	}
}

// TestEnsureIndexRebuildsMissing: EnsureIndex builds an approximate index
// that is missing (as an interrupted UpsertBulk leaves it).
func TestEnsureIndexRebuildsMissing(t *testing.T) {
	s := openFresh(t, pgvector.Config{})
	spec := vector.IndexSpec{Name: "bulk", Dimension: scaleDim}
	if err := s.EnsureIndex(bg(), spec); err != nil {
		t.Fatal(err)
	}
	if _, err := testPool(t).Exec(bg(), `DROP INDEX "`+s.Schema()+`".vectors_bulk_ann`); err != nil {
		t.Fatal(err)
	}
	if err := s.EnsureIndex(bg(), spec); err != nil {
		t.Fatal(err)
	}
	if !hasANN(t, s) {
		t.Fatal("EnsureIndex left the approximate index missing")
	}
}

// TestBuildMemoryInvalid: a BuildMemory the server does not take fails New
// with ErrInvalidConfig.
func TestBuildMemoryInvalid(t *testing.T) {
	_, err := pgvector.New(bg(), testPool(t), pgvector.Config{Schema: freshSchema(t), BuildMemory: "lots"})
	if !errors.Is(err, memerr.ErrInvalidConfig) {
		t.Fatalf("New with BuildMemory \"lots\" = %v", err)
	}
}

// TestDeferIndex: during a load DeferIndex prepared, EnsureIndex creates
// the index without its approximate index and writes do not build it
// (searches are exact meanwhile); build does, over every record. A small
// load keeps the index.
func TestDeferIndex(t *testing.T) {
	s := openFresh(t, pgvector.Config{ExactBelow: -1})
	build, err := s.DeferIndex(bg(), "bulk", 3000)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.EnsureIndex(bg(), vector.IndexSpec{Name: "bulk", Dimension: scaleDim}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(8, 9))
	var all []vector.Record
	for lo := 0; lo < 3000; lo += 500 {
		recs := bulkRecords(rng, "r", lo, 500)
		if err := s.Upsert(bg(), "bulk", recs); err != nil {
			t.Fatal(err)
		}
		all = append(all, recs...)
	}
	if hasANN(t, s) {
		t.Fatal("the approximate index exists during the deferred load")
	}
	findsOwn(t, s, all) // exact meanwhile
	if err := build(bg()); err != nil {
		t.Fatal(err)
	}
	if !hasANN(t, s) {
		t.Fatal("build left no approximate index")
	}
	findsOwn(t, s, all)
	oid := annOID(t, s)
	small, err := s.DeferIndex(bg(), "bulk", 999)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.EnsureIndex(bg(), vector.IndexSpec{Name: "bulk", Dimension: scaleDim}); err != nil {
		t.Fatal(err)
	}
	if err := small(bg()); err != nil || annOID(t, s) != oid {
		t.Fatalf("a small load changed the approximate index (%v)", err)
	}
}

package pgvector_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/pgvector"
	"github.com/agentmem/agentmem/core/vector/vectortest"
)

// annIndex returns the access method and operator class of the index's
// approximate index, "" when it has none.
func annIndex(t *testing.T, s *pgvector.Store, index string) string {
	t.Helper()
	var got string
	err := testPool(t).QueryRow(bg(), `SELECT coalesce((SELECT a.amname || ' ' || o.opcname FROM pg_index i
	JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam JOIN pg_opclass o ON o.oid = i.indclass[0]
	WHERE i.indexrelid = to_regclass($1)), '')`, fmt.Sprintf(`"%s".vectors_%s_ann`, s.Schema(), index)).Scan(&got)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestIndexLifecycle: ivfflat is built once enough rows exist (by Reindex),
// a changed configuration rebuilds the index with the metric's operator
// class, and records and search survive both.
func TestIndexLifecycle(t *testing.T) {
	s := configured{openFresh(t, pgvector.Config{ExactBelow: -1}), vector.IndexConfig{Type: pgvector.TypeIVFFlat}}
	s.cfg.IVFFlat.Lists = 4
	h := vectortest.NewH(t, s, local.NewHashEmbedder(16))
	if got := annIndex(t, s.Store, h.Index); got != "" {
		t.Fatalf("ivfflat index on an empty table: %s", got)
	}
	var recs []vector.Record
	for i := range 60 {
		recs = append(recs, vectortest.Rec(fmt.Sprint("m", i), "t", "r", fmt.Sprintf("note %d about %s", i, vectortest.Corpus[i%len(vectortest.Corpus)])))
	}
	h.Upsert(recs...)
	if err := s.Reindex(bg(), h.Index); err != nil {
		t.Fatal(err)
	}
	if got := annIndex(t, s.Store, h.Index); got != "ivfflat vector_cosine_ops" {
		t.Fatalf("after Reindex: %q", got)
	}
	check := func(what string) {
		t.Helper()
		hits := h.Query(vector.Query{Text: recs[7].Text, TopK: 5, Filter: vector.Filter{ResourceID: "r"}})
		if len(hits) != 5 || !slices.Contains(vectortest.IDs(hits)[:2], "m7#0") {
			t.Fatalf("%s: %v, want m7#0 among the first two of 5 (m1 differs by a digit)", what, vectortest.IDs(hits))
		}
	}
	check("ivfflat")
	s.cfg = vector.IndexConfig{Type: pgvector.TypeHNSW, Metric: pgvector.MetricDotProduct}
	if err := s.EnsureIndex(bg(), vector.IndexSpec{Name: h.Index, Dimension: 16}); err != nil {
		t.Fatal(err)
	}
	if got := annIndex(t, s.Store, h.Index); got != "hnsw vector_ip_ops" {
		t.Fatalf("after a change to hnsw/dotproduct: %q", got)
	}
	check("hnsw dotproduct")
	s.cfg = vector.IndexConfig{Type: pgvector.TypeFlat}
	if err := s.EnsureIndex(bg(), vector.IndexSpec{Name: h.Index, Dimension: 16}); err != nil {
		t.Fatal(err)
	}
	if got := annIndex(t, s.Store, h.Index); got != "" {
		t.Fatalf("flat keeps an index: %q", got)
	}
	check("flat")
}

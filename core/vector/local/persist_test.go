package local

import (
	"bufio"
	"context"
	"encoding/gob"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/vector/vectortest"
)

// A file of format version 1 (one gob value, float32 vectors) still opens,
// and the next save writes version 2 with the same records.
func TestOpenVersion1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v1.bin")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString(fileMagicV1)
	v1 := []fileIndex{{Name: "ix", Dim: 3, Version: "v", Versions: map[string]string{"r": "v"}, Records: []fileRecord{
		{ID: "a#0", Text: "red apples", MessageID: "a", ThreadID: "t", ResourceID: "r", Role: "user", Vector: []float32{1, 0, 0}},
		{ID: "b#0", Text: "green pears", MessageID: "b", ThreadID: "t", ResourceID: "r", Role: "user", Vector: []float32{0, 1, 0}},
	}}}
	if err := gob.NewEncoder(w).Encode(v1); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	f.Close()
	check := func(s *Store) {
		t.Helper()
		ctx := context.Background()
		hits, err := s.Query(ctx, "ix", core.VectorQuery{Vector: []float32{0, 2, 0}, TopK: 1, Filter: core.VectorFilter{ResourceID: "r"}})
		if err != nil || len(hits) != 1 || hits[0].ID != "b#0" || hits[0].Meta.ThreadID != "t" {
			t.Fatalf("vector query: %+v %v", hits, err)
		}
		hits, err = s.Query(ctx, "ix", core.VectorQuery{Text: "apples", Mode: core.SearchBM25, TopK: 2, Filter: core.VectorFilter{ResourceID: "r"}})
		if err != nil || len(hits) != 1 || hits[0].ID != "a#0" {
			t.Fatalf("bm25 query: %+v %v", hits, err)
		}
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	check(s)
	if err := s.EnsureIndex(context.Background(), core.IndexSpec{Name: "other", Dimension: 2}); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	check(s2)
	if s2.indexes["other"] == nil {
		t.Fatal("second index not saved")
	}
}

// A resource's graph is saved and restored by Open (no rebuild), and the
// reopened store answers as the saved one did.
func TestGraphPersisted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.bin")
	ctx := context.Background()
	s, err := OpenWithOptions(path, Options{ApproximateFrom: 10})
	if err != nil {
		t.Fatal(err)
	}
	s.lazy = true
	emb := NewHashEmbedder(32)
	if err := s.EnsureIndex(ctx, core.IndexSpec{Name: "ix", Dimension: 32}); err != nil {
		t.Fatal(err)
	}
	var recs []core.VectorRecord
	for i := range 300 {
		text := vectortest.Corpus[i%len(vectortest.Corpus)] + " " + vectortest.Queries[i%len(vectortest.Queries)]
		recs = append(recs, core.VectorRecord{ID: fmt.Sprint("m", i), Vector: emb.EmbedOne(text), Text: text,
			Meta: core.VectorMeta{MessageID: fmt.Sprint("m", i), ThreadID: fmt.Sprint("t", i%3), ResourceID: "r"}})
	}
	if err := s.Upsert(ctx, "ix", recs); err != nil {
		t.Fatal(err)
	}
	q := core.VectorQuery{Vector: emb.EmbedOne(vectortest.Queries[1]), TopK: 10, Filter: core.VectorFilter{ResourceID: "r"}}
	before, err := s.Query(ctx, "ix", q)
	if err != nil || s.indexes["ix"].parts["r"].graph == nil {
		t.Fatalf("query: %v, graph %v", err, s.indexes["ix"].parts["r"].graph)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := OpenWithOptions(path, Options{ApproximateFrom: 10})
	if err != nil {
		t.Fatal(err)
	}
	g := s2.indexes["ix"].parts["r"].graph
	if g == nil || g.n != 300 {
		t.Fatalf("graph not restored: %+v", g)
	}
	after, err := s2.Query(ctx, "ix", q)
	if err != nil || fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("reopened store differs (%v):\n%v\n%v", err, before, after)
	}
}

package local

import (
	"bufio"
	"context"
	"encoding/gob"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentmem/agentmem/core"
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

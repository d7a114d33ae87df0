package local

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/vector"
)

// Message metadata is saved with the records: a reopened store filters on
// it and returns it with hits, as the store that wrote it did.
func TestMetadataPersisted(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "md.bin")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.EnsureIndex(ctx, vector.IndexSpec{Name: "ix", Dimension: 2}); err != nil {
		t.Fatal(err)
	}
	recs := []vector.Record{
		{ID: "a#0", Vector: []float32{1, 0}, Text: "a", Meta: vector.Meta{MessageID: "a", ThreadID: "t", ResourceID: "r",
			Metadata: map[string]any{"projectId": "p1", "n": 2}}},
		{ID: "b#0", Vector: []float32{1, 0.1}, Text: "b", Meta: vector.Meta{MessageID: "b", ThreadID: "t", ResourceID: "r"}},
	}
	if err := s.Upsert(ctx, "ix", recs); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f, err := message.ParseFilter(map[string]any{"n": map[string]any{"$gte": 2}})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := s.Query(ctx, "ix", vector.Query{Vector: []float32{1, 0}, TopK: 5, Filter: vector.Filter{ResourceID: "r", Metadata: f}})
	if err != nil || len(hits) != 1 || hits[0].ID != "a#0" || hits[0].Meta.Metadata["projectId"] != "p1" {
		t.Fatalf("hits %+v, err %v", hits, err)
	}
	f, _ = message.ParseFilter(map[string]any{"projectId": map[string]any{"$exists": false}})
	hits, err = s.Query(ctx, "ix", vector.Query{Vector: []float32{1, 0}, TopK: 5, Filter: vector.Filter{ResourceID: "r", Metadata: f}})
	if err != nil || len(hits) != 1 || hits[0].ID != "b#0" {
		t.Fatalf("hits %+v, err %v", hits, err)
	}
}

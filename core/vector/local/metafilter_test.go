package local

import (
	"context"
	"fmt"
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

// BenchmarkQueryMetadataFilter compares a query of one resource's 5,000
// records unfiltered with the same query under a filter that half of them
// match and one that 1% match (searchFiltered asks the search for more
// candidates until TopK match).
func BenchmarkQueryMetadataFilter(b *testing.B) {
	ctx := context.Background()
	s := New()
	emb := NewHashEmbedder(64)
	if err := s.EnsureIndex(ctx, vector.IndexSpec{Name: "ix", Dimension: 64}); err != nil {
		b.Fatal(err)
	}
	const n = 5000
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("message %d about topic %d and item %d", i, i%37, i%101)
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		b.Fatal(err)
	}
	recs := make([]vector.Record, n)
	for i := range recs {
		recs[i] = vector.Record{ID: fmt.Sprintf("m%d#0", i), Vector: vecs[i], Text: texts[i], Meta: vector.Meta{
			MessageID: fmt.Sprintf("m%d", i), ThreadID: "t", ResourceID: "r",
			Metadata: map[string]any{"half": i%2 == 0, "bucket": float64(i % 100)}}}
	}
	if err := s.Upsert(ctx, "ix", recs); err != nil {
		b.Fatal(err)
	}
	qv, err := emb.Embed(ctx, []string{"topic 5 item 7"})
	if err != nil {
		b.Fatal(err)
	}
	half, _ := message.ParseFilter(map[string]any{"half": true})
	rare, _ := message.ParseFilter(map[string]any{"bucket": 42})
	for _, c := range []struct {
		name string
		f    message.Filter
	}{{"none", message.Filter{}}, {"half", half}, {"1pct", rare}} {
		b.Run(c.name, func(b *testing.B) {
			q := vector.Query{Vector: qv[0], TopK: 4, Filter: vector.Filter{ResourceID: "r", Metadata: c.f}}
			for b.Loop() {
				hits, err := s.Query(ctx, "ix", q)
				if err != nil || len(hits) != 4 {
					b.Fatalf("%d hits, %v", len(hits), err)
				}
			}
		})
	}
}

package local_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/vectortest"
)

func TestConformance(t *testing.T) {
	vectortest.Run(t, func(t *testing.T) vector.Store { return local.New() }, local.NewHashEmbedder(0))
}

// The conformance cases with every resource searched through the graph.
func TestConformanceApproximate(t *testing.T) {
	vectortest.Run(t, func(t *testing.T) vector.Store { return local.NewWithOptions(local.Options{ApproximateFrom: 1}) },
		local.NewHashEmbedder(0))
}

func TestConformancePersistent(t *testing.T) {
	vectortest.Run(t, func(t *testing.T) vector.Store {
		s, err := local.Open(filepath.Join(t.TempDir(), "vectors.bin"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}, local.NewHashEmbedder(64), vectortest.RunOptions{IsolationQueries: 50})
}

func TestPersistence(t *testing.T) {
	path := filepath.Join(t.TempDir(), "vectors.bin")
	emb := local.NewHashEmbedder(32)
	s, err := local.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	h := vectortest.NewH(t, s, emb)
	for i, text := range vectortest.Corpus {
		h.Upsert(vectortest.Rec(fmt.Sprint("m", i), "t", "r", text))
	}
	h.Delete(vector.Filter{ResourceID: "r", MessageIDs: []string{"m1"}})
	q := vector.Query{Text: vectortest.Queries[4], TopK: 10, Mode: vector.SearchHybrid, Alpha: 0.5, Filter: vector.Filter{ResourceID: "r"}}
	before := h.Query(q)
	// A second handle reads what the first wrote, without Close.
	s2, err := local.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	h2 := vectortest.NewH(t, s2, emb)
	after := h2.Query(q)
	if fmt.Sprint(before) != fmt.Sprint(after) || len(after) != len(vectortest.Corpus)-1 {
		t.Fatalf("reopened store differs:\n%v\n%v", before, after)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Upsert(context.Background(), h.Index, nil); !errors.Is(err, memerr.ErrVector) {
		t.Fatalf("Upsert after Close: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temp files left behind: %v", entries)
	}
	if err := os.WriteFile(path, []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := local.Open(path); !errors.Is(err, memerr.ErrVector) {
		t.Fatalf("Open of a corrupt file: %v", err)
	}
}

func TestBuffered(t *testing.T) {
	path := filepath.Join(t.TempDir(), "vectors.bin")
	s, err := local.OpenBuffered(path)
	if err != nil {
		t.Fatal(err)
	}
	h := vectortest.NewH(t, s, local.NewHashEmbedder(8))
	h.Upsert(vectortest.Rec("m", "t", "r", "hello"))
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("buffered store wrote before Flush: %v", err)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	s2, err := local.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if hits := vectortest.NewH(t, s2, local.NewHashEmbedder(8)).Query(vector.Query{Text: "hello", TopK: 5, Filter: vector.Filter{ResourceID: "r"}}); len(hits) != 1 {
		t.Fatalf("after Flush: %+v", hits)
	}
	h.Delete(vector.Filter{ResourceID: "r"})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s3, _ := local.Open(path)
	if hits := vectortest.NewH(t, s3, local.NewHashEmbedder(8)).Query(vector.Query{Text: "hello", TopK: 5, Filter: vector.Filter{ResourceID: "r"}}); len(hits) != 0 {
		t.Fatalf("after Close: %+v", hits)
	}
}

func TestErrors(t *testing.T) {
	ctx := context.Background()
	s := vector.Check(local.New())
	emb := local.NewHashEmbedder(8)
	rec := vectortest.Rec("m", "t", "r", "x")
	if err := s.Upsert(ctx, "nope", []vector.Record{rec}); !errors.Is(err, memerr.ErrVector) {
		t.Fatalf("Upsert to a missing index: %v", err)
	}
	h := vectortest.NewH(t, s, emb)
	rec.Vector = []float32{1, 2, 3}
	err := s.Upsert(ctx, h.Index, []vector.Record{rec})
	if !errors.Is(err, memerr.ErrVector) || !errors.Is(err, memerr.ErrEmbeddingDimensionMismatch) {
		t.Fatalf("dimension mismatch: %v", err)
	}
	_, err = s.Query(ctx, h.Index, vector.Query{TopK: 1, Filter: vector.Filter{ThreadID: "t"}})
	if !errors.Is(err, memerr.ErrVector) || !errors.Is(err, memerr.ErrMissingResourceID) {
		t.Fatalf("query without resource: %v", err)
	}
	_, err = s.Query(ctx, h.Index, vector.Query{Text: "x", Mode: "fuzzy", Filter: vector.Filter{ResourceID: "r"}})
	if !errors.Is(err, memerr.ErrVector) {
		t.Fatalf("unknown mode: %v", err)
	}
	if err := s.EnsureIndex(ctx, vector.IndexSpec{Name: h.Index, Dimension: 9}); !errors.Is(err, memerr.ErrVector) {
		t.Fatalf("EnsureIndex with another dimension: %v", err)
	}
}

func TestConcurrent(t *testing.T) {
	t.Run("exact", func(t *testing.T) { testConcurrent(t, local.New()) })
	t.Run("approximate", func(t *testing.T) { testConcurrent(t, local.NewWithOptions(local.Options{ApproximateFrom: 1})) })
}

func testConcurrent(t *testing.T, s *local.Store) {
	emb := local.NewHashEmbedder(16)
	h := vectortest.NewH(t, s, emb)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := fmt.Sprint("r", g%2)
			for i := range 50 {
				id := fmt.Sprintf("g%d-%d", g, i)
				h.Upsert(vectortest.Rec(id, "t", res, vectortest.Corpus[i%len(vectortest.Corpus)]))
				for _, hit := range h.Query(vector.Query{Text: vectortest.Queries[i%len(vectortest.Queries)], TopK: 3, Mode: vector.SearchHybrid, Alpha: 0.5, Filter: vector.Filter{ResourceID: res}}) {
					if hit.Meta.ResourceID != res {
						t.Errorf("leak: %+v", hit)
					}
				}
				if i%10 == 9 {
					h.Delete(vector.Filter{ResourceID: res, MessageIDs: []string{id}})
				}
			}
		}()
	}
	wg.Wait()
}

func TestHashEmbedder(t *testing.T) {
	e := local.NewHashEmbedder(0)
	a, _ := e.Embed(context.Background(), []string{"Hello, World!", "hello world", "", "!!!"})
	if len(a[0]) != local.DefaultDimension || e.Dimension() != local.DefaultDimension {
		t.Fatalf("dimension %d", len(a[0]))
	}
	if fmt.Sprint(a[0]) != fmt.Sprint(a[1]) {
		t.Fatal("case and punctuation should not matter")
	}
	if a[2][0] != 1 || a[3][0] != 1 {
		t.Fatal("empty text must map to the first basis vector")
	}
	var n float64
	for _, x := range e.EmbedOne("the quick brown fox") {
		n += float64(x) * float64(x)
	}
	if n < 0.999 || n > 1.001 {
		t.Fatalf("norm² %v", n)
	}
	if fmt.Sprint(local.NewHashEmbedder(0).EmbedOne("abc def")) != fmt.Sprint(e.EmbedOne("abc def")) {
		t.Fatal("not deterministic")
	}
}

package weaviate_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/vectortest"
	"github.com/agentmem/agentmem/core/vector/weaviate"
	"github.com/agentmem/agentmem/internal/embedserver"
)

func TestNames(t *testing.T) {
	for _, c := range [][3]string{
		{"Agentmem", "memory_messages_384", "AgentmemMemoryMessages384"},
		{"Agentmem", "memory_messages", "AgentmemMemoryMessages"},
		{"", "9-lives", "C9Lives"},
		{"t1", "a.b", "T1AB"},
	} {
		if got := weaviate.ClassName(c[0], c[1]); got != c[2] {
			t.Errorf("ClassName(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
	a, b := weaviate.TenantName("user@example.com/ü"), weaviate.TenantName("user@example.com/u")
	if a == b || len(a) != 33 || strings.Trim(a[1:], "0123456789abcdef") != "" || a[0] != 'r' {
		t.Fatalf("tenant names %q %q", a, b)
	}
	if id0, again, id1 := weaviate.ObjectID("m#0"), weaviate.ObjectID("m#0"), weaviate.ObjectID("m#1"); id0 != again || id0 == id1 {
		t.Fatal("object ids must be deterministic and distinct")
	}
}

func TestIsolation1000(t *testing.T) {
	server(t)
	for _, vz := range []string{weaviate.VectorizerNone, "text2vec-transformers"} {
		t.Run(vz, func(t *testing.T) {
			var emb vector.Embedder
			if vz == weaviate.VectorizerNone {
				emb = local.NewHashEmbedder(0)
			}
			vectortest.RunIsolation(vectortest.NewH(t, open(t, vz, nil), emb), 1000)
		})
	}
}

// recorder records the texts it embeds.
type recorder struct {
	mu    sync.Mutex
	texts []string
	emb   vector.Embedder
}

func (r *recorder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	r.mu.Lock()
	r.texts = append(r.texts, texts...)
	r.mu.Unlock()
	return r.emb.Embed(ctx, texts)
}

// inference starts an in-process embed server failing on "FAIL_EMBEDDING".
func inference(t *testing.T) (*recorder, string) {
	rec := &recorder{emb: local.NewHashEmbedder(0)}
	srv := embedserver.New(rec, "test")
	srv.FailOn = "FAIL_EMBEDDING"
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return rec, hs.URL
}

func TestSelfEmbeddingSendsOnlyText(t *testing.T) {
	rec, url := inference(t)
	s := open(t, "text2vec-transformers", map[string]any{"inferenceUrl": url})
	h := vectortest.NewH(t, s, nil)
	h.Upsert(vectortest.Rec("m1", "thread-1", "res-1", "Only this text"))
	h.Query(vector.Query{Text: "a query", TopK: 1, Filter: vector.Filter{ResourceID: "res-1"}})
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if !slices.Equal(rec.texts, []string{"Only this text", "a query"}) {
		t.Fatalf("embedded texts %q", rec.texts)
	}
}

func TestBatchErrors(t *testing.T) {
	server(t)
	ctx := context.Background()
	t.Run("vectorizer fails one object (gRPC)", func(t *testing.T) {
		_, url := inference(t)
		s := open(t, "text2vec-transformers", map[string]any{"inferenceUrl": url})
		testFailingObject(t, s)
	})
	t.Run("vectorizer fails one object (REST)", func(t *testing.T) {
		_, url := inference(t)
		s := openWith(t, weaviate.Config{Host: mustHost(t), Vectorizer: "text2vec-transformers",
			ModuleConfig: map[string]any{"inferenceUrl": url}})
		testFailingObject(t, s)
	})
	t.Run("wrong dimension", func(t *testing.T) {
		s := open(t, weaviate.VectorizerNone, nil)
		h := vectortest.NewH(t, s, local.NewHashEmbedder(0))
		h.Upsert(vectortest.Rec("m1", "t", "r", "first"))
		bad := vectortest.Rec("m2", "t", "r", "second")
		bad.Vector = []float32{1, 0, 0}
		err := s.Upsert(ctx, h.Index, []vector.Record{bad})
		t.Log(err)
		if !errors.Is(err, memerr.ErrVector) || !strings.Contains(err.Error(), "m2#0") {
			t.Fatalf("Upsert of a 3-dim vector into a 384-dim tenant: %v", err)
		}
		_, err = s.Query(ctx, h.Index, vector.Query{Vector: []float32{1, 0}, TopK: 1, Filter: vector.Filter{ResourceID: "r"}})
		t.Log(err)
		if !errors.Is(err, memerr.ErrVector) {
			t.Fatalf("query with a 2-dim vector: %v", err)
		}
	})
	t.Run("missing index and bad input", func(t *testing.T) {
		s := open(t, weaviate.VectorizerNone, nil)
		rec := vectortest.Rec("m", "t", "r", "x")
		rec.Vector = []float32{1}
		if err := s.Upsert(ctx, "nope", []vector.Record{rec}); !errors.Is(err, memerr.ErrVector) {
			t.Fatalf("Upsert to a missing index: %v", err)
		}
		if _, err := s.Query(ctx, "nope", vector.Query{Vector: []float32{1}, Filter: vector.Filter{ResourceID: "r"}}); !errors.Is(err, memerr.ErrVector) {
			t.Fatalf("Query of a missing index: %v", err)
		}
		if err := s.Delete(ctx, "nope", vector.Filter{ResourceID: "r"}); err != nil {
			t.Fatalf("Delete on a missing index: %v", err)
		}
		_, err := vector.Check(s).Query(ctx, "nope", vector.Query{Vector: []float32{1}})
		if !errors.Is(err, memerr.ErrVector) || !errors.Is(err, memerr.ErrMissingResourceID) {
			t.Fatalf("Query without resource: %v", err)
		}
		self := open(t, "text2vec-transformers", nil)
		if err := self.EnsureIndex(ctx, vector.IndexSpec{Name: "clash"}); err != nil {
			t.Fatal(err)
		}
		none, _ := weaviate.New(ctx, weaviate.Config{Host: mustHost(t), ClassPrefix: strings.TrimSuffix(self.ClassName("x"), "X")})
		if err := none.EnsureIndex(ctx, vector.IndexSpec{Name: "clash", Dimension: 3}); !errors.Is(err, memerr.ErrVector) {
			t.Fatalf("EnsureIndex over a class with another vectorizer: %v", err)
		}
	})
}

// testFailingObject upserts a good and a bad object through s (whose
// inference server fails on "FAIL_EMBEDDING") and checks the error paths.
func testFailingObject(t *testing.T, s *weaviate.Store) {
	ctx := context.Background()
	h := vectortest.NewH(t, s, nil)
	err := s.Upsert(ctx, h.Index, []vector.Record{
		vectortest.Rec("good", "t", "r", "a fine text"), vectortest.Rec("bad", "t", "r", "FAIL_EMBEDDING please")})
	t.Log(err)
	if !errors.Is(err, memerr.ErrVector) || !strings.Contains(err.Error(), `"bad#0"`) || !strings.Contains(err.Error(), "1 of 2") {
		t.Fatalf("Upsert with a failing object: %v", err)
	}
	hits := h.Query(vector.Query{Text: "fine", TopK: 10, Filter: vector.Filter{ResourceID: "r"}})
	if len(hits) != 1 || hits[0].ID != "good#0" {
		t.Fatalf("stored: %+v", hits)
	}
	_, err = h.QueryErr(vector.Query{Text: "FAIL_EMBEDDING", TopK: 1, Filter: vector.Filter{ResourceID: "r"}})
	t.Log(err)
	if !errors.Is(err, memerr.ErrVector) || !strings.Contains(err.Error(), "graphql") {
		t.Fatalf("query whose embedding fails: %v", err)
	}
}

func mustHost(t *testing.T) string { h, _ := server(t); return h }

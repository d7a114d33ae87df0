package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentmem/agentmem/core/vector/local"
)

// fakeEmbeddings is an OpenAI-compatible /v1/embeddings server on loopback
// that embeds with the offline hash embedder (dimension 64).
func fakeEmbeddings(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	h := local.NewHashEmbedder(64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil || req.Model != "test-model" {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		data := make([]item, len(req.Input))
		for i, text := range req.Input {
			data[i] = item{Index: i, Embedding: h.EmbedOne(text)}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", &calls
}

// TestOpenAICompatibleEmbedder: reindex, stats and search through
// --embedder URL --embed-model, the index named after the probed dimension.
func TestOpenAICompatibleEmbedder(t *testing.T) {
	url, calls := fakeEmbeddings(t)
	b := sqliteBackend(t)
	seed(t, b.store)
	b.flags = append(b.flags, "--vector", filepath.Join(t.TempDir(), "memory.vectors"), "--embedder", url, "--embed-model", "test-model")
	r := b.agentmem(t, "", "--write", "reindex").ok(t)
	if !strings.Contains(r.stdout, "reindexed 3 threads (8 messages) into memory_messages_64") {
		t.Fatalf("reindex: %s", r.stdout)
	}
	doc := jsonDoc(t, b.agentmem(t, "", "--json", "search", "ada", "Zanzibarina Reykjavik", "--top-k", "1").ok(t))
	hits := doc["hits"].([]any)
	if len(hits) != 1 || !strings.HasPrefix(hits[0].(map[string]any)["messageId"].(string), "trip-") {
		t.Fatalf("hits %v", hits)
	}
	if calls.Load() == 0 {
		t.Fatal("the embeddings endpoint was never called")
	}
	if r := b.agentmem(t, "", "search", "ada", "x", "--embed-model", ""); r.code != 2 || !strings.Contains(r.stderr, "--embed-model") {
		t.Errorf("URL embedder without a model: %+v", r)
	}
}

package inspector

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/weaviate"
	"github.com/agentmem/agentmem/internal/testenv"
)

// weaviateStore connects to the test server (scripts/lib/weaviate.sh) as a
// self-embedding store in a fresh class prefix. Without a server the test is
// skipped under plain `go test` and fails under scripts/test.
func weaviateStore(t *testing.T) *weaviate.Store {
	t.Helper()
	host, grpc := testenv.Weaviate(t)
	s, err := weaviate.New(bg, weaviate.Config{Host: host, GRPCHost: grpc,
		Vectorizer: "text2vec-transformers", ClassPrefix: fmt.Sprintf("Insp%d", rand.Uint32())})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRecallPlaygroundWeaviate runs the playground on a self-embedding
// Weaviate store: the query text goes to the server, no embedder here.
func TestRecallPlaygroundWeaviate(t *testing.T) {
	vs := weaviateStore(t)
	mem, err := core.New(core.Options{Store: memstore.New(), Vector: vs,
		Config: core.Config{SemanticRecall: &core.SemanticRecall{TopK: 3}}})
	if err != nil {
		t.Fatal(err)
	}
	th, err := mem.CreateThread(bg, core.ThreadInput{ResourceID: "user-w", Title: "weaviate"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range supportTurns() {
		runTurn(t, mem, th, tr.input, tr.answer...)
	}
	if n, err := mem.Unindexed(bg, "user-w"); err != nil || n != 0 {
		t.Fatalf("unindexed messages: %d, %v", n, err)
	}
	h, err := New(Options{Memory: mem, Vector: vs})
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{vector.SearchVector, vector.SearchBM25, vector.SearchHybrid} {
		w := get(h, recallURL("resource", "user-w", "q", "allergic to peanuts", "mode", mode))
		wantStatus(t, w, http.StatusOK)
		body := w.Body.String()
		wantContains(t, body, "("+mode+")", vector.IndexName(0))
		at := strings.Index(body, `data-rank="1"`)
		if at < 0 {
			t.Errorf("mode %s: no hits", mode)
			continue
		}
		first := body[at:]
		first = first[:strings.Index(first, "</section>")]
		if !strings.Contains(first, "I am allergic to peanuts") {
			t.Errorf("mode %s: the best hit's range lacks the peanut message", mode)
		}
	}
	// Another resource's tenant stays invisible.
	w := get(h, recallURL("resource", "user-none", "q", "peanuts", "mode", vector.SearchBM25))
	wantStatus(t, w, http.StatusOK)
	wantContains(t, w.Body.String(), `id="hit-count">0 hits`)
}

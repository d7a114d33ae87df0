package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
)

// fakeServer answers /v1/embeddings with vectors [len(text), index, dim...]
// in reverse index order; fail decides, per request number, a failure status.
type fakeServer struct {
	requests atomic.Int64
	dim      int
	fail     func(n int64) int
	lastAuth atomic.Value
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := f.requests.Add(1)
	f.lastAuth.Store(r.Header.Get("Authorization"))
	if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	if f.fail != nil {
		if code := f.fail(n); code != 0 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(code)
			_, _ = w.Write([]byte(`{"error":{"message":"try later"}}`))
			return
		}
	}
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	type item struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	var data []item
	for i := len(req.Input) - 1; i >= 0; i-- {
		v := make([]float32, f.dim)
		v[0], v[1] = float32(len(req.Input[i])), float32(i)
		data = append(data, item{Index: i, Embedding: v})
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"data": data, "model": req.Model})
}

func newFake(t *testing.T, dim int, fail func(int64) int) (*fakeServer, string) {
	f := &fakeServer{dim: dim, fail: fail}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv.URL + "/v1"
}

func TestEmbedBatchesAndOrders(t *testing.T) {
	f, url := newFake(t, 4, nil)
	e, err := New(Config{BaseURL: url, Model: "m", APIKey: "k", BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"a", "bb", "ccc", "dddd", "eeeee"}
	vecs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.requests.Load(); got != 3 {
		t.Fatalf("requests = %d, want 3 batches", got)
	}
	for i, v := range vecs {
		if int(v[0]) != len(texts[i]) {
			t.Fatalf("vector %d belongs to text of length %v, want %d", i, v[0], len(texts[i]))
		}
	}
	if auth := f.lastAuth.Load(); auth != "Bearer k" {
		t.Fatalf("Authorization = %v", auth)
	}
}

func TestEmbedRetriesTransientFailures(t *testing.T) {
	f, url := newFake(t, 3, func(n int64) int {
		if n <= 2 {
			return []int{http.StatusTooManyRequests, http.StatusBadGateway}[n-1]
		}
		return 0
	})
	e, _ := New(Config{BaseURL: url, Model: "m", MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond})
	vecs, err := e.Embed(context.Background(), []string{"x"})
	if err != nil || len(vecs) != 1 {
		t.Fatalf("Embed = %v, %v", vecs, err)
	}
	if got := f.requests.Load(); got != 3 {
		t.Fatalf("requests = %d, want 3 (two retries)", got)
	}
}

func TestEmbedGivesUpAfterMaxRetries(t *testing.T) {
	f, url := newFake(t, 3, func(int64) int { return http.StatusServiceUnavailable })
	e, _ := New(Config{BaseURL: url, Model: "m", MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond})
	_, err := e.Embed(context.Background(), []string{"x"})
	var apiErr *APIError
	if !errors.Is(err, memerr.ErrVector) || !errors.As(err, &apiErr) || apiErr.StatusCode != 503 || apiErr.Message != "try later" {
		t.Fatalf("err = %v", err)
	}
	if got := f.requests.Load(); got != 3 {
		t.Fatalf("requests = %d, want 3", got)
	}
}

func TestEmbedDoesNotRetryClientErrors(t *testing.T) {
	f, url := newFake(t, 3, func(int64) int { return http.StatusUnauthorized })
	e, _ := New(Config{BaseURL: url, Model: "m", MinBackoff: time.Millisecond})
	if _, err := e.Embed(context.Background(), []string{"x"}); !errors.Is(err, memerr.ErrVector) {
		t.Fatalf("err = %v", err)
	}
	if got := f.requests.Load(); got != 1 {
		t.Fatalf("requests = %d, want 1", got)
	}
}

func TestEmbedChecksDimension(t *testing.T) {
	_, url := newFake(t, 3, nil)
	e, _ := New(Config{BaseURL: url, Model: "m", Dimension: 8})
	if _, err := e.Embed(context.Background(), []string{"x"}); !errors.Is(err, memerr.ErrEmbeddingDimensionMismatch) {
		t.Fatalf("err = %v, want dimension mismatch", err)
	}
}

func TestEmbedHonoursContextDuringBackoff(t *testing.T) {
	_, url := newFake(t, 3, func(int64) int { return http.StatusInternalServerError })
	e, _ := New(Config{BaseURL: url, Model: "m", MaxRetries: 100, MinBackoff: time.Hour, MaxBackoff: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := e.Embed(ctx, []string{"x"}); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, memerr.ErrVector) {
			t.Fatalf("err = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Embed ignored the context deadline")
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, cfg := range []Config{{Model: "m"}, {BaseURL: "ftp://x", Model: "m"}, {BaseURL: "http://x"}, {BaseURL: "http://x", Model: "m", Dimension: -1}} {
		if _, err := New(cfg); !errors.Is(err, memerr.ErrInvalidConfig) {
			t.Errorf("New(%+v) = %v, want ErrInvalidConfig", cfg, err)
		}
	}
}

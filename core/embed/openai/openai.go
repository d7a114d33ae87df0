// Package openai is a vector.Embedder for any OpenAI-compatible embeddings API
// (POST /v1/embeddings): OpenAI itself, Ollama, vLLM, llama.cpp's server,
// LocalAI and others.
//
// Texts are sent in batches of Config.BatchSize. A batch answered with 429 or
// a 5xx status, or lost to a connection error, is retried with exponential
// backoff (honouring Retry-After) up to Config.MaxRetries times; every wait
// ends early when the context is done. Every returned vector must have the
// same length, and Config.Dimension when it is set
// (core.ErrEmbeddingDimensionMismatch otherwise).
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/vector"
)

// Defaults of Config.
const (
	DefaultBatchSize  = 128
	DefaultMaxRetries = 4
	DefaultMinBackoff = 500 * time.Millisecond
	DefaultMaxBackoff = 20 * time.Second
)

// Config configures an Embedder.
type Config struct {
	// BaseURL is the API root, e.g. "https://api.openai.com/v1" or
	// "http://localhost:11434/v1"; a URL ending in "/embeddings" is used as is.
	BaseURL string
	// Model is the embedding model name (required).
	Model string
	// APIKey, when set, is sent as a bearer token.
	APIKey string
	// Dimension, when set, is requested ("dimensions") and checked on every
	// returned vector.
	Dimension int
	// BatchSize is the number of texts per request (default 128).
	BatchSize int
	// MaxRetries is how often a failed request is retried (default 4;
	// negative disables retries).
	MaxRetries int
	// MinBackoff and MaxBackoff bound the exponential backoff (defaults 500ms
	// and 20s).
	MinBackoff, MaxBackoff time.Duration
	// HTTPClient sends the requests (default: a client with a 60s timeout).
	HTTPClient *http.Client
}

// Embedder calls an OpenAI-compatible embeddings endpoint. It is safe for
// concurrent use.
type Embedder struct {
	cfg Config
	url string
}

var _ vector.Embedder = (*Embedder)(nil)

// New validates cfg, fills its defaults and returns an Embedder. It does not
// contact the server.
func New(cfg Config) (*Embedder, error) {
	const op = "openai.New"
	if cfg.BaseURL == "" || !(strings.HasPrefix(cfg.BaseURL, "http://") || strings.HasPrefix(cfg.BaseURL, "https://")) {
		return nil, memerr.Errorf(memerr.CodeInvalidConfig, op, "BaseURL %q must be an http(s) URL", cfg.BaseURL)
	}
	if cfg.Model == "" {
		return nil, memerr.Errorf(memerr.CodeInvalidConfig, op, "Model is required")
	}
	if cfg.Dimension < 0 || cfg.BatchSize < 0 {
		return nil, memerr.Errorf(memerr.CodeInvalidConfig, op, "Dimension and BatchSize must not be negative")
	}
	if cfg.BatchSize == 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = DefaultMaxRetries
	}
	if cfg.MinBackoff <= 0 {
		cfg.MinBackoff = DefaultMinBackoff
	}
	if cfg.MaxBackoff < cfg.MinBackoff {
		cfg.MaxBackoff = max(DefaultMaxBackoff, cfg.MinBackoff)
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 60 * time.Second}
	}
	url := strings.TrimRight(cfg.BaseURL, "/")
	if !strings.HasSuffix(url, "/embeddings") {
		url += "/embeddings"
	}
	return &Embedder{cfg: cfg, url: url}, nil
}

// Embed returns one vector per text, in order.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for lo := 0; lo < len(texts); lo += e.cfg.BatchSize {
		batch := texts[lo:min(lo+e.cfg.BatchSize, len(texts))]
		vecs, err := e.embedBatch(ctx, batch)
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, e.checkDimensions(out)
}

// checkDimensions requires one length for every vector, equal to
// Config.Dimension when set.
func (e *Embedder) checkDimensions(vecs [][]float32) error {
	want := e.cfg.Dimension
	for i, v := range vecs {
		if want == 0 {
			want = len(v)
		}
		if len(v) != want || len(v) == 0 {
			return memerr.Errorf(memerr.CodeEmbeddingDimensionMismatch, "openai.Embed",
				"vector %d has %d dimensions, want %d", i, len(v), want)
		}
	}
	return nil
}

// embedBatch sends one request, retrying transient failures.
func (e *Embedder) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	body, err := json.Marshal(request{Model: e.cfg.Model, Input: texts, EncodingFormat: "float", Dimensions: e.cfg.Dimension})
	if err != nil {
		return nil, memerr.Errorf(memerr.CodeInvalidArgument, "openai.Embed", "encode request: %v", err)
	}
	for attempt := 0; ; attempt++ {
		vecs, retryAfter, err := e.post(ctx, body, len(texts))
		if err == nil || retryAfter < 0 || attempt >= e.cfg.MaxRetries {
			return vecs, err
		}
		if werr := sleep(ctx, e.backoff(attempt, retryAfter)); werr != nil {
			return nil, memerr.Errorf(memerr.CodeVector, "openai.Embed", "%v (while retrying after: %v)", werr, err)
		}
	}
}

// backoff is the wait before retry attempt+1: the server's Retry-After when
// given, else exponential with full jitter, capped at MaxBackoff.
func (e *Embedder) backoff(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, e.cfg.MaxBackoff)
	}
	d := e.cfg.MinBackoff << min(attempt, 20)
	if d > e.cfg.MaxBackoff || d <= 0 {
		d = e.cfg.MaxBackoff
	}
	return d/2 + rand.N(d/2+1)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

type request struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
	Dimensions     int      `json:"dimensions,omitempty"`
}

type response struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// APIError is the server's answer to a failed request; it is the cause
// (errors.As) of the *core.Error that Embed returns.
type APIError struct {
	StatusCode int
	Message    string
}

// Error returns the status code and the server's message.
func (e *APIError) Error() string {
	return fmt.Sprintf("embeddings API: HTTP %d: %s", e.StatusCode, e.Message)
}

// post sends one request. retryAfter is negative when the failure is
// permanent, 0 or the server's Retry-After when a retry may help.
func (e *Embedder) post(ctx context.Context, body []byte, n int) (vecs [][]float32, retryAfter time.Duration, err error) {
	const op = "openai.Embed"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return nil, -1, memerr.Errorf(memerr.CodeInvalidConfig, op, "%v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if e.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+e.cfg.APIKey)
	}
	resp, err := e.cfg.HTTPClient.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, -1, &memerr.Error{Code: memerr.CodeVector, Op: op, Msg: "request canceled", Err: ctx.Err()}
		}
		return nil, 0, &memerr.Error{Code: memerr.CodeVector, Op: op, Msg: "request failed", Err: err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, 0, &memerr.Error{Code: memerr.CodeVector, Op: op, Msg: "read response", Err: err}
	}
	if resp.StatusCode != http.StatusOK {
		apiErr := &APIError{StatusCode: resp.StatusCode, Message: errorMessage(raw)}
		retry := time.Duration(-1)
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
			retry = parseRetryAfter(resp.Header.Get("Retry-After"))
		}
		return nil, retry, &memerr.Error{Code: memerr.CodeVector, Op: op, Msg: "embedding request rejected", Err: apiErr}
	}
	vecs, err = decode(raw, n)
	if err != nil {
		return nil, -1, &memerr.Error{Code: memerr.CodeVector, Op: op, Msg: "bad response", Err: err}
	}
	return vecs, 0, nil
}

// decode orders the returned embeddings by index and checks there is exactly
// one per input.
func decode(raw []byte, n int) ([][]float32, error) {
	var r response
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	if len(r.Data) != n {
		return nil, fmt.Errorf("%d embeddings for %d inputs", len(r.Data), n)
	}
	vecs := make([][]float32, n)
	for _, d := range r.Data {
		if d.Index < 0 || d.Index >= n || vecs[d.Index] != nil {
			return nil, fmt.Errorf("bad or repeated embedding index %d", d.Index)
		}
		vecs[d.Index] = d.Embedding
	}
	return vecs, nil
}

// errorMessage extracts {"error":{"message":...}} (OpenAI's shape) or
// {"error":"..."} (Ollama's), else the start of the body.
func errorMessage(raw []byte) string {
	var obj struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(raw, &obj) == nil && len(obj.Error) > 0 {
		var s string
		if json.Unmarshal(obj.Error, &s) == nil {
			return s
		}
		var m struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(obj.Error, &m) == nil && m.Message != "" {
			return m.Message
		}
	}
	s := strings.TrimSpace(string(raw))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// parseRetryAfter reads a Retry-After header in seconds; 0 when absent or
// in another form.
func parseRetryAfter(h string) time.Duration {
	secs, err := strconv.Atoi(strings.TrimSpace(h))
	if err != nil || secs < 0 {
		return 0
	}
	return time.Duration(secs) * time.Second
}

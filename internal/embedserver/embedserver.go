// Package embedserver serves a vector.Embedder over HTTP with the inference
// contract of Weaviate's text2vec-transformers module (also spoken by
// text2vec-model2vec), so a Weaviate server can embed text offline, e.g. with
// local.HashEmbedder:
//
//	GET  /.well-known/ready, /.well-known/live  -> 204
//	GET  /meta                                  -> {"model":{...}}
//	POST /vectors (and /vectors/)  {"text":"...","config":{"task_type":"passage"}}
//	                                            -> {"text":"...","vector":[...],"dim":N}
//	POST /api/embed (the text2vec-ollama contract) {"model":"m","input":["..."]}
//	                                            -> {"model":"m","embeddings":[[...]]}
//
// Errors are {"error":"..."} with a non-2xx status, which Weaviate reports as
// "fail with status N: ...".
package embedserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/agentmem/agentmem/core/vector"
)

// Server is an http.Handler embedding texts with Embedder.
type Server struct {
	// Embedder produces the vectors.
	Embedder vector.Embedder
	// Model is the name reported by /meta and /api/embed.
	Model string
	// FailOn, when not empty, makes every text containing it fail with
	// status 500: a hook to test error paths end to end.
	FailOn string

	calls atomic.Int64
	mux   *http.ServeMux
}

// New returns a Server for emb named model.
func New(emb vector.Embedder, model string) *Server {
	s := &Server{Embedder: emb, Model: model, mux: http.NewServeMux()}
	ready := func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }
	s.mux.HandleFunc("GET /.well-known/ready", ready)
	s.mux.HandleFunc("GET /.well-known/live", ready)
	s.mux.HandleFunc("GET /meta", s.meta)
	s.mux.HandleFunc("POST /vectors", s.vectors)
	s.mux.HandleFunc("POST /vectors/", s.vectors)
	s.mux.HandleFunc("POST /api/embed", s.ollama)
	return s
}

// Calls returns the number of texts embedded so far.
func (s *Server) Calls() int64 { return s.calls.Load() }

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

func (s *Server) meta(w http.ResponseWriter, r *http.Request) {
	dim := 0
	if v, err := s.embed(r.Context(), []string{"dimension probe"}); err == nil {
		dim = len(v[0])
	}
	reply(w, http.StatusOK, map[string]any{"model": map[string]any{"name": s.Model, "dims": dim}})
}

type vectorsRequest struct {
	Text   string         `json:"text"`
	Config map[string]any `json:"config,omitempty"`
}

type vectorsResponse struct {
	Text   string    `json:"text"`
	Vector []float32 `json:"vector"`
	Dim    int       `json:"dim"`
}

func (s *Server) vectors(w http.ResponseWriter, r *http.Request) {
	var req vectorsRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 32<<20)).Decode(&req); err != nil {
		fail(w, http.StatusBadRequest, "decode request: "+err.Error())
		return
	}
	v, err := s.embed(r.Context(), []string{req.Text})
	if err != nil {
		fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	reply(w, http.StatusOK, vectorsResponse{Text: req.Text, Vector: v[0], Dim: len(v[0])})
}

func (s *Server) ollama(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 32<<20)).Decode(&req); err != nil {
		fail(w, http.StatusBadRequest, "decode request: "+err.Error())
		return
	}
	var texts []string
	if err := json.Unmarshal(req.Input, &texts); err != nil {
		var one string
		if err := json.Unmarshal(req.Input, &one); err != nil {
			fail(w, http.StatusBadRequest, "input must be a string or a list of strings")
			return
		}
		texts = []string{one}
	}
	v, err := s.embed(r.Context(), texts)
	if err != nil {
		fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	reply(w, http.StatusOK, map[string]any{"model": req.Model, "embeddings": v})
}

func (s *Server) embed(ctx context.Context, texts []string) ([][]float32, error) {
	for _, t := range texts {
		if s.FailOn != "" && strings.Contains(t, s.FailOn) {
			return nil, errors.New("forced failure: text contains " + s.FailOn)
		}
	}
	v, err := s.Embedder.Embed(ctx, texts)
	if err == nil && len(v) != len(texts) {
		err = errors.New("embedder returned a wrong number of vectors")
	}
	if err != nil {
		return nil, err
	}
	s.calls.Add(int64(len(texts)))
	return v, nil
}

func reply(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body)
}

func fail(w http.ResponseWriter, status int, msg string) {
	reply(w, status, map[string]string{"error": msg})
}

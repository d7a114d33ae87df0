// Package vector is the contract of semantic recall's vector stores: the
// Store driver interface, its optional capabilities (ModeLister,
// StatementWriter), the Embedder interface, records, queries and hits.
// Implementations live in its subpackages (local, weaviate, pgvector) and
// prove themselves with vectortest.Run; applications hand one to
// core.Options.Vector.
//
//	import "github.com/agentmem/agentmem/core/vector"
package vector

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"
	"unicode/utf8"

	"github.com/agentmem/agentmem/core/message"
)

// Embedder turns texts into vectors, one per text, all of one dimension.
// Implementations must be safe for concurrent use: Memory embeds from
// concurrent turns and from background indexing.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Store is the driver interface of semantic recall. Package vectortest
// holds its conformance suite. Implementations must isolate resources: a query
// never returns a record of another resource than Filter.ResourceID. Every
// method must be safe for concurrent use, honour ctx, and report failures as
// *memerr.Error values (CodeVector for the store's own failures). Drivers
// leave to Checked what it checks (ids, resource ids, modes, vectors): call
// a driver through Check, as core.Memory and vectortest do.
type Store interface {
	// SelfEmbedding reports whether the store embeds text itself (then
	// records and queries carry Text and no Vector, and no Embedder is needed).
	SelfEmbedding() bool
	// EnsureIndex creates the index if missing (idempotent).
	EnsureIndex(ctx context.Context, spec IndexSpec) error
	// Upsert inserts or replaces records by ID.
	Upsert(ctx context.Context, index string, recs []Record) error
	// Query returns the TopK best hits, best first.
	Query(ctx context.Context, index string, q Query) ([]Hit, error)
	// Delete removes the records matching f (ResourceID is required; with
	// ThreadID or MessageIDs it narrows to them). Unknown ids are no error.
	Delete(ctx context.Context, index string, f Filter) error
}

// BulkLoader is implemented by stores with a faster write path for large
// loads, which Memory.SaveMessagesBulk uses: UpsertBulk has
// Upsert's effect and contract, and may trade per-record work for work per
// call (for instance, build the approximate index after the records instead
// of inserting them into it one by one).
type BulkLoader interface {
	UpsertBulk(ctx context.Context, index string, recs []Record) error
}

// IndexLister is implemented by stores that list their indexes. Memory
// uses it to find messages indexed under another embedding dimension (an
// index named by IndexName of another dimension) before it writes or
// searches a resource, so that a changed embedder fails with
// memerr.ErrEmbeddingDimensionMismatch instead of recalling nothing.
type IndexLister interface {
	// IndexNames returns the names of the indexes the store holds, in any
	// order: those EnsureIndex created, in this process or before.
	IndexNames(ctx context.Context) ([]string, error)
}

// IndexSpec describes a vector index.
type IndexSpec struct {
	Name      string
	Dimension int // 0 for self-embedding stores that learn it from the vectorizer
	Config    IndexConfig
	// Version names how the records' texts and keywords are made (analyzer,
	// what is indexed for a message). A store records the version of the last
	// EnsureIndex of an index (in its process, or persisted with the index)
	// and, persistently, per resource with the resource's first record. While
	// the two differ, Upsert and Query on that resource fail with
	// memerr.ErrIndexVersionMismatch, so records of two versions are never
	// mixed; deleting the resource's records (Delete with only ResourceID)
	// clears its version, and the next Upsert records the current one. A
	// store that keeps the index version only in process checks nothing for
	// an index not ensured in the process. "" is a version like any other.
	Version string
}

// IndexConfig tunes the vector index where the store supports it.
type IndexConfig struct {
	Type   string // "hnsw", "flat", "ivfflat"
	Metric string // "cosine" (default), "euclidean", "dotproduct"
	HNSW   struct{ M, EfConstruction int }
	// IVFFlat tunes an "ivfflat" index: Lists is its number of inverted
	// lists (clusters); 0 lets the store choose from the number of records.
	IVFFlat struct{ Lists int }
}

// Meta is the metadata stored with every message vector.
type Meta struct {
	MessageID  string
	ThreadID   string
	ResourceID string
	Role       message.Role
	CreatedAt  time.Time
	// Metadata is the message's Content.Metadata, stored with the record so
	// that Filter.Metadata can select on it; hits return it. Stores keep
	// what a JSON round trip keeps (numbers may come back as float64).
	Metadata map[string]any
}

// Record is one embedded chunk of a message; ID is "<messageID>#<n>".
type Record struct {
	ID     string
	Vector []float32 // nil for self-embedding stores
	// Text is what the record shows and what self-embedding stores embed.
	Text string
	// Keywords are the analyzed terms keyword search (BM25) matches,
	// separated by spaces (see package analysis); "" means the terms of Text
	// by analysis.Plain.
	Keywords string
	Meta     Meta
}

// Filter scopes queries and deletes. ResourceID is always required.
type Filter struct {
	ResourceID string
	ThreadID   string   // optional
	MessageIDs []string // optional (deletes)
	// Metadata, on queries, keeps the records whose Meta.Metadata matches,
	// AND-ed with the scope above: the TopK best matching records, never
	// fewer because others were better. A store that cannot honour an
	// operator of it fails with memerr.ErrUnsupported, and an invalid one
	// (Filter.Validate) with memerr.ErrInvalidArgument; neither returns
	// unfiltered hits. Deletes ignore it.
	Metadata message.Filter
}

// ModeLister is implemented by stores that list the Query modes they
// support; a store without it supports SearchVector only.
type ModeLister interface {
	SearchModes() []string
}

// Search modes of a Query.
const (
	SearchVector = "vector"
	SearchHybrid = "hybrid"
	SearchBM25   = "bm25"
)

// Query is a similarity query.
type Query struct {
	Text string // query text (self-embedding stores, hybrid and BM25)
	// Keywords are the analyzed terms of Text for keyword search, made by
	// the analyzer of the records' Keywords; "" means the terms of Text by
	// analysis.Plain.
	Keywords string
	Vector   []float32 // query vector (when the store does not embed)
	// TopK is how many hits to return; a recall of TopK messages asks for
	// Candidates(TopK) of them (see Candidates).
	TopK     int
	Filter   Filter
	MinScore float64
	Mode     string  // SearchVector (default), SearchHybrid or SearchBM25
	Alpha    float64 // hybrid weight of the vector ranking
}

// Hit is one query result.
type Hit struct {
	ID    string
	Score float64
	Meta  Meta
}

// IndexName is the one function that names the message index for every read
// and write path: "memory_messages" for unknown or 1536 dimensions, else
// "memory_messages_<dim>".
func IndexName(dim int) string {
	if dim == 0 || dim == 1536 {
		return "memory_messages"
	}
	return fmt.Sprintf("memory_messages_%d", dim)
}

// IndexDimension returns the dimension whose index IndexName names, and
// false for a name IndexName does not make ("memory_messages" is 1536).
func IndexDimension(name string) (int, bool) {
	if name == "memory_messages" {
		return 1536, true
	}
	var dim int
	if n, err := fmt.Sscanf(name, "memory_messages_%d", &dim); err != nil || n != 1 || dim <= 0 || IndexName(dim) != name {
		return 0, false
	}
	return dim, true
}

// ChunkText splits text on whitespace into chunks of at most maxChars
// characters (runes), hard-splitting longer words.
func ChunkText(text string, maxChars int) []string {
	if text == "" {
		return nil
	}
	if maxChars <= 0 || utf8.RuneCountInString(text) <= maxChars {
		return []string{text}
	}
	var chunks []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			chunks = append(chunks, string(cur))
			cur = cur[:0]
		}
	}
	for _, word := range splitFields(text) {
		w := []rune(word)
		for len(w) > maxChars {
			flush()
			chunks = append(chunks, string(w[:maxChars]))
			w = w[maxChars:]
		}
		switch {
		case len(cur) == 0:
			cur = append(cur, w...)
		case len(cur)+1+len(w) <= maxChars:
			cur = append(append(cur, ' '), w...)
		default:
			flush()
			cur = append(cur, w...)
		}
	}
	flush()
	return chunks
}

func splitFields(s string) []string {
	var out []string
	start := -1
	for i := 0; i < len(s); i++ {
		space := s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r'
		if space && start >= 0 {
			out = append(out, s[start:i])
			start = -1
		} else if !space && start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// UnitVector returns v scaled to unit length as float32. A zero vector gives
// the first basis vector, so that every text an embedder sees has a
// direction (the cosine of a zero vector is undefined).
func UnitVector(v []float64) []float32 {
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, len(v))
	if len(v) == 0 {
		return out
	}
	if norm == 0 {
		out[0] = 1
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}

// CheckMode validates a search mode: "" (the store's default),
// SearchVector, SearchHybrid or SearchBM25.
func CheckMode(mode string) error {
	switch mode {
	case "", SearchVector, SearchHybrid, SearchBM25:
		return nil
	}
	return fmt.Errorf("mode must be %q, %q or %q, got %q", SearchVector, SearchHybrid, SearchBM25, mode)
}

// ResolveMode returns q's search mode ("" is SearchVector) and whether a
// query vector takes part in it (vector search, hybrid with Alpha > 0), or
// an error naming an unknown mode or a hybrid Alpha outside [0,1]. Stores
// check it first, so every store accepts the same queries.
func (q Query) ResolveMode() (mode string, usesVector bool, err error) {
	mode = q.Mode
	if mode == "" {
		mode = SearchVector
	}
	switch {
	case mode != SearchVector && mode != SearchBM25 && mode != SearchHybrid:
		return "", false, fmt.Errorf("unknown search mode %q", mode)
	case mode == SearchHybrid && (q.Alpha < 0 || q.Alpha > 1):
		return "", false, errors.New("hybrid alpha must be within [0,1]")
	}
	return mode, mode == SearchVector || (mode == SearchHybrid && q.Alpha > 0), nil
}

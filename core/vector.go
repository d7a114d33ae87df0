package core

import "github.com/agentmem/agentmem/core/vector"

// The vector contract lives in package vector; these names keep it reachable
// as core.X.

// Embedder turns texts into vectors; see vector.Embedder.
type Embedder = vector.Embedder

// VectorStore is the driver interface of semantic recall; see vector.Store.
type VectorStore = vector.Store

// IndexSpec describes a vector index; see vector.IndexSpec.
type IndexSpec = vector.IndexSpec

// IndexConfig tunes the vector index where the store supports it.
type IndexConfig = vector.IndexConfig

// VectorMeta is the metadata stored with every message vector; see vector.Meta.
type VectorMeta = vector.Meta

// VectorRecord is one embedded chunk of a message; see vector.Record.
type VectorRecord = vector.Record

// VectorFilter scopes queries and deletes; see vector.Filter.
type VectorFilter = vector.Filter

// VectorQuery is a similarity query; see vector.Query.
type VectorQuery = vector.Query

// VectorHit is one query result; see vector.Hit.
type VectorHit = vector.Hit

// Search modes of a VectorQuery.
const (
	SearchVector = vector.SearchVector
	SearchHybrid = vector.SearchHybrid
	SearchBM25   = vector.SearchBM25
)

// IndexName names the message index for a dimension; see vector.IndexName.
func IndexName(dim int) string { return vector.IndexName(dim) }

// ChunkText splits text into chunks of at most maxChars runes; see vector.ChunkText.
func ChunkText(text string, maxChars int) []string { return vector.ChunkText(text, maxChars) }

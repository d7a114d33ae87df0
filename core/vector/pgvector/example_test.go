package pgvector_test

import (
	"context"
	"os"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/postgres"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/pgvector"
)

// Messages and their vectors in one PostgreSQL database, on one pool: the
// message store and the vector store share DATABASE_URL's connections, and
// semantic recall uses an HNSW index of inner products (m 16,
// ef_construction 64).
func ExampleNew() {
	ctx := context.Background()
	ms, err := postgres.Open(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		panic(err)
	}
	defer ms.Close()
	vs, err := pgvector.New(ctx, ms.Pool(), pgvector.Config{})
	if err != nil {
		panic(err) // errors.Is(err, pgvector.ErrNoExtension): install pgvector on the server
	}
	recall := &core.SemanticRecall{TopK: 3, MessageRange: &core.MessageRange{Before: 2, After: 1}}
	recall.IndexConfig = vector.IndexConfig{Type: pgvector.TypeHNSW, Metric: pgvector.MetricDotProduct}
	recall.IndexConfig.HNSW.M, recall.IndexConfig.HNSW.EfConstruction = 16, 64
	mem, err := core.New(core.Options{
		Store:    ms,
		Vector:   vs,
		Embedder: local.NewHashEmbedder(384), // an embedding model's client in production
		Config:   core.Config{SemanticRecall: recall},
	})
	if err != nil {
		panic(err)
	}
	_ = mem // mem.Begin / turn.Commit index and recall through pgvector
}

// A vector store on a database of its own, with its own pool, closed by
// Close.
func ExampleOpen() {
	ctx := context.Background()
	vs, err := pgvector.Open(ctx, "postgres://app@db.internal:5432/vectors", pgvector.Config{Schema: "memory"})
	if err != nil {
		panic(err)
	}
	defer vs.Close()
}

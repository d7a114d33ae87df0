package weaviate_test

import (
	"context"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/weaviate"
)

// Semantic recall on a Weaviate server: the store is core.Options' Vector,
// and the Embedder brings the vectors (Vectorizer "none", the default).
func ExampleNew() {
	ctx := context.Background()
	vs, err := weaviate.New(ctx, weaviate.Config{
		Host:           "localhost:8080",  // REST
		GRPCHost:       "localhost:50051", // optional: batch writes over gRPC
		StartupTimeout: 30 * time.Second,
	})
	if err != nil {
		panic(err)
	}
	mem, err := core.New(core.Options{
		Store:    memstore.New(),
		Vector:   vs,
		Embedder: local.NewHashEmbedder(384),
		Config:   core.Config{SemanticRecall: &core.SemanticRecall{TopK: 3}},
	})
	if err != nil {
		panic(err)
	}
	_ = mem // mem.Begin / turn.Commit index and recall through Weaviate
}

// With a text2vec module enabled on the server the store embeds the texts
// itself, so core.Options needs no Embedder.
func ExampleNew_selfEmbedding() {
	ctx := context.Background()
	vs, err := weaviate.New(ctx, weaviate.Config{
		Host:       "localhost:8080",
		Vectorizer: "text2vec-transformers", // a module enabled on the server
	})
	if err != nil {
		panic(err)
	}
	mem, err := core.New(core.Options{
		Store:  memstore.New(),
		Vector: vs, // vs.SelfEmbedding() is true
		Config: core.Config{SemanticRecall: &core.SemanticRecall{}},
	})
	if err != nil {
		panic(err)
	}
	_ = mem
}

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
	defer vs.Close() // stops the idle-tenant sweeper
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

// Resources nobody used for TenantIdle.After have their tenants set
// inactive, which frees the server's open files and memory; the next read
// or write reactivates them. A maintenance job can do the same without
// history (RetireIdle, or agentmem maintain weaviate-tenants).
func ExampleNew_tenantIdle() {
	ctx := context.Background()
	vs, err := weaviate.New(ctx, weaviate.Config{
		Host:       "localhost:8080",
		TenantIdle: weaviate.TenantIdle{After: 10 * time.Minute}, // -1 turns the sweeper off
	})
	if err != nil {
		panic(err)
	}
	defer vs.Close()
	classes, err := vs.Classes(ctx)
	if err != nil {
		panic(err)
	}
	for _, class := range classes {
		// Every active tenant whose newest write is older than an hour.
		if _, err := vs.RetireIdle(ctx, class, time.Hour, weaviate.TenantInactive, 0); err != nil {
			panic(err)
		}
	}
}

// A cluster of three nodes holding every tenant three times: reads and
// writes wait for a quorum of replicas (docs/production.md).
func ExampleNew_cluster() {
	ctx := context.Background()

	vs, err := weaviate.New(ctx, weaviate.Config{
		Host:              "weaviate.internal:8080", // a load balancer over the nodes (see below)
		GRPCHost:          "weaviate.internal:50051",
		ReplicationFactor: 3,    // each tenant on 3 nodes
		AsyncReplication:  true, // the nodes repair each other in the background
		// Consistency: weaviate.ConsistencyQuorum is the default once the factor is above 1
	})
	if err != nil {
		panic(err)
	}
	defer vs.Close()
}

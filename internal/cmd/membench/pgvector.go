package main

import (
	"context"
	"errors"
	"github.com/agentmem/agentmem/core/store"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/pgvector"
	"github.com/agentmem/agentmem/internal/benchdata"
)

// runPgvector is bench-pgvec.mjs's side: the PostgreSQL store (-dsn) and
// pgvector on its pool, HNSW m 16 / ef_construction 64 with metric, the
// messages saved through Memory with semantic recall on, then 20 semantic
// recalls (topK 4, messageRange 1, resource scope, lastMessages 10) in mode,
// and the tables' bytes.
func (b *bench) runPgvector(ctx context.Context, mode, metric string) error {
	if b.pg == nil {
		return errors.New("-vector pgvector needs -dsn")
	}
	vs, err := pgvector.New(ctx, b.pg.Pool(), pgvector.Config{Schema: b.pg.Schema(), BuildMemory: b.buildMemory})
	if err != nil {
		return err
	}
	sr := &core.SemanticRecall{TopK: 4, MessageRange: &core.MessageRange{Before: 1, After: 1}, Scope: store.ScopeResource, Mode: mode}
	sr.IndexConfig = vector.IndexConfig{Type: pgvector.TypeHNSW, Metric: metric}
	sr.IndexConfig.HNSW.M, sr.IndexConfig.HNSW.EfConstruction = 16, 64
	mem, err := core.New(core.Options{Store: b.store, Vector: vs, Embedder: benchdata.HashEmbedder{Dim: 384},
		Config: core.Config{LastMessages: core.LastN(10), SemanticRecall: sr}})
	if err != nil {
		return err
	}
	if _, err := mem.CreateThread(ctx, core.ThreadInput{ID: threadID, ResourceID: resourceID, Title: "t"}); err != nil {
		return err
	}
	if err := b.save(ctx, mem); err != nil {
		return err
	}
	var got int
	label := "recall semantic topK=4 messageRange=1 resource lastMessages=10"
	if err := b.timeitN(label, 20, func(r int) error {
		res, err := mem.Recall(ctx, core.RecallQuery{ThreadID: threadID, ResourceID: resourceID, VectorSearch: b.query(r)})
		got = len(res.Messages)
		return err
	}); err != nil {
		return err
	}
	b.emit("recallCount", got)
	return b.size(ctx)
}

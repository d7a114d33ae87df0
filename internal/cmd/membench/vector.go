package main

import (
	"context"
	"github.com/agentmem/agentmem/core/store"
	"os"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/internal/benchdata"
)

// query is bench-vec.mjs's query(r).
func (b *bench) query(r int) string { return benchdata.Query(r, b.n) }

// runVector is bench-vec.mjs's side: the messages saved through Memory with
// semantic recall on the local store (a file beside the database, written on
// Close), then 20 semantic recalls (topK 4, messageRange 1, resource scope,
// lastMessages 10) in mode ("" = the default, hybrid; "vector" as Mastra
// searches), the open time of the saved vector file, bytes on disk and peak
// RSS.
func (b *bench) runVector(ctx context.Context, vecPath, mode string) error {
	_ = os.Remove(vecPath)
	vs, err := local.OpenBuffered(vecPath)
	if err != nil {
		return err
	}
	sr := &core.SemanticRecall{TopK: 4, MessageRange: &core.MessageRange{Before: 1, After: 1}, Scope: store.ScopeResource, Mode: mode}
	mem, err := core.New(core.Options{Store: b.store, Vector: vs, Embedder: benchdata.HashEmbedder{Dim: 384},
		Config: core.Config{LastMessages: core.LastN(10), SemanticRecall: sr}})
	if err != nil {
		return err
	}
	if _, err := mem.CreateThread(ctx, core.ThreadInput{ID: threadID, ResourceID: resourceID, Title: "t"}); err != nil {
		return err
	}
	b.trace.endPhase("save")
	if err := b.save(ctx, mem); err != nil {
		return err
	}
	b.trace.endPhase("graph")
	// The store builds its graph as the save writes, as Mastra's index is
	// built; BuildGraphs has nothing left to do, its time is reported to show it.
	t0 := time.Now()
	if err := vs.BuildGraphs(ctx, vector.IndexName(384)); err != nil {
		return err
	}
	b.emit("vector_graph_build_ms", ms(time.Since(t0)))
	b.trace.endPhase("recall")
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
	b.trace.endPhase("close")
	if err := vs.Close(); err != nil {
		return err
	}
	b.trace.endPhase("open")
	t0 = time.Now()
	reopened, err := local.Open(vecPath)
	if err != nil {
		return err
	}
	b.emit("vector_open_ms", ms(time.Since(t0)))
	b.trace.endPhase("query")
	t0 = time.Now() // the graph was saved with the file
	q := vector.Query{Vector: benchdata.HashEmbedder{Dim: 384}.EmbedOne(b.query(0)), TopK: 4, Filter: vector.Filter{ResourceID: resourceID}}
	if _, err := reopened.Query(ctx, vector.IndexName(384), q); err != nil {
		return err
	}
	b.emit("vector_first_query_after_open_ms", ms(time.Since(t0)))
	_ = reopened.Close()
	b.trace.endPhase("end")
	if err := b.size(ctx); err != nil {
		return err
	}
	if fi, err := os.Stat(vecPath); err == nil {
		b.emit("vector_file_bytes", fi.Size())
	}
	return nil
}

// recallQueries is the number of queries checkRecall asks (bench-vec.mjs's
// query(r) for r below it).
const recallQueries = 100

// checkRecall opens the saved vector file twice, searching with its graph
// (as membench's recall does) and exactly, and reports the mean recall@10 of
// the first against the second over recallQueries of bench-vec.mjs's
// queries in vector mode: by score (a result counts if it is as similar as
// the exact 10th, so that any of several tied records does; the corpus
// repeats its vectors) and by id.
func (b *bench) checkRecall(ctx context.Context, vecPath string) error {
	graphHits, err := b.searchAll(ctx, vecPath, local.Options{})
	if err != nil {
		return err
	}
	exactHits, err := b.searchAll(ctx, vecPath, local.Options{ApproximateFrom: -1})
	if err != nil {
		return err
	}
	var byScore, byID float64
	for i, want := range exactHits {
		ids := map[string]bool{}
		for _, h := range want {
			ids[h.ID] = true
		}
		for _, h := range graphHits[i] {
			if len(want) > 0 && h.Score >= want[len(want)-1].Score {
				byScore++
			}
			if ids[h.ID] {
				byID++
			}
		}
	}
	n := float64(10 * len(exactHits))
	b.emit("vector_recall_at_10", byScore/n, "vector_recall_at_10_by_id", byID/n, "queries", len(exactHits))
	return nil
}

// searchAll opens the vector file with o, waits for its graphs, and returns
// its top 10 for each of recallQueries queries.
func (b *bench) searchAll(ctx context.Context, vecPath string, o local.Options) ([][]vector.Hit, error) {
	s, err := local.OpenWithOptions(vecPath, o)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	name := vector.IndexName(384)
	if err := s.BuildGraphs(ctx, name); err != nil {
		return nil, err
	}
	out := make([][]vector.Hit, recallQueries)
	for r := range out {
		q := vector.Query{Vector: benchdata.HashEmbedder{Dim: 384}.EmbedOne(b.query(r)), TopK: 10, Filter: vector.Filter{ResourceID: resourceID}}
		if out[r], err = s.Query(ctx, name, q); err != nil {
			return nil, err
		}
	}
	return out, nil
}

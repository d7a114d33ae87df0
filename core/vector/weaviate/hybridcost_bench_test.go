package weaviate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/analysis"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/vectortest"
	"github.com/agentmem/agentmem/internal/testenv"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/graphql"
)

// BenchmarkHybridCost loads the LoCoMo dev split's turns, drawn at random,
// into one tenant (10k and 100k records, hash embedder, keywords analyzed
// as Memory does) and times, query by query interleaved with the split's
// questions, a vector search and a hybrid search through the store (TopK 4,
// α 0.2, as recall runs them) beside the requests a cheaper hybrid could be
// made of: BM25 alone, the vector top 20/100 with each record's keywords (to
// rescore with BM25 in the client), and both sides in one GraphQL request.
// Each reports its p50 and its ratio to the store's vector search.
//
//	AGENTMEM_WEAVIATE_HOST=... go test ./core/vector/weaviate/ -run '^$' -bench HybridCost -benchtime 200x -timeout 60m
func BenchmarkHybridCost(b *testing.B) {
	host, grpc := testenv.Weaviate(b)
	ctx := context.Background()
	prefix := fmt.Sprintf("HybridCost%d", rand.Int64N(1<<40))
	s, err := New(ctx, Config{Host: host, GRPCHost: grpc, ClassPrefix: prefix})
	if err != nil {
		b.Fatal(err)
	}
	const index = "memory_messages_384"
	b.Cleanup(func() { _ = s.client.Schema().ClassDeleter().WithClassName(s.ClassName(index)).Do(ctx) })
	if err := s.EnsureIndex(ctx, vector.IndexSpec{Name: index, Dimension: 384}); err != nil {
		b.Fatal(err)
	}
	turns, questions := vectortest.LoCoMoTexts(b)
	for _, n := range []int{10_000, 100_000} {
		res := fmt.Sprintf("r%d", n)
		loadTurns(b, s, index, res, turns, n) // here, as the sub-benchmark runs more than once
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) { hybridCost(b, s, index, res, questions) })
	}
}

// loadTurns upserts n records of turns drawn at random into resource res.
func loadTurns(b *testing.B, s *Store, index, res string, turns []string, n int) {
	ctx, an, emb := context.Background(), analysis.Must(analysis.English), local.NewHashEmbedder(384)
	r := rand.New(rand.NewPCG(7, 7))
	for lo := 0; lo < n; lo += 1000 {
		texts := make([]string, 1000)
		for i := range texts {
			texts[i] = turns[r.IntN(len(turns))]
		}
		vecs, _ := emb.Embed(ctx, texts)
		recs := make([]vector.Record, len(texts))
		for i := range recs {
			id := fmt.Sprintf("m%d", lo+i)
			recs[i] = vector.Record{ID: id + "#0", Vector: vecs[i], Text: texts[i], Keywords: an.Analyze(texts[i]),
				Meta: vector.Meta{MessageID: id, ThreadID: "t", ResourceID: res, Role: "user", CreatedAt: time.Now()}}
		}
		if err := s.Upsert(ctx, index, recs); err != nil {
			b.Fatal(err)
		}
	}
}

func hybridCost(b *testing.B, s *Store, index, res string, questions []string) {
	ctx, an, emb := context.Background(), analysis.Must(analysis.English), local.NewHashEmbedder(384)
	class, tenant := s.ClassName(index), TenantName(res)
	gql := s.client.GraphQL()
	fields := []graphql.Field{{Name: propRecordID}, {Name: propMessageID}, {Name: propThreadID},
		{Name: propResourceID}, {Name: propRole}, {Name: propCreatedAt},
		{Name: "_additional", Fields: []graphql.Field{{Name: "distance"}, {Name: "score"}}}}
	get := func(limit int, f ...graphql.Field) *graphql.GetBuilder {
		return gql.Get().WithClassName(class).WithTenant(tenant).WithLimit(limit).WithFields(f...)
	}
	do := func(g *graphql.GetBuilder) error {
		resp, err := g.Do(ctx)
		if err == nil {
			err = gqlErrors(resp)
		}
		return err
	}
	type search func(q string, v []float32) error
	store := func(mode string) search {
		return func(q string, v []float32) error {
			_, err := s.Query(ctx, index, vector.Query{Text: q, Keywords: an.Analyze(q), Vector: v, TopK: 4, Mode: mode,
				Alpha: 0.2, Filter: vector.Filter{ResourceID: res}})
			return err
		}
	}
	bm25 := func(q string, _ []float32) error {
		return do(get(4, fields...).WithBM25(gql.Bm25ArgBuilder().WithQuery(an.Analyze(q)).WithProperties(propKeywords)))
	}
	withKeywords := func(limit int) search {
		return func(_ string, v []float32) error {
			return do(get(limit, graphql.Field{Name: propRecordID}, graphql.Field{Name: propKeywords},
				graphql.Field{Name: "_additional", Fields: []graphql.Field{{Name: "distance"}}}).
				WithNearVector(gql.NearVectorArgBuilder().WithVector(v)))
		}
	}
	oneRequest := func(limit int) search {
		return func(q string, v []float32) error {
			inner := func(g *graphql.GetBuilder) string { // "{Get {C(...){...}}}" -> "C(...){...}"
				s := g.Build()
				return s[len("{Get {") : len(s)-2]
			}
			vq := inner(get(limit, fields...).WithNearVector(gql.NearVectorArgBuilder().WithVector(v)))
			kq := inner(get(limit, fields...).WithBM25(gql.Bm25ArgBuilder().WithQuery(an.Analyze(q)).WithProperties(propKeywords)))
			resp, err := gql.Raw().WithQuery("{Get {v: " + vq + " k: " + kq + "}}").Do(ctx)
			if err == nil {
				err = gqlErrors(resp)
			}
			return err
		}
	}
	variants := []struct {
		name string
		run  search
	}{
		{"vector", store(vector.SearchVector)},
		{"hybrid", store(vector.SearchHybrid)},
		{"bm25-top4", bm25},
		{"vector-top20-keywords", withKeywords(20)},
		{"vector-top100-keywords", withKeywords(100)},
		{"one-request-both-top20", oneRequest(20)},
		{"one-request-both-top100", oneRequest(100)},
	}
	r := rand.New(rand.NewPCG(1, 1))
	lat := make([][]time.Duration, len(variants))
	b.ResetTimer()
	for range b.N {
		q := questions[r.IntN(len(questions))]
		v, _ := emb.Embed(ctx, []string{q})
		for j, vr := range variants {
			t0 := time.Now()
			if err := vr.run(q, v[0]); err != nil {
				b.Fatal(vr.name, err)
			}
			lat[j] = append(lat[j], time.Since(t0))
		}
	}
	b.StopTimer()
	p50 := make([]float64, len(variants))
	for j, l := range lat {
		sort.Slice(l, func(a, c int) bool { return l[a] < l[c] })
		p50[j] = float64(l[len(l)/2].Microseconds()) / 1000
	}
	for j, vr := range variants {
		b.ReportMetric(p50[j], vr.name+"-p50-ms")
		if j > 0 {
			b.ReportMetric(p50[j]/p50[0], vr.name+"/vector")
		}
	}
}

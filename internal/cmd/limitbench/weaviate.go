package main

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/analysis"
	"github.com/agentmem/agentmem/core/vector/weaviate"
	"github.com/agentmem/agentmem/internal/benchdata"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/graphql"
)

// runWeaviate writes n records of one resource through agentmem's Weaviate
// store (membench's texts and hash vectors, calls of batchSize), then times
// the same queries (top 4, membench's query texts, alpha 0.2 for hybrid)
// through the store's Query and through Weaviate's own client on the same
// class and tenant, alternating which goes first query by query: hybrid on the keywords
// property, then vector (nearVector). The client's queries ask for the
// record id and score only; what the store adds (its version check, the
// fields of a hit) is the difference.
func runWeaviate(ctx context.Context, host, grpcHost string) error {
	s, err := weaviate.New(ctx, weaviate.Config{Host: host, GRPCHost: grpcHost})
	if err != nil {
		return err
	}
	defer s.Close()
	index := fmt.Sprintf("limitbench_%d_%d", n, time.Now().UnixNano())
	if err := s.EnsureIndex(ctx, vector.IndexSpec{Name: index, Dimension: 384}); err != nil {
		return err
	}
	emb := benchdata.HashEmbedder{Dim: 384}
	const resource = "user-1"
	start := time.Now()
	for lo := 0; lo < n; lo += batchSize {
		recs := make([]vector.Record, 0, batchSize)
		for i := lo; i < min(n, lo+batchSize); i++ {
			t := benchdata.Text(i)
			id := fmt.Sprint("m", i)
			recs = append(recs, vector.Record{ID: id, Vector: emb.EmbedOne(t), Text: t, Keywords: analysis.Plain.Analyze(t),
				Meta: vector.Meta{MessageID: id, ThreadID: threadID, ResourceID: resource, Role: message.RoleUser, CreatedAt: time.Unix(int64(i), 0)}})
		}
		if err := s.Upsert(ctx, index, recs); err != nil {
			return err
		}
	}
	emit("index_msgs_per_s", int(float64(n)/time.Since(start).Seconds()))
	class, tenant := s.ClassName(index), weaviate.TenantName(resource)
	gql := s.Client().GraphQL()
	raw := func(q vector.Query) error {
		get := gql.Get().WithClassName(class).WithTenant(tenant).WithLimit(q.TopK).WithFields(
			graphql.Field{Name: "recordId"}, graphql.Field{Name: "_additional", Fields: []graphql.Field{{Name: "score"}, {Name: "distance"}}})
		if q.Mode == vector.SearchHybrid {
			get = get.WithHybrid(gql.HybridArgumentBuilder().WithQuery(q.Keywords).WithAlpha(float32(q.Alpha)).
				WithProperties([]string{"keywords"}).WithFusionType(graphql.RelativeScore).WithVector(q.Vector))
		} else {
			get = get.WithNearVector(gql.NearVectorArgBuilder().WithVector(q.Vector))
		}
		resp, err := get.Do(ctx)
		if err == nil && len(resp.Errors) > 0 {
			err = fmt.Errorf("graphql: %s", resp.Errors[0].Message)
		}
		return err
	}
	for _, mode := range []string{vector.SearchHybrid, vector.SearchVector} {
		const reps = 50
		var store, client []float64
		for r := -1; r < reps; r++ { // r = -1: untimed
			text := benchdata.Query(max(r, 0), n)
			q := vector.Query{Text: text, Keywords: analysis.Plain.Analyze(text), Vector: emb.EmbedOne(text), TopK: 4,
				Filter: vector.Filter{ResourceID: resource}, Mode: mode, Alpha: 0.2}
			viaStore := func() error { _, err := s.Query(ctx, index, q); return err }
			first, second := viaStore, func() error { return raw(q) }
			if r%2 == 1 {
				first, second = second, first
			}
			t0 := time.Now()
			if err := first(); err != nil {
				return err
			}
			t1 := time.Now()
			if err := second(); err != nil {
				return err
			}
			a, b := ms(t1.Sub(t0)), ms(time.Since(t1))
			if r%2 == 1 {
				a, b = b, a
			}
			if r >= 0 {
				store, client = append(store, a), append(client, b)
			}
		}
		sort.Float64s(store)
		sort.Float64s(client)
		emit("label", "weaviate "+mode+" agentmem", "p50_ms", store[reps/2])
		emit("label", "weaviate "+mode+" client", "p50_ms", client[reps/2])
	}
	return s.Client().Schema().ClassDeleter().WithClassName(class).Do(ctx)
}

package integration_test

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/weaviate"
)

var benchWords = []string{"budget", "travel", "vendor", "hiring", "plan", "review", "quarter", "meeting", "report", "launch",
	"design", "customer", "invoice", "server", "backup", "release", "roadmap", "training", "office", "contract"}

func benchText(r *rand.Rand) string {
	s := ""
	for i := 0; i < 12; i++ {
		s += benchWords[r.IntN(len(benchWords))] + " "
	}
	return s
}

// BenchmarkWeaviateRecall100k indexes 100k messages of one resource through
// Memory.SaveMessages (bring-your-own vectors, hash embedder, gRPC batches)
// and reports insert throughput, then semantic Recall latency p50/p95 in
// vector mode and with the default config (hybrid).
func BenchmarkWeaviateRecall100k(b *testing.B) {
	host, grpc := weaviateHost(b)
	prefix := fmt.Sprintf("Bench%d", rand.Int64N(1<<40))
	vs, err := weaviate.New(bg, weaviate.Config{Host: host, GRPCHost: grpc, ClassPrefix: prefix})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { dropClasses(vs, prefix) })
	benchRecall100k(b, vs)
}

// BenchmarkLocalRecall100k is the same on the in-process local store.
func BenchmarkLocalRecall100k(b *testing.B) { benchRecall100k(b, local.New()) }

func benchRecall100k(b *testing.B, vs core.VectorStore) {
	const n, batch = 100_000, 500
	mem, err := core.New(core.Options{Store: memstore.New(), Vector: vs, Embedder: local.NewHashEmbedder(384),
		Config: core.Config{SemanticRecall: &core.SemanticRecall{}}})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := mem.CreateThread(bg, core.ThreadInput{ID: "t", ResourceID: "r"}); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 7))
	start := time.Now()
	for lo := 0; lo < n; lo += batch {
		msgs := make([]core.Message, batch)
		for i := range msgs {
			msgs[i] = core.NewMessage(core.RoleUser, benchText(r))
			msgs[i].ThreadID, msgs[i].ResourceID = "t", "r"
		}
		if _, err := mem.SaveMessages(bg, msgs, nil); err != nil {
			b.Fatal(err)
		}
	}
	insert := float64(n) / time.Since(start).Seconds()
	// SaveMessages logs instead of failing on indexing errors: prove the index is complete.
	probe, _ := local.NewHashEmbedder(384).Embed(bg, []string{"budget travel"})
	hits, err := vs.Query(bg, core.IndexName(384), core.VectorQuery{Vector: probe[0], TopK: 1, Filter: core.VectorFilter{ResourceID: "r"}})
	if err != nil || len(hits) == 0 {
		b.Fatalf("index empty after insert: %v", err)
	}
	// Vector mode is how recall searched before hybrid became the default:
	// the two sub-benchmarks give the ratio of one run.
	for _, mode := range []string{core.SearchVector, "default"} {
		over := &core.SemanticRecall{Mode: mode}
		if mode == "default" {
			over = nil
		}
		b.Run(mode, func(b *testing.B) {
			lat := make([]time.Duration, 0, b.N)
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				res, err := mem.Recall(bg, core.RecallQuery{ThreadID: "t", ResourceID: "r", VectorSearch: benchText(r),
					Config: &core.Config{LastMessages: core.NoHistory, SemanticRecall: over}})
				if err != nil || len(res.Messages) == 0 {
					b.Fatal(len(res.Messages), err)
				}
				lat = append(lat, time.Since(t0))
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(insert, "insert-msgs/s")
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
		})
	}
}

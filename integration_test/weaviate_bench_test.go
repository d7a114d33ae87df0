package integration_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/vectortest"
	"github.com/agentmem/agentmem/core/vector/weaviate"
	"github.com/agentmem/agentmem/internal/testenv"
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

// BenchmarkWeaviateRecall100k indexes 100k messages per corpus through
// Memory.SaveMessages (bring-your-own vectors, hash embedder, gRPC batches)
// and reports insert throughput, then semantic Recall latency p50/p95 in
// vector mode and with the default config (hybrid), on each corpus of
// benchCorpora.
func BenchmarkWeaviateRecall100k(b *testing.B) {
	host, grpc := testenv.Weaviate(b)
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

// benchCorpus makes the texts of one 100k-message benchmark: message texts
// and query texts from the same source.
type benchCorpus struct {
	name        string
	text, query func(r *rand.Rand) string
}

// benchCorpora are the two corpora the 100k benchmarks index, each in its own
// resource of one index: "uniform20", the worst case for keyword search (12
// words drawn from 20, so every query term matches ~70% of the records), and
// "locomo", conversation text (the dev split's 788 turns drawn at random,
// each turn ~127 times, queried with its questions), where a term's posting
// list is a small share of the resource. The second needs the LoCoMo file.
func benchCorpora(b *testing.B) []benchCorpus {
	uniform := benchCorpus{name: "uniform20", text: benchText, query: benchText}
	if _, err := os.Stat(vectortest.LoCoMoPath()); err != nil {
		b.Logf("corpus locomo skipped: %v", err)
		return []benchCorpus{uniform}
	}
	turns, questions := vectortest.LoCoMoTexts(b)
	pick := func(from []string) func(*rand.Rand) string {
		return func(r *rand.Rand) string { return from[r.IntN(len(from))] }
	}
	return []benchCorpus{uniform, {name: "locomo", text: pick(turns), query: pick(questions)}}
}

// benchRecall100k indexes 100k messages per corpus and measures recall in
// vector mode (how recall searched before hybrid became the default) and
// with the default config: the sub-benchmarks give the ratios of one run.
func benchRecall100k(b *testing.B, vs vector.Store) {
	mem, err := core.New(core.Options{Store: memstore.New(), Vector: vs, Embedder: local.NewHashEmbedder(384),
		Config: core.Config{SemanticRecall: &core.SemanticRecall{}}})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range benchCorpora(b) {
		b.Run(c.name, func(b *testing.B) { benchCorpusRecall(b, mem, vs, c) })
	}
}

func benchCorpusRecall(b *testing.B, mem *core.Memory, vs vector.Store, c benchCorpus) {
	const n, batch = 100_000, 500
	thread, resource := "t-"+c.name, "r-"+c.name
	if _, err := mem.CreateThread(bg, core.ThreadInput{ID: thread, ResourceID: resource}); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 7))
	start := time.Now()
	for lo := 0; lo < n; lo += batch {
		msgs := make([]core.Message, batch)
		for i := range msgs {
			msgs[i] = core.NewMessage(core.RoleUser, c.text(r))
			msgs[i].ThreadID, msgs[i].ResourceID = thread, resource
		}
		if _, err := mem.SaveMessages(bg, msgs, nil); err != nil {
			b.Fatal(err)
		}
	}
	insert := float64(n) / time.Since(start).Seconds()
	// SaveMessages logs instead of failing on indexing errors: prove the index is complete.
	probe, _ := local.NewHashEmbedder(384).Embed(bg, []string{c.query(r)})
	hits, err := vs.Query(bg, vector.IndexName(384), vector.Query{Vector: probe[0], TopK: 1, Filter: vector.Filter{ResourceID: resource}})
	if err != nil || len(hits) == 0 {
		b.Fatalf("index empty after insert: %v", err)
	}
	// The local store builds its graph as it writes, as Weaviate does;
	// BuildGraphs returns at once unless a graph is still missing.
	if gb, ok := vs.(interface {
		BuildGraphs(context.Context, string) error
	}); ok {
		if err := gb.BuildGraphs(bg, vector.IndexName(384)); err != nil {
			b.Fatal(err)
		}
	}
	for _, mode := range []string{vector.SearchVector, "default"} {
		over := &core.SemanticRecall{Mode: mode}
		if mode == "default" {
			over = nil
		}
		b.Run(mode, func(b *testing.B) {
			lat := make([]time.Duration, 0, b.N)
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				res, err := mem.Recall(bg, core.RecallQuery{ThreadID: thread, ResourceID: resource, VectorSearch: c.query(r),
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

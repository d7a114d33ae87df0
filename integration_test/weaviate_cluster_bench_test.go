package integration_test

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/weaviate"
	"github.com/agentmem/agentmem/internal/testenv"
)

// BenchmarkWeaviateCluster compares one Weaviate node
// ($AGENTMEM_WEAVIATE_HOST, replication factor 1) with the three-node
// cluster of $AGENTMEM_WEAVIATE_CLUSTER (factor 3, QUORUM reads and writes,
// async repair), through Memory (hash embedder, in-memory message store):
// turns written per second (a turn saves two messages) and semantic recalls
// per second, each from 4 goroutines over 64 resources, and the latency of
// one recall at a time (p50, p95). On the cluster it then kills node3 and
// measures recall again with one node down. scripts/bench --weaviate-cluster
// starts both and runs it.
func BenchmarkWeaviateCluster(b *testing.B) {
	host, grpc := testenv.Weaviate(b)
	c := weaviateCluster(b)
	b.Run("one-node", func(b *testing.B) {
		mem := clusterBenchMemory(b, weaviate.Config{Host: host, GRPCHost: grpc})
		clusterBench(b, mem, true)
	})
	// One memory for both runs on the cluster: the classes it writes
	// outlive the first run (they are dropped when the benchmark ends).
	cluster := clusterBenchMemory(b, weaviate.Config{Host: c.hosts[0], GRPCHost: c.grpcs[0], ReplicationFactor: 3,
		AsyncReplication: true})
	b.Run("three-nodes", func(b *testing.B) { clusterBench(b, cluster, true) })
	b.Run("three-nodes-node3-down", func(b *testing.B) {
		c.kill(b, 3)
		defer c.restart(b, 3)
		time.Sleep(3 * time.Second) // the others notice
		clusterBench(b, cluster, false)
	})
}

const (
	benchClusterResources = 64
	benchClusterTurns     = 8 // per resource
	benchClusterWorkers   = 4
)

func clusterBenchMemory(b *testing.B, cfg weaviate.Config) *core.Memory {
	cfg.ClassPrefix = fmt.Sprintf("Clb%d", rand.Int64N(1<<40))
	cfg.TenantIdle = weaviate.TenantIdle{After: -1}
	vs, err := weaviate.New(bg, cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { dropClasses(vs, cfg.ClassPrefix) })
	mem, err := core.New(core.Options{Store: memstore.New(), Vector: vs, Embedder: local.NewHashEmbedder(384),
		Config: core.Config{SemanticRecall: &core.SemanticRecall{}}})
	if err != nil {
		b.Fatal(err)
	}
	return mem
}

// clusterBench writes (when write is set) benchClusterTurns turns to each
// resource, then recalls, and reports the rates and latencies.
func clusterBench(b *testing.B, mem *core.Memory, write bool) {
	res := func(r int) string { return fmt.Sprintf("bench-%d", r) }
	parallel := func(n int, fn func(i int)) time.Duration {
		var wg sync.WaitGroup
		next := make(chan int)
		start := time.Now()
		for range benchClusterWorkers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					fn(i)
				}
			}()
		}
		for i := range n {
			next <- i
		}
		close(next)
		wg.Wait()
		return time.Since(start)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	texts := make([]string, 2*benchClusterResources*benchClusterTurns)
	for i := range texts {
		texts[i] = benchText(rng)
	}
	if write {
		for r := range benchClusterResources {
			if _, err := mem.CreateThread(bg, core.ThreadInput{ID: "t-" + res(r), ResourceID: res(r)}); err != nil {
				b.Fatal(err)
			}
		}
		turns := benchClusterResources * benchClusterTurns
		d := parallel(turns, func(i int) {
			r := i % benchClusterResources
			msgs := []core.Message{core.NewMessage(core.RoleUser, texts[2*i]), core.NewMessage(core.RoleAssistant, texts[2*i+1])}
			for j := range msgs {
				msgs[j].ThreadID, msgs[j].ResourceID = "t-"+res(r), res(r)
			}
			if _, err := mem.SaveMessages(bg, msgs, nil); err != nil {
				b.Error(err)
			}
		})
		if n, err := mem.Unindexed(bg, ""); err != nil || n != 0 {
			b.Fatalf("%d messages unindexed: %v", n, err)
		}
		b.ReportMetric(float64(turns)/d.Seconds(), "turns/s")
	}
	recall := func(i int) time.Duration {
		r := i % benchClusterResources
		t0 := time.Now()
		got, err := mem.Recall(bg, core.RecallQuery{ThreadID: "t-" + res(r), ResourceID: res(r), VectorSearch: texts[2*i%len(texts)],
			Config: onlySemantic(core.SemanticRecall{TopK: 5, MessageRange: &core.MessageRange{}})})
		if err != nil || len(got.Messages) == 0 {
			b.Errorf("recall in %s: %d messages, %v", res(r), len(got.Messages), err)
		}
		return time.Since(t0)
	}
	const recalls = 512
	d := parallel(recalls, func(i int) { recall(i) })
	b.ReportMetric(float64(recalls)/d.Seconds(), "recalls/s")
	lat := make([]time.Duration, 200)
	for i := range lat {
		lat[i] = recall(i * 7)
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
}

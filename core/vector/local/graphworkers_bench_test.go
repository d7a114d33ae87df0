//go:build unix

package local

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/vector"
)

// BenchmarkGraphWorkers builds the graph of BenchmarkBulkLoad's corpus
// ($AGENTMEM_BULK_N records, default 10,000, every vector distinct) with one
// worker and with GOMAXPROCS workers, $AGENTMEM_GRAPH_ROUNDS rounds (default
// 2) interleaved, the order alternating, so that both see the same machine.
// It reports each side's median build time, the speed-up (the ratio of the
// medians) and the process CPU time per build, whose ratio shows what the
// parallel build costs in extra work.
//
//	AGENTMEM_BULK_N=100000 go test ./core/vector/local/ -run '^$' -bench GraphWorkers -benchtime 1x -timeout 90m
func BenchmarkGraphWorkers(b *testing.B) {
	n, rounds := envInt("AGENTMEM_BULK_N", 10_000), envInt("AGENTMEM_GRAPH_ROUNDS", 2)
	emb := NewHashEmbedder(384)
	r := rand.New(rand.NewPCG(7, 7))
	p := newPartition("r", 1)
	for i := range n {
		p.put(vector.Record{ID: fmt.Sprint(i), Vector: emb.EmbedOne(bulkText(r, i)), Meta: vector.Meta{ThreadID: "t"}})
	}
	sides := []int{1, runtime.GOMAXPROCS(0)}
	wall := make([][]float64, len(sides))
	cpu := make([][]float64, len(sides))
	b.ResetTimer()
	for range b.N {
		for round := range rounds {
			for k := range sides {
				if round%2 == 1 {
					k = len(sides) - 1 - k
				}
				c0, t0 := cpuTime(), time.Now()
				newGraph(&p.vecs).add(int32(n), sides[k])
				wall[k] = append(wall[k], time.Since(t0).Seconds())
				cpu[k] = append(cpu[k], (cpuTime() - c0).Seconds())
				b.Logf("round %d, %d workers: %.1f s, CPU %.1f s", round, sides[k], wall[k][len(wall[k])-1], cpu[k][len(cpu[k])-1])
			}
		}
	}
	median := func(s []float64) float64 {
		s = slices.Sorted(slices.Values(s))
		return s[len(s)/2]
	}
	for k, w := range sides {
		b.ReportMetric(median(wall[k]), fmt.Sprint("build-s-", w, "-workers"))
		b.ReportMetric(median(cpu[k]), fmt.Sprint("cpu-s-", w, "-workers"))
	}
	b.ReportMetric(median(wall[0])/median(wall[1]), "speed-up")
}

// cpuTime returns the CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

package integration_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentmem/agentmem/core"
)

// BenchmarkPostgresPairTurns compares turns (Begin, then Commit of one
// question and one answer, under a budget that trims every few turns) on
// one server (AGENTMEM_PG_DSN) and on a primary that replicates
// synchronously to a standby (AGENTMEM_PG_FAILOVER_DSN, scripts/lib/pg.sh),
// side by side so that both see the same load of the machine: each
// iteration runs a round on each, the order alternating. With 1 goroutine a
// round is one turn, and it reports the median turn; with 8, each goroutine
// on a thread of its own, a round is 8×10 turns, and it reports the median
// round's turns per second.
func BenchmarkPostgresPairTurns(b *testing.B) {
	pair := os.Getenv("AGENTMEM_PG_FAILOVER_DSN")
	if pair == "" {
		b.Skip("AGENTMEM_PG_FAILOVER_DSN not set (scripts/lib/pg.sh: pg_pair_start)")
	}
	single := pgDSN(b)
	for _, workers := range []int{1, 8} {
		b.Run(fmt.Sprintf("goroutines=%d", workers), func(b *testing.B) {
			mems := [2]*core.Memory{pairBenchMemory(b, single), pairBenchMemory(b, pair)}
			perRound := 1
			if workers > 1 {
				perRound = 10
			}
			var took [2][]time.Duration
			for i := 0; b.Loop(); i++ {
				for k := range 2 {
					v := (i + k) % 2
					start := time.Now()
					pairBenchRound(b, mems[v], i, workers, perRound)
					took[v] = append(took[v], time.Since(start))
				}
			}
			one, two := median(took[0]), median(took[1])
			if workers == 1 {
				b.ReportMetric(float64(one.Microseconds()), "single-µs/turn")
				b.ReportMetric(float64(two.Microseconds()), "pair-µs/turn")
			} else {
				turns := float64(workers * perRound)
				b.ReportMetric(turns/one.Seconds(), "single-turns/s")
				b.ReportMetric(turns/two.Seconds(), "pair-turns/s")
			}
			b.ReportMetric(float64(two)/float64(one), "pair/single")
		})
	}
}

// pairBenchMemory is a Memory on a store in a fresh schema of dsn's server.
func pairBenchMemory(b *testing.B, dsn string) *core.Memory {
	b.Helper()
	s := openPGAt(b, dsn, func(*pgxpool.Config) {})
	mem, err := core.New(core.Options{Store: s, Tokenizer: byteTokenizer{}, Config: overlapConfig()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = mem.Close(bg) })
	return mem
}

// pairBenchRound runs perRound turns on each of workers threads at once.
func pairBenchRound(b *testing.B, mem *core.Memory, round, workers, perRound int) {
	pad := strings.Repeat(".", 80)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			thread, resource := fmt.Sprintf("thread-%d", w), fmt.Sprintf("user-%d", w)
			for n := range perRound {
				q := fmt.Sprintf("question %d.%d %s", round, n, pad)
				turn, err := mem.Begin(bg, core.TurnRequest{ThreadID: thread, ResourceID: resource,
					Input: []core.Message{core.NewMessage(core.RoleUser, q)}})
				if err != nil {
					b.Error(err)
					return
				}
				if err := turn.Commit(bg, []core.Message{core.NewMessage(core.RoleAssistant, "an answer "+pad)}); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// median returns the median of ds (sorting ds).
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}

package integration_test

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentmem/agentmem/core"
)

// BenchmarkPostgresTurns runs turns (Begin, then Commit of one question and
// one answer, under a budget that trims every few turns) on the server of
// AGENTMEM_PG_DSN from 1 and 8 goroutines, each on a thread of its own; run
// it with AGENTMEM_PG_DSN set to a single server and to the multi-host DSN of
// a synchronously replicated pair (scripts/lib/pg.sh) to compare.
func BenchmarkPostgresTurns(b *testing.B) {
	for _, workers := range []int{1, 8} {
		b.Run(fmt.Sprintf("goroutines=%d", workers), func(b *testing.B) {
			s := openPG(b, nil)
			mem, err := core.New(core.Options{Store: s, Tokenizer: byteTokenizer{}, Config: overlapConfig()})
			if err != nil {
				b.Fatal(err)
			}
			defer mem.Close(bg)
			pad := strings.Repeat(".", 80)
			var left atomic.Int64
			left.Store(int64(b.N))
			var wg sync.WaitGroup
			b.ResetTimer()
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					thread, resource := fmt.Sprintf("thread-%d", w), fmt.Sprintf("user-%d", w)
					for left.Add(-1) >= 0 {
						turn, err := mem.Begin(bg, core.TurnRequest{ThreadID: thread, ResourceID: resource,
							Input: []core.Message{core.NewMessage(core.RoleUser, "a question "+pad)}})
						if err != nil {
							b.Error(err)
							return
						}
						if err := turn.Commit(bg, []core.Message{core.NewMessage(core.RoleAssistant, "an answer "+pad)}); err != nil {
							b.Error(err)
							return
						}
					}
				}(w)
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "turns/s")
		})
	}
}

package integration_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// BenchmarkPostgresSavePair: the saves of BenchmarkPostgresSaveCPU, the two
// sides interleaved in one loop (agentmem then langchaingo, then the other
// way round), each on a one-connection pool. A machine whose speed drifts
// over seconds (a shared host) moves both sides alike, so the ratios it
// reports (agentmem / langchaingo: wall-ratio per save, server-ratio of
// the backends' CPU) vary far less between runs than those of two
// benchmarks run one after the other.
func BenchmarkPostgresSavePair(b *testing.B) {
	for _, batch := range []int{1, 100} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			one := func(cfg *pgxpool.Config) { cfg.MaxConns = 1 }
			ours, theirs := openPGWith(b, one), openPGWith(b, one)
			sides := [2]func() error{agentmemSaves(b, ours, batch), upstreamSaves(b, theirs, batch)}
			pids := [2]int{backendPID(b, ours.Pool()), backendPID(b, theirs.Pool())}
			for i := 0; i < warmSaves; i++ {
				for _, save := range sides {
					if err := save(); err != nil {
						b.Fatal(err)
					}
				}
			}
			var wall, server [2]time.Duration
			for side, pid := range pids {
				server[side], _ = backendCPU(pid)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for k := range sides {
					side := (i + k) % 2 // alternate which side goes first
					t0 := time.Now()
					if err := sides[side](); err != nil {
						b.Fatal(err)
					}
					wall[side] += time.Since(t0)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(wall[0])/float64(wall[1]), "wall-ratio")
			b.ReportMetric(float64(wall[0].Microseconds())/float64(b.N), "agentmem-µs/op")
			b.ReportMetric(float64(wall[1].Microseconds())/float64(b.N), "langchaingo-µs/op")
			var end [2]time.Duration
			local := true
			for side, pid := range pids {
				var ok bool
				end[side], ok = backendCPU(pid)
				local = local && ok
			}
			if local {
				b.ReportMetric(float64(end[0]-server[0])/float64(end[1]-server[1]), "server-ratio")
			}
		})
	}
}

// backendPID is the process id of the backend behind pool's one connection.
func backendPID(b *testing.B, pool *pgxpool.Pool) int {
	var pid int
	if err := pool.QueryRow(bg, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		b.Fatal(err)
	}
	return pid
}

package integration_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agentmem/agentmem/core"
)

// BenchmarkPgvectorCommit measures Commit with semantic recall on pgvector,
// the message store and pgvector sharing one pool: "one-tx" writes the
// messages and their vectors in one transaction, one round trip
// (store.JointSaver, vector.StatementWriter); "two-step" is the same Memory
// with that capability hidden (the save, then the upsert's transaction).
// Each iteration commits one turn on each, alternating which goes first, so
// that both see the same machine; the metrics are each path's Commit
// latency (p50 and mean, Begin and the wait for background work excluded)
// and its round trips, background work included. "rtt=0s" runs on the
// loopback; "rtt=1ms" waits 1 ms before each round trip, as a network
// within one region would.
func BenchmarkPgvectorCommit(b *testing.B) {
	for _, rtt := range []time.Duration{0, time.Millisecond} {
		b.Run("rtt="+rtt.String(), func(b *testing.B) { benchmarkPgvectorCommit(b, rtt) })
	}
}

func benchmarkPgvectorCommit(b *testing.B, rtt time.Duration) {
	type path struct {
		name  string
		sp    *sharedPool
		took  []time.Duration
		trips int64
	}
	paths := []*path{
		{name: "one-tx", sp: openSharedPoolDelayed(b, false, pgx.QueryExecModeCacheStatement, rtt)},
		{name: "two-step", sp: openSharedPoolDelayed(b, true, pgx.QueryExecModeCacheStatement, rtt)},
	}
	turn := func(p *path, i int) {
		sp := p.sp
		in, out := sp.message(core.RoleUser, fmt.Sprintf("what did we decide about budget item %d?", i)),
			sp.message(core.RoleAssistant, fmt.Sprintf("We cut item %d by ten percent and Maria owns the review.", i))
		tr, err := sp.mem.Begin(bg, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{in}})
		if err != nil {
			b.Fatal(err)
		}
		before, start := sp.trips.n.Load(), time.Now()
		if err := tr.Commit(bg, []core.Message{out}); err != nil {
			b.Fatal(err)
		}
		p.took = append(p.took, time.Since(start))
		if err := sp.mem.Close(bg); err != nil {
			b.Fatal(err)
		}
		p.trips += sp.trips.n.Load() - before
	}
	for _, p := range paths {
		for i := 0; i < 3; i++ { // statements prepared, index ensured, queue checked
			turn(p, -i)
		}
		p.took, p.trips = nil, 0
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		turn(paths[i%2], i)
		turn(paths[1-i%2], i)
	}
	b.StopTimer()
	for _, p := range paths {
		var sum time.Duration
		for _, d := range p.took {
			sum += d
		}
		slices.Sort(p.took)
		b.ReportMetric(float64(p.took[len(p.took)/2].Microseconds()), p.name+"-p50-µs")
		b.ReportMetric(float64(sum.Microseconds())/float64(b.N), p.name+"-mean-µs")
		b.ReportMetric(float64(p.trips)/float64(b.N), p.name+"-roundtrips")
	}
}

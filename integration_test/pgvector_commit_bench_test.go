package integration_test

import (
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agentmem/agentmem/core"
)

// BenchmarkPgvectorCommit measures Commit with semantic recall on pgvector,
// the message store and pgvector sharing one pool: "one-transaction" writes
// the messages and their vectors in one round trip (store.JointSaver,
// vector.StatementWriter), "two-step" is the same Memory with the
// capability hidden (the save, then the upsert's transaction: three round
// trips). Begin and the wait for background work are not timed.
func BenchmarkPgvectorCommit(b *testing.B) {
	for _, c := range []struct {
		name string
		hide bool
	}{{"one-transaction", false}, {"two-step", true}} {
		b.Run(c.name, func(b *testing.B) {
			sp := openSharedPool(b, c.hide, pgx.QueryExecModeCacheStatement)
			var trips int64 // of Commit and its background work
			turn := func(i int) {
				in, out := sp.message(core.RoleUser, fmt.Sprintf("what did we decide about budget item %d?", i)),
					sp.message(core.RoleAssistant, fmt.Sprintf("We cut item %d by ten percent and Maria owns the review.", i))
				b.StopTimer()
				tr, err := sp.mem.Begin(bg, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{in}})
				if err != nil {
					b.Fatal(err)
				}
				before := sp.trips.n.Load()
				b.StartTimer()
				if err := tr.Commit(bg, []core.Message{out}); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if err := sp.mem.Close(bg); err != nil {
					b.Fatal(err)
				}
				trips += sp.trips.n.Load() - before
				b.StartTimer()
			}
			for i := 0; i < 3; i++ { // statements prepared, index ensured, queue checked
				turn(-i)
			}
			trips = 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				turn(i)
			}
			b.StopTimer()
			b.ReportMetric(float64(trips)/float64(b.N), "roundtrips/op")
		})
	}
}

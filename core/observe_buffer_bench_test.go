package core_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/sqlite"
)

// slowReflector is reflectorModel taking delay per call.
type slowReflector struct {
	reflectorModel
	delay time.Duration
}

func (r *slowReflector) Generate(ctx context.Context, system, prompt string) (string, error) {
	time.Sleep(r.delay)
	return r.reflectorModel.Generate(ctx, system, prompt)
}

// latencies sorts d and returns its 50th, 95th and 99th percentiles.
func latencies(d []time.Duration) (p50, p95, p99 time.Duration) {
	slices.Sort(d)
	return d[len(d)/2], d[len(d)*95/100], d[len(d)*99/100]
}

// BenchmarkBufferedObservationTurnLatency runs 200 turns on SQLite with
// observational memory off, on without buffering and buffered (observer
// and reflector taking 2 s per call; MessageTokens 3000, reflection at
// 5000; buffered: BufferTokens 0.2, blockAfter 1.2, reflection buffered at
// half, blockAfter 1.5), each on its own file, interleaved turn by turn so
// all see the same machine. It reports the percentiles of Begin+Commit and
// the p99 ratio of buffered to off. Between turns the loop sleeps 100 ms,
// the agent's own model call; the unobserved tokens cross MessageTokens
// several times.
//
//	go test -run '^$' -bench BenchmarkBufferedObservationTurnLatency -benchtime 1x ./core/
func BenchmarkBufferedObservationTurnLatency(b *testing.B) {
	const turns, pace, modelDelay = 200, 100 * time.Millisecond, 2 * time.Second
	open := func(cfg core.Config) *core.Memory {
		s, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "memory.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return newMem(b, s, cfg)
	}
	turn := func(m *core.Memory, i int) time.Duration {
		start := time.Now()
		turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", System: []string{"You are helpful."},
			Input: []core.Message{core.NewMessage(core.RoleUser, fmt.Sprintf("m%du: question number %d", i, i))}})
		if err != nil {
			b.Fatal(err)
		}
		if err := turn.Commit(ctx, []core.Message{core.NewMessage(core.RoleAssistant, fmt.Sprintf("m%da: answer number %d", i, i))}); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	for n := 0; n < b.N; n++ {
		obs := &observerModel{delay: modelDelay}
		cfg := bufferedConfig(obs, &slowReflector{delay: modelDelay}, 3000, 5000, 0.2, 0)
		cfg.ObservationalMemory.Reflection.BlockAfter = 1.5
		syncCfg := observationConfig(&observerModel{delay: modelDelay}, &slowReflector{delay: modelDelay}, 3000, 5000)
		off, on, sync := open(core.Config{}), open(cfg), open(syncCfg)
		var offLat, onLat, syncLat []time.Duration
		for i := 0; i < turns; i++ {
			offLat = append(offLat, turn(off, i))
			time.Sleep(pace / 2)
			onLat = append(onLat, turn(on, i))
			time.Sleep(pace / 2)
			syncLat = append(syncLat, turn(sync, i))
		}
		rec, err := on.Observations(ctx, "t", "r", nil)
		if err != nil {
			b.Fatal(err)
		}
		core.WaitBackground(on)
		offP50, offP95, offP99 := latencies(offLat)
		onP50, onP95, onP99 := latencies(onLat)
		syncP50, syncP95, syncP99 := latencies(syncLat)
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		b.ReportMetric(ms(offP50), "off-p50-ms")
		b.ReportMetric(ms(offP95), "off-p95-ms")
		b.ReportMetric(ms(offP99), "off-p99-ms")
		b.ReportMetric(ms(onP50), "buffered-p50-ms")
		b.ReportMetric(ms(onP95), "buffered-p95-ms")
		b.ReportMetric(ms(onP99), "buffered-p99-ms")
		b.ReportMetric(ms(syncP50), "unbuffered-p50-ms")
		b.ReportMetric(ms(syncP95), "unbuffered-p95-ms")
		b.ReportMetric(ms(syncP99), "unbuffered-p99-ms")
		b.ReportMetric(float64(onP99)/float64(offP99), "p99-ratio")
		b.ReportMetric(float64(obs.calls.Load()), "observer-calls")
		b.ReportMetric(float64(rec.Generation), "reflections")
		b.ReportMetric(float64(len(obs.observed())), "messages-observed")
	}
}

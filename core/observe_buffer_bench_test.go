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
// observational memory off (the default ten-message history, and a history
// of every message within a 3,000-token prompt, about what observational
// memory shows), on without buffering and buffered (observer and reflector
// taking 2 s per call; MessageTokens 3000, reflection at 5000; buffered:
// BufferTokens 0.2, blockAfter 1.2, reflection buffered at half, blockAfter
// 1.5), each on its own file, interleaved turn by turn so all see the same
// machine. It reports the percentiles of Begin+Commit and the p99 ratios of
// buffered to both runs without observational memory. Between turns the
// loop sleeps 100 ms, the agent's own model call; the unobserved tokens
// cross MessageTokens several times.
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
		historyCfg := core.Config{LastMessages: core.AllMessages, MessageHistory: &core.MessageHistory{MaxTokens: 3000}}
		arms := []struct {
			name string
			mem  *core.Memory
			lat  []time.Duration
		}{{name: "off", mem: open(core.Config{})}, {name: "history", mem: open(historyCfg)},
			{name: "buffered", mem: open(cfg)}, {name: "unbuffered", mem: open(syncCfg)}}
		for i := 0; i < turns; i++ {
			for a := range arms {
				arms[a].lat = append(arms[a].lat, turn(arms[a].mem, i))
				time.Sleep(pace / time.Duration(len(arms)))
			}
		}
		on := arms[2].mem
		rec, err := on.Observations(ctx, "t", "r", nil)
		if err != nil {
			b.Fatal(err)
		}
		core.WaitBackground(on)
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		p99 := map[string]time.Duration{}
		for _, a := range arms {
			p50, p95, p99a := latencies(a.lat)
			p99[a.name] = p99a
			b.ReportMetric(ms(p50), a.name+"-p50-ms")
			b.ReportMetric(ms(p95), a.name+"-p95-ms")
			b.ReportMetric(ms(p99a), a.name+"-p99-ms")
		}
		b.ReportMetric(float64(p99["buffered"])/float64(p99["off"]), "p99-ratio-off")
		b.ReportMetric(float64(p99["buffered"])/float64(p99["history"]), "p99-ratio-history")
		b.ReportMetric(float64(obs.calls.Load()), "observer-calls")
		b.ReportMetric(float64(rec.Generation), "reflections")
		b.ReportMetric(float64(len(obs.observed())), "messages-observed")
	}
}

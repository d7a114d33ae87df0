package core_test

import (
	"slices"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// BenchmarkTurnTelemetry measures a Begin+Commit turn on SQLite with the
// global (no-op) providers and with the SDK: a batching span processor
// over an exporter that drops the spans, and a meter provider with a manual
// reader. BENCHMARKS.md compares them, and the no-op case with main.
func BenchmarkTurnTelemetry(b *testing.B) {
	for _, kind := range []string{"sqlite", "memstore"} {
		b.Run(kind+"/noop", func(b *testing.B) { benchTurn(b, benchStore(b, kind), core.Options{}) })
		b.Run(kind+"/sdk", func(b *testing.B) {
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
			b.Cleanup(func() { _ = tp.Shutdown(ctx) })
			benchTurn(b, benchStore(b, kind), core.Options{TracerProvider: tp, MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))})
		})
	}
}

// BenchmarkTurnTelemetryInterleaved runs the turns of BenchmarkTurnTelemetry
// side by side: each iteration makes one turn with the no-op providers and
// one with the SDK (each Memory on its own store, the order alternating),
// timing each, so that both see the same load of the machine. It reports
// the median turn of each and the SDK's overhead over the no-op median.
// The SDK's tracer provider is set up as its sub-benchmark says: "batch"
// (a batching span processor, BenchmarkTurnTelemetry's), and on SQLite to
// split its cost, "sync" (a synchronous processor over the same exporter),
// "no-processor" (spans recorded and dropped at their end) and
// "sampled-out" (a sampler that records none).
func BenchmarkTurnTelemetryInterleaved(b *testing.B) {
	exporter := tracetest.NewNoopExporter()
	setups := []struct {
		name string
		opts []sdktrace.TracerProviderOption
	}{
		{"batch", []sdktrace.TracerProviderOption{sdktrace.WithBatcher(exporter)}},
		{"sync", []sdktrace.TracerProviderOption{sdktrace.WithSyncer(exporter)}},
		{"no-processor", nil},
		{"sampled-out", []sdktrace.TracerProviderOption{sdktrace.WithBatcher(exporter), sdktrace.WithSampler(sdktrace.NeverSample())}},
	}
	for _, kind := range []string{"sqlite", "memstore"} {
		for _, setup := range setups {
			if kind == "memstore" && setup.name != "batch" {
				continue
			}
			b.Run(kind+"/"+setup.name, func(b *testing.B) {
				tp := sdktrace.NewTracerProvider(setup.opts...)
				b.Cleanup(func() { _ = tp.Shutdown(ctx) })
				interleave(b, kind, core.Options{TracerProvider: tp,
					MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))})
			})
		}
	}
}

// interleave runs turns with the no-op providers and with sdk side by side
// (see BenchmarkTurnTelemetryInterleaved).
func interleave(b *testing.B, kind string, sdk core.Options) {
	mems := [2]*core.Memory{newBenchMemory(b, benchStore(b, kind), core.Options{}), newBenchMemory(b, benchStore(b, kind), sdk)}
	var took [2][]time.Duration
	for i := 0; b.Loop(); i++ {
		for k := range 2 {
			v := (i + k) % 2
			start := time.Now()
			turnOf(b, mems[v], i)
			took[v] = append(took[v], time.Since(start))
		}
	}
	noopTurn, sdkTurn := median(took[0]), median(took[1])
	b.ReportMetric(float64(noopTurn.Microseconds()), "noop-µs/turn")
	b.ReportMetric(float64(sdkTurn.Microseconds()), "sdk-µs/turn")
	b.ReportMetric(100*(float64(sdkTurn)/float64(noopTurn)-1), "sdk-overhead-%")
}

// median returns the median of ds (sorting ds).
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// benchStore is a new store of the kind: memstore's turn is CPU alone, so
// it shows the instrumentation's share without SQLite's I/O noise.
func benchStore(b *testing.B, kind string) store.Store {
	if kind == "memstore" {
		return memstore.New()
	}
	return newTestSQLite(b)
}

// benchTurn runs turns of a user message and a reply over ten threads.
func benchTurn(b *testing.B, s store.Store, opts core.Options) {
	m := newBenchMemory(b, s, opts)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		turnOf(b, m, i)
	}
}

func newBenchMemory(b *testing.B, s store.Store, opts core.Options) *core.Memory {
	opts.Store = s
	m, err := core.New(opts)
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// turnOf runs turn i: a user message and a reply on thread i%10.
func turnOf(b *testing.B, m *core.Memory, i int) {
	thread := threadNames[i%len(threadNames)]
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: thread, ResourceID: "r",
		Input: []core.Message{core.NewMessage(core.RoleUser, "what did we say about the parcel?")}})
	if err != nil {
		b.Fatal(err)
	}
	if err := turn.Commit(ctx, []core.Message{core.NewMessage(core.RoleAssistant, "It goes by DHL.")}); err != nil {
		b.Fatal(err)
	}
}

var threadNames = []string{"t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9"}

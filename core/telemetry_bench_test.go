package core_test

import (
	"fmt"
	"testing"

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
	opts.Store = s
	m, err := core.New(opts)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		thread := fmt.Sprintf("t%d", i%10)
		turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: thread, ResourceID: "r",
			Input: []core.Message{core.NewMessage(core.RoleUser, "what did we say about the parcel?")}})
		if err != nil {
			b.Fatal(err)
		}
		if err := turn.Commit(ctx, []core.Message{core.NewMessage(core.RoleAssistant, "It goes by DHL.")}); err != nil {
			b.Fatal(err)
		}
	}
}

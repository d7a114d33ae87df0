package telemetry

import (
	"context"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// benchCases are the instrumentation with the global no-op providers and
// with the SDK (batching, spans dropped; a manual metric reader).
func benchCases(b *testing.B) []struct {
	name string
	t    *T
} {
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return []struct {
		name string
		t    *T
	}{
		{"noop", New(Config{DBSystem: "sqlite"})},
		{"sdk", New(Config{DBSystem: "sqlite", TracerProvider: tp,
			MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))})},
	}
}

// BenchmarkOperation measures what one public operation adds (a turn makes
// two): its span and its duration.
func BenchmarkOperation(b *testing.B) {
	for _, c := range benchCases(b) {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			ctx := context.Background()
			for b.Loop() {
				_, op := c.t.Start(ctx, "Begin")
				_ = op.End(nil)
			}
		})
	}
}

// BenchmarkTurn measures the instrumentation of a turn without recall as
// core makes it: Begin (thread attributes at the start, two store calls,
// what it loaded at the end and the turn metrics) and Commit (one store
// call).
func BenchmarkTurn(b *testing.B) {
	for _, c := range benchCases(b) {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			ctx := context.Background()
			call := func(ctx context.Context, op Op, name string) {
				if op.Recording() { // the store hook is on ctx
					_ = c.t.storeCall(ctx, name)(nil)
				}
			}
			for b.Loop() {
				bctx, begin := c.t.Start(ctx, "Begin", AttrConversationID.String("t1"), AttrResourceID.String("r"))
				call(bctx, begin, "GetThread")
				call(bctx, begin, "ListMessages")
				c.t.Turn(bctx, 50, 0, 0)
				begin.Set(AttrTokensLoaded.Int(50), AttrTokensTrimmed.Int(0), AttrMessagesLoaded.Int(3),
					AttrMessagesTrimmed.Int(0), AttrRecallHits.Int(0), AttrBoundaryMoved.Bool(false))
				_ = begin.End(nil)
				cctx, commit := c.t.Start(ctx, "Commit", AttrConversationID.String("t1"), AttrResourceID.String("r"),
					AttrMessagesSaved.Int(1))
				call(cctx, commit, "SaveMessages")
				_ = commit.End(nil)
			}
		})
	}
}

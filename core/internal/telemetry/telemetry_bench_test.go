package telemetry

import (
	"context"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// BenchmarkOperation measures what one public operation adds (a turn makes
// two): its span and its duration, with the global no-op providers and with
// the SDK (batching, spans dropped; a manual metric reader).
func BenchmarkOperation(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	for _, c := range []struct {
		name string
		t    *T
	}{
		{"noop", New(Config{DBSystem: "sqlite"})},
		{"sdk", New(Config{DBSystem: "sqlite", TracerProvider: tp,
			MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))})},
	} {
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

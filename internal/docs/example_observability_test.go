package docs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/sqlite"
)

// Wiring the OpenTelemetry SDK: a tracer provider with the stdout exporter
// and a meter provider; docs/observability.md shows it from the first blank
// line on.
func Example_observability() {
	dir, cleanup := exampleDir()
	defer cleanup()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(dir, "memory.db"))
	if err != nil {
		panic(err)
	}
	defer store.Close()

	var out bytes.Buffer // in a program: stdouttrace.New() writes to os.Stdout
	exporter, err := stdouttrace.New(stdouttrace.WithWriter(&out))
	if err != nil {
		panic(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter)) // in production: WithBatcher and OTLP
	defer tp.Shutdown(ctx)
	reader := sdkmetric.NewManualReader() // in production: a PeriodicReader and OTLP
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))

	mem, err := core.New(core.Options{Store: store, TracerProvider: tp, MeterProvider: mp})
	if err != nil {
		panic(err)
	}
	turn, err := mem.Begin(ctx, core.TurnRequest{ThreadID: "thread-123", ResourceID: "user-456",
		Input: []core.Message{core.NewMessage(core.RoleUser, "Where is my order?")}})
	if err != nil {
		panic(err)
	}
	if err := turn.Commit(ctx, []core.Message{core.NewMessage(core.RoleAssistant, "It ships today.")}); err != nil {
		panic(err)
	}

	dec := json.NewDecoder(&out) // the exporter writes one JSON object per span
	for {
		var span struct{ Name string }
		if dec.Decode(&span) != nil {
			break
		}
		if strings.HasPrefix(span.Name, "agentmem.") { // the store calls are their children
			fmt.Println("span", span.Name)
		}
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		panic(err)
	}
	for _, m := range rm.ScopeMetrics[0].Metrics {
		fmt.Println("metric", m.Name, m.Unit)
	}
	// Output:
	// span agentmem.Begin
	// span agentmem.Commit
	// metric agentmem.operation.duration s
	// metric agentmem.tokens.loaded {token}
}

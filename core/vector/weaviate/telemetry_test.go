package weaviate_test

import (
	"context"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/vectortest"
	"github.com/agentmem/agentmem/core/vector/weaviate"
)

// counters returns the sums of the store's counters by name.
func counters(t *testing.T, r *sdkmetric.ManualReader) map[string]int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if sum, ok := m.Data.(metricdata.Sum[int64]); ok {
				for _, dp := range sum.DataPoints {
					out[m.Name] += dp.Value
				}
			}
		}
	}
	return out
}

// TestTenantLifecycleMetrics: a sweep counts the tenant it retires, and
// this process's next read of it counts it reactivated, once.
func TestTenantLifecycleMetrics(t *testing.T) {
	host, grpc := server(t)
	reader := sdkmetric.NewManualReader()
	s := openWith(t, weaviate.Config{Host: host, GRPCHost: grpc, TenantIdle: manual,
		MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))})
	h := vectortest.NewH(t, s, local.NewHashEmbedder(0))
	h.Upsert(vectortest.Rec("m1", "t", "ada", vectortest.Corpus[0]))
	time.Sleep(10 * time.Millisecond) // the newest write must be older than the idle time
	if res, err := s.SweepIdle(context.Background()); err != nil || res.Retired != 1 {
		t.Fatalf("SweepIdle = %+v, %v; want 1 retired", res, err)
	}
	if got := counters(t, reader); got[weaviate.MetricTenantsRetired] != 1 || got[weaviate.MetricTenantsReactivated] != 0 {
		t.Fatalf("after the sweep: %v", got)
	}
	ids(h, "ada")
	ids(h, "ada")
	if got := counters(t, reader); got[weaviate.MetricTenantsReactivated] != 1 {
		t.Fatalf("after two reads: %v", got)
	}
}

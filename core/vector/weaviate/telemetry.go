package weaviate

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
)

// Metric names of the tenant lifecycle.
const (
	MetricTenantsRetired     = "agentmem.weaviate.tenants.retired"
	MetricTenantsReactivated = "agentmem.weaviate.tenants.reactivated"
	MetricObjectsRewritten   = "agentmem.weaviate.objects.rewritten"
)

// tenantMetrics count the tenants this process retired, those it used
// again after retiring them (the server reactivates them on that use), and
// the objects a write found missing when it read them back (putObjects).
type tenantMetrics struct {
	retired, reactivated, rewritten metric.Int64Counter
}

// newTenantMetrics creates the counters on mp (nil: the global provider); a
// failed creation leaves the API's no-op counter.
func newTenantMetrics(mp metric.MeterProvider) tenantMetrics {
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	m := mp.Meter("github.com/agentmem/agentmem/core/vector/weaviate")
	var tm tenantMetrics
	tm.retired, _ = m.Int64Counter(MetricTenantsRetired, metric.WithUnit("{tenant}"),
		metric.WithDescription("Tenants the idle sweep set inactive."))
	tm.reactivated, _ = m.Int64Counter(MetricTenantsReactivated, metric.WithUnit("{tenant}"),
		metric.WithDescription("Tenants this process retired and then read or wrote (the server reactivates them)."))
	tm.rewritten, _ = m.Int64Counter(MetricObjectsRewritten, metric.WithUnit("{object}"),
		metric.WithDescription("Objects the server acknowledged but lacked when read back, written again."))
	return tm
}

// retiredNow records tenants of class the sweep retired.
func (s *Store) retiredNow(ctx context.Context, class string, tenants []string) {
	s.mu.Lock()
	for _, t := range tenants {
		s.retired[class+"/"+t] = true
	}
	s.mu.Unlock()
	s.metrics.retired.Add(ctx, int64(len(tenants)))
}

// usedAgain counts the tenants of class, used now, that this process
// retired; the caller holds s.mu.
func (s *Store) usedAgain(class string, tenants []string) int {
	n := 0
	for _, t := range tenants {
		if s.retired[class+"/"+t] {
			delete(s.retired, class+"/"+t)
			n++
		}
	}
	return n
}

package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/metric"
)

// Metric names.
const (
	MetricDuration        = "agentmem.operation.duration"
	MetricTokensLoaded    = "agentmem.tokens.loaded"
	MetricTokensTrimmed   = "agentmem.tokens.trimmed"
	MetricRecallHits      = "agentmem.recall.hits"
	MetricEmbeddingErrors = "agentmem.embedding.failures"
	MetricObserverErrors  = "agentmem.observer.failures"
	MetricIndexBacklog    = "agentmem.index.backlog"
)

type instruments struct {
	duration                   metric.Float64Histogram
	loaded, trimmed, hits      metric.Int64Counter
	embedFailures, obsFailures metric.Int64Counter
	backlog                    metric.Int64UpDownCounter
}

// newInstruments creates the instruments; a failed creation leaves the
// API's no-op instrument, which the meter returns with the error.
func newInstruments(m metric.Meter) instruments {
	var in instruments
	in.duration, _ = m.Float64Histogram(MetricDuration, metric.WithUnit("s"),
		metric.WithDescription("Duration of agentmem operations."),
		metric.WithExplicitBucketBoundaries(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10))
	in.loaded, _ = m.Int64Counter(MetricTokensLoaded, metric.WithUnit("{token}"),
		metric.WithDescription("Tokens of the prompts Begin built."))
	in.trimmed, _ = m.Int64Counter(MetricTokensTrimmed, metric.WithUnit("{token}"),
		metric.WithDescription("Tokens of remembered messages the token budget dropped."))
	in.hits, _ = m.Int64Counter(MetricRecallHits, metric.WithUnit("{message}"),
		metric.WithDescription("Messages semantic recall returned."))
	in.embedFailures, _ = m.Int64Counter(MetricEmbeddingErrors, metric.WithUnit("{call}"),
		metric.WithDescription("Embedder calls that failed."))
	in.obsFailures, _ = m.Int64Counter(MetricObserverErrors, metric.WithUnit("{call}"),
		metric.WithDescription("Observer and reflector model calls that failed."))
	in.backlog, _ = m.Int64UpDownCounter(MetricIndexBacklog, metric.WithUnit("{message}"),
		metric.WithDescription("Messages saved but not indexed, waiting for an indexing retry (this process's view)."))
	return in
}

// Turn records what Begin loaded and trimmed and what recall returned.
func (t *T) Turn(ctx context.Context, loaded, trimmed, hits int) {
	if t == nil {
		return
	}
	set := t.storeSet
	t.m.loaded.Add(ctx, int64(loaded), set...)
	if trimmed > 0 {
		t.m.trimmed.Add(ctx, int64(trimmed), set...)
	}
	if hits > 0 {
		t.m.hits.Add(ctx, int64(hits), set...)
	}
}

// RecallHits records hits of a recall outside Begin.
func (t *T) RecallHits(ctx context.Context, hits int) {
	if t != nil && hits > 0 {
		t.m.hits.Add(ctx, int64(hits), t.storeSet...)
	}
}

// Backlog adds delta messages to the index backlog.
func (t *T) Backlog(ctx context.Context, delta int) {
	if t != nil && delta != 0 {
		t.m.backlog.Add(ctx, int64(delta), t.storeSet...)
	}
}

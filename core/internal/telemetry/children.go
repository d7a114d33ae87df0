package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentmem/agentmem/core/store"
)

// withStoreHook makes the store calls under ctx children of its span.
func withStoreHook(ctx context.Context, t *T) context.Context {
	return store.WithCallHook(ctx, t.hook)
}

// storeCall starts the client span of one store call (database conventions:
// the span is named by db.operation.name).
func (t *T) storeCall(ctx context.Context, op string) func(error) error {
	_, span := t.tracer.Start(ctx, op, t.callOptions(op)...)
	return func(err error) error {
		fail(span, err)
		span.End()
		return err
	}
}

// callOptions are the start options of the span of store call op, made
// once per call name: a store span costs the SDK's work alone.
func (t *T) callOptions(op string) []trace.SpanStartOption {
	if v, ok := t.calls.Load(op); ok {
		return v.([]trace.SpanStartOption)
	}
	v, _ := t.calls.LoadOrStore(op, []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(AttrDBSystem.String(t.db), AttrDBOperation.String(op))})
	return v.([]trace.SpanStartOption)
}

// Child is a span of something an operation waits on.
type Child struct{ span trace.Span }

// Vector starts the client span of a vector-store call (op "query" or
// "upsert") on index, with attrs, what else is known at its start.
func (t *T) Vector(ctx context.Context, op, index string, attrs ...attribute.KeyValue) (context.Context, Child) {
	if t == nil {
		return ctx, Child{span: trace.SpanFromContext(nil)}
	}
	ctx, span := t.tracer.Start(ctx, "vector."+op+" "+index, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(AttrDBOperation.String(op), AttrDBCollection.String(index)), trace.WithAttributes(attrs...))
	return ctx, Child{span: span}
}

// Embeddings starts the span of an embedder call, named and attributed as
// the GenAI conventions' embeddings spans.
func (t *T) Embeddings(ctx context.Context, inputs int) (context.Context, Child) {
	if t == nil {
		return ctx, Child{span: trace.SpanFromContext(nil)}
	}
	ctx, span := t.tracer.Start(ctx, OpEmbeddings, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(AttrGenAIOperation.String(OpEmbeddings), AttrEmbeddingCount.Int(inputs)))
	return ctx, Child{span: span}
}

// EmbeddingFailed counts a failed embedder call.
func (t *T) EmbeddingFailed(ctx context.Context, err error) {
	if t != nil && err != nil {
		t.m.embedFailures.Add(ctx, 1, metric.WithAttributes(AttrErrorType.String(ErrorType(err))))
	}
}

// Model starts the span of an observer or reflector model call (role) of
// model, the model's name as gen_ai.request.model ("" when unknown).
func (t *T) Model(ctx context.Context, role, model string) (context.Context, Child) {
	if t == nil {
		return ctx, Child{span: trace.SpanFromContext(nil)}
	}
	attrs := []attribute.KeyValue{AttrGenAIOperation.String(OpChat), AttrModelRole.String(role)}
	if model != "" {
		attrs = append(attrs, AttrRequestModel.String(model))
	}
	ctx, span := t.tracer.Start(ctx, OpChat+" "+role, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return ctx, Child{span: span}
}

// ModelFailed counts a failed observer or reflector call.
func (t *T) ModelFailed(ctx context.Context, role string, err error) {
	if t != nil && err != nil {
		t.m.obsFailures.Add(ctx, 1, metric.WithAttributes(AttrModelRole.String(role), AttrErrorType.String(ErrorType(err))))
	}
}

// Set adds attributes to the child span.
func (c Child) Set(attrs ...attribute.KeyValue) {
	if c.span.IsRecording() {
		c.span.SetAttributes(attrs...)
	}
}

// End ends the child span with err's status; it returns err.
func (c Child) End(err error) error {
	fail(c.span, err)
	c.span.End()
	return err
}

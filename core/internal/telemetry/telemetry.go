// Package telemetry holds agentmem's OpenTelemetry instrumentation: the
// spans of its operations and of what they wait on, and its metrics. It uses
// only the OpenTelemetry API; the application brings the SDK. Without
// providers it uses the global ones, which are no-ops until the application
// sets them, so an uninstrumented program pays the no-op provider's cost.
package telemetry

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentmem/agentmem/core/memerr"
)

// ScopeName is the instrumentation scope of agentmem's tracer and meter.
const ScopeName = "github.com/agentmem/agentmem"

// CaptureContentEnv is the GenAI conventions' content-capture switch: set to
// "true", it records message text as Options.CaptureMessageContent does.
const CaptureContentEnv = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"

// Config selects the providers; nil providers mean the global ones.
type Config struct {
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	CaptureContent bool
	// DBSystem is the db.system.name of the store (sqlite, postgresql, memstore).
	DBSystem string
}

// T is the instrumentation of one Memory. A nil *T records nothing.
type T struct {
	tracer  trace.Tracer
	capture bool
	db      string
	m       instruments
	outcome sync.Map // operation+outcome -> cached metric.MeasurementOption
}

// New returns the instrumentation of c.
func New(c Config) *T {
	tp, mp := c.TracerProvider, c.MeterProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	capture := c.CaptureContent || strings.EqualFold(os.Getenv(CaptureContentEnv), "true")
	return &T{tracer: tp.Tracer(ScopeName), capture: capture, db: c.DBSystem, m: newInstruments(mp.Meter(ScopeName))}
}

// CaptureContent reports whether message text may be recorded.
func (t *T) CaptureContent() bool { return t != nil && t.capture }

// Op is a running public operation: its span and its start time.
type Op struct {
	t     *T
	name  string
	span  trace.Span
	start time.Time
}

// Start starts the span of the public operation name; ctx carries it and,
// when it records, the store hook that makes store calls its children.
func (t *T) Start(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, *Op) {
	if t == nil || ctx == nil {
		return ctx, nil
	}
	ctx, span := t.tracer.Start(ctx, "agentmem."+name, trace.WithAttributes(attrs...))
	if span.IsRecording() {
		ctx = withStoreHook(ctx, t)
	}
	return ctx, &Op{t: t, name: name, span: span, start: time.Now()}
}

// Background starts the span of background work scheduled under ctx's span:
// a new trace root linked to the scheduling span, since the work outlives it.
func (t *T) Background(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, *Op) {
	if t == nil || ctx == nil {
		return ctx, nil
	}
	link := trace.LinkFromContext(ctx)
	ctx, span := t.tracer.Start(ctx, "agentmem."+name, trace.WithNewRoot(), trace.WithLinks(link),
		trace.WithAttributes(attrs...))
	if span.IsRecording() {
		ctx = withStoreHook(ctx, t)
	}
	return ctx, &Op{t: t, name: name, span: span, start: time.Now()}
}

// Set adds attributes to the operation's span.
func (o *Op) Set(attrs ...attribute.KeyValue) {
	if o != nil && o.span.IsRecording() {
		o.span.SetAttributes(attrs...)
	}
}

// Recording reports whether the span records (attributes worth computing).
func (o *Op) Recording() bool { return o != nil && o.span.IsRecording() }

// End ends the operation: the span with err's status and code, and its
// duration in the operation histogram. It returns err.
func (o *Op) End(err error) error {
	if o == nil {
		return err
	}
	fail(o.span, err)
	o.span.End()
	o.t.m.duration.Record(context.Background(), time.Since(o.start).Seconds(), o.t.outcomeAttrs(o.name, err))
	return err
}

// outcomeAttrs returns the cached measurement attributes of an operation's
// outcome, so that recording with a no-op meter allocates nothing.
func (t *T) outcomeAttrs(op string, err error) metric.MeasurementOption {
	outcome := "ok"
	if err != nil {
		outcome = "error"
	}
	key := op + "\x00" + outcome
	if v, ok := t.outcome.Load(key); ok {
		return v.(metric.MeasurementOption)
	}
	opt := metric.WithAttributeSet(attribute.NewSet(AttrOperation.String(op), AttrStore.String(t.db), AttrOutcome.String(outcome)))
	t.outcome.Store(key, opt)
	return opt
}

// fail marks span failed with err's memerr code as error.type.
func fail(span trace.Span, err error) {
	if err == nil || !span.IsRecording() {
		return
	}
	span.SetStatus(codes.Error, err.Error())
	span.SetAttributes(AttrErrorType.String(ErrorType(err)))
}

// ErrorType is the error.type of err: its memerr code, else "_OTHER".
func ErrorType(err error) string {
	var e *memerr.Error
	if errors.As(err, &e) && e.Code != "" {
		return string(e.Code)
	}
	return "_OTHER"
}

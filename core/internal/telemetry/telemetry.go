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
	"github.com/agentmem/agentmem/core/store"
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
	tracer   trace.Tracer
	capture  bool
	db       string
	m        instruments
	ops      sync.Map           // operation name -> *opInfo
	calls    sync.Map           // store call name -> []trace.SpanStartOption
	storeSet []metric.AddOption // the store attribute, made once
	hook     store.CallHook     // storeCall, bound once
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
	t := &T{tracer: tp.Tracer(ScopeName), capture: capture, db: c.DBSystem, m: newInstruments(mp.Meter(ScopeName)),
		storeSet: []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(AttrStore.String(c.DBSystem)))}}
	t.hook = t.storeCall
	return t
}

// CaptureContent reports whether message text may be recorded.
func (t *T) CaptureContent() bool { return t != nil && t.capture }

// Op is a running public operation: its span and its start time. The
// zero Op records nothing.
type Op struct {
	t     *T
	info  *opInfo
	span  trace.Span
	start time.Time
}

// opInfo is what an operation's spans and measurements need, made once
// per operation name so that the no-op provider costs no allocation.
type opInfo struct {
	span       string
	ok, failed []metric.RecordOption
}

// info returns the opInfo of the operation name.
func (t *T) info(name string) *opInfo {
	if v, ok := t.ops.Load(name); ok {
		return v.(*opInfo)
	}
	set := func(outcome string) []metric.RecordOption {
		return []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(AttrOperation.String(name),
			AttrStore.String(t.db), AttrOutcome.String(outcome)))}
	}
	v, _ := t.ops.LoadOrStore(name, &opInfo{span: "agentmem." + name, ok: set("ok"), failed: set("error")})
	return v.(*opInfo)
}

// Start starts the span of the public operation name with attrs, the
// attributes known at its start (given at the start so that samplers see
// them); ctx carries it and, when it records, the store hook that makes
// store calls its children. What is known later is added with Set.
func (t *T) Start(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, Op) {
	if t == nil || ctx == nil {
		return ctx, Op{}
	}
	info := t.info(name)
	var span trace.Span
	if len(attrs) == 0 {
		ctx, span = t.tracer.Start(ctx, info.span)
	} else {
		ctx, span = t.tracer.Start(ctx, info.span, trace.WithAttributes(attrs...))
	}
	return t.op(ctx, info, span)
}

// Background starts the span of background work scheduled under ctx's span,
// with attrs as Start: a new trace root linked to the scheduling span,
// since the work outlives it.
func (t *T) Background(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, Op) {
	if t == nil || ctx == nil {
		return ctx, Op{}
	}
	info := t.info(name)
	ctx, span := t.tracer.Start(ctx, info.span, trace.WithNewRoot(), trace.WithLinks(trace.LinkFromContext(ctx)),
		trace.WithAttributes(attrs...))
	return t.op(ctx, info, span)
}

func (t *T) op(ctx context.Context, info *opInfo, span trace.Span) (context.Context, Op) {
	if span.IsRecording() {
		ctx = withStoreHook(ctx, t)
	}
	return ctx, Op{t: t, info: info, span: span, start: time.Now()}
}

// Set adds attributes to the operation's span.
func (o Op) Set(attrs ...attribute.KeyValue) {
	if o.Recording() {
		o.span.SetAttributes(attrs...)
	}
}

// Recording reports whether the span records (attributes worth computing).
func (o Op) Recording() bool { return o.span != nil && o.span.IsRecording() }

// End ends the operation: the span with err's status and code, and its
// duration in the operation histogram. It returns err.
func (o Op) End(err error) error {
	if o.t == nil {
		return err
	}
	fail(o.span, err)
	o.span.End()
	opts := o.info.ok
	if err != nil {
		opts = o.info.failed
	}
	o.t.m.duration.Record(context.Background(), time.Since(o.start).Seconds(), opts...)
	return err
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

package core_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/sqlite"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/internal/testenv"
)

// secret is message text no span may hold without the content opt-in.
const secret = "my locker code is 7391"

// traced is a Memory over s with recall (and its tool) and background
// observational memory, reporting to an in-memory span recorder and a manual
// metric reader.
type traced struct {
	m       *core.Memory
	spans   *tracetest.SpanRecorder
	sampler *startSampler
	tp      *sdktrace.TracerProvider
	reader  *sdkmetric.ManualReader
	obs     *observerModel
}

// observerName is the gen_ai.request.model of the traced observer.
const observerName = "observer-small"

// modelCalled is a core.NamedModel.
type modelCalled struct {
	core.Model
	name string
}

func (n modelCalled) ModelName() string { return n.name }

// startSampler samples every span and keeps the attributes each had at its
// start, which is all a sampler sees.
type startSampler struct {
	mu    sync.Mutex
	attrs map[string][]attribute.KeyValue // span name -> attributes at the start of the last one
}

func (s *startSampler) ShouldSample(p sdktrace.SamplingParameters) sdktrace.SamplingResult {
	s.mu.Lock()
	if s.attrs == nil {
		s.attrs = map[string][]attribute.KeyValue{}
	}
	s.attrs[p.Name] = slices.Clone(p.Attributes)
	s.mu.Unlock()
	return sdktrace.AlwaysSample().ShouldSample(p)
}

func (s *startSampler) Description() string { return "startSampler" }

// wantStart fails t unless the span name had key at its start.
func (s *startSampler) wantStart(t *testing.T, name string, key attribute.Key) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.ContainsFunc(s.attrs[name], func(kv attribute.KeyValue) bool { return kv.Key == key }) {
		t.Fatalf("span %s started without %s: %v", name, key, s.attrs[name])
	}
}

// newProvider is a tracer provider sampling with a startSampler into an
// in-memory span recorder.
func newProvider() (*sdktrace.TracerProvider, *tracetest.SpanRecorder, *startSampler) {
	spans, sampler := tracetest.NewSpanRecorder(), &startSampler{}
	return sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans), sdktrace.WithSampler(sampler)), spans, sampler
}

func newTraced(t *testing.T, s store.Store, capture bool) *traced {
	t.Helper()
	tr := &traced{reader: sdkmetric.NewManualReader(), obs: &observerModel{}}
	tr.tp, tr.spans, tr.sampler = newProvider()
	cfg := observationConfig(modelCalled{tr.obs, observerName}, &reflectorModel{}, 20, 100000)
	cfg.ObservationalMemory.Background = true
	cfg.SemanticRecall = &core.SemanticRecall{TopK: 2, Retrieval: &core.Retrieval{}}
	m, err := core.New(core.Options{Store: s, Vector: local.New(), Embedder: local.NewHashEmbedder(64), Config: cfg,
		TracerProvider: tr.tp, MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(tr.reader)),
		CaptureMessageContent: capture})
	if err != nil {
		t.Fatal(err)
	}
	tr.m = m
	return tr
}

// turnWithTools runs two turns on thread "t" of resource "r": a plain one,
// then, under an application span "agent", one with recall, a call of the
// recall tool, a Step and a Commit. It waits for background work.
func (tr *traced) turnWithTools(t *testing.T) {
	t.Helper()
	observedTurn(t, tr.m, "t", "r", 1)
	actx, agent := tr.tp.Tracer("app").Start(ctx, "agent")
	turn, err := tr.m.Begin(actx, core.TurnRequest{ThreadID: "t", ResourceID: "r",
		Input: []core.Message{core.NewMessage(core.RoleUser, "m2u: "+secret+"; what was question number 1?")}})
	if err != nil {
		t.Fatal(err)
	}
	tool := recallTool(t, turn.Tools())
	args := json.RawMessage(`{"query":"question number"}`)
	if _, err := tool.Call(actx, args); err != nil {
		t.Fatal(err)
	}
	call := core.ToolCall("c1", core.RecallToolName, args)
	result, _ := core.ToolResult(call, json.RawMessage(`{"found":1}`))
	if _, err := turn.Step(actx, []core.Message{call, result}); err != nil {
		t.Fatal(err)
	}
	if err := turn.Commit(actx, []core.Message{call, result, core.NewMessage(core.RoleAssistant, "m2a: "+secret)}); err != nil {
		t.Fatal(err)
	}
	agent.End()
	if err := tr.m.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// span returns the ended spans named name.
func (tr *traced) named(name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range tr.spans.Ended() {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

// one returns the only ended span named name whose parent is parent (any
// parent when parent is invalid).
func (tr *traced) one(t *testing.T, name string, parent trace.SpanContext) sdktrace.ReadOnlySpan {
	t.Helper()
	var out []sdktrace.ReadOnlySpan
	for _, s := range tr.named(name) {
		if !parent.IsValid() || s.Parent().SpanID() == parent.SpanID() {
			out = append(out, s)
		}
	}
	if len(out) != 1 {
		t.Fatalf("%d spans %q under %v, want 1 (spans: %v)", len(out), name, parent.SpanID(), tr.names())
	}
	return out[0]
}

func (tr *traced) names() []string {
	var out []string
	for _, s := range tr.spans.Ended() {
		out = append(out, s.Name())
	}
	return out
}

// children returns the names of the spans whose parent is p.
func (tr *traced) children(p sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, s := range tr.spans.Ended() {
		if s.Parent().SpanID() == p.SpanContext().SpanID() {
			out = append(out, s.Name())
		}
	}
	return out
}

func attr(s sdktrace.ReadOnlySpan, key attribute.Key) (attribute.Value, bool) {
	for _, kv := range s.Attributes() {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

func wantAttr(t *testing.T, s sdktrace.ReadOnlySpan, key attribute.Key, want any) {
	t.Helper()
	v, ok := attr(s, key)
	if !ok {
		t.Fatalf("span %s has no %s: %v", s.Name(), key, s.Attributes())
	}
	if got := v.AsInterface(); got != want {
		t.Fatalf("span %s: %s = %v, want %v", s.Name(), key, got, want)
	}
}

func positive(t *testing.T, s sdktrace.ReadOnlySpan, key attribute.Key) {
	t.Helper()
	if v, ok := attr(s, key); !ok || v.AsInt64() <= 0 {
		t.Fatalf("span %s: %s = %v, want > 0", s.Name(), key, v.AsInterface())
	}
}

// dbSystems names the backends of eachBackend as db.system.name.
var dbSystems = map[string]string{"memstore": "memstore", "sqlite": "sqlite", "postgres": "postgresql"}

func TestTelemetryTurnSpanTree(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		db := dbSystems[t.Name()[strings.LastIndex(t.Name(), "/")+1:]]
		tr := newTraced(t, s, false)
		tr.turnWithTools(t)
		agent := tr.one(t, "agent", trace.SpanContext{})

		begin := tr.one(t, "agentmem.Begin", agent.SpanContext())
		wantAttr(t, begin, "gen_ai.conversation.id", "t")
		wantAttr(t, begin, "agentmem.resource.id", "r")
		positive(t, begin, "agentmem.tokens.loaded")
		positive(t, begin, "agentmem.recall.hits")
		kids := tr.children(begin)
		for _, want := range []string{"GetThread", "embeddings", "vector.query " + "memory_messages_64"} {
			if !slices.ContainsFunc(kids, func(n string) bool { return strings.HasPrefix(n, strings.Fields(want)[0]) }) {
				t.Fatalf("Begin's children %v lack %s", kids, want)
			}
		}
		get := tr.one(t, "GetThread", begin.SpanContext())
		wantAttr(t, get, "db.system.name", db)
		wantAttr(t, get, "db.operation.name", "GetThread")
		if get.SpanKind() != trace.SpanKindClient {
			t.Fatalf("store span kind %v", get.SpanKind())
		}
		wantAttr(t, tr.one(t, "embeddings", begin.SpanContext()), "gen_ai.operation.name", "embeddings")

		tool := tr.one(t, "agentmem."+core.RecallToolName, agent.SpanContext())
		wantAttr(t, tool, "gen_ai.operation.name", "search_memory")
		if n := tr.children(tool); !slices.Contains(n, "embeddings") {
			t.Fatalf("recall tool children %v lack embeddings", n)
		}

		step := tr.one(t, "agentmem.Step", agent.SpanContext())
		wantAttr(t, step, "agentmem.messages.saved", int64(2))
		commit := tr.one(t, "agentmem.Commit", agent.SpanContext())
		index := tr.one(t, "agentmem.save.index", commit.SpanContext())
		if n := tr.children(index); !slices.ContainsFunc(n, func(s string) bool { return strings.HasPrefix(s, "vector.upsert ") }) {
			t.Fatalf("index children %v lack vector.upsert", n)
		}

		// Background work is a root of its own, linked to the span that scheduled it.
		// The Commit's observation step schedules the cycle.
		scheduler := tr.one(t, "agentmem.save.observe", commit.SpanContext())
		var linked int
		for _, bg := range tr.named("agentmem.observe") {
			if bg.Parent().IsValid() {
				t.Fatalf("background observe has parent %v", bg.Parent().SpanID())
			}
			if len(bg.Links()) != 1 {
				t.Fatalf("background observe has %d links", len(bg.Links()))
			}
			if bg.Links()[0].SpanContext.SpanID() == scheduler.SpanContext().SpanID() {
				linked++
			}
		}
		if linked != 1 {
			t.Fatalf("%d background observations linked to the Commit's, want 1", linked)
		}
		retry := tr.named("agentmem.save.index_retry")
		if len(retry) == 0 || retry[0].Parent().IsValid() || len(retry[0].Links()) != 1 {
			t.Fatalf("index retry spans %v: want a linked root", retry)
		}
		// Every observer call is a child of a background observation.
		calls := tr.named("chat observer")
		if len(calls) == 0 || int64(len(calls)) != tr.obs.calls.Load() {
			t.Fatalf("%d observer spans for %d calls", len(calls), tr.obs.calls.Load())
		}
		for _, c := range calls {
			wantAttr(t, c, "gen_ai.operation.name", "chat")
			wantAttr(t, c, "gen_ai.request.model", observerName)
			if !slices.ContainsFunc(tr.named("agentmem.observe"), func(o sdktrace.ReadOnlySpan) bool {
				return o.SpanContext().SpanID() == c.Parent().SpanID()
			}) {
				t.Fatalf("observer call outside a background observation")
			}
		}
		wantAttr(t, tr.named("agentmem.observe")[0], "gen_ai.conversation.id", "t")

		// What is known at a span's start is given at its start, so samplers see it.
		for name, key := range map[string]attribute.Key{"agentmem.Begin": "gen_ai.conversation.id",
			"agentmem.Commit": "agentmem.messages.saved", "agentmem.Step": "gen_ai.conversation.id",
			"agentmem." + core.RecallToolName: "gen_ai.operation.name", "agentmem.observe": "gen_ai.conversation.id",
			"chat observer": "gen_ai.request.model", "GetThread": "db.operation.name", "embeddings": "agentmem.embedding.inputs"} {
			tr.sampler.wantStart(t, name, key)
		}
		for _, s := range tr.spans.Ended() {
			if strings.HasPrefix(s.Name(), "vector.query ") {
				tr.sampler.wantStart(t, s.Name(), "gen_ai.retrieval.top_k")
			}
		}
	})
}

// TestTelemetryActivation: activating buffered observations is an
// operation of its own, holding its store calls, with the thread at its
// start and the chunks it activated at its end.
func TestTelemetryActivation(t *testing.T) {
	tp, spans, sampler := newProvider()
	cfg := bufferedConfig(modelCalled{&observerModel{}, observerName}, &reflectorModel{}, 500, 100000, 0.2, 3)
	m, err := core.New(core.Options{Store: newTestSQLite(t), Config: cfg, TracerProvider: tp})
	if err != nil {
		t.Fatal(err)
	}
	tr := &traced{spans: spans}
	for i := 0; i < 40 && !slices.ContainsFunc(tr.named("agentmem.activate"), func(s sdktrace.ReadOnlySpan) bool {
		v, _ := attr(s, "agentmem.observation.chunks")
		return v.AsInt64() > 0
	}); i++ {
		observedTurn(t, m, "t", "r", i)
		core.WaitBackground(m)
	}
	var act sdktrace.ReadOnlySpan
	for _, s := range tr.named("agentmem.activate") {
		if v, _ := attr(s, "agentmem.observation.chunks"); v.AsInt64() > 0 {
			act = s
		}
	}
	if act == nil {
		t.Fatalf("no activation span with chunks: %v", tr.names())
	}
	wantAttr(t, act, "gen_ai.conversation.id", "t")
	positive(t, act, "agentmem.observation.tokens")
	sampler.wantStart(t, "agentmem.activate", "gen_ai.conversation.id")
	if kids := tr.children(act); !slices.Contains(kids, "PutObservations") {
		t.Fatalf("activation children %v lack PutObservations", kids)
	}
	for _, c := range tr.named("chat observer") {
		wantAttr(t, c, "gen_ai.request.model", observerName)
	}
}

// TestTelemetryContentOptIn: no span holds message text unless the
// application opts in, and then the saves and the searches carry it.
func TestTelemetryContentOptIn(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		for _, capture := range []bool{false, true} {
			tr := newTraced(t, s, capture)
			tr.turnWithTools(t)
			var holders []string
			for _, sp := range tr.spans.Ended() {
				for _, kv := range sp.Attributes() {
					if strings.Contains(kv.Value.Emit(), secret) || strings.Contains(kv.Value.Emit(), "question number") {
						holders = append(holders, sp.Name()+" "+string(kv.Key))
					}
				}
			}
			if !capture && len(holders) > 0 {
				t.Fatalf("message text recorded without the opt-in: %v", holders)
			}
			for _, want := range []string{"agentmem.Begin agentmem.content", "agentmem.Commit agentmem.content"} {
				if capture && !slices.Contains(holders, want) {
					t.Fatalf("with the opt-in, text is on %v, want %s", holders, want)
				}
			}
		}
	})
}

// TestTelemetryErrorCode: a failed operation's span has status Error and its
// memerr code as error.type, and its duration counts as an error.
func TestTelemetryErrorCode(t *testing.T) {
	tr := newTraced(t, newTestSQLite(t), false)
	_, err := tr.m.Begin(ctx, core.TurnRequest{ThreadID: "", ResourceID: "r"})
	var me *core.Error
	if !errors.As(err, &me) {
		t.Fatalf("Begin with a bad id: %v", err)
	}
	begin := tr.one(t, "agentmem.Begin", trace.SpanContext{})
	if begin.Status().Code != codes.Error {
		t.Fatalf("status %v", begin.Status())
	}
	wantAttr(t, begin, "error.type", string(me.Code))
	if got := tr.durationCount(t, "Begin", "error"); got != 1 {
		t.Fatalf("%d failed Begins measured, want 1", got)
	}
}

// TestTelemetryMetrics: the operation durations, tokens and recall hits are
// recorded under their names and units.
func TestTelemetryMetrics(t *testing.T) {
	tr := newTraced(t, newTestSQLite(t), false)
	tr.turnWithTools(t)
	rm := tr.collect(t)
	units := map[string]string{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			units[m.Name] = m.Unit
		}
	}
	for name, unit := range map[string]string{"agentmem.operation.duration": "s", "agentmem.tokens.loaded": "{token}",
		"agentmem.recall.hits": "{message}"} {
		if got, ok := units[name]; !ok || got != unit {
			t.Fatalf("metric %s: unit %q (present %v), want %q; metrics %v", name, got, ok, unit, units)
		}
	}
	for _, op := range []string{"Begin", "Step", "Commit", core.RecallToolName, "observe"} {
		if n := tr.durationCount(t, op, "ok"); n == 0 {
			t.Fatalf("no duration of %s", op)
		}
	}
}

func (tr *traced) collect(t *testing.T) metricdata.ResourceMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := tr.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	return rm
}

// durationCount returns how many durations of op with outcome were recorded
// on SQLite.
func (tr *traced) durationCount(t *testing.T, op, outcome string) uint64 {
	t.Helper()
	var n uint64
	for _, sm := range tr.collect(t).ScopeMetrics {
		for _, m := range sm.Metrics {
			h, ok := m.Data.(metricdata.Histogram[float64])
			if m.Name != "agentmem.operation.duration" || !ok {
				continue
			}
			want := attribute.NewSet(attribute.String("agentmem.operation", op), attribute.String("agentmem.store", "sqlite"),
				attribute.String("agentmem.outcome", outcome))
			for _, dp := range h.DataPoints {
				if dp.Attributes.Equals(&want) {
					n += dp.Count
				}
			}
		}
	}
	return n
}

func newTestSQLite(t testing.TB) store.Store {
	t.Helper()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "memory.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestTelemetryTrimmedTokens: a Begin whose budget drops history reports the
// tokens trimmed and the boundary moved, on its span and in the counter.
func TestTelemetryTrimmedTokens(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	spans := tracetest.NewSpanRecorder()
	m, err := core.New(core.Options{Store: newTestSQLite(t), Tokenizer: testenv.ByteTokenizer{},
		Config:         core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 300}},
		TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans)),
		MeterProvider:  sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r",
			Input: []core.Message{core.NewMessage(core.RoleUser, text(fmt.Sprint("u", i), 100))}})
		if err != nil {
			t.Fatal(err)
		}
		if err := turn.Commit(ctx, []core.Message{core.NewMessage(core.RoleAssistant, text(fmt.Sprint("a", i), 100))}); err != nil {
			t.Fatal(err)
		}
	}
	last := spans.Ended()[0]
	for _, s := range spans.Ended() {
		if s.Name() == "agentmem.Begin" {
			last = s
		}
	}
	positive(t, last, "agentmem.tokens.trimmed")
	wantAttr(t, last, "agentmem.boundary.moved", true)
	wantAttr(t, last, "agentmem.budget.tokens", int64(300))
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	for _, m := range rm.ScopeMetrics[0].Metrics {
		if sum, ok := m.Data.(metricdata.Sum[int64]); ok && m.Name == "agentmem.tokens.trimmed" && sum.DataPoints[0].Value > 0 {
			return
		}
	}
	t.Fatal("no tokens trimmed counted")
}

// TestTelemetryObserveNow: ObserveNow's span holds the observer call and
// the observation tokens of the record it returns.
func TestTelemetryObserveNow(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	m, err := core.New(core.Options{Store: newTestSQLite(t), Config: observationConfig(&observerModel{}, &reflectorModel{}, 100000, 100000),
		TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))})
	if err != nil {
		t.Fatal(err)
	}
	observedTurn(t, m, "t", "r", 1)
	rec, err := m.ObserveNow(ctx, "t", "r", nil)
	if err != nil || rec.ObservationTokens == 0 {
		t.Fatalf("ObserveNow = %+v, %v", rec, err)
	}
	tr := &traced{spans: spans}
	now := tr.one(t, "agentmem.ObserveNow", trace.SpanContext{})
	wantAttr(t, now, "agentmem.observation.tokens", int64(rec.ObservationTokens))
	tr.one(t, "chat observer", now.SpanContext())
}

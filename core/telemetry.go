package core

import (
	"context"
	"reflect"
	"strings"

	"go.opentelemetry.io/otel/attribute"

	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/internal/telemetry"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
)

// instrument sets up the spans and metrics of m (see docs/observability.md).
func (m *Memory) instrument() {
	m.tel = telemetry.New(telemetry.Config{TracerProvider: m.opts.TracerProvider, MeterProvider: m.opts.MeterProvider,
		CaptureContent: m.opts.CaptureMessageContent, DBSystem: dbSystem(m.opts.Store)})
	if m.opts.Embedder != nil {
		m.opts.Embedder = tracedEmbedder{e: m.opts.Embedder, tel: m.tel}
	}
}

// dbSystem names the store for db.system.name from its driver's package:
// sqlite, postgresql, memstore, else the package's name.
func dbSystem(s store.Store) string {
	if s == nil {
		return ""
	}
	if c, ok := s.(*store.Checked); ok {
		s = c.Unwrap()
	}
	t := reflect.TypeOf(s)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	pkg := t.PkgPath()
	pkg = pkg[strings.LastIndex(pkg, "/")+1:]
	if pkg == "postgres" {
		return "postgresql"
	}
	return pkg
}

// startOp starts the span of a public operation on a thread; genaiOp,
// when set, is its GenAI memory operation name; more are further
// attributes known at the start.
func (m *Memory) startOp(ctx context.Context, op, threadID, resourceID, genaiOp string, more ...attribute.KeyValue) (context.Context, telemetry.Op) {
	attrs := telemetry.ThreadAttrs(threadID, resourceID, 1+len(more))
	if genaiOp != "" {
		attrs = append(attrs, telemetry.AttrGenAIOperation.String(genaiOp))
	}
	return m.tel.Start(ctx, op, append(attrs, more...)...)
}

// endBegin records what Begin built on its span and in the turn metrics.
func (m *Memory) endBegin(ctx context.Context, sp telemetry.Op, t *Turn, err error) error {
	if err != nil || t == nil {
		return sp.End(err)
	}
	loaded, trimmed := budget.PromptTokens(t.prompt), 0
	for i := range t.trimmed {
		trimmed += t.trimmed[i].Tokens
	}
	m.tel.Turn(ctx, loaded, trimmed, len(t.recalled))
	if sp.Recording() {
		attrs := append(make([]attribute.KeyValue, 0, 7), telemetry.AttrTokensLoaded.Int(loaded), telemetry.AttrTokensTrimmed.Int(trimmed),
			telemetry.AttrMessagesLoaded.Int(len(t.prompt)), telemetry.AttrMessagesTrimmed.Int(len(t.trimmed)),
			telemetry.AttrRecallHits.Int(len(t.recalled)), telemetry.AttrBoundaryMoved.Bool(t.boundaryMoved))
		if t.st.tokenBudget() {
			attrs = append(attrs, telemetry.AttrBudgetTokens.Int(t.st.maxTokens))
		}
		sp.Set(attrs...)
	}
	return sp.End(nil)
}

// startTurnOp starts the span of a Step or Commit of t.
func (t *Turn) startTurnOp(ctx context.Context, op string, msgs []Message) (context.Context, telemetry.Op) {
	if t == nil || ctx == nil {
		return ctx, telemetry.Op{}
	}
	return t.m.startSaving(ctx, op, t.req.ThreadID, t.req.ResourceID, msgs)
}

// startSaving starts the span of an operation saving msgs: their count
// and their text (contentAttrs) are known at its start.
func (m *Memory) startSaving(ctx context.Context, op, threadID, resourceID string, msgs []Message) (context.Context, telemetry.Op) {
	saved := telemetry.AttrMessagesSaved.Int(len(msgs))
	if !m.tel.CaptureContent() {
		return m.startOp(ctx, op, threadID, resourceID, "", saved)
	}
	return m.startOp(ctx, op, threadID, resourceID, "", append(m.contentAttrs(msgs), saved)...)
}

// contentAttrs is the text of msgs when the application opted in, else
// nothing.
func (m *Memory) contentAttrs(msgs []Message) []attribute.KeyValue {
	if !m.tel.CaptureContent() || len(msgs) == 0 {
		return nil
	}
	texts := make([]string, len(msgs))
	for i := range msgs {
		texts[i] = msgs[i].Text()
	}
	return []attribute.KeyValue{telemetry.AttrContent.StringSlice(texts)}
}

// startBackground starts the span of background work that ctx's span
// scheduled, linked to it, with the attributes known at its start.
func (m *Memory) startBackground(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, telemetry.Op) {
	return m.tel.Background(ctx, name, attrs...)
}

// tracedEmbedder gives each embedder call a GenAI embeddings span.
type tracedEmbedder struct {
	e   vector.Embedder
	tel *telemetry.T
}

// Embed implements vector.Embedder.
func (e tracedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	ctx, sp := e.tel.Embeddings(ctx, len(texts))
	vecs, err := e.e.Embed(ctx, texts)
	e.tel.EmbeddingFailed(ctx, err)
	return vecs, sp.End(err)
}

// GenAI memory operations of the spans that have one.
const (
	searchMemory = telemetry.OpSearchMemory
	updateMemory = telemetry.OpUpdateMemory
	deleteMemory = telemetry.OpDeleteMemory
)

// startSave starts the span of SaveMessages (op) of msgs.
func (m *Memory) startSave(ctx context.Context, op string, msgs []Message) (context.Context, telemetry.Op) {
	var threadID, resourceID string
	if len(msgs) > 0 {
		threadID, resourceID = msgs[0].ThreadID, msgs[0].ResourceID
	}
	return m.startSaving(ctx, op, threadID, resourceID, msgs)
}

// startRecall starts the span of Recall; a semantic search makes it a
// search_memory operation.
func (m *Memory) startRecall(ctx context.Context, q RecallQuery) (context.Context, telemetry.Op) {
	if q.VectorSearch == "" {
		return m.startOp(ctx, "Recall", q.ThreadID, q.ResourceID, "")
	}
	if m.tel.CaptureContent() {
		return m.startOp(ctx, "Recall", q.ThreadID, q.ResourceID, searchMemory, telemetry.AttrMemoryQueryText.String(q.VectorSearch))
	}
	return m.startOp(ctx, "Recall", q.ThreadID, q.ResourceID, searchMemory)
}

// endRecall records what Recall returned.
func (m *Memory) endRecall(sp telemetry.Op, res RecallResult, err error) error {
	sp.Set(telemetry.AttrMessagesLoaded.Int(len(res.Messages)))
	return sp.End(err)
}

// queryVector runs a recall query on the vector store in its own span and
// counts its hits.
func (m *Memory) queryVector(ctx context.Context, name string, q vector.Query, sq searchQuery) ([]vector.Hit, error) {
	topK, filter := telemetry.AttrTopK.Int(sq.topK), telemetry.AttrRecallFilter.Bool(!q.Filter.Metadata.IsZero())
	var qctx context.Context
	var vs telemetry.Child
	if m.tel.CaptureContent() {
		qctx, vs = m.tel.Vector(ctx, "query", name, topK, filter, telemetry.AttrMemoryQueryText.String(sq.text))
	} else {
		qctx, vs = m.tel.Vector(ctx, "query", name, topK, filter)
	}
	hits, err := m.opts.Vector.Query(qctx, name, q)
	vs.Set(telemetry.AttrRecallHits.Int(len(hits)))
	m.tel.RecallHits(ctx, len(hits))
	return hits, vs.End(err)
}

// upsertVectors writes recs with upsert in a span of its own.
func (m *Memory) upsertVectors(ctx context.Context, upsert func(context.Context, string, []vector.Record) error, name string, recs []vector.Record) error {
	ctx, vs := m.tel.Vector(ctx, "upsert", name, telemetry.AttrVectorRecords.Int(len(recs)))
	return vs.End(upsert(ctx, name, recs))
}

// startEffect starts the span of a side effect of a save: a child of the
// save's span, or for background effects a root linked to it.
func (m *Memory) startEffect(ctx context.Context, f sideEffect) (context.Context, telemetry.Op) {
	name := "save." + strings.ReplaceAll(f.name, " ", "_")
	if f.background {
		return m.startBackground(ctx, name)
	}
	return m.tel.Start(ctx, name)
}

// endObservation records the observation tokens of rec on sp and ends it.
func endObservation(sp telemetry.Op, rec store.ObservationRecord, err error) error {
	sp.Set(telemetry.AttrObservationToken.Int(rec.ObservationTokens))
	return sp.End(err)
}

package core

import (
	"context"
	"reflect"
	"strings"

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
// when set, is its GenAI memory operation name.
func (m *Memory) startOp(ctx context.Context, op, threadID, resourceID, genaiOp string) (context.Context, telemetry.Op) {
	ctx, sp := m.tel.Start(ctx, op)
	if !sp.Recording() {
		return ctx, sp
	}
	if threadID != "" {
		sp.Set(telemetry.AttrConversationID.String(threadID))
	}
	if resourceID != "" {
		sp.Set(telemetry.AttrResourceID.String(resourceID))
	}
	if genaiOp != "" {
		sp.Set(telemetry.AttrGenAIOperation.String(genaiOp))
	}
	return ctx, sp
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
		m.captureMessages(sp, t.req.Input)
		sp.Set(telemetry.AttrTokensLoaded.Int(loaded), telemetry.AttrTokensTrimmed.Int(trimmed),
			telemetry.AttrMessagesLoaded.Int(len(t.prompt)), telemetry.AttrMessagesTrimmed.Int(len(t.trimmed)),
			telemetry.AttrRecallHits.Int(len(t.recalled)), telemetry.AttrBoundaryMoved.Bool(t.boundaryMoved))
		if t.st.tokenBudget() {
			sp.Set(telemetry.AttrBudgetTokens.Int(t.st.maxTokens))
		}
	}
	return sp.End(nil)
}

// startTurnOp starts the span of a Step or Commit of t.
func (t *Turn) startTurnOp(ctx context.Context, op string, msgs []Message) (context.Context, telemetry.Op) {
	if t == nil || ctx == nil {
		return ctx, telemetry.Op{}
	}
	ctx, sp := t.m.startOp(ctx, op, t.req.ThreadID, t.req.ResourceID, "")
	if sp.Recording() {
		sp.Set(telemetry.AttrMessagesSaved.Int(len(msgs)))
		t.m.captureMessages(sp, msgs)
	}
	return ctx, sp
}

// captureMessages records the text of msgs on sp when the application opted in.
func (m *Memory) captureMessages(sp telemetry.Op, msgs []Message) {
	if !m.tel.CaptureContent() || len(msgs) == 0 {
		return
	}
	texts := make([]string, len(msgs))
	for i := range msgs {
		texts[i] = msgs[i].Text()
	}
	sp.Set(telemetry.AttrContent.StringSlice(texts))
}

// startBackground starts the span of background work that ctx's span
// scheduled, linked to it.
func (m *Memory) startBackground(ctx context.Context, name string) (context.Context, telemetry.Op) {
	return m.tel.Background(ctx, name)
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
	ctx, sp := m.startOp(ctx, op, threadID, resourceID, "")
	if sp.Recording() {
		sp.Set(telemetry.AttrMessagesSaved.Int(len(msgs)))
		m.captureMessages(sp, msgs)
	}
	return ctx, sp
}

// startRecall starts the span of Recall; a semantic search makes it a
// search_memory operation.
func (m *Memory) startRecall(ctx context.Context, q RecallQuery) (context.Context, telemetry.Op) {
	if q.VectorSearch == "" {
		return m.startOp(ctx, "Recall", q.ThreadID, q.ResourceID, "")
	}
	ctx, sp := m.startOp(ctx, "Recall", q.ThreadID, q.ResourceID, searchMemory)
	if m.tel.CaptureContent() && sp.Recording() {
		sp.Set(telemetry.AttrMemoryQueryText.String(q.VectorSearch))
	}
	return ctx, sp
}

// endRecall records what Recall returned.
func (m *Memory) endRecall(sp telemetry.Op, res RecallResult, err error) error {
	sp.Set(telemetry.AttrMessagesLoaded.Int(len(res.Messages)))
	return sp.End(err)
}

// queryVector runs a recall query on the vector store in its own span and
// counts its hits.
func (m *Memory) queryVector(ctx context.Context, name string, q vector.Query, sq searchQuery) ([]vector.Hit, error) {
	qctx, vs := m.tel.Vector(ctx, "query", name, 0)
	vs.Set(telemetry.AttrTopK.Int(sq.topK), telemetry.AttrRecallFilter.Bool(!q.Filter.Metadata.IsZero()))
	if m.tel.CaptureContent() {
		vs.Set(telemetry.AttrMemoryQueryText.String(sq.text))
	}
	hits, err := m.opts.Vector.Query(qctx, name, q)
	vs.Set(telemetry.AttrRecallHits.Int(len(hits)))
	m.tel.RecallHits(ctx, len(hits))
	return hits, vs.End(err)
}

// upsertVectors writes recs with upsert in a span of its own.
func (m *Memory) upsertVectors(ctx context.Context, upsert func(context.Context, string, []vector.Record) error, name string, recs []vector.Record) error {
	ctx, vs := m.tel.Vector(ctx, "upsert", name, len(recs))
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

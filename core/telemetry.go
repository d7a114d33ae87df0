package core

import (
	"context"
	"github.com/agentmem/agentmem/core/message"
	"reflect"
	"strings"

	"go.opentelemetry.io/otel/attribute"

	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/internal/telemetry"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
)

// spans starts the spans of Memory's operations and records its metrics
// (see docs/observability.md).
type spans struct {
	tel *telemetry.T
}

// instrument sets up the spans and metrics that opts ask for, and wraps
// opts.Embedder so that each of its calls has a span.
func instrument(opts *Options) spans {
	s := spans{tel: telemetry.New(telemetry.Config{TracerProvider: opts.TracerProvider, MeterProvider: opts.MeterProvider,
		CaptureContent: opts.CaptureMessageContent, DBSystem: dbSystem(opts.Store)})}
	if opts.Embedder != nil {
		opts.Embedder = tracedEmbedder{e: opts.Embedder, tel: s.tel}
	}
	return s
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
func (s *spans) startOp(ctx context.Context, op, threadID, resourceID, genaiOp string, more ...attribute.KeyValue) (context.Context, telemetry.Op) {
	return s.tel.StartOp(ctx, op, threadID, resourceID, genaiOp, more...)
}

// endBegin records what Begin built on its span and in the turn metrics.
func (s *spans) endBegin(ctx context.Context, sp telemetry.Op, t *Turn, err error) error {
	if err != nil || t == nil {
		return sp.End(err)
	}
	loaded, trimmed := budget.PromptTokens(t.prompt), 0
	for i := range t.trimmed {
		trimmed += t.trimmed[i].Tokens
	}
	s.tel.Turn(ctx, loaded, trimmed, len(t.recalled))
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
func (t *Turn) startTurnOp(ctx context.Context, op string, msgs []message.Message) (context.Context, telemetry.Op) {
	if t == nil || ctx == nil {
		return ctx, telemetry.Op{}
	}
	return t.m.spans.startSaving(ctx, op, t.req.ThreadID, t.req.ResourceID, msgs)
}

// startSaving starts the span of an operation saving msgs: their count
// and their text (contentAttrs) are known at its start.
func (s *spans) startSaving(ctx context.Context, op, threadID, resourceID string, msgs []message.Message) (context.Context, telemetry.Op) {
	saved := telemetry.AttrMessagesSaved.Int(len(msgs))
	if !s.tel.CaptureContent() {
		return s.startOp(ctx, op, threadID, resourceID, "", saved)
	}
	return s.startOp(ctx, op, threadID, resourceID, "", append(s.contentAttrs(msgs), saved)...)
}

// contentAttrs is the text of msgs when the application opted in, else
// nothing.
func (s *spans) contentAttrs(msgs []message.Message) []attribute.KeyValue {
	if !s.tel.CaptureContent() || len(msgs) == 0 {
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
func (s *spans) startBackground(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, telemetry.Op) {
	return s.tel.Background(ctx, name, attrs...)
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
func (s *spans) startSave(ctx context.Context, op string, msgs []message.Message) (context.Context, telemetry.Op) {
	var threadID, resourceID string
	if len(msgs) > 0 {
		threadID, resourceID = msgs[0].ThreadID, msgs[0].ResourceID
	}
	return s.startSaving(ctx, op, threadID, resourceID, msgs)
}

// startRecall starts the span of Recall; a semantic search makes it a
// search_memory operation.
func startRecall(ctx context.Context, tel *telemetry.T, q RecallQuery) (context.Context, telemetry.Op) {
	if q.VectorSearch == "" {
		return tel.StartOp(ctx, "Recall", q.ThreadID, q.ResourceID, "")
	}
	if tel.CaptureContent() {
		return tel.StartOp(ctx, "Recall", q.ThreadID, q.ResourceID, searchMemory, telemetry.AttrMemoryQueryText.String(q.VectorSearch))
	}
	return tel.StartOp(ctx, "Recall", q.ThreadID, q.ResourceID, searchMemory)
}

// endRecall records what Recall returned.
func endRecall(sp telemetry.Op, res RecallResult, err error) error {
	sp.Set(telemetry.AttrMessagesLoaded.Int(len(res.Messages)))
	return sp.End(err)
}

// startEffect starts the span of a side effect of a save: a child of the
// save's span, or for background effects a root linked to it.
func (s *spans) startEffect(ctx context.Context, f sideEffect) (context.Context, telemetry.Op) {
	name := "save." + strings.ReplaceAll(f.name, " ", "_")
	if f.background {
		return s.startBackground(ctx, name)
	}
	return s.tel.Start(ctx, name)
}

// endObservation records the observation tokens of rec on sp and ends it.
func endObservation(sp telemetry.Op, rec store.ObservationRecord, err error) error {
	sp.Set(telemetry.AttrObservationToken.Int(rec.ObservationTokens))
	return sp.End(err)
}

package core

import (
	"context"
	"errors"
	"fmt"
	"html"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentmem/agentmem/core/internal/indexing"
	"github.com/agentmem/agentmem/core/internal/transcript"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
)

// dimension returns the embedding dimension: EmbeddingDimension when set, else
// one probe of the embedder, remembered only when it succeeds.
func (m *Memory) dimension(ctx context.Context) (int, error) {
	if m.opts.Vector.SelfEmbedding() {
		return m.opts.EmbeddingDimension, nil
	}
	m.dimMu.Lock()
	defer m.dimMu.Unlock()
	if m.dim > 0 {
		return m.dim, nil
	}
	vecs, err := m.opts.Embedder.Embed(ctx, []string{"a"})
	if err != nil || len(vecs) != 1 || len(vecs[0]) == 0 {
		return 0, &Error{Code: CodeEmbeddingDimensionFailed, Op: "probe",
			Msg: ErrEmbeddingDimensionFailed.Msg() + ". Semantic recall cannot select a vector index until the embedder returns a usable embedding.", Err: err}
	}
	m.dim = len(vecs[0])
	return m.dim, nil
}

// embed embeds texts and checks every vector has the expected dimension.
func (m *Memory) embed(ctx context.Context, texts []string) ([][]float32, int, error) {
	dim, err := m.dimension(ctx)
	if err != nil {
		return nil, 0, err
	}
	if m.opts.Vector.SelfEmbedding() {
		return nil, dim, nil
	}
	vecs, err := m.opts.Embedder.Embed(ctx, texts)
	if err != nil {
		return nil, 0, &Error{Code: CodeVector, Op: "embed", Msg: "embedder failed", Err: err}
	}
	if len(vecs) != len(texts) {
		return nil, 0, memerr.Errorf(CodeVector, "embed", "embedder returned %d vectors for %d texts", len(vecs), len(texts))
	}
	for _, v := range vecs {
		if len(v) != dim {
			return nil, 0, memerr.Errorf(CodeEmbeddingDimensionMismatch, "embed",
				"embedder returned %d dimensions but the index %s expects %d", len(v), vector.IndexName(dim), dim)
		}
	}
	return vecs, dim, nil
}

func (m *Memory) ensureIndex(ctx context.Context, st settings, dim int) (string, error) {
	name := vector.IndexName(dim)
	if _, ok := m.indexes.Load(name); ok {
		return name, nil
	}
	spec := vector.IndexSpec{Name: name, Dimension: dim, Config: st.recall.IndexConfig, Version: m.ix.Version}
	if err := m.opts.Vector.EnsureIndex(ctx, spec); err != nil {
		return "", &Error{Code: CodeVector, Op: "EnsureIndex", Msg: "cannot create index " + name, Err: err}
	}
	m.indexes.Store(name, true)
	return name, nil
}

// indexMessages embeds and upserts the records of msgs (see
// indexing.records). Vector ids are "<messageID>#<n>", so indexing again is
// idempotent.
func (m *Memory) indexMessages(ctx context.Context, s *store.Checked, st settings, msgs []Message, prior *indexing.Prior) error {
	prev, err := m.contextTexts(ctx, s, msgs, prior)
	if err != nil {
		return err
	}
	recs, texts := m.ix.Records(msgs, st.recall.MaxChunkChars, prev)
	if len(recs) == 0 {
		return nil
	}
	vecs, dim, err := m.embed(ctx, texts)
	if err != nil {
		return err
	}
	for i := range vecs {
		recs[i].Vector = vecs[i]
	}
	name, err := m.ensureIndex(ctx, st, dim)
	if err != nil {
		return err
	}
	if err := m.opts.Vector.Upsert(ctx, name, recs); err != nil {
		return vectorErr("Upsert", "indexing failed", err)
	}
	return nil
}

// vectorErr wraps a vector store failure; a version mismatch keeps its own
// code, so callers see that a reindex repairs it.
func vectorErr(op, msg string, err error) error {
	if errors.Is(err, ErrIndexVersionMismatch) {
		return &Error{Code: CodeIndexVersionMismatch, Op: op, Msg: ErrIndexVersionMismatch.Msg(), Err: err}
	}
	return &Error{Code: CodeVector, Op: op, Msg: msg, Err: err}
}

// index indexes msgs, logging failures, and reports whether it succeeded:
// storage is the source of truth. The ids of messages whose indexing fails
// are recorded in the store (MarkUnindexed), so that no process forgets
// them; after a success, the markers this process could not store before are
// written, and the caller retries the recorded messages of the resources
// (retryResources): the next successful write of any process, a restarted
// one included, repairs what an outage missed.
func (m *Memory) index(ctx context.Context, st settings, msgs []Message, prior *indexing.Prior) bool {
	if len(msgs) == 0 {
		return false
	}
	s, err := m.checked()
	if err != nil {
		return false
	}
	if err := m.indexMessages(ctx, s, st, msgs, prior); err != nil {
		m.log.WarnContext(ctx, "agentmem: indexing messages for semantic recall failed; they are retried on the next successful write (or run Reindex)",
			"err", err, "messages", len(msgs))
		m.markUnindexed(ctx, s, msgs)
		return false
	}
	m.markUnindexed(ctx, s, nil) // markers this process could not store before
	return true
}

// markTimeout bounds the write of markers, which runs even when the caller's
// context is done (a cancelled request must not lose the record).
const markTimeout = 10 * time.Second

// markUnindexed records msgs, and the markers the store refused earlier, as
// unindexed. When the store fails too, the markers are kept in this process
// (pending) and written with its next index call.
func (m *Memory) markUnindexed(ctx context.Context, s *store.Checked, msgs []Message) {
	failed := m.pending.Take()
	if len(failed) == 0 && len(msgs) == 0 {
		return
	}
	if failed == nil {
		failed = make(map[string]string, len(msgs))
	}
	for _, msg := range msgs {
		failed[msg.ID] = msg.ResourceID
	}
	ids := make([]string, 0, len(failed))
	for id := range failed {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	m.clean.Marked(failed)
	mctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), markTimeout)
	defer cancel()
	if err := s.MarkUnindexed(mctx, ids); err != nil {
		m.pending.Add(failed)
		m.log.ErrorContext(ctx, "agentmem: recording unindexed messages failed; this process keeps them and records them with its next write",
			"err", err, "messages", len(ids))
	}
}

// retryBatch bounds the recorded messages one retry indexes.
const retryBatch = 500

// retryUnindexed indexes the oldest recorded messages of a resource (at most
// retryBatch) and clears their markers.
func (m *Memory) retryUnindexed(ctx context.Context, s *store.Checked, st settings, resourceID string) error {
	epoch := m.clean.Epoch()
	msgs, err := s.ListUnindexed(ctx, resourceID, retryBatch)
	if err != nil || len(msgs) == 0 {
		m.clean.Drained(resourceID, epoch, err == nil)
		return err
	}
	if err := m.indexMessages(ctx, s, st, msgs, nil); err != nil {
		return err
	}
	ids := make([]string, len(msgs))
	for i := range msgs {
		ids[i] = msgs[i].ID
	}
	err = s.ClearUnindexed(ctx, ids)
	m.clean.Drained(resourceID, epoch, err == nil && len(msgs) < retryBatch)
	return err
}

// Unindexed reports how many messages of a resource ("" = every resource)
// wait for an indexing retry: those recorded in the store, plus those this
// process could not record. It lists the recorded messages, so it is meant
// for monitoring and tests.
func (m *Memory) Unindexed(ctx context.Context, resourceID string) (int, error) {
	s, err := m.open(ctx, "Unindexed")
	if err != nil {
		return 0, err
	}
	msgs, err := s.ListUnindexed(ctx, resourceID, math.MaxInt32)
	if err != nil {
		return 0, err
	}
	seen := make(map[string]bool, len(msgs))
	for _, msg := range msgs {
		seen[msg.ID] = true
	}
	return len(msgs) + m.pending.Count(resourceID, seen), nil
}

// unindex deletes the vectors of msgs.
func (m *Memory) unindex(ctx context.Context, msgs []Message) {
	byResource := map[string][]string{}
	for _, msg := range msgs {
		byResource[msg.ResourceID] = append(byResource[msg.ResourceID], msg.ID)
	}
	for res, ids := range byResource {
		if err := m.deleteVectors(ctx, vector.Filter{ResourceID: res, MessageIDs: ids}); err != nil {
			m.log.WarnContext(ctx, "agentmem: deleting vectors failed", "err", err)
		}
	}
}

func (m *Memory) deleteVectors(ctx context.Context, f vector.Filter) error {
	if m.opts.Vector == nil {
		return nil
	}
	var firstErr error
	m.indexes.Range(func(name, _ any) bool {
		if err := m.opts.Vector.Delete(ctx, name.(string), f); err != nil && firstErr == nil {
			firstErr = &Error{Code: CodeVector, Op: "Delete", Msg: "deleting vectors failed", Err: err}
		}
		return true
	})
	if firstErr != nil {
		return firstErr
	}
	// An index this process has not touched yet may still hold the vectors;
	// learning its name may take the one embedder probe.
	if dim, err := m.dimension(ctx); err == nil {
		if _, seen := m.indexes.Load(vector.IndexName(dim)); !seen {
			if err := m.opts.Vector.Delete(ctx, vector.IndexName(dim), f); err != nil {
				return &Error{Code: CodeVector, Op: "Delete", Msg: "deleting vectors failed", Err: err}
			}
		}
	}
	return nil
}

// Reindex rebuilds the semantic-recall vectors of one thread from storage.
// It first retries the recorded unindexed messages of the thread's resource
// (see index), and clears the markers of every message it indexes. When the
// resource's records have another index version (ErrIndexVersionMismatch),
// it rebuilds the whole resource (see ReindexResource).
func (m *Memory) Reindex(ctx context.Context, threadID string) error {
	s, err := m.openThread(ctx, "Reindex", threadID)
	if err != nil {
		return err
	}
	st, err := m.settings(nil)
	if err != nil {
		return err
	}
	if st.recall == nil {
		return nil
	}
	th, err := s.GetThread(ctx, threadID)
	if errors.Is(err, ErrThreadNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	err = m.retryUnindexed(ctx, s, st, th.ResourceID)
	if err == nil {
		err = m.reindexThread(ctx, s, st, threadID)
	}
	if errors.Is(err, ErrIndexVersionMismatch) {
		// The version is recorded per resource: rebuild all of it.
		return m.ReindexResource(ctx, th.ResourceID)
	}
	return err
}

// reindexThread indexes every message of a thread, newest first, a page at a
// time, clearing the markers of each indexed page.
func (m *Memory) reindexThread(ctx context.Context, s *store.Checked, st settings, threadID string) error {
	q := store.MessageQuery{ThreadID: threadID, PerPage: 200, Direction: store.Desc}
	for {
		page, err := s.ListMessages(ctx, q)
		if err != nil {
			return err
		}
		if err := m.indexMessages(ctx, s, st, page.Messages, nil); err != nil {
			return err
		}
		ids := make([]string, len(page.Messages))
		for i := range page.Messages {
			ids[i] = page.Messages[i].ID
		}
		if err := s.ClearUnindexed(ctx, ids); err != nil {
			return err
		}
		if !page.HasMore {
			return nil
		}
		last := page.Messages[len(page.Messages)-1]
		q.Before = &store.Cursor{CreatedAt: last.CreatedAt, Seq: last.Seq}
	}
}

// semanticIncludes runs the recall query for text and returns include
// windows, most relevant hit first.
func (m *Memory) semanticIncludes(ctx context.Context, st settings, th Thread, resourceID, text string) ([]store.Include, error) {
	if st.recall.Scope == ScopeResource && resourceID == "" {
		return nil, &Error{Code: CodeMissingResourceID, Op: "Recall",
			Msg: "Memory error: Resource-scoped semantic recall is enabled but no resourceId was provided. Either provide a resourceId or explicitly set semanticRecall.scope to 'thread'."}
	}
	q := vector.Query{Text: text, Keywords: m.ix.Analyzer.Analyze(text), TopK: st.recall.TopK, MinScore: st.recall.Threshold,
		Filter: vector.Filter{ResourceID: th.ResourceID}}
	if st.recall.Scope == ScopeThread {
		q.Filter.ThreadID = th.ID
	}
	q.Mode, q.Alpha = m.searchMode(st.recall)
	var vecs [][]float32
	dim, err := m.dimension(ctx)
	if err == nil && q.Mode != vector.SearchBM25 {
		vecs, dim, err = m.embed(ctx, []string{text})
	}
	if err != nil {
		return nil, err
	}
	if vecs != nil {
		q.Vector = vecs[0]
	}
	name, err := m.ensureIndex(ctx, st, dim)
	if err != nil {
		return nil, err
	}
	hits, err := m.opts.Vector.Query(ctx, name, q)
	if err != nil {
		return nil, vectorErr("Query", "semantic recall query failed", err)
	}
	var out []store.Include
	seen := map[string]bool{}
	r := st.recall.MessageRange
	for _, h := range hits {
		if h.Meta.ResourceID != th.ResourceID || seen[h.Meta.MessageID] || (st.recall.Threshold > 0 && h.Score < st.recall.Threshold) {
			continue
		}
		seen[h.Meta.MessageID] = true
		out = append(out, store.Include{ID: h.Meta.MessageID, Before: r.Before, After: r.After})
	}
	return out, nil
}

// searchMode returns the query mode and hybrid alpha of r: its Mode, else
// hybrid when the vector store lists it (or Hybrid is set), else vector.
func (m *Memory) searchMode(r *SemanticRecall) (string, float64) {
	alpha := DefaultHybridAlpha
	if r.Hybrid != nil && r.Hybrid.Alpha != nil {
		alpha = *r.Hybrid.Alpha
	}
	switch {
	case r.Mode != "":
		return r.Mode, alpha
	case r.Hybrid != nil:
		return vector.SearchHybrid, alpha
	}
	if ml, ok := m.opts.Vector.(vector.ModeLister); ok && slices.Contains(ml.SearchModes(), vector.SearchHybrid) {
		return vector.SearchHybrid, alpha
	}
	return vector.SearchVector, alpha
}

// checkMode validates SemanticRecall.Mode.
func checkMode(mode string) error {
	switch mode {
	case "", vector.SearchVector, vector.SearchHybrid, vector.SearchBM25:
		return nil
	}
	return fmt.Errorf("semanticRecall.mode must be %q, %q or %q, got %q", vector.SearchVector, vector.SearchHybrid, vector.SearchBM25, mode)
}

// fetchIncludes loads include windows, constrained to the thread's resource,
// without the messages already in have.
func (m *Memory) fetchIncludes(ctx context.Context, s *store.Checked, th Thread, inc []store.Include, have []Message) ([]Message, error) {
	if len(inc) == 0 {
		return nil, nil
	}
	page, err := s.ListMessages(ctx, store.MessageQuery{ThreadID: th.ID, ResourceID: th.ResourceID, Include: inc})
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(have))
	for _, h := range have {
		seen[h.ID] = true
	}
	var out []Message
	for _, msg := range page.Included {
		if !seen[msg.ID] && msg.ResourceID == th.ResourceID && msg.Role != RoleSystem {
			m.ensureTokens(&msg)
			out = append(out, msg)
		}
	}
	return out, nil
}

// renderOtherThreads renders recalled messages of other threads as the text of
// one system message. Message text is escaped so it cannot close the fence or
// forge prompt structure.
func renderOtherThreads(msgs []Message) string {
	sort.SliceStable(msgs, func(i, j int) bool {
		if !msgs[i].CreatedAt.Equal(msgs[j].CreatedAt) {
			return msgs[i].CreatedAt.Before(msgs[j].CreatedAt)
		}
		return msgs[i].ThreadID < msgs[j].ThreadID
	})
	var b strings.Builder
	b.WriteString("The following messages were remembered from a different conversation:\n<remembered_from_other_conversation>\n")
	day := ""
	for _, msg := range msgs {
		if d := msg.CreatedAt.UTC().Format("2006, Jan, 2"); d != day {
			day = d
			fmt.Fprintf(&b, "\nthe following messages are from %s\n", d)
		}
		fmt.Fprintf(&b, "Message from previous conversation at %s: %s: %s\n",
			msg.CreatedAt.UTC().Format("3:04 PM UTC"), transcript.RoleLabel(msg.Role), transcript.EncodeLineBreaks(html.EscapeString(msg.Text())))
	}
	b.WriteString("<end_remembered_from_other_conversation>")
	return b.String()
}

// recallForTurn queries with the last user message of the input and returns
// the recalled messages of this thread (merged into history by the caller)
// and of other threads of the resource (rendered as one system message),
// and the include windows, most relevant first.
func (m *Memory) recallForTurn(ctx context.Context, s *store.Checked, st settings, th Thread, history, input []Message) (same, other []Message, inc []store.Include, err error) {
	query := ""
	for i := len(input) - 1; i >= 0 && query == ""; i-- {
		if input[i].Role == RoleUser {
			query = m.ix.MessageText(&input[i])
		}
	}
	if query == "" {
		return nil, nil, nil, nil
	}
	if inc, err = m.semanticIncludes(ctx, st, th, th.ResourceID, query); err != nil {
		return nil, nil, nil, err
	}
	have := append(append([]Message(nil), history...), input...)
	hits, err := m.fetchIncludes(ctx, s, th, inc, have)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, h := range hits {
		if h.ThreadID == th.ID {
			same = append(same, h)
		} else {
			other = append(other, h)
		}
	}
	return same, other, inc, nil
}

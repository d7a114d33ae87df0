package core

import (
	"context"
	"errors"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/agentmem/agentmem/core/internal/indexing"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/analysis"
)

// Analyzer returns the text analyzer of semantic recall (SemanticRecall.Language):
// a direct vector.Store query matches the index's keywords when its Keywords
// are Analyzer().Analyze(text).
func (m *Memory) Analyzer() *analysis.Analyzer { return m.ix.Analyzer }

// contextTexts returns, for each message of msgs, the indexed text of the
// ix.Context messages before it in its thread: earlier messages of the batch
// (taken as contiguous) and, for the first ones, the turn's loaded history
// (prior) or stored messages read with one newest-first query per thread.
func (m *Memory) contextTexts(ctx context.Context, s *store.Checked, msgs []Message, prior *indexing.Prior) (map[string]string, error) {
	ix := m.ix
	if ix.Context == 0 || len(msgs) == 0 {
		return nil, nil
	}
	byThread := map[string][]Message{}
	for _, msg := range msgs {
		byThread[msg.ThreadID] = append(byThread[msg.ThreadID], msg)
	}
	out := make(map[string]string, len(msgs))
	for thread, list := range byThread {
		sort.SliceStable(list, func(i, j int) bool { return message.Less(&list[i], &list[j]) })
		before, ok := prior.Before(thread, ix.Context)
		if !ok {
			first := list[0]
			page, err := s.ListMessages(ctx, store.MessageQuery{ThreadID: thread, Direction: store.Desc, PerPage: ix.Context,
				Before: &store.Cursor{CreatedAt: first.CreatedAt, Seq: first.Seq}})
			if err != nil {
				return nil, err
			}
			before = slices.Clone(page.Messages)
			slices.Reverse(before)
		}
		ix.Contexts(before, list, out)
	}
	return out, nil
}

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
	if ensured, _ := m.indexes.Load(name); ensured == true {
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
// indexing.records), reusing the vectors e kept, then settles them with
// the messages' owners as stored when a delete or move may have run
// meanwhile (see settle). Vector ids are "<messageID>#<n>", so indexing
// again is idempotent.
func (m *Memory) indexMessages(ctx context.Context, s *store.Checked, st settings, msgs []Message, prior *indexing.Prior, e *indexing.Embedded) error {
	recs, name, err := m.records(ctx, s, st, msgs, prior, e)
	if err != nil || len(recs) == 0 {
		return err
	}
	upsert := m.opts.Vector.Upsert
	if bl, ok := m.opts.Vector.(vector.BulkLoader); ok && st.bulk {
		upsert = bl.UpsertBulk
	}
	if err := m.upsertVectors(ctx, upsert, name, recs); err != nil {
		return memerr.WrapVector("Upsert", "indexing failed", err)
	}
	if !m.owners.changedSince(st.ownerGen) {
		return nil
	}
	return m.settle(ctx, s, st, name, recs)
}

// records returns the records of msgs with their vectors (those e kept,
// else embedded and kept in e) and their ensured index.
func (m *Memory) records(ctx context.Context, s *store.Checked, st settings, msgs []Message, prior *indexing.Prior, e *indexing.Embedded) ([]vector.Record, string, error) {
	prev, err := m.contextTexts(ctx, s, msgs, prior)
	if err != nil {
		return nil, "", err
	}
	recs, texts := m.ix.Records(msgs, st.recall.MaxChunkChars, prev)
	if len(recs) == 0 {
		return nil, "", nil
	}
	vecs, dim, ok := e.Vectors(texts)
	if !ok {
		if vecs, dim, err = m.embed(ctx, texts); err != nil {
			return nil, "", err
		}
		e.Keep(texts, vecs, dim)
	}
	for i := range vecs {
		recs[i].Vector = vecs[i]
	}
	name, err := m.ensureIndex(ctx, st, dim)
	if err != nil {
		return nil, "", err
	}
	for i := range recs {
		if i == 0 || recs[i].Meta.ResourceID != recs[i-1].Meta.ResourceID {
			if err := m.checkDimension(ctx, name, recs[i].Meta.ResourceID); err != nil {
				return nil, "", err
			}
		}
	}
	return recs, name, nil
}

// index indexes msgs, logging failures, and reports whether it succeeded:
// storage is the source of truth. The ids of messages whose indexing fails
// are recorded in the store (MarkUnindexed), so that no process forgets
// them; after a success, the markers this process could not store before are
// written, and the caller retries the recorded messages of the resources
// (retryResources): the next successful write of any process, a restarted
// one included, repairs what an outage missed. A message refused on its own
// (indexApart) does not keep the others unindexed, and is not retried by
// later writes (m.failed). A save that embedded msgs first (saveIndexed)
// leaves e.
func (m *Memory) index(ctx context.Context, st settings, msgs []Message, prior *indexing.Prior, e *indexing.Embedded) bool {
	if len(msgs) == 0 {
		return false
	}
	s, err := m.checked()
	if err != nil {
		return false
	}
	failed, err := e.Left()
	left, indexed := msgs, false
	if failed {
		left, indexed, err = m.indexApart(ctx, s, st, msgs, prior, e)
	}
	if err != nil {
		m.log.WarnContext(ctx, "agentmem: indexing messages for semantic recall failed; they are retried on the next successful write (or run Reindex)",
			"err", err, "messages", len(left), "indexed", len(msgs)-len(left))
		m.markUnindexed(ctx, s, left)
		if indexed {
			m.failed.Add(messageIDs(left))
		}
		return indexed
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
	m.tel.Backlog(ctx, len(msgs))
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
// retryBatch) and clears their markers. The retry after a write (f nil)
// skips the messages that failed on their own before (m.failed); Reindex
// (f set) tries them too (see indexCleared).
func (m *Memory) retryUnindexed(ctx context.Context, s *store.Checked, st settings, resourceID string, f *IndexFailure) error {
	epoch := m.clean.Epoch()
	listed, err := s.ListUnindexed(ctx, resourceID, retryBatch)
	msgs := listed
	if f == nil {
		msgs = slices.DeleteFunc(slices.Clone(listed), func(msg Message) bool { return m.failed.Has(msg.ID) })
	}
	if err != nil || len(msgs) == 0 {
		m.clean.Drained(resourceID, epoch, err == nil && len(listed) < retryBatch)
		return err
	}
	left, err := m.indexCleared(ctx, s, st, msgs, f)
	m.clean.Drained(resourceID, epoch, err == nil && len(listed) < retryBatch && len(listed) == len(msgs) && left == 0)
	return err
}

// indexCleared indexes msgs apart (indexApart), clears the markers of those
// indexed and returns how many were not. Those that failed on their own go
// to m.failed. A failure of the whole batch is returned, except to Reindex
// (f set): there a vector failure of any message goes to f, and Reindex goes
// on with the next ones.
func (m *Memory) indexCleared(ctx context.Context, s *store.Checked, st settings, msgs []Message, f *IndexFailure) (int, error) {
	st.ownerGen = settleAlways // msgs were read from the store, maybe by another process's write
	left, indexed, err := m.indexApart(ctx, s, st, msgs, nil, nil)
	if err != nil && (f == nil && !indexed || !errors.Is(err, ErrVector) || ctx.Err() != nil) {
		return len(left), err
	}
	if len(left) > 0 {
		if indexed {
			m.failed.Add(messageIDs(left))
		}
		if f != nil {
			_ = f.Merge(&IndexFailure{MessageIDs: messageIDs(left), Err: err})
		}
	}
	done := slices.DeleteFunc(slices.Clone(msgs), func(msg Message) bool {
		return slices.ContainsFunc(left, func(l Message) bool { return l.ID == msg.ID })
	})
	m.failed.Remove(messageIDs(done))
	m.tel.Backlog(ctx, -len(done))
	return len(left), s.ClearUnindexed(ctx, messageIDs(done))
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
	// The index of the configured dimension (learning it may take the one
	// embedder probe), and those of other dimensions, may hold the vectors
	// though this process has not written them.
	if dim, err := m.dimension(ctx); err == nil {
		m.indexes.LoadOrStore(vector.IndexName(dim), false)
		if _, err := m.otherIndexes(ctx, vector.IndexName(dim)); err != nil {
			return err
		}
	}
	var firstErr error
	m.indexes.Range(func(name, _ any) bool {
		if err := m.opts.Vector.Delete(ctx, name.(string), f); err != nil && firstErr == nil {
			firstErr = &Error{Code: CodeVector, Op: "Delete", Msg: "deleting vectors failed", Err: err}
		}
		return true
	})
	return firstErr
}

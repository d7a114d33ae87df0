package recall

import (
	"context"
	"errors"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/agentmem/agentmem/core/internal/indexing"
	"github.com/agentmem/agentmem/core/internal/telemetry"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
)

// contextTexts returns, for each message of msgs, the indexed text of the
// Recipe.Context messages before it in its thread: earlier messages of the
// batch (taken as contiguous) and, for the first ones, the turn's loaded
// history (prior) or stored messages read with one newest-first query per
// thread.
func (e *Engine) contextTexts(ctx context.Context, s *store.Checked, msgs []message.Message, prior *indexing.Prior) (map[string]string, error) {
	ix := e.d.Recipe
	if ix.Context == 0 || len(msgs) == 0 {
		return nil, nil
	}
	byThread := map[string][]message.Message{}
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

// indexMessages embeds and upserts the records of msgs (see
// indexing.Recipe.Records), reusing the vectors em kept, then settles them
// with the messages' owners as stored when a delete or move may have run
// meanwhile (see settle). Vector ids are "<messageID>#<n>", so indexing
// again is idempotent.
func (e *Engine) indexMessages(ctx context.Context, s *store.Checked, w Write, msgs []message.Message, prior *indexing.Prior, em *indexing.Embedded) error {
	recs, name, err := e.records(ctx, s, w.Settings, msgs, prior, em)
	if err != nil || len(recs) == 0 {
		return err
	}
	upsert := e.d.Vector.Upsert
	if bl, ok := e.d.Vector.(vector.BulkLoader); ok && w.Bulk {
		upsert = bl.UpsertBulk
	}
	if err := e.upsertVectors(ctx, upsert, name, recs); err != nil {
		return memerr.WrapVector("Upsert", "indexing failed", err)
	}
	if !e.owners.changedSince(w.Gen) {
		return nil
	}
	return e.settle(ctx, s, w, name, recs)
}

// upsertVectors writes recs with upsert in a span of its own.
func (e *Engine) upsertVectors(ctx context.Context, upsert func(context.Context, string, []vector.Record) error, name string, recs []vector.Record) error {
	ctx, vs := e.d.Tel.Vector(ctx, "upsert", name, telemetry.AttrVectorRecords.Int(len(recs)))
	return vs.End(upsert(ctx, name, recs))
}

// records returns the records of msgs with their vectors (those em kept,
// else embedded and kept in em) and their ensured index.
func (e *Engine) records(ctx context.Context, s *store.Checked, rs *Settings, msgs []message.Message, prior *indexing.Prior, em *indexing.Embedded) ([]vector.Record, string, error) {
	prev, err := e.contextTexts(ctx, s, msgs, prior)
	if err != nil {
		return nil, "", err
	}
	recs, texts := e.d.Recipe.Records(msgs, rs.MaxChunkChars, prev)
	if len(recs) == 0 {
		return nil, "", nil
	}
	vecs, dim, ok := em.Vectors(texts)
	if !ok {
		if vecs, dim, err = e.embed(ctx, texts); err != nil {
			return nil, "", err
		}
		em.Keep(texts, vecs, dim)
	}
	for i := range vecs {
		recs[i].Vector = vecs[i]
	}
	name, err := e.ensureIndex(ctx, rs, dim)
	if err != nil {
		return nil, "", err
	}
	for i := range recs {
		if i == 0 || recs[i].Meta.ResourceID != recs[i-1].Meta.ResourceID {
			if err := e.checkDimension(ctx, name, recs[i].Meta.ResourceID); err != nil {
				return nil, "", err
			}
		}
	}
	return recs, name, nil
}

// Index indexes msgs, logging failures, and reports whether it succeeded:
// storage is the source of truth. The ids of messages whose indexing fails
// are recorded in the store (MarkUnindexed), so that no process forgets
// them; after a success, the markers this process could not store before are
// written, and the caller retries the recorded messages of the resources
// (Retry): the next successful write of any process, a restarted one
// included, repairs what an outage missed. A message refused on its own
// (indexApart) does not keep the others unindexed, and is not retried by
// later writes (e.failed). A save that embedded msgs first (SaveIndexed)
// leaves em.
func (e *Engine) Index(ctx context.Context, w Write, msgs []message.Message, prior *indexing.Prior, em *indexing.Embedded) bool {
	s := e.d.Store
	if len(msgs) == 0 || s == nil {
		return false
	}
	failed, err := em.Left()
	left, indexed := msgs, false
	if failed {
		left, indexed, err = e.indexApart(ctx, s, w, msgs, prior, em)
	}
	if err != nil {
		e.d.Log.WarnContext(ctx, "agentmem: indexing messages for semantic recall failed; they are retried on the next successful write (or run Reindex)",
			"err", err, "messages", len(left), "indexed", len(msgs)-len(left))
		e.markUnindexed(ctx, s, left)
		if indexed {
			e.failed.Add(messageIDs(left))
		}
		return indexed
	}
	e.markUnindexed(ctx, s, nil) // markers this process could not store before
	return true
}

// markTimeout bounds the write of markers, which runs even when the caller's
// context is done (a cancelled request must not lose the record).
const markTimeout = 10 * time.Second

// markUnindexed records msgs, and the markers the store refused earlier, as
// unindexed. When the store fails too, the markers are kept in this process
// (pending) and written with its next index call.
func (e *Engine) markUnindexed(ctx context.Context, s *store.Checked, msgs []message.Message) {
	failed := e.pending.Take()
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
	e.clean.Marked(failed)
	e.d.Tel.Backlog(ctx, len(msgs))
	mctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), markTimeout)
	defer cancel()
	if err := s.MarkUnindexed(mctx, ids); err != nil {
		e.pending.Add(failed)
		e.d.Log.ErrorContext(ctx, "agentmem: recording unindexed messages failed; this process keeps them and records them with its next write",
			"err", err, "messages", len(ids))
	}
}

// retryBatch bounds the recorded messages one retry indexes.
const retryBatch = 500

// Retry retries the recorded unindexed messages of the resources of msgs,
// logging failures; a resource found without markers a moment ago is
// skipped without a read.
func (e *Engine) Retry(ctx context.Context, w Write, msgs []message.Message) {
	s := e.d.Store
	if s == nil {
		return
	}
	var resources []string
	for _, msg := range msgs {
		if !slices.Contains(resources, msg.ResourceID) {
			resources = append(resources, msg.ResourceID)
		}
	}
	for _, res := range resources {
		if e.clean.IsClean(res, time.Now()) {
			continue // no marker can be there: skip the read
		}
		if err := e.retryUnindexed(ctx, s, w, res, nil); err != nil {
			e.d.Log.WarnContext(ctx, "agentmem: retrying unindexed messages failed; they stay recorded for the next write (or run Reindex)",
				"err", err, "resourceId", res)
		}
	}
}

// retryUnindexed indexes the oldest recorded messages of a resource (at most
// retryBatch) and clears their markers. The retry after a write (f nil)
// skips the messages that failed on their own before (e.failed); Reindex
// (f set) tries them too (see indexCleared).
func (e *Engine) retryUnindexed(ctx context.Context, s *store.Checked, w Write, resourceID string, f *Refused) error {
	epoch := e.clean.Epoch()
	listed, err := s.ListUnindexed(ctx, resourceID, retryBatch)
	msgs := listed
	if f == nil {
		msgs = slices.DeleteFunc(slices.Clone(listed), func(msg message.Message) bool { return e.failed.Has(msg.ID) })
	}
	if err != nil || len(msgs) == 0 {
		e.clean.Drained(resourceID, epoch, err == nil && len(listed) < retryBatch)
		return err
	}
	left, err := e.indexCleared(ctx, s, w, msgs, f)
	e.clean.Drained(resourceID, epoch, err == nil && len(listed) < retryBatch && len(listed) == len(msgs) && left == 0)
	return err
}

// indexCleared indexes msgs apart (indexApart), clears the markers of those
// indexed and returns how many were not. Those that failed on their own go
// to e.failed. A failure of the whole batch is returned, except to Reindex
// (f set): there a vector failure of any message goes to f, and Reindex goes
// on with the next ones.
func (e *Engine) indexCleared(ctx context.Context, s *store.Checked, w Write, msgs []message.Message, f *Refused) (int, error) {
	w.Gen = settleAlways // msgs were read from the store, maybe by another process's write
	left, indexed, err := e.indexApart(ctx, s, w, msgs, nil, nil)
	if err != nil && (f == nil && !indexed || !errors.Is(err, memerr.ErrVector) || ctx.Err() != nil) {
		return len(left), err
	}
	if len(left) > 0 {
		if indexed {
			e.failed.Add(messageIDs(left))
		}
		if f != nil {
			f.add(messageIDs(left), err)
		}
	}
	done := slices.DeleteFunc(slices.Clone(msgs), func(msg message.Message) bool {
		return slices.ContainsFunc(left, func(l message.Message) bool { return l.ID == msg.ID })
	})
	e.failed.Remove(messageIDs(done))
	e.d.Tel.Backlog(ctx, -len(done))
	return len(left), s.ClearUnindexed(ctx, messageIDs(done))
}

// Unindexed counts the messages of a resource ("" = every resource) that
// wait for an indexing retry: those recorded in s, plus those this process
// could not record.
func (e *Engine) Unindexed(ctx context.Context, s *store.Checked, resourceID string) (int, error) {
	msgs, err := s.ListUnindexed(ctx, resourceID, math.MaxInt32)
	if err != nil {
		return 0, err
	}
	seen := make(map[string]bool, len(msgs))
	for _, msg := range msgs {
		seen[msg.ID] = true
	}
	return len(msgs) + e.pending.Count(resourceID, seen), nil
}

// Unindex deletes the vectors of msgs, logging failures.
func (e *Engine) Unindex(ctx context.Context, msgs []message.Message) {
	byResource := map[string][]string{}
	for _, msg := range msgs {
		byResource[msg.ResourceID] = append(byResource[msg.ResourceID], msg.ID)
	}
	for res, ids := range byResource {
		if err := e.DeleteVectors(ctx, vector.Filter{ResourceID: res, MessageIDs: ids}); err != nil {
			e.d.Log.WarnContext(ctx, "agentmem: deleting vectors failed", "err", err)
		}
	}
}

// DeleteThreadVectors deletes the records of a thread under each of
// resources (its owner, or the owners it had before a move).
func (e *Engine) DeleteThreadVectors(ctx context.Context, threadID string, resources ...string) error {
	for _, res := range resources {
		if err := e.DeleteVectors(ctx, vector.Filter{ResourceID: res, ThreadID: threadID}); err != nil {
			return err
		}
	}
	return nil
}

// DeleteVectors deletes the records f selects from every index that may
// hold them; without a vector store it does nothing.
func (e *Engine) DeleteVectors(ctx context.Context, f vector.Filter) error {
	if e.d.Vector == nil {
		return nil
	}
	// The index of the configured dimension (learning it may take the one
	// embedder probe), and those of other dimensions, may hold the vectors
	// though this process has not written them.
	if dim, err := e.dimension(ctx); err == nil {
		e.indexes.LoadOrStore(vector.IndexName(dim), false)
		if _, err := e.otherIndexes(ctx, vector.IndexName(dim)); err != nil {
			return err
		}
	}
	var firstErr error
	e.indexes.Range(func(name, _ any) bool {
		if err := e.d.Vector.Delete(ctx, name.(string), f); err != nil && firstErr == nil {
			firstErr = &memerr.Error{Code: memerr.CodeVector, Op: "Delete", Msg: "deleting vectors failed", Err: err}
		}
		return true
	})
	return firstErr
}

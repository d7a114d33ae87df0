package core

import (
	"context"
	"time"

	"github.com/agentmem/agentmem/core/internal/indexing"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
)

// Bounds of a joint save (saveIndexed): the embedding it waits for before
// saving, and the batches it takes (larger ones, such as imports, are saved
// first and indexed after).
const (
	jointEmbedTimeout = 10 * time.Second
	jointMaxMessages  = 100
)

// saveIndexed saves batch with save, or, when the message and vector stores
// write to one database as one role (store.JointSaver and
// vector.StatementWriter with equal Database values), embeds batch first
// and writes the messages and their vectors in one transaction sent in one
// round trip: no unindexed marker is written or read. When embedding fails
// or outlasts jointEmbedTimeout (within ctx), or the joint write fails
// (writing nothing: a refused message, a refused vector, a batch the store
// does not save so), save runs, and the returned *indexing.Embedded tells
// the index effect what is left.
func (m *Memory) saveIndexed(ctx context.Context, s *store.Checked, st settings, batch []Message, prior *indexing.Prior,
	save func() ([]Message, error)) ([]Message, *indexing.Embedded, error) {
	w, ok := m.opts.Vector.(vector.StatementWriter)
	if !ok || st.recall == nil || len(batch) > jointMaxMessages || w.Database() == nil || w.Database() != s.Database() {
		saved, err := save()
		return saved, nil, err
	}
	e := &indexing.Embedded{}
	ectx, cancel := context.WithTimeout(ctx, jointEmbedTimeout)
	recs, name, err := m.records(ectx, s, st, batch, prior, e)
	cancel()
	if e.Err = err; err == nil && len(recs) > 0 {
		stmts, err := w.UpsertStatements(ctx, name, recs)
		if err == nil {
			var saved []Message
			if saved, err = s.SaveMessagesWith(ctx, batch, stmts); err == nil {
				return saved, &indexing.Embedded{Done: true}, nil
			}
		}
		m.log.DebugContext(ctx, "agentmem: writing messages with their vectors failed; saving them first", "err", err)
	}
	saved, err := save()
	return saved, e, err
}

package recall

import (
	"context"
	"time"

	"github.com/agentmem/agentmem/core/internal/indexing"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
)

// Bounds of a joint save (SaveIndexed): the embedding it waits for before
// saving, and the batches it takes (larger ones, such as imports, are saved
// first and indexed after).
const (
	jointEmbedTimeout = 10 * time.Second
	jointMaxMessages  = 100
)

// SaveIndexed saves batch with save, or, when the message and vector stores
// write to one database as one role (store.JointSaver and
// vector.StatementWriter with equal Database values), embeds batch first
// and writes the messages and their vectors in one transaction sent in one
// round trip: no unindexed marker is written or read. When embedding fails
// or outlasts jointEmbedTimeout (within ctx), or the joint write fails
// (writing nothing: a refused message, a refused vector, a batch the store
// does not save so), save runs, and the returned *indexing.Embedded tells
// Index what is left. rs nil (recall off) always saves with save.
func (e *Engine) SaveIndexed(ctx context.Context, s *store.Checked, rs *Settings, batch []message.Message, prior *indexing.Prior,
	save func() ([]message.Message, error)) ([]message.Message, *indexing.Embedded, error) {
	w, ok := e.d.Vector.(vector.StatementWriter)
	if !ok || rs == nil || len(batch) > jointMaxMessages || w.Database() == nil || w.Database() != s.Database() {
		saved, err := save()
		return saved, nil, err
	}
	em := &indexing.Embedded{}
	ectx, cancel := context.WithTimeout(ctx, jointEmbedTimeout)
	recs, name, err := e.records(ectx, s, rs, batch, prior, em)
	cancel()
	if em.Err = err; err == nil && len(recs) > 0 {
		stmts, err := w.UpsertStatements(ctx, name, recs)
		if err == nil {
			var saved []message.Message
			if saved, err = s.SaveMessagesWith(ctx, batch, stmts); err == nil {
				return saved, &indexing.Embedded{Done: true}, nil
			}
		}
		e.d.Log.DebugContext(ctx, "agentmem: writing messages with their vectors failed; saving them first", "err", err)
	}
	saved, err := save()
	return saved, em, err
}

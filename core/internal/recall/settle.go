package recall

import (
	"context"
	"maps"
	"slices"
	"sync/atomic"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
)

// owners counts the operations of this process that delete messages or
// give them another owner (DeleteThread, MoveThread, DeleteMessages,
// UpdateMessages of a thread): gen changes when one starts and when it
// ends, active counts those running. An indexer that took gen before it
// saved or read its messages, and sees neither a change nor one running
// after its upsert, raced with none of them, and need not read the owners
// back (see settle): the steady-state save costs no extra store read.
type owners struct{ gen, active atomic.Int64 }

// settleAlways is the generation of an indexer whose messages were read
// from the store, where another process's write may have changed them.
const settleAlways = -1

// OwnerChange marks the start of an operation that deletes messages or
// gives them another owner; the function it returns marks its end.
func (e *Engine) OwnerChange() (end func()) {
	c := &e.owners
	c.active.Add(1)
	c.gen.Add(1)
	return func() {
		c.gen.Add(1)
		c.active.Add(-1)
	}
}

// Generation returns the owner-change generation to put in Write.Gen.
func (e *Engine) Generation() int64 { return e.owners.gen.Load() }

// changedSince reports whether an owner change ran, or runs, after gen was
// taken (active first: one ending between the loads has changed gen).
func (c *owners) changedSince(gen int64) bool {
	return gen == settleAlways || c.active.Load() > 0 || c.gen.Load() != gen
}

// settle deletes the records just upserted (recs, in index name) whose
// message is gone from the store or now has another resource or thread,
// and indexes the moved ones under their owner. The messages were read
// before they were embedded: a DeleteThread, MoveThread or DeleteMessages
// that ran meanwhile deleted their vectors before the upsert wrote them
// back under the old owner. Read after the upsert, the store shows such a
// change, or the change comes later and its own vector delete removes the
// records.
func (e *Engine) settle(ctx context.Context, s *store.Checked, w Write, name string, recs []vector.Record) error {
	indexed := make(map[string]vector.Meta, len(recs))
	for _, r := range recs {
		indexed[r.Meta.MessageID] = r.Meta
	}
	ids := slices.Sorted(maps.Keys(indexed))
	now, err := s.GetMessages(ctx, ids)
	if err != nil {
		return err
	}
	current := make(map[string]message.Message, len(now))
	for _, msg := range now {
		current[msg.ID] = msg
	}
	stale := map[string][]string{} // resource -> ids of its records to delete
	var moved []message.Message
	for _, id := range ids {
		was, cur := indexed[id], current[id]
		if cur.ID != "" && cur.ResourceID == was.ResourceID && cur.ThreadID == was.ThreadID {
			continue
		}
		stale[was.ResourceID] = append(stale[was.ResourceID], id)
		if cur.ID != "" {
			moved = append(moved, cur)
		}
	}
	for res, ids := range stale {
		if err := e.d.Vector.Delete(ctx, name, vector.Filter{ResourceID: res, MessageIDs: ids}); err != nil {
			return memerr.WrapVector("Delete", "deleting the vectors of moved or deleted messages failed", err)
		}
	}
	if len(moved) == 0 {
		return nil
	}
	// Each round needs another move to run during the last one: this ends.
	return e.indexMessages(ctx, s, w, moved, nil, nil)
}

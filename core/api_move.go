package core

import (
	"context"
	"errors"
	"slices"

	"github.com/agentmem/agentmem/core/internal/observe"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
)

// MoveThread moves a thread to another resource (Mastra's
// updateThreadResourceId): a guest's threads become the signed-in user's.
// The thread and all of its messages are reassigned in one atomic store
// write (store.ThreadMover); the thread keeps its CreatedAt, title, metadata
// and trim boundary, and its thread-scoped working memory and observations
// go with it. A thread that already belongs to resourceID is returned as it
// is, unless an earlier move of it is unfinished (see below).
//
// Resource-scoped working memory and observations are not merged: the old
// resource keeps its own and the new resource keeps its own, as in Mastra,
// whose transfer changes only the thread and its messages. Copy what should
// follow the thread with GetWorkingMemory and UpdateWorkingMemory. The new
// resource's observation record lists the moved messages it would count as
// observed by time as unobserved (see moveObserved), so they reach its
// prompts and its next observation: a move loses nothing.
//
// Semantic-recall vectors move with the thread: they are deleted under the
// old resource before the store write and re-indexed under the new one
// after it, so they are never found under both resources. Before anything
// moves, the old owner is recorded in the thread's metadata under "move"
// ("agentmem.move": {"fromResourceIds": [...]}) and every message is marked unindexed in the
// store (IndexQueue), so a failure or a crash half-way loses nothing:
// calling MoveThread again with the same arguments finishes the move, and
// the next successful write of the thread's owner re-indexes the marked
// messages. The move record is removed once the old records are gone;
// a Memory without a vector store leaves it for a later call with one.
// When only the vector steps fail, the moved thread is returned together
// with the error.
func (m *Memory) MoveThread(ctx context.Context, threadID, resourceID string) (_ store.Thread, err error) {
	const op = "MoveThread"
	ctx, sp := m.spans.startOp(ctx, op, threadID, resourceID, "")
	defer func() { err = sp.End(err) }()
	s, err := m.entry.openThread(ctx, op, threadID)
	if err != nil {
		return store.Thread{}, err
	}
	if err := memerr.WithOp(op, store.ValidateID("resourceId", resourceID)); err != nil {
		return store.Thread{}, err
	}
	if !s.CanMoveThreads() {
		return store.Thread{}, memerr.Errorf(memerr.CodeUnsupported, op, "the store does not implement store.ThreadMover")
	}
	th, err := s.GetThread(ctx, threadID)
	if errors.Is(err, memerr.ErrThreadNotFound) {
		return store.Thread{}, memerr.Errorf(memerr.CodeThreadNotFound, op, "Thread %q not found", threadID)
	} else if err != nil {
		return store.Thread{}, err
	}
	defer m.rec.OwnerChange()()
	from, olds := th.ResourceID, PendingMoveSources(th)
	if from != resourceID && !slices.Contains(olds, from) {
		// The old owner is recorded before anything moves, so that whoever
		// finishes the move (a re-run, or a call with the vector store)
		// knows where the thread's records are.
		olds = append(olds, from)
		if th, err = s.UpdateThread(ctx, threadID, nil, map[string]any{moveKey: map[string]any{"fromResourceIds": olds}}); err != nil {
			return store.Thread{}, err
		}
		moveStep(ctx, "recorded")
	}
	if from == resourceID && (len(olds) == 0 || m.opts.Vector == nil) {
		return th, nil // nothing to move and nothing left to repair
	}
	// The records under resourceID are the thread's own (a thread moved
	// back before an earlier move finished). olds is cloned first: the
	// move record written above holds its array, which a store may keep.
	olds = slices.DeleteFunc(slices.Clone(olds), func(r string) bool { return r == resourceID })
	if m.opts.Vector != nil && from != resourceID {
		if err := s.MarkThreadUnindexed(ctx, threadID); err != nil {
			return store.Thread{}, err
		}
		moveStep(ctx, "marked")
		if err := m.rec.DeleteThreadVectors(ctx, threadID, olds...); err != nil {
			return store.Thread{}, err
		}
		moveStep(ctx, "old-vectors-deleted")
	}
	moved, err := m.msgs.moveObserved(ctx, s, threadID, from, resourceID)
	if err != nil {
		return store.Thread{}, err
	}
	moveStep(ctx, "moved")
	if m.opts.Vector == nil {
		return moved, nil
	}
	if err := m.Reindex(ctx, threadID); err != nil {
		return moved, err
	}
	moveStep(ctx, "reindexed")
	// Again: a write or an index retry of an old resource that indexed the
	// thread's messages while the move ran left records there.
	if err := m.rec.DeleteThreadVectors(ctx, threadID, olds...); err != nil {
		return moved, err
	}
	return s.UpdateThread(ctx, threadID, nil, moveDone(moved.Metadata))
}

// moveKey is the thread metadata key of the move record: the resources a
// thread was moved from while their vector records may still exist. It is
// namespaced like Mastra's own thread metadata ("mastra"), so the record
// never overwrites or deletes a key of the application.
const moveKey = "agentmem.move"

// legacyMoveKey is where earlier versions kept the move record. A value
// there counts as an unfinished move (finished and removed like one) only
// when it has exactly that record's shape, {"fromResourceIds": [ids...]};
// anything else is the application's.
const legacyMoveKey = "move"

// PendingMoveSources returns the resources that an unfinished MoveThread
// moved th from (their vector records of th may still exist): those of its
// move record, and of an earlier version's record under "move". It is empty
// when no move of th waits to be finished; calling MoveThread with th's
// resource and a vector store finishes one.
func PendingMoveSources(th store.Thread) []string {
	rec, _ := th.Metadata[moveKey].(map[string]any)
	out, _ := resourceIDs(rec["fromResourceIds"])
	legacy, _ := legacyMove(th.Metadata)
	for _, id := range legacy {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// legacyMove returns the resources of an earlier version's move record, and
// whether meta holds one.
func legacyMove(meta map[string]any) ([]string, bool) {
	rec, ok := meta[legacyMoveKey].(map[string]any)
	if !ok || len(rec) != 1 {
		return nil, false
	}
	ids, exact := resourceIDs(rec["fromResourceIds"])
	return ids, exact && len(ids) > 0
}

// resourceIDs returns the valid resource ids of a stored id list, and
// whether every element was one.
func resourceIDs(v any) ([]string, bool) {
	var raw []any
	switch ids := v.(type) {
	case []any:
		raw = ids
	case []string:
		for _, id := range ids {
			raw = append(raw, id)
		}
	default:
		return nil, false
	}
	var out []string
	for _, v := range raw {
		if id, ok := v.(string); ok && store.ValidateID("resourceId", id) == nil {
			out = append(out, id)
		}
	}
	return out, len(out) == len(raw)
}

// moveDone is the metadata patch that removes the move records of meta.
func moveDone(meta map[string]any) map[string]any {
	patch := map[string]any{moveKey: nil}
	if _, ok := legacyMove(meta); ok {
		patch[legacyMoveKey] = nil
	}
	return patch
}

// moveObserved moves the thread in the store. Before, it lists the
// thread's messages that the new resource's observation record would count
// as observed by time (older than its cursor; see store.ObservationRecord)
// as unobserved in that record: it never saw them, and what the old
// resource observed of them stays with the old resource. The new
// resource's next observation picks them up, and its turns show them until
// then. The messages
// are not the new resource's before the store move, so its observer cannot
// have observed them when a resumed move lists them again; this process's
// observation cycles of the record wait until the thread has moved.
func (ms *messages) moveObserved(ctx context.Context, s *store.Checked, threadID, from, resourceID string) (store.Thread, error) {
	if from == resourceID {
		return s.MoveThread(ctx, threadID, resourceID)
	}
	key := store.ObservationKey(store.ScopeResource, threadID, resourceID)
	unlock, err := ms.observer.Lock(ctx, key)
	if err != nil {
		return store.Thread{}, err
	}
	defer unlock()
	if err := keepUnobserved(ctx, s, "MoveThread", threadID, key); err != nil {
		return store.Thread{}, err
	}
	moveStep(ctx, "unobserved-recorded")
	return s.MoveThread(ctx, threadID, resourceID)
}

// keepUnobserved lists the thread's messages that key's record would
// count as observed by time as unobserved in it (observe.KeepUnobserved).
func keepUnobserved(ctx context.Context, s *store.Checked, op, threadID, key string) error {
	if _, _, obs, _ := s.Capabilities(); !obs {
		return nil // a store without observations has no record to keep them in
	}
	return observe.KeepUnobserved(ctx, s, op, threadID, key)
}

// moveStepKey is the context key of a function called after each durable
// step of MoveThread; tests use it to stop a process between steps.
type moveStepKey struct{}

func moveStep(ctx context.Context, step string) {
	if f, ok := ctx.Value(moveStepKey{}).(func(string)); ok {
		f(step)
	}
}

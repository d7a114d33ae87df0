package thread

import (
	"context"
	"errors"
	"slices"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
)

// Moved is a thread moved to another resource in the store. When Reindex
// is set, its vectors are left: the caller reindexes the thread under its
// new resource, then calls Finish. End ends the owner change the move
// began; the caller calls it once it is done.
type Moved struct {
	Thread  store.Thread // as moved, or as it was when nothing had to move
	Reindex bool         // the thread's vectors are to be rebuilt, then Finish called
	k       *Keeper
	olds    []string // the resources whose vector records of the thread may still exist
	end     func()
}

// End ends the owner change of the move.
func (mv *Moved) End() { mv.end() }

// Move moves a thread to resourceID in one atomic store write
// (store.ThreadMover), or finishes an earlier move of it. Before anything
// moves, the old owner is recorded in the thread's metadata under moveKey
// and, with a vector store, every message is marked unindexed and the old
// resources' vectors deleted; the new resource's observation record lists
// the messages it would count as observed by time as unobserved (see
// moveObserved). A thread already at resourceID with no move to finish is
// returned as it is. The caller checks the arguments and that the store
// moves threads.
func (k *Keeper) Move(ctx context.Context, threadID, resourceID string) (_ *Moved, err error) {
	const op = "MoveThread"
	s := k.d.Store
	th, err := s.GetThread(ctx, threadID)
	if errors.Is(err, memerr.ErrThreadNotFound) {
		return nil, memerr.Errorf(memerr.CodeThreadNotFound, op, "Thread %q not found", threadID)
	} else if err != nil {
		return nil, err
	}
	mv := &Moved{k: k, end: k.d.Index.OwnerChange()}
	defer func() {
		if err != nil {
			mv.end()
		}
	}()
	from, olds := th.ResourceID, PendingMoveSources(th)
	if from != resourceID && !slices.Contains(olds, from) {
		// The old owner is recorded before anything moves, so that whoever
		// finishes the move (a re-run, or a call with the vector store)
		// knows where the thread's records are.
		olds = append(olds, from)
		if th, err = s.UpdateThread(ctx, threadID, nil, map[string]any{moveKey: map[string]any{"fromResourceIds": olds}}); err != nil {
			return nil, err
		}
		moveStep(ctx, "recorded")
	}
	if from == resourceID && (len(olds) == 0 || !k.d.Vectors) {
		mv.Thread = th
		return mv, nil // nothing to move and nothing left to repair
	}
	// The records under resourceID are the thread's own (a thread moved
	// back before an earlier move finished). olds is cloned first: the
	// move record written above holds its array, which a store may keep.
	mv.olds = slices.DeleteFunc(slices.Clone(olds), func(r string) bool { return r == resourceID })
	if k.d.Vectors && from != resourceID {
		if err := s.MarkThreadUnindexed(ctx, threadID); err != nil {
			return nil, err
		}
		moveStep(ctx, "marked")
		if err := k.d.Index.DeleteThreadVectors(ctx, threadID, mv.olds...); err != nil {
			return nil, err
		}
		moveStep(ctx, "old-vectors-deleted")
	}
	if mv.Thread, err = k.moveObserved(ctx, threadID, from, resourceID); err != nil {
		return nil, err
	}
	moveStep(ctx, "moved")
	mv.Reindex = k.d.Vectors
	return mv, nil
}

// Finish ends a move whose thread was reindexed under its new resource:
// the old resources' vector records are deleted again (a write or an index
// retry of an old resource may have indexed the thread's messages while
// the move ran), then the move record is removed. It returns the thread.
func (mv *Moved) Finish(ctx context.Context) (store.Thread, error) {
	moveStep(ctx, "reindexed")
	if err := mv.k.d.Index.DeleteThreadVectors(ctx, mv.Thread.ID, mv.olds...); err != nil {
		return mv.Thread, err
	}
	return mv.k.d.Store.UpdateThread(ctx, mv.Thread.ID, nil, moveDone(mv.Thread.Metadata))
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

// PendingMoveSources returns the resources that an unfinished move moved
// th from (their vector records of th may still exist): those of its move
// record, and of an earlier version's record under "move".
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
// then. The messages are not the new resource's before the store move, so
// its observer cannot have observed them when a resumed move lists them
// again; this process's observation cycles of the record wait until the
// thread has moved.
func (k *Keeper) moveObserved(ctx context.Context, threadID, from, resourceID string) (store.Thread, error) {
	s := k.d.Store
	if from == resourceID {
		return s.MoveThread(ctx, threadID, resourceID)
	}
	key := store.ObservationKey(store.ScopeResource, threadID, resourceID)
	unlock, err := k.d.Observer.Lock(ctx, key)
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

// moveStepKey is the context key of a function called after each durable
// step of a move (WithMoveSteps).
type moveStepKey struct{}

// WithMoveSteps returns ctx with f, which a move calls after each of its
// durable steps, by name; tests use it to stop a process between steps.
func WithMoveSteps(ctx context.Context, f func(step string)) context.Context {
	return context.WithValue(ctx, moveStepKey{}, f)
}

func moveStep(ctx context.Context, step string) {
	if f, ok := ctx.Value(moveStepKey{}).(func(string)); ok {
		f(step)
	}
}

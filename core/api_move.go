package core

import (
	"context"
	"errors"
	"slices"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
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
// follow the thread with GetWorkingMemory and UpdateWorkingMemory.
//
// Semantic-recall vectors move with the thread: they are deleted under the
// old resource before the store write and re-indexed under the new one
// after it, so they are never found under both resources. Before anything
// moves, the old owner is recorded in the thread's metadata under "move"
// ({"fromResourceIds": [...]}) and every message is marked unindexed in the
// store (IndexQueue), so a failure or a crash half-way loses nothing:
// calling MoveThread again with the same arguments finishes the move, and
// the next successful write of the thread's owner re-indexes the marked
// messages. The "move" record is removed once the old records are gone;
// a Memory without a vector store leaves it for a later call with one.
// When only the vector steps fail, the moved thread is returned together
// with the error.
func (m *Memory) MoveThread(ctx context.Context, threadID, resourceID string) (Thread, error) {
	const op = "MoveThread"
	s, err := m.openThread(ctx, op, threadID)
	if err != nil {
		return Thread{}, err
	}
	if err := memerr.WithOp(op, store.ValidateID("resourceId", resourceID)); err != nil {
		return Thread{}, err
	}
	if !s.CanMoveThreads() {
		return Thread{}, memerr.Errorf(CodeUnsupported, op, "the store does not implement store.ThreadMover")
	}
	th, err := s.GetThread(ctx, threadID)
	if errors.Is(err, ErrThreadNotFound) {
		return Thread{}, memerr.Errorf(CodeThreadNotFound, op, "Thread %q not found", threadID)
	} else if err != nil {
		return Thread{}, err
	}
	defer m.owners.begin()()
	from, olds := th.ResourceID, pendingMoves(th)
	if from != resourceID && !slices.Contains(olds, from) {
		// The old owner is recorded before anything moves, so that whoever
		// finishes the move (a re-run, or a call with the vector store)
		// knows where the thread's records are.
		olds = append(olds, from)
		if th, err = s.UpdateThread(ctx, threadID, nil, map[string]any{moveKey: map[string]any{"fromResourceIds": olds}}); err != nil {
			return Thread{}, err
		}
		moveStep(ctx, "recorded")
	}
	if from == resourceID && (len(olds) == 0 || m.opts.Vector == nil) {
		return th, nil // nothing to move and nothing left to repair
	}
	if m.opts.Vector != nil && from != resourceID {
		if err := s.MarkThreadUnindexed(ctx, threadID); err != nil {
			return Thread{}, err
		}
		moveStep(ctx, "marked")
		if err := m.deleteOld(ctx, threadID, olds); err != nil {
			return Thread{}, err
		}
		moveStep(ctx, "old-vectors-deleted")
	}
	moved, err := s.MoveThread(ctx, threadID, resourceID)
	if err != nil {
		return Thread{}, err
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
	if err := m.deleteOld(ctx, threadID, olds); err != nil {
		return moved, err
	}
	return s.UpdateThread(ctx, threadID, nil, map[string]any{moveKey: nil})
}

// moveKey is the thread metadata key that records the resources a thread
// was moved from while their vector records may still exist.
const moveKey = "move"

// pendingMoves returns the resources recorded under metadata["move"].
func pendingMoves(th Thread) []string {
	rec, _ := th.Metadata[moveKey].(map[string]any)
	var out []string
	switch ids := rec["fromResourceIds"].(type) {
	case []any:
		for _, v := range ids {
			if id, ok := v.(string); ok && store.ValidateID("resourceId", id) == nil {
				out = append(out, id)
			}
		}
	case []string:
		for _, id := range ids {
			if store.ValidateID("resourceId", id) == nil {
				out = append(out, id)
			}
		}
	}
	return out
}

// deleteOld deletes the thread's vector records under each old resource.
func (m *Memory) deleteOld(ctx context.Context, threadID string, olds []string) error {
	for _, res := range olds {
		if err := m.deleteVectors(ctx, vector.Filter{ResourceID: res, ThreadID: threadID}); err != nil {
			return err
		}
	}
	return nil
}

// moveStepKey is the context key of a function called after each durable
// step of MoveThread; tests use it to stop a process between steps.
type moveStepKey struct{}

func moveStep(ctx context.Context, step string) {
	if f, ok := ctx.Value(moveStepKey{}).(func(string)); ok {
		f(step)
	}
}

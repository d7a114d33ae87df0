package core

import (
	"context"

	"github.com/agentmem/agentmem/core/internal/thread"
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
// observed by time (older than its cursor) as unobserved, so they reach its
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
	mv, err := m.threads.Move(ctx, threadID, resourceID)
	if err != nil {
		return store.Thread{}, err
	}
	defer mv.End()
	if !mv.Reindex {
		return mv.Thread, nil
	}
	if err := m.Reindex(ctx, threadID); err != nil {
		return mv.Thread, err
	}
	return mv.Finish(ctx)
}

// PendingMoveSources returns the resources that an unfinished MoveThread
// moved th from (their vector records of th may still exist): those of its
// move record, and of an earlier version's record under "move". It is empty
// when no move of th waits to be finished; calling MoveThread with th's
// resource and a vector store finishes one.
func PendingMoveSources(th store.Thread) []string {
	return thread.PendingMoveSources(th)
}

package core

import (
	"context"
	"errors"

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
// is (after its vectors are repaired, see below).
//
// Resource-scoped working memory and observations are not merged: the old
// resource keeps its own and the new resource keeps its own, as in Mastra,
// whose transfer changes only the thread and its messages. Copy what should
// follow the thread with GetWorkingMemory and UpdateWorkingMemory.
//
// Semantic-recall vectors move with the thread: they are deleted under the
// old resource before the store write and re-indexed under the new one
// after it, so they are never found under both resources. Every message is
// first marked unindexed in the store (IndexQueue), so a failure or a crash
// half-way loses nothing: calling MoveThread again with the same arguments
// (or Reindex, or the next successful write of the new resource) finishes
// the re-indexing. When only that last step fails, the moved thread is
// returned together with the error. An index retry of the old resource
// that is still running when the move ends can leave records of the thread
// under the old resource; recall never returns them, because it loads the
// messages of hits by resource.
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
	from := th.ResourceID
	if from != resourceID && m.opts.Vector != nil {
		if err := m.markThreadUnindexed(ctx, s, threadID); err != nil {
			return Thread{}, err
		}
		moveStep(ctx, "marked")
		if err := m.deleteVectors(ctx, vector.Filter{ResourceID: from, ThreadID: threadID}); err != nil {
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
	if from != resourceID {
		// A write or an index retry of the old resource that indexed the
		// thread's messages while the move ran left records there.
		if err := m.deleteVectors(ctx, vector.Filter{ResourceID: from, ThreadID: threadID}); err != nil {
			return moved, err
		}
	}
	return moved, nil
}

// markBatch is how many message ids one MarkUnindexed call of a move carries.
const markBatch = 500

// markThreadUnindexed marks every message of a thread unindexed, newest
// first, a page at a time.
func (m *Memory) markThreadUnindexed(ctx context.Context, s *store.Checked, threadID string) error {
	q := store.MessageQuery{ThreadID: threadID, PerPage: markBatch, Direction: store.Desc}
	for {
		page, err := s.ListMessages(ctx, q)
		if err != nil {
			return err
		}
		ids := make([]string, len(page.Messages))
		for i := range page.Messages {
			ids[i] = page.Messages[i].ID
		}
		if err := s.MarkUnindexed(ctx, ids); err != nil {
			return err
		}
		if !page.HasMore {
			return nil
		}
		last := page.Messages[len(page.Messages)-1]
		q.Before = &store.Cursor{CreatedAt: last.CreatedAt, Seq: last.Seq}
	}
}

// moveStepKey is the context key of a function called after each durable
// step of MoveThread; tests use it to stop a process between steps.
type moveStepKey struct{}

func moveStep(ctx context.Context, step string) {
	if f, ok := ctx.Value(moveStepKey{}).(func(string)); ok {
		f(step)
	}
}

package store

import "context"

// ThreadMover is the optional capability to move a thread to another
// resource (Mastra's updateThreadResourceId): a guest's threads become the
// signed-in user's.
type ThreadMover interface {
	// MoveThread reassigns the thread and every message of it to resourceID
	// in one atomic write: the thread keeps its CreatedAt, Boundary, title,
	// metadata and thread-scoped working memory and observations (they are
	// keyed by the thread), and its UpdatedAt is bumped. In the same write
	// every message of the thread is marked unindexed (IndexQueue), so that a
	// process that dies before re-indexing leaves them for the next retry
	// under the new resource. A thread already owned by resourceID is
	// returned unchanged and nothing is written. A missing thread is
	// ErrThreadNotFound. Resource-scoped working memory and observations stay
	// with their resource.
	MoveThread(ctx context.Context, threadID, resourceID string) (Thread, error)
}

// MoveThread implements ThreadMover; without the driver capability it
// returns memerr.ErrUnsupported.
func (c *Checked) MoveThread(ctx context.Context, threadID, resourceID string) (Thread, error) {
	const op = "MoveThread"
	mover, ok := c.raw.(ThreadMover)
	return run(ctx, op, func() (Thread, error) { return mover.MoveThread(ctx, threadID, resourceID) },
		missing(ok, "ThreadMover"), checkIDs(op, "threadId", threadID, "resourceId", resourceID))
}

// CanMoveThreads reports whether the driver has the ThreadMover capability.
func (c *Checked) CanMoveThreads() bool {
	_, ok := c.raw.(ThreadMover)
	return ok
}

var _ ThreadMover = (*Checked)(nil)

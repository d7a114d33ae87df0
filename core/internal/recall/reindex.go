package recall

import (
	"context"
	"errors"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
)

// ReindexResource rebuilds the vectors of every thread of a resource from
// s: it moves a resource indexed under another dimension into the
// embedder's index (migrateDimension), retries the resource's recorded
// unindexed messages, then reindexes each thread; records of another index
// version are deleted and the resource rebuilt. Messages refused on their
// own come back as *Refused, after the others are indexed.
func (e *Engine) ReindexResource(ctx context.Context, s *store.Checked, w Write, resourceID string) error {
	if err := e.migrateDimension(ctx, s, resourceID); err != nil {
		return err
	}
	err := e.reindexResource(ctx, s, w, resourceID)
	if errors.Is(err, memerr.ErrIndexVersionMismatch) {
		if err := e.DeleteVectors(ctx, vector.Filter{ResourceID: resourceID}); err != nil {
			return err
		}
		err = e.reindexResource(ctx, s, w, resourceID)
	}
	return err
}

func (e *Engine) reindexResource(ctx context.Context, s *store.Checked, w Write, resourceID string) error {
	var f Refused
	if err := e.retryUnindexed(ctx, s, w, resourceID, &f); err != nil {
		return err
	}
	page, err := s.ListThreads(ctx, store.ThreadQuery{ResourceID: resourceID, PerPage: store.PerPageAll})
	if err != nil {
		return err
	}
	for _, th := range page.Threads {
		if err := e.reindexThread(ctx, s, w, th.ID, &f); err != nil {
			return err
		}
	}
	return f.result()
}

// ReindexThread retries the recorded unindexed messages of th's resource,
// then indexes every message of th. An ErrIndexVersionMismatch or
// ErrEmbeddingDimensionMismatch is the resource's: the caller rebuilds the
// whole resource (ReindexResource).
func (e *Engine) ReindexThread(ctx context.Context, s *store.Checked, w Write, th store.Thread) error {
	var f Refused
	err := e.retryUnindexed(ctx, s, w, th.ResourceID, &f)
	if err == nil {
		err = e.reindexThread(ctx, s, w, th.ID, &f)
	}
	if err != nil {
		return err
	}
	return f.result()
}

// reindexThread indexes every message of a thread, newest first, a page at a
// time, clearing the markers of the messages indexed; those refused on their
// own go to f (see indexCleared).
func (e *Engine) reindexThread(ctx context.Context, s *store.Checked, w Write, threadID string, f *Refused) error {
	q := store.MessageQuery{ThreadID: threadID, PerPage: 200, Direction: store.Desc}
	for {
		page, err := s.ListMessages(ctx, q)
		if err != nil {
			return err
		}
		if _, err := e.indexCleared(ctx, s, w, page.Messages, f); err != nil {
			return err
		}
		if !page.HasMore {
			return nil
		}
		last := page.Messages[len(page.Messages)-1]
		q.Before = &store.Cursor{CreatedAt: last.CreatedAt, Seq: last.Seq}
	}
}

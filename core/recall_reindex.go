package core

import (
	"context"
	"errors"

	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
)

// ReindexResource rebuilds the semantic-recall vectors of every thread of a
// resource from storage: it retries the resource's recorded unindexed
// messages first, then reindexes each thread (see Reindex). When the
// resource's records were written with another index version (another
// analyzer or IndexText, ErrIndexVersionMismatch), it first deletes them all,
// so the rebuilt records are never mixed with stale ones. When they are in
// the index of another embedding dimension (the embedder changed,
// ErrEmbeddingDimensionMismatch), it first records the resource's messages as
// unindexed and deletes those records: the reindex moves the resource into
// the index of the configured embedder.
func (m *Memory) ReindexResource(ctx context.Context, resourceID string) (err error) {
	ctx, sp := m.startOp(ctx, "ReindexResource", "", resourceID, "")
	defer func() { err = sp.End(err) }()
	if err := store.ValidateID("resourceId", resourceID); err != nil {
		return err
	}
	s, err := m.open(ctx, "ReindexResource")
	if err != nil {
		return err
	}
	st, err := m.settings(nil)
	if err != nil {
		return err
	}
	if st.recall == nil {
		return nil
	}
	if err := m.migrateDimension(ctx, s, resourceID); err != nil {
		return err
	}
	err = m.reindexResource(ctx, s, st, resourceID)
	if errors.Is(err, ErrIndexVersionMismatch) {
		if err := m.deleteVectors(ctx, vector.Filter{ResourceID: resourceID}); err != nil {
			return err
		}
		err = m.reindexResource(ctx, s, st, resourceID)
	}
	return err
}

func (m *Memory) reindexResource(ctx context.Context, s *store.Checked, st settings, resourceID string) error {
	var f IndexFailure
	if err := m.retryUnindexed(ctx, s, st, resourceID, &f); err != nil {
		return err
	}
	page, err := s.ListThreads(ctx, store.ThreadQuery{ResourceID: resourceID, PerPage: store.PerPageAll})
	if err != nil {
		return err
	}
	for _, th := range page.Threads {
		if err := m.reindexThread(ctx, s, st, th.ID, &f); err != nil {
			return err
		}
	}
	return f.Result()
}

// Reindex rebuilds the semantic-recall vectors of one thread from storage.
// It first retries the recorded unindexed messages of the thread's resource
// (see index), and clears the markers of every message it indexes. When the
// resource's records have another index version (ErrIndexVersionMismatch),
// it rebuilds the whole resource (see ReindexResource).
func (m *Memory) Reindex(ctx context.Context, threadID string) (err error) {
	ctx, sp := m.startOp(ctx, "Reindex", threadID, "", "")
	defer func() { err = sp.End(err) }()
	s, err := m.openThread(ctx, "Reindex", threadID)
	if err != nil {
		return err
	}
	st, err := m.settings(nil)
	if err != nil {
		return err
	}
	if st.recall == nil {
		return nil
	}
	th, err := s.GetThread(ctx, threadID)
	if errors.Is(err, ErrThreadNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	var f IndexFailure
	err = m.retryUnindexed(ctx, s, st, th.ResourceID, &f)
	if err == nil {
		err = m.reindexThread(ctx, s, st, threadID, &f)
	}
	if errors.Is(err, ErrIndexVersionMismatch) || errors.Is(err, ErrEmbeddingDimensionMismatch) {
		// The version and the dimension are the resource's: rebuild all of it.
		return m.ReindexResource(ctx, th.ResourceID)
	}
	if err != nil {
		return err
	}
	return f.Result()
}

// reindexThread indexes every message of a thread, newest first, a page at a
// time, clearing the markers of the messages indexed; those refused on their
// own go to f (see indexCleared).
func (m *Memory) reindexThread(ctx context.Context, s *store.Checked, st settings, threadID string, f *IndexFailure) error {
	q := store.MessageQuery{ThreadID: threadID, PerPage: 200, Direction: store.Desc}
	for {
		page, err := s.ListMessages(ctx, q)
		if err != nil {
			return err
		}
		if _, err := m.indexCleared(ctx, s, st, page.Messages, f); err != nil {
			return err
		}
		if !page.HasMore {
			return nil
		}
		last := page.Messages[len(page.Messages)-1]
		q.Before = &store.Cursor{CreatedAt: last.CreatedAt, Seq: last.Seq}
	}
}

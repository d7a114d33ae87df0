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
// so the rebuilt records are never mixed with stale ones.
func (m *Memory) ReindexResource(ctx context.Context, resourceID string) error {
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
	if err := m.retryUnindexed(ctx, s, st, resourceID); err != nil {
		return err
	}
	page, err := s.ListThreads(ctx, store.ThreadQuery{ResourceID: resourceID, PerPage: store.PerPageAll})
	if err != nil {
		return err
	}
	for _, th := range page.Threads {
		if err := m.reindexThread(ctx, s, st, th.ID); err != nil {
			return err
		}
	}
	return nil
}

package memstore

import (
	"context"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
)

var _ store.ThreadMover = (*Store)(nil)

// MoveThread implements store.ThreadMover under the store's one lock.
func (s *Store) MoveThread(ctx context.Context, threadID, resourceID string) (store.Thread, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	row, ok := s.threads[threadID]
	if !ok {
		return store.Thread{}, memerr.Errorf(memerr.CodeThreadNotFound, "MoveThread", "Thread %s not found", threadID)
	}
	if row.ResourceID == resourceID {
		return row.Thread.Clone(), nil
	}
	row.ResourceID = resourceID
	if at := now(); at.After(row.UpdatedAt) {
		row.UpdatedAt = at
	}
	for _, m := range s.byThread[threadID] {
		m.ResourceID = resourceID
		s.unindexed[m.ID] = true
	}
	return row.Thread.Clone(), nil
}

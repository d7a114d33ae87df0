package memstore

import (
	"context"
	"slices"

	"github.com/agentmem/agentmem/core"
)

// MarkUnindexed implements core.Store.
func (s *Store) MarkUnindexed(ctx context.Context, ids []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		if _, ok := s.messages[id]; ok {
			s.unindexed[id] = true
		}
	}
	return nil
}

// ClearUnindexed implements core.Store.
func (s *Store) ClearUnindexed(ctx context.Context, ids []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		delete(s.unindexed, id)
	}
	return nil
}

// ListUnindexed implements core.Store.
func (s *Store) ListUnindexed(ctx context.Context, resourceID string, limit int) ([]core.Message, error) {
	if err := core.ValidateUnindexedQuery(resourceID, limit); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var all []*core.Message
	for id := range s.unindexed {
		if m := s.messages[id]; m != nil && (resourceID == "" || m.ResourceID == resourceID) {
			all = append(all, m)
		}
	}
	slices.SortFunc(all, func(a, b *core.Message) int {
		switch {
		case core.Less(a, b):
			return -1
		case core.Less(b, a):
			return 1
		}
		return 0
	})
	out := make([]core.Message, 0, min(len(all), limit))
	for _, m := range all[:min(len(all), limit)] {
		out = append(out, m.Clone())
	}
	return out, nil
}

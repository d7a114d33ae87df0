package memstore

import (
	"context"
	"slices"

	"github.com/agentmem/agentmem/core/message"
)

// MarkUnindexed implements store.Store.
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

// ClearUnindexed implements store.Store.
func (s *Store) ClearUnindexed(ctx context.Context, ids []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		delete(s.unindexed, id)
	}
	return nil
}

// ListUnindexed implements store.Store.
func (s *Store) ListUnindexed(ctx context.Context, resourceID string, limit int) ([]message.Message, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var all []*message.Message
	for id := range s.unindexed {
		if m := s.messages[id]; m != nil && (resourceID == "" || m.ResourceID == resourceID) {
			all = append(all, m)
		}
	}
	slices.SortFunc(all, func(a, b *message.Message) int {
		switch {
		case message.Less(a, b):
			return -1
		case message.Less(b, a):
			return 1
		}
		return 0
	})
	out := make([]message.Message, 0, min(len(all), limit))
	for _, m := range all[:min(len(all), limit)] {
		out = append(out, m.Clone())
	}
	return out, nil
}

package memstore

import (
	"context"
	"slices"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// obsRow is the active observation record of a key and its archived generations.
type obsRow struct {
	cur  store.ObservationRecord
	gens []store.ObservationRecord
}

// ListResourceMessages implements store.Store.
func (s *Store) ListResourceMessages(ctx context.Context, q store.ResourceMessageQuery) ([]message.Message, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	excluded := idSet(q.ExcludeIDs)
	var all []*message.Message
	for id, row := range s.threads {
		if row.ResourceID != q.ResourceID {
			continue
		}
		for _, m := range s.byThread[id] {
			if m.ResourceID == q.ResourceID && (q.Since.IsZero() || !m.CreatedAt.Before(q.Since)) &&
				(q.Until.IsZero() || m.CreatedAt.Before(q.Until)) && !excluded[m.ID] {
				all = append(all, m)
			}
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
	if q.Direction == store.Desc {
		slices.Reverse(all)
	}
	out := make([]message.Message, 0, min(len(all), q.Limit))
	for _, m := range all[:min(len(all), q.Limit)] {
		out = append(out, m.Clone())
	}
	return out, nil
}

// GetObservations implements store.Store.
func (s *Store) GetObservations(ctx context.Context, key string) (store.ObservationRecord, error) {
	if _, _, err := store.ParseObservationKey(key); err != nil {
		return store.ObservationRecord{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if row, ok := s.obs[key]; ok {
		return row.cur.Clone(), nil
	}
	return store.ObservationRecord{Key: key}, nil
}

// PutObservations implements store.Store.
func (s *Store) PutObservations(ctx context.Context, rec store.ObservationRecord, expect int64) (store.ObservationRecord, error) {
	const op = "PutObservations"
	scope, id, err := store.ParseObservationKey(rec.Key)
	if err != nil {
		return store.ObservationRecord{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.threads[id]; scope == store.ScopeThread && !ok {
		return store.ObservationRecord{}, memerr.Errorf(memerr.CodeThreadNotFound, op, "Thread %s not found", id)
	}
	row := s.obs[rec.Key]
	if row == nil {
		row = &obsRow{cur: store.ObservationRecord{Key: rec.Key}}
	}
	if row.cur.Version != expect {
		return store.ObservationRecord{}, memerr.Errorf(memerr.CodeConflict, op, "observations of %s are at version %d, not %d", rec.Key, row.cur.Version, expect)
	}
	archive, err := store.CheckObservationWrite(row.cur, rec)
	if err != nil {
		return store.ObservationRecord{}, err
	}
	if archive {
		row.gens = append(row.gens, row.cur.Clone())
	}
	rec = rec.Clone()
	rec.LastObservedAt = rec.LastObservedAt.UTC()
	rec.Version, rec.UpdatedAt = expect+1, now()
	row.cur = rec
	s.obs[rec.Key] = row
	if scope == store.ScopeResource {
		s.resource(id) // listed by ListResources, as on the SQL stores
	}
	return rec.Clone(), nil
}

// ListObservationGenerations implements store.Store.
func (s *Store) ListObservationGenerations(ctx context.Context, key string) ([]store.ObservationRecord, error) {
	if _, _, err := store.ParseObservationKey(key); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []store.ObservationRecord
	if row, ok := s.obs[key]; ok {
		for _, g := range row.gens {
			out = append(out, g.Clone())
		}
	}
	return out, nil
}

// ClearObservations implements store.Store.
func (s *Store) ClearObservations(ctx context.Context, key string) (store.ObservationRecord, error) {
	scope, id, err := store.ParseObservationKey(key)
	if err != nil {
		return store.ObservationRecord{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.threads[id]; scope == store.ScopeThread && !ok {
		return store.ObservationRecord{}, memerr.Errorf(memerr.CodeThreadNotFound, "ClearObservations", "Thread %s not found", id)
	}
	row := s.obs[key]
	if row == nil {
		return store.ObservationRecord{Key: key}, nil
	}
	row.cur = store.ObservationRecord{Key: key, Version: row.cur.Version + 1, UpdatedAt: now()}
	row.gens = nil
	return row.cur.Clone(), nil
}

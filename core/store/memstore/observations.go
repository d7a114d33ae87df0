package memstore

import (
	"context"
	"slices"

	"github.com/agentmem/agentmem/core"
)

// obsRow is the active observation record of a key and its archived generations.
type obsRow struct {
	cur  core.ObservationRecord
	gens []core.ObservationRecord
}

// ListResourceMessages implements core.Store.
func (s *Store) ListResourceMessages(ctx context.Context, q core.ResourceMessageQuery) ([]core.Message, error) {
	if err := core.ValidateResourceMessageQuery(q); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var all []*core.Message
	for id, row := range s.threads {
		if row.ResourceID != q.ResourceID {
			continue
		}
		for _, m := range s.byThread[id] {
			if m.ResourceID == q.ResourceID && (q.Since.IsZero() || !m.CreatedAt.Before(q.Since)) {
				all = append(all, m)
			}
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
	if q.Direction == core.Desc {
		slices.Reverse(all)
	}
	out := make([]core.Message, 0, min(len(all), q.Limit))
	for _, m := range all[:min(len(all), q.Limit)] {
		out = append(out, m.Clone())
	}
	return out, nil
}

// GetObservations implements core.Store.
func (s *Store) GetObservations(ctx context.Context, key string) (core.ObservationRecord, error) {
	if _, _, err := core.ParseObservationKey(key); err != nil {
		return core.ObservationRecord{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if row, ok := s.obs[key]; ok {
		return row.cur.Clone(), nil
	}
	return core.ObservationRecord{Key: key}, nil
}

// PutObservations implements core.Store.
func (s *Store) PutObservations(ctx context.Context, rec core.ObservationRecord, expect int64) (core.ObservationRecord, error) {
	const op = "PutObservations"
	scope, id, err := core.ParseObservationKey(rec.Key)
	if err != nil {
		return core.ObservationRecord{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.threads[id]; scope == core.ScopeThread && !ok {
		return core.ObservationRecord{}, core.Errorf(core.CodeThreadNotFound, op, "Thread %s not found", id)
	}
	row := s.obs[rec.Key]
	if row == nil {
		row = &obsRow{cur: core.ObservationRecord{Key: rec.Key}}
	}
	if row.cur.Version != expect {
		return core.ObservationRecord{}, core.Errorf(core.CodeConflict, op, "observations of %s are at version %d, not %d", rec.Key, row.cur.Version, expect)
	}
	archive, err := core.CheckObservationWrite(row.cur, rec)
	if err != nil {
		return core.ObservationRecord{}, err
	}
	if archive {
		row.gens = append(row.gens, row.cur.Clone())
	}
	rec = rec.Clone()
	rec.LastObservedAt = rec.LastObservedAt.UTC()
	rec.Version, rec.UpdatedAt = expect+1, now()
	row.cur = rec
	s.obs[rec.Key] = row
	return rec.Clone(), nil
}

// ListObservationGenerations implements core.Store.
func (s *Store) ListObservationGenerations(ctx context.Context, key string) ([]core.ObservationRecord, error) {
	if _, _, err := core.ParseObservationKey(key); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []core.ObservationRecord
	if row, ok := s.obs[key]; ok {
		for _, g := range row.gens {
			out = append(out, g.Clone())
		}
	}
	return out, nil
}

package core

import (
	"context"

	"github.com/agentmem/agentmem/core/internal/observe"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
)

// ObserveNow observes every unobserved message of the thread's record (thread
// or resource scope per the merged config) now, whatever their tokens, then
// reflects when the observations pass Reflection.ObservationTokens. It waits
// for a cycle of the record running in this process (bounded by ctx) and
// returns the stored record. Unlike the cycle after Commit, its failures are
// returned: a failed batch leaves its messages unobserved.
func (m *Memory) ObserveNow(ctx context.Context, threadID, resourceID string, cfg *Config) (rec store.ObservationRecord, err error) {
	ctx, sp := m.startOp(ctx, "ObserveNow", threadID, resourceID, "")
	defer func() { err = endObservation(sp, rec, err) }()
	return m.observeCall(ctx, "ObserveNow", threadID, resourceID, cfg, func(s *store.Checked, o *observationSettings, th Thread, key string) (store.ObservationRecord, error) {
		if o.buffer != nil { // buffered chunks first: their messages are not observed again
			if err := m.observer.Flush(ctx, m.observeEnv(ctx, s, o, th, key, pending{}), o.buffer); err != nil {
				return store.ObservationRecord{}, err
			}
		}
		rec, err := m.observeBatches(ctx, s, o, th, key, true, 0)
		if err != nil {
			return rec, err
		}
		if err := m.reflectObservations(ctx, s, o, key, rec, false); err != nil {
			return rec, err
		}
		return s.GetObservations(ctx, key)
	})
}

// ReflectNow condenses the record's observations into a new generation now,
// whatever their tokens (the previous generation is archived by the store),
// and returns the stored record; a record without observations is returned
// unchanged.
func (m *Memory) ReflectNow(ctx context.Context, threadID, resourceID string, cfg *Config) (rec store.ObservationRecord, err error) {
	ctx, sp := m.startOp(ctx, "ReflectNow", threadID, resourceID, "")
	defer func() { err = endObservation(sp, rec, err) }()
	return m.observeCall(ctx, "ReflectNow", threadID, resourceID, cfg, func(s *store.Checked, o *observationSettings, _ Thread, key string) (store.ObservationRecord, error) {
		rec, err := s.GetObservations(ctx, key)
		if err != nil {
			return rec, err
		}
		if err := m.reflectObservations(ctx, s, o, key, rec, true); err != nil {
			return rec, err
		}
		return s.GetObservations(ctx, key)
	})
}

// ClearObservations resets the thread's record (thread or resource scope per
// the merged config), as Mastra's clear: its observations, cursor and
// archived generations go, so the stored messages are unobserved again and
// are observed anew once they pass the threshold. The continuation hints
// stored on the thread (on every thread of the resource in resource scope)
// go too. It waits for a cycle of the record running in this process and
// returns the cleared record.
func (m *Memory) ClearObservations(ctx context.Context, threadID, resourceID string, cfg *Config) (_ store.ObservationRecord, err error) {
	ctx, sp := m.startOp(ctx, "ClearObservations", threadID, resourceID, "")
	defer func() { err = sp.End(err) }()
	return m.observeCall(ctx, "ClearObservations", threadID, resourceID, cfg, func(s *store.Checked, o *observationSettings, th Thread, key string) (store.ObservationRecord, error) {
		rec, err := s.ClearObservations(ctx, key)
		if err != nil {
			return rec, err
		}
		return rec, m.clearHints(ctx, s, o.scope, th)
	})
}

// clearHints deletes the continuation hints of th, or of every thread of
// its resource in resource scope, so that stale ones do not come back with
// the next observations.
func (m *Memory) clearHints(ctx context.Context, s *store.Checked, scope Scope, th Thread) error {
	threads := []Thread{th}
	if scope == ScopeResource {
		page, err := s.ListThreads(ctx, store.ThreadQuery{ResourceID: th.ResourceID, PerPage: store.PerPageAll})
		if err != nil {
			return err
		}
		threads = page.Threads
	}
	for _, t := range threads {
		if _, ok := t.Metadata[observe.HintsKey]; !ok {
			continue
		}
		if _, err := s.UpdateThread(ctx, t.ID, nil, map[string]any{observe.HintsKey: nil}); err != nil {
			return err
		}
	}
	return nil
}

// observeCall validates a caller's observational-memory call, takes the
// record's lock (waiting) and runs f.
func (m *Memory) observeCall(ctx context.Context, op, threadID, resourceID string, cfg *Config,
	f func(s *store.Checked, o *observationSettings, th Thread, key string) (store.ObservationRecord, error)) (store.ObservationRecord, error) {
	s, err := m.open(ctx, op)
	if err != nil {
		return store.ObservationRecord{}, err
	}
	if err := store.ValidateID("threadId", threadID); err != nil {
		return store.ObservationRecord{}, memerr.WithOp(op, err)
	}
	if err := store.ValidateID("resourceId", resourceID); err != nil {
		return store.ObservationRecord{}, memerr.WithOp(op, err)
	}
	st, err := m.settings(cfg)
	if err != nil {
		return store.ObservationRecord{}, err
	}
	o := st.observation
	if o == nil {
		return store.ObservationRecord{}, memerr.Errorf(memerr.CodeInvalidConfig, op, "observational memory is not enabled")
	}
	th, err := s.OwnedThread(ctx, op, threadID, resourceID)
	if err != nil {
		return store.ObservationRecord{}, err
	}
	key := store.ObservationKey(o.scope, th.ID, th.ResourceID)
	unlock, err := m.observer.Lock(ctx, key, true)
	if err != nil {
		return store.ObservationRecord{}, err
	}
	defer unlock()
	return f(s, o, th, key)
}

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
	ctx, sp := m.spans.startOp(ctx, "ObserveNow", threadID, resourceID, "")
	defer func() { err = endObservation(sp, rec, err) }()
	o, th, err := m.observedThread(ctx, "ObserveNow", threadID, resourceID, cfg)
	if err != nil {
		return store.ObservationRecord{}, err
	}
	return m.observer.ObserveNow(ctx, o, th)
}

// ReflectNow condenses the record's observations into a new generation now,
// whatever their tokens (the previous generation is archived by the store),
// and returns the stored record; a record without observations is returned
// unchanged.
func (m *Memory) ReflectNow(ctx context.Context, threadID, resourceID string, cfg *Config) (rec store.ObservationRecord, err error) {
	ctx, sp := m.spans.startOp(ctx, "ReflectNow", threadID, resourceID, "")
	defer func() { err = endObservation(sp, rec, err) }()
	o, th, err := m.observedThread(ctx, "ReflectNow", threadID, resourceID, cfg)
	if err != nil {
		return store.ObservationRecord{}, err
	}
	return m.observer.ReflectNow(ctx, o, th)
}

// ClearObservations resets the thread's record (thread or resource scope per
// the merged config), as Mastra's clear: its observations, cursor and
// archived generations go, so the stored messages are unobserved again and
// are observed anew once they pass the threshold. The continuation hints
// stored on the thread (on every thread of the resource in resource scope)
// go too. It waits for a cycle of the record running in this process and
// returns the cleared record.
func (m *Memory) ClearObservations(ctx context.Context, threadID, resourceID string, cfg *Config) (_ store.ObservationRecord, err error) {
	ctx, sp := m.spans.startOp(ctx, "ClearObservations", threadID, resourceID, "")
	defer func() { err = sp.End(err) }()
	o, th, err := m.observedThread(ctx, "ClearObservations", threadID, resourceID, cfg)
	if err != nil {
		return store.ObservationRecord{}, err
	}
	return m.observer.Clear(ctx, o, th)
}

// observedThread validates a caller's observational-memory call and
// returns its settings and thread.
func (m *Memory) observedThread(ctx context.Context, op, threadID, resourceID string, cfg *Config) (*observe.Settings, store.Thread, error) {
	s, err := m.entry.open(ctx, op)
	if err != nil {
		return nil, store.Thread{}, err
	}
	if err := store.ValidateID("threadId", threadID); err != nil {
		return nil, store.Thread{}, memerr.WithOp(op, err)
	}
	if err := store.ValidateID("resourceId", resourceID); err != nil {
		return nil, store.Thread{}, memerr.WithOp(op, err)
	}
	st, err := m.conf.settings(cfg)
	if err != nil {
		return nil, store.Thread{}, err
	}
	if st.observation == nil {
		return nil, store.Thread{}, memerr.Errorf(memerr.CodeInvalidConfig, op, "observational memory is not enabled")
	}
	th, err := s.OwnedThread(ctx, op, threadID, resourceID)
	return st.observation, th, err
}

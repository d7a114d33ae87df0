package core

import (
	"context"
	"time"

	"github.com/agentmem/agentmem/core/internal/observe"
	"github.com/agentmem/agentmem/core/store"
)

// observeEnv wires a record's buffered observation (observe.BufferedCycle)
// to this memory's store, models and background jobs. Continuation hints
// are saved when a buffered call answers (buffering is thread scope only).
// The cycle's sums start from what p knows (see observationCycle).
func (m *Memory) observeEnv(ctx context.Context, s *store.Checked, o *observationSettings, th Thread, key string, p pending) *observe.Env {
	gen := func(ctx context.Context, model Model, instr, def, prompt string) (string, error) {
		reply, err := m.generateObservations(ctx, o, model, instr, def, prompt)
		text, hints := observe.SplitHints(reply)
		m.saveHints(ctx, s, o, th.ID, hints)
		return text, err
	}
	return &observe.Env{
		Key: key, Store: s, Counter: m.tk, Timeout: o.timeout, MaxBatchTokens: o.maxTokensPerBatch, InFlight: p.inFlight,
		Background: context.WithoutCancel(ctx), WG: &m.bg, Log: m.log,
		Unobserved: func(ctx context.Context, rec store.ObservationRecord) ([]Message, error) {
			return m.unobserved(ctx, s, o, th, rec, store.Asc)
		},
		Tally: func(ctx context.Context, rec store.ObservationRecord) ([]Message, error) {
			if p.known != nil {
				return observe.Remaining(rec, p.known), nil
			}
			return m.tallyUnobserved(ctx, s, o, th, rec)
		},
		ObservedBefore: func(ctx context.Context, rec store.ObservationRecord, cutoff time.Time) (map[string]time.Time, error) {
			return m.observedBefore(ctx, s, o, th, rec, cutoff)
		},
		Observe: func(ctx context.Context, rec store.ObservationRecord, batch []Message) (string, error) {
			return gen(ctx, o.observer, o.observerInstructions, observe.ObserverInstructions, observe.ObserverPrompt(rec, batch, false))
		},
		Reflect: func(ctx context.Context, rec store.ObservationRecord) (string, error) {
			return gen(ctx, o.reflector, o.reflectorInstructions, observe.ReflectorInstructions, observe.ReflectorPrompt(rec))
		},
		ObserveDue: func(ctx context.Context) (store.ObservationRecord, error) {
			return m.observeBatches(ctx, s, o, th, key, false, p.inFlight)
		},
		ObserveSync: func(ctx context.Context) (store.ObservationRecord, error) {
			return m.observeBatches(ctx, s, o, th, key, true, 0)
		},
		ReflectSync: func(ctx context.Context, rec store.ObservationRecord) error {
			return m.reflectObservations(ctx, s, o, key, rec, false)
		},
		StartActivation: func(ctx context.Context) (context.Context, func(store.ObservationRecord, int, error) error) {
			return m.startActivation(ctx, th)
		},
	}
}

// tallyUnobserved returns the thread's unobserved messages newest first
// (up to the cap), decoding only those without a stored count of the
// tokenizer's encoding: a buffered cycle after Commit sums their tokens,
// and the observer's reads decode what they send.
func (m *Memory) tallyUnobserved(ctx context.Context, s *store.Checked, o *observationSettings, th Thread, rec store.ObservationRecord) ([]Message, error) {
	q := store.MessageQuery{ThreadID: th.ID, ResourceID: th.ResourceID, Direction: store.Desc, PerPage: o.maxUnobserved, ExcludeIDs: rec.ObservedMessageIDs}
	if since := rec.ObservedSince(); !since.IsZero() {
		q.Range.Start = &since
	}
	page, err := s.ListWindow(ctx, q, store.WindowFit{Encoding: m.tk.Encoding()})
	if err != nil {
		return nil, err
	}
	raw, err := m.withMovedIn(ctx, s, o, th, rec, page.Messages, store.Desc)
	if err != nil {
		return nil, err
	}
	out := raw[:0]
	for _, msg := range raw {
		if msg.Role != RoleSystem {
			m.ensureTokens(&msg)
			out = append(out, msg)
		}
	}
	return out, nil
}

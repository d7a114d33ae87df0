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
func (m *Memory) observeEnv(ctx context.Context, s *store.Checked, o *observationSettings, th Thread, key string) *observe.Env {
	gen := func(ctx context.Context, model Model, instr, def, prompt string) (string, error) {
		reply, err := m.generateObservations(ctx, o, model, instr, def, prompt)
		text, hints := observe.SplitHints(reply)
		m.saveHints(ctx, s, o, th.ID, hints)
		return text, err
	}
	return &observe.Env{
		Key: key, Store: s, Counter: m.tk, Timeout: o.timeout, MaxBatchTokens: o.maxTokensPerBatch,
		Background: context.WithoutCancel(ctx), WG: &m.bg, Log: m.log,
		Unobserved: func(ctx context.Context, rec store.ObservationRecord) ([]Message, map[string]time.Time, error) {
			return m.unobserved(ctx, s, o, th, rec, store.Asc)
		},
		Observe: func(ctx context.Context, rec store.ObservationRecord, batch []Message) (string, error) {
			return gen(ctx, o.observer, o.observerInstructions, observe.ObserverInstructions, observe.ObserverPrompt(rec, batch, false))
		},
		Reflect: func(ctx context.Context, rec store.ObservationRecord) (string, error) {
			return gen(ctx, o.reflector, o.reflectorInstructions, observe.ReflectorInstructions, observe.ReflectorPrompt(rec))
		},
		ObserveDue: func(ctx context.Context) (store.ObservationRecord, error) {
			return m.observeBatches(ctx, s, o, th, key, false)
		},
		ObserveSync: func(ctx context.Context) (store.ObservationRecord, error) {
			return m.observeBatches(ctx, s, o, th, key, true)
		},
		ReflectSync: func(ctx context.Context, rec store.ObservationRecord) error {
			return m.reflectObservations(ctx, s, o, key, rec, false)
		},
	}
}

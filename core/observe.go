package core

import (
	"context"
	"github.com/agentmem/agentmem/core/message"
	"slices"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
)

// Observational memory is core/internal/observe's Observer: Memory builds
// one over its store and holds it; turns ask it for the observations to
// show (observedHistory) and run its cycle after a save (saveEffects,
// Turn.observeStep); the calls below validate and delegate.

// knownUnobserved is what the turn knows to be unobserved after saving
// saved: Begin's unobserved messages, those its steps stored and the saved
// ones, each once (the newest copy of a message saved again); nil when
// Begin did not read them all. Messages other writers saved meanwhile are
// missing: they count from the next cycle on.
func (t *Turn) knownUnobserved(saved []message.Message) []message.Message {
	if t.unobserved == nil {
		return nil
	}
	all := slices.Concat(t.unobserved, t.saves.stored, saved)
	last := make(map[string]int, len(all))
	for i := range all {
		last[all[i].ID] = i
	}
	out := make([]message.Message, 0, len(all))
	for i, msg := range all {
		if msg.Role != message.RoleSystem && last[msg.ID] == i {
			out = append(out, msg)
		}
	}
	return out
}

// ObservationErr reports the failure of this turn's observation or
// reflection, which ran synchronously in Commit or at a Step (the turn went
// on; the messages are observed later); nil when it worked, was not needed,
// runs in the background or observational memory is off.
func (t *Turn) ObservationErr() error {
	if t == nil {
		return nil
	}
	return t.obsErr
}

// Observations returns the observational-memory record that a turn of the
// thread would use (thread or resource scope per the merged config). In
// thread scope the thread must exist and belong to resourceID.
func (m *Memory) Observations(ctx context.Context, threadID, resourceID string, cfg *Config) (store.ObservationRecord, error) {
	s, err := m.entry.open(ctx, "Observations")
	if err != nil {
		return store.ObservationRecord{}, err
	}
	if err := store.ValidateID("threadId", threadID); err != nil {
		return store.ObservationRecord{}, err
	}
	if err := store.ValidateID("resourceId", resourceID); err != nil {
		return store.ObservationRecord{}, err
	}
	st, err := m.conf.settings(cfg)
	if err != nil {
		return store.ObservationRecord{}, err
	}
	if st.observation == nil {
		return store.ObservationRecord{}, memerr.Errorf(memerr.CodeInvalidConfig, "Observations", "observational memory is not enabled")
	}
	if st.observation.Scope == store.ScopeThread {
		if _, err := s.OwnedThread(ctx, "Observations", threadID, resourceID); err != nil {
			return store.ObservationRecord{}, err
		}
	}
	return s.GetObservations(ctx, store.ObservationKey(st.observation.Scope, threadID, resourceID))
}

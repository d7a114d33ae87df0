package core

import (
	"context"
	"github.com/agentmem/agentmem/core/message"

	"github.com/agentmem/agentmem/core/internal/observe"
)

// observeStep runs observational memory at a step of the agent loop, as
// after a Commit: the turn's messages its steps stored are unobserved
// messages like any other; those a failed save left unstored count towards
// the thresholds without being observable yet. Buffered chunks are
// activated, buffering starts and, past the threshold (BlockAfter when
// buffered), the stored unobserved messages are observed within the loop.
// When the record moved on, the prompt shows its observations and loses the
// remembered messages they cover. A failure is logged and kept for
// ObservationErr; the prompt shows what was stored.
func (t *Turn) observeStep(ctx context.Context, produced []message.Message) {
	o, m := t.st.observation, t.m
	if o == nil || t.obs == nil || t.st.readOnly {
		return
	}
	inFlight := 0
	if !t.saves.input {
		for i := range t.persist {
			inFlight += t.stepTokens(&t.persist[i])
		}
	}
	for i := range produced {
		if i >= len(t.saves.loop) || !t.saves.loop[i].saved {
			inFlight += t.stepTokens(&produced[i])
		}
	}
	if err := m.observer.AfterSave(ctx, o, t.thread, observe.Pending{Known: t.knownUnobserved(nil), InFlight: inFlight}); err != nil {
		t.obsErr = err // what was stored before the failure is still shown
	}
	s, err := m.entry.checked()
	if err != nil {
		return
	}
	rec, err := s.GetObservations(ctx, o.Key(t.thread))
	if err != nil {
		t.obsErr = err
		m.log.WarnContext(ctx, "agentmem: reading observations at a step failed; the step keeps the turn's prompt", "err", err)
		return
	}
	if rec.Version != t.obs.Version {
		t.prompt = t.obs.Reshow(t.prompt, rec, len(t.req.System), m.hist.systemMessage)
	}
}

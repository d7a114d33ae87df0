package core

import (
	"context"

	"github.com/agentmem/agentmem/core/internal/observe"
	"github.com/agentmem/agentmem/core/store"
)

// stepObservations is the observational-memory part of a turn's prompt,
// which a step refreshes when the record moved on.
type stepObservations struct {
	version int64
	texts   []string // of the observation system messages in the prompt
	hints   []string
}

// shown records the observations Begin put in the prompt.
func (o *observedHistory) shown() *stepObservations {
	return &stepObservations{version: o.view.Rec.Version, texts: o.view.SystemTexts(), hints: o.view.Hints}
}

// observeStep runs observational memory at a step of the agent loop, as
// after a Commit: the turn's messages its steps stored are unobserved
// messages like any other; those a failed save left unstored count towards
// the thresholds without being observable yet. Buffered chunks are
// activated, buffering starts and, past the threshold (BlockAfter when
// buffered), the stored unobserved messages are observed within the loop.
// When the record moved on, the prompt shows its observations and loses the
// remembered messages they cover. A failure is logged and kept for
// ObservationErr; the prompt shows what was stored.
func (t *Turn) observeStep(ctx context.Context, produced []Message) {
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
	s, err := m.checked()
	if err != nil {
		return
	}
	rec, err := s.GetObservations(ctx, o.Key(t.thread))
	if err != nil {
		t.obsErr = err
		m.log.WarnContext(ctx, "agentmem: reading observations at a step failed; the step keeps the turn's prompt", "err", err)
		return
	}
	if rec.Version != t.obs.version {
		t.prompt = t.reobserved(rec)
	}
}

// reobserved is the turn's prompt with rec's observations in place of the
// ones it shows, without the remembered messages rec has observed.
func (t *Turn) reobserved(rec store.ObservationRecord) []Message {
	old := make(map[string]bool, len(t.obs.texts))
	for _, text := range t.obs.texts {
		old[text] = true
	}
	observed := rec.ObservedFunc()
	out := make([]Message, 0, len(t.prompt))
	at := -1
	for _, msg := range t.prompt {
		switch {
		case msg.Role == RoleSystem && old[msg.Text()]:
			if at < 0 {
				at = len(out)
			}
			continue
		case msg.Source == SourceMemory && observed(msg.CreatedAt, msg.ID):
			continue
		}
		out = append(out, msg)
	}
	if at < 0 { // Begin showed no observations: they follow the instructions
		for at = 0; at < len(out) && at < len(t.req.System) && out[at].Role == RoleSystem; at++ {
		}
	}
	texts := observe.SystemTexts(rec.Observations, t.obs.hints...)
	fresh := make([]Message, 0, len(texts))
	for _, text := range texts {
		fresh = append(fresh, t.m.systemMessage(text))
	}
	t.obs.version, t.obs.texts = rec.Version, texts
	return append(out[:at], append(fresh, out[at:]...)...)
}

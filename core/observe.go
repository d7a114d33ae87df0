package core

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/agentmem/agentmem/core/internal/observe"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
)

// Observational memory (OM). The state of a thread (or resource) is one
// ObservationRecord: the active observations and a cursor (LastObservedAt and
// the ids observed at exactly that time) of what was observed. A turn shows
// the observations as fenced system messages and loads only the messages
// after the cursor. After Commit saves a turn, the observer turns the
// unobserved messages into observation lines once they pass
// Observation.MessageTokens; each batch is stored with one compare-and-set
// that appends the lines and moves the cursor together, so a message is
// observed at most once and a failure (model error, timeout, crash before the
// write) leaves the messages unobserved, to be observed on a later turn. When
// the observations pass Reflection.ObservationTokens, the reflector condenses
// them into a new generation; the store archives the previous one in the same
// write.

// maxObserveAttempts bounds the re-reads of one cycle after lost
// compare-and-sets.
const maxObserveAttempts = 3

// observationView is what a turn loads: the record, the unobserved messages
// of the turn's thread and, in resource scope, those of the resource's other
// threads.
type observationView struct {
	rec   store.ObservationRecord
	own   []Message
	other []Message
	past  bool // the thread has messages, observed or not (input echo filter)
	hints []string
}

// loadObservations reads the record and the newest unobserved messages (up
// to the cap).
func (m *Memory) loadObservations(ctx context.Context, s *store.Checked, o *observationSettings, th Thread) (observationView, error) {
	key := store.ObservationKey(o.scope, th.ID, th.ResourceID)
	rec, err := s.GetObservations(ctx, key)
	if err != nil {
		return observationView{}, err
	}
	msgs, err := m.unobserved(ctx, s, o, th, rec, store.Desc)
	if err != nil {
		return observationView{}, err
	}
	v := observationView{rec: rec}
	if o.hints {
		v.hints = observe.HintTexts(th.Metadata)
	}
	if o.scope == ScopeThread {
		v.own = msgs
	} else {
		for _, msg := range msgs {
			if msg.ThreadID == th.ID {
				v.own = append(v.own, msg)
			} else {
				v.other = append(v.other, msg)
			}
		}
	}
	switch {
	case len(v.own) > 0 || rec.LastObservedAt.IsZero():
		v.past = len(v.own) > 0
	case o.scope == ScopeThread:
		v.past = true
	default: // a shared record says nothing about this thread
		page, err := s.ListMessages(ctx, store.MessageQuery{ThreadID: th.ID, ResourceID: th.ResourceID, PerPage: 1})
		if err != nil {
			return observationView{}, err
		}
		v.past = len(page.Messages) > 0
	}
	return v, nil
}

// unobserved returns the unobserved messages of the record's thread or
// resource, chronologically: the oldest up to the cap with dir Asc, the
// newest with Desc. The store leaves out the observed ids of the lookback
// window, so a turn reads only what it shows; the record's unobserved ids
// older than the window (a thread moved in) are read by id. Token counts are
// the stored ones.
func (m *Memory) unobserved(ctx context.Context, s *store.Checked, o *observationSettings, th Thread, rec store.ObservationRecord, dir store.Direction) ([]Message, error) {
	since := rec.ObservedSince()
	var raw []Message
	if o.scope == ScopeResource {
		var err error
		raw, err = s.ListResourceMessages(ctx, store.ResourceMessageQuery{ResourceID: th.ResourceID, Since: since,
			Limit: o.maxUnobserved, Direction: dir, ExcludeIDs: rec.ObservedMessageIDs})
		if err != nil {
			return nil, err
		}
	} else {
		q := store.MessageQuery{ThreadID: th.ID, ResourceID: th.ResourceID, Direction: dir, PerPage: o.maxUnobserved, ExcludeIDs: rec.ObservedMessageIDs}
		if !since.IsZero() {
			q.Range.Start = &since
		}
		page, err := s.ListMessages(ctx, q)
		if err != nil {
			return nil, err
		}
		raw = page.Messages
	}
	raw, err := m.withMovedIn(ctx, s, o, th, rec, raw, dir)
	if err != nil {
		return nil, err
	}
	m.reportSkipped(ctx, raw)
	out := make([]Message, 0, len(raw))
	for _, msg := range raw {
		if msg.Role == RoleSystem {
			continue
		}
		m.ensureTokens(&msg)
		out = append(out, msg)
	}
	if dir == store.Desc {
		slices.Reverse(out)
	}
	return out, nil
}

// withMovedIn adds to raw (in dir order, up to the cap) the messages that
// rec lists as unobserved though older than its lookback window, which are
// still of the record's thread or resource (a message moved on or deleted
// since is left out).
func (m *Memory) withMovedIn(ctx context.Context, s *store.Checked, o *observationSettings, th Thread, rec store.ObservationRecord, raw []Message, dir store.Direction) ([]Message, error) {
	if len(rec.UnobservedMessageIDs) == 0 {
		return raw, nil
	}
	moved, err := s.GetMessages(ctx, rec.UnobservedMessageIDs)
	if err != nil {
		return nil, err
	}
	listed := make(map[string]bool, len(raw))
	for _, msg := range raw {
		listed[msg.ID] = true
	}
	for _, msg := range moved {
		if msg.ResourceID == th.ResourceID && (o.scope == ScopeResource || msg.ThreadID == th.ID) && !listed[msg.ID] {
			raw = append(raw, msg)
		}
	}
	slices.SortStableFunc(raw, func(a, b Message) int {
		c := cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.Seq, b.Seq))
		if dir == store.Desc {
			return -c
		}
		return c
	})
	return raw[:min(len(raw), o.maxUnobserved)], nil
}

// observedBefore returns the creation times of the record's observed ids
// created before cutoff, which an observation moving the lookback window to
// cutoff drops (observe.Append). It reads only the messages between the
// window's start and cutoff, nothing when the window does not move or moves
// past every observed id.
func (m *Memory) observedBefore(ctx context.Context, s *store.Checked, o *observationSettings, th Thread, rec store.ObservationRecord, cutoff time.Time) (map[string]time.Time, error) {
	times := map[string]time.Time{}
	since := rec.ObservedSince()
	if len(rec.ObservedMessageIDs) == 0 || !cutoff.After(since) || cutoff.After(rec.LastObservedAt) {
		return times, nil
	}
	var raw []Message
	if o.scope == ScopeResource {
		var err error
		raw, err = s.ListResourceMessages(ctx, store.ResourceMessageQuery{ResourceID: th.ResourceID, Since: since, Until: cutoff,
			Limit: math.MaxInt32})
		if err != nil {
			return nil, err
		}
	} else {
		page, err := s.ListMessages(ctx, store.MessageQuery{ThreadID: th.ID, ResourceID: th.ResourceID, PerPage: store.PerPageAll,
			Range: store.DateRange{Start: &since, End: &cutoff, EndExclusive: true}})
		if err != nil {
			return nil, err
		}
		raw = page.Messages
	}
	for _, msg := range raw {
		times[msg.ID] = msg.CreatedAt
	}
	return times, nil
}

// observationMessages renders the observations and continuation hints as
// system messages (see observe.SystemTexts); none without observations.
func (m *Memory) observationMessages(v observationView) []Message {
	texts := observe.SystemTexts(v.rec.Observations, v.hints...)
	out := make([]Message, 0, len(texts))
	for _, t := range texts {
		out = append(out, m.systemMessage(t))
	}
	return out
}

// observeAfterCommit runs (or, in background mode, schedules) an observation
// cycle for the thread of a committed turn. It never fails the turn: the
// error of a synchronous cycle is logged and returned for
// Turn.ObservationErr.
func (m *Memory) observeAfterCommit(ctx context.Context, o *observationSettings, th Thread, known []Message) error {
	if o.background {
		m.scheduleObservation(ctx, o, th, 0)
		return nil
	}
	return m.observationCycle(ctx, o, th, pending{known: known})
}

// pending is what the caller of a cycle knows of the unobserved messages:
// known lists them (nil: the cycle reads them), inFlight is the tokens of
// the turn's messages not stored yet (at a step of the agent loop), which
// count towards the thresholds but cannot be observed yet.
type pending struct {
	known    []Message
	inFlight int
}

// knownUnobserved is what the turn knows to be unobserved after saving
// saved: Begin's unobserved messages, those its steps stored and the saved
// ones, each once (the newest copy of a message saved again); nil when
// Begin did not read them all. Messages other writers saved meanwhile are
// missing: they count from the next cycle on.
func (t *Turn) knownUnobserved(saved []Message) []Message {
	if t.unobserved == nil {
		return nil
	}
	all := slices.Concat(t.unobserved, t.saves.stored, saved)
	last := make(map[string]int, len(all))
	for i := range all {
		last[all[i].ID] = i
	}
	out := make([]Message, 0, len(all))
	for i, msg := range all {
		if msg.Role != RoleSystem && last[msg.ID] == i {
			out = append(out, msg)
		}
	}
	return out
}

// scheduleObservation runs a cycle of the record in the background (see
// observe.Runtime.Schedule: at most one cycle in flight per key, requests
// coalesce). The cycle outlives the caller's cancellation.
func (m *Memory) scheduleObservation(ctx context.Context, o *observationSettings, th Thread, inFlight int) {
	key := store.ObservationKey(o.scope, th.ID, th.ResourceID)
	bctx := context.WithoutCancel(ctx)
	m.observer.Schedule(key, &m.bg, func() {
		bctx, sp := m.startBackground(bctx, "observe", threadAttrs(th.ID, th.ResourceID, 0)...)
		_ = sp.End(m.observationCycle(bctx, o, th, pending{inFlight: inFlight}))
	})
}

// observationCycle observes the record's unobserved messages when they pass the
// threshold, then reflects when the observations pass theirs. Failures are
// logged and returned; whatever was not stored is retried by a later cycle.
// p says what the caller knows of the unobserved messages.
func (m *Memory) observationCycle(ctx context.Context, o *observationSettings, th Thread, p pending) error {
	s, err := m.checked()
	if err != nil {
		return err
	}
	key := store.ObservationKey(o.scope, th.ID, th.ResourceID)
	// A synchronous Commit never waits for another turn's cycle: what it
	// saved is observed by a later cycle.
	unlock, err := m.observer.Lock(ctx, key, o.background)
	if errors.Is(err, observe.ErrBusy) {
		return nil
	}
	if err != nil {
		return err
	}
	defer unlock()
	if o.buffer != nil {
		if err := m.observer.BufferedCycle(ctx, m.observeEnv(ctx, s, o, th, key, p), o.buffer); err != nil {
			m.log.WarnContext(ctx, "agentmem: buffered observation failed; it is retried on a later turn", "key", key, "err", err)
			return err
		}
		return nil
	}
	rec, err := m.observeBatches(ctx, s, o, th, key, false, p.inFlight)
	if err != nil {
		m.log.WarnContext(ctx, "agentmem: observation failed; the messages stay unobserved and are observed on a later turn", "key", key, "err", err)
		return err
	}
	if err := m.reflectObservations(ctx, s, o, key, rec, false); err != nil {
		m.log.WarnContext(ctx, "agentmem: reflection failed; it is retried on a later turn", "key", key, "err", err)
		return err
	}
	return nil
}

// observeBatches observes the unobserved messages in batches when they pass
// the threshold (see observe.Threshold) with inFlight tokens not stored yet,
// or any when forced; each batch is stored with a compare-and-set that
// appends its observations and advances the cursor together. A lost
// compare-and-set (another process observed meanwhile) discards the batch's
// output and starts over from the stored record. It returns the newest
// record it knows.
func (m *Memory) observeBatches(ctx context.Context, s *store.Checked, o *observationSettings, th Thread, key string, force bool, inFlight int) (store.ObservationRecord, error) {
	var rec store.ObservationRecord
	for attempt := 0; attempt < maxObserveAttempts; attempt++ {
		var err error
		if rec, err = s.GetObservations(ctx, key); err != nil {
			return rec, err
		}
		msgs, err := m.unobserved(ctx, s, o, th, rec, store.Asc)
		if err != nil {
			return rec, err
		}
		threshold := observe.Threshold(o.messageTokens, o.reflectTokens, rec.ObservationTokens, o.shareBudget)
		if len(msgs) == 0 || (!force && observe.Tokens(msgs)+inFlight <= threshold) {
			return rec, nil
		}
		times, err := m.observedBefore(ctx, s, o, th, rec, observe.Cutoff(rec, msgs))
		if err != nil {
			return rec, err
		}
		conflict := false
		for _, batch := range observe.Batches(msgs, o.maxTokensPerBatch) {
			text, err := m.generateObservations(ctx, o, o.observer, o.observerInstructions, observe.ObserverInstructions,
				observe.ObserverPrompt(rec, batch, o.scope == ScopeResource))
			if err != nil {
				return rec, &Error{Code: CodeObservation, Op: "observe", Msg: "observer model failed", Err: err}
			}
			text, hints := observe.SplitHints(text)
			stored, err := s.PutObservations(ctx, observe.Append(rec, batch, text, times, m.tk), rec.Version)
			if errors.Is(err, ErrConflict) {
				conflict = true
				break
			}
			if err != nil {
				return rec, err
			}
			rec = stored
			m.saveHints(ctx, s, o, th.ID, hints)
		}
		if !conflict {
			return rec, nil
		}
	}
	return s.GetObservations(ctx, key)
}

// reflectObservations condenses the observations into a new generation while
// they pass Reflection.ObservationTokens, or once when forced (any
// observations, also a generation that reflection left oversize).
func (m *Memory) reflectObservations(ctx context.Context, s *store.Checked, o *observationSettings, key string, rec store.ObservationRecord, force bool) error {
	due := func(rec store.ObservationRecord) bool {
		if force {
			return rec.Observations != ""
		}
		return rec.ObservationTokens > o.reflectTokens && !m.observer.ReflectedOversize(rec)
	}
	var text string
	var hints map[string]any
	var base store.ObservationRecord
	for attempt := 0; attempt < maxObserveAttempts && due(rec); attempt++ {
		// A reflection that lost its write to appended lines is rebased, not redone.
		next, ok := observe.Rebase(rec, base, text, m.tk)
		if !ok {
			reply, err := m.generateObservations(ctx, o, o.reflector, o.reflectorInstructions, observe.ReflectorInstructions, observe.ReflectorPrompt(rec))
			if err != nil {
				return &Error{Code: CodeObservation, Op: "reflect", Msg: "reflector model failed", Err: err}
			}
			if text, hints = observe.SplitHints(reply); text == "" {
				return memerr.Errorf(CodeObservation, "reflect", "reflector returned no observations; keeping generation %d", rec.Generation)
			}
			base = rec
			next, _ = observe.Rebase(rec, base, text, m.tk)
		}
		stored, err := s.PutObservations(ctx, next, rec.Version)
		if errors.Is(err, ErrConflict) {
			if rec, err = s.GetObservations(ctx, key); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		if scope, id, _ := store.ParseObservationKey(key); scope == ScopeThread {
			m.saveHints(ctx, s, o, id, hints)
		}
		oversize := stored.ObservationTokens > o.reflectTokens
		m.observer.NoteOversize(stored, oversize)
		if oversize {
			m.log.WarnContext(ctx, "agentmem: reflection did not bring the observations under reflection.observationTokens; reflecting again after the next observation",
				"key", key, "tokens", stored.ObservationTokens, "limit", o.reflectTokens)
		}
		return nil
	}
	return nil
}

// generateObservations calls a model with the observation timeout and
// cleans its output. A model that ignores its context is not waited for past
// the timeout.
func (m *Memory) generateObservations(ctx context.Context, o *observationSettings, model Model, instructions, def, prompt string) (string, error) {
	if instructions == "" {
		instructions = def
	}
	if o.hints {
		instructions += "\n\n" + observe.HintInstructions
	}
	if o.instruction != "" {
		instructions += "\n\n" + o.instruction
	}
	ctx, sp := m.startModel(ctx, model, def)
	cctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	type result struct {
		text string
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		text, err := model.Generate(cctx, instructions, prompt)
		ch <- result{text, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			return "", m.endModel(ctx, sp, def, r.err)
		}
		return observe.Clean(r.text), m.endModel(ctx, sp, def, nil)
	case <-cctx.Done():
		return "", m.endModel(ctx, sp, def, fmt.Errorf("no answer within %s: %w", o.timeout, cctx.Err()))
	}
}

// saveHints stores the continuation hints of a reply on the thread; a
// failure loses only the hints.
func (m *Memory) saveHints(ctx context.Context, s *store.Checked, o *observationSettings, threadID string, hints map[string]any) {
	if !o.hints || hints == nil {
		return
	}
	th, err := s.GetThread(ctx, threadID)
	if err == nil {
		_, err = s.UpdateThread(ctx, threadID, nil, observe.HintsPatch(th.Metadata, hints))
	}
	if err != nil {
		m.log.WarnContext(ctx, "agentmem: storing continuation hints failed", "thread", threadID, "err", err)
	}
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
	s, err := m.open(ctx, "Observations")
	if err != nil {
		return store.ObservationRecord{}, err
	}
	if err := store.ValidateID("threadId", threadID); err != nil {
		return store.ObservationRecord{}, err
	}
	if err := store.ValidateID("resourceId", resourceID); err != nil {
		return store.ObservationRecord{}, err
	}
	st, err := m.settings(cfg)
	if err != nil {
		return store.ObservationRecord{}, err
	}
	if st.observation == nil {
		return store.ObservationRecord{}, memerr.Errorf(CodeInvalidConfig, "Observations", "observational memory is not enabled")
	}
	if st.observation.scope == ScopeThread {
		if _, err := m.ownedThread(ctx, s, "Observations", threadID, resourceID); err != nil {
			return store.ObservationRecord{}, err
		}
	}
	return s.GetObservations(ctx, store.ObservationKey(st.observation.scope, threadID, resourceID))
}

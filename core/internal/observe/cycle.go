package observe

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
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

// cycle is the work on one record: its settings and thread, what the
// caller knows of the unobserved messages, and the context of the
// background jobs it starts (not cancelled with the turn).
type cycle struct {
	*Observer
	set        *Settings
	th         store.Thread
	key        string
	p          Pending
	background context.Context
}

func (o *Observer) cycle(ctx context.Context, set *Settings, th store.Thread, p Pending) *cycle {
	return &cycle{Observer: o, set: set, th: th, key: set.Key(th), p: p, background: context.WithoutCancel(ctx)}
}

// unobserved returns the unobserved messages of the record's thread or
// resource, chronologically: the oldest up to the cap with dir Asc, the
// newest with Desc. The store leaves out the observed ids of the lookback
// window, so a turn reads only what it shows; the record's unobserved ids
// older than the window (a thread moved in) are read by id. Token counts are
// the stored ones.
func (c *cycle) unobserved(ctx context.Context, rec store.ObservationRecord, dir store.Direction) ([]message.Message, error) {
	since := rec.ObservedSince()
	var raw []message.Message
	if c.set.Scope == store.ScopeResource {
		var err error
		raw, err = c.Store.ListResourceMessages(ctx, store.ResourceMessageQuery{ResourceID: c.th.ResourceID, Since: since,
			Limit: c.set.MaxUnobserved, Direction: dir, ExcludeIDs: rec.ObservedMessageIDs})
		if err != nil {
			return nil, err
		}
	} else {
		q := store.MessageQuery{ThreadID: c.th.ID, ResourceID: c.th.ResourceID, Direction: dir, PerPage: c.set.MaxUnobserved, ExcludeIDs: rec.ObservedMessageIDs}
		if !since.IsZero() {
			q.Range.Start = &since
		}
		page, err := c.Store.ListMessages(ctx, q)
		if err != nil {
			return nil, err
		}
		raw = page.Messages
	}
	raw, err := c.withMovedIn(ctx, rec, raw, dir)
	if err != nil {
		return nil, err
	}
	c.Skipped.Report(ctx, raw)
	out := make([]message.Message, 0, len(raw))
	for _, msg := range raw {
		if msg.Role == message.RoleSystem {
			continue
		}
		c.Tokenizer.Ensure(&msg)
		out = append(out, msg)
	}
	if dir == store.Desc {
		slices.Reverse(out)
	}
	return out, nil
}

// tally returns the thread's unobserved messages, in any order and
// possibly without content: the ids, times and token counts a buffered
// cycle sums. It is what the caller knows (Pending.Known) or else the
// newest up to the cap, decoding only those without a stored count of the
// tokenizer's encoding.
func (c *cycle) tally(ctx context.Context, rec store.ObservationRecord) ([]message.Message, error) {
	if c.p.Known != nil {
		return Remaining(rec, c.p.Known), nil
	}
	q := store.MessageQuery{ThreadID: c.th.ID, ResourceID: c.th.ResourceID, Direction: store.Desc, PerPage: c.set.MaxUnobserved, ExcludeIDs: rec.ObservedMessageIDs}
	if since := rec.ObservedSince(); !since.IsZero() {
		q.Range.Start = &since
	}
	page, err := c.Store.ListWindow(ctx, q, store.WindowFit{Encoding: c.Tokenizer.Encoding()})
	if err != nil {
		return nil, err
	}
	raw, err := c.withMovedIn(ctx, rec, page.Messages, store.Desc)
	if err != nil {
		return nil, err
	}
	out := raw[:0]
	for _, msg := range raw {
		if msg.Role != message.RoleSystem {
			c.Tokenizer.Ensure(&msg)
			out = append(out, msg)
		}
	}
	return out, nil
}

// withMovedIn adds to raw (in dir order, up to the cap) the messages that
// rec lists as unobserved though older than its lookback window, which are
// still of the record's thread or resource (a message moved on or deleted
// since is left out).
func (c *cycle) withMovedIn(ctx context.Context, rec store.ObservationRecord, raw []message.Message, dir store.Direction) ([]message.Message, error) {
	if len(rec.UnobservedMessageIDs) == 0 {
		return raw, nil
	}
	moved, err := c.Store.GetMessages(ctx, rec.UnobservedMessageIDs)
	if err != nil {
		return nil, err
	}
	listed := make(map[string]bool, len(raw))
	for _, msg := range raw {
		listed[msg.ID] = true
	}
	for _, msg := range moved {
		if msg.ResourceID == c.th.ResourceID && (c.set.Scope == store.ScopeResource || msg.ThreadID == c.th.ID) && !listed[msg.ID] {
			raw = append(raw, msg)
		}
	}
	slices.SortStableFunc(raw, func(a, b message.Message) int {
		o := cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.Seq, b.Seq))
		if dir == store.Desc {
			return -o
		}
		return o
	})
	return raw[:min(len(raw), c.set.MaxUnobserved)], nil
}

// observedBefore returns the creation times of the record's observed ids
// created before cutoff, which an observation moving the lookback window to
// cutoff drops (Append). It reads only the messages between the window's
// start and cutoff, nothing when the window does not move or moves past
// every observed id.
func (c *cycle) observedBefore(ctx context.Context, rec store.ObservationRecord, cutoff time.Time) (map[string]time.Time, error) {
	times := map[string]time.Time{}
	since := rec.ObservedSince()
	if len(rec.ObservedMessageIDs) == 0 || !cutoff.After(since) || cutoff.After(rec.LastObservedAt) {
		return times, nil
	}
	var raw []message.Message
	if c.set.Scope == store.ScopeResource {
		var err error
		raw, err = c.Store.ListResourceMessages(ctx, store.ResourceMessageQuery{ResourceID: c.th.ResourceID, Since: since, Until: cutoff,
			Limit: math.MaxInt32})
		if err != nil {
			return nil, err
		}
	} else {
		page, err := c.Store.ListMessages(ctx, store.MessageQuery{ThreadID: c.th.ID, ResourceID: c.th.ResourceID, PerPage: store.PerPageAll,
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

// observeBatches observes the unobserved messages in batches when they pass
// the threshold (see Threshold) with inFlight tokens not stored yet, or any
// when forced; each batch is stored with a compare-and-set that appends its
// observations and advances the cursor together. A lost compare-and-set
// (another process observed meanwhile) discards the batch's output and
// starts over from the stored record. It returns the newest record it
// knows.
func (c *cycle) observeBatches(ctx context.Context, force bool, inFlight int) (store.ObservationRecord, error) {
	o := c.set
	var rec store.ObservationRecord
	for attempt := 0; attempt < maxAttempts; attempt++ {
		var err error
		if rec, err = c.Store.GetObservations(ctx, c.key); err != nil {
			return rec, err
		}
		msgs, err := c.unobserved(ctx, rec, store.Asc)
		if err != nil {
			return rec, err
		}
		threshold := Threshold(o.MessageTokens, o.ReflectTokens, rec.ObservationTokens, o.ShareBudget)
		if len(msgs) == 0 || (!force && Tokens(msgs)+inFlight <= threshold) {
			return rec, nil
		}
		times, err := c.observedBefore(ctx, rec, Cutoff(rec, msgs))
		if err != nil {
			return rec, err
		}
		conflict := false
		for _, batch := range Batches(msgs, o.MaxTokensPerBatch) {
			text, hints, err := c.observe(ctx, rec, batch, o.Scope == store.ScopeResource)
			if err != nil {
				return rec, &memerr.Error{Code: memerr.CodeObservation, Op: "observe", Msg: "observer model failed", Err: err}
			}
			stored, err := c.Store.PutObservations(ctx, Append(rec, batch, text, times, c.Tokenizer), rec.Version)
			if errors.Is(err, memerr.ErrConflict) {
				conflict = true
				break
			}
			if err != nil {
				return rec, err
			}
			rec = stored
			c.saveHints(ctx, c.th.ID, hints)
		}
		if !conflict {
			return rec, nil
		}
	}
	return c.Store.GetObservations(ctx, c.key)
}

// reflect condenses the observations into a new generation while they
// pass Reflection.ObservationTokens, or once when forced (any
// observations, also a generation that reflection left oversize).
func (c *cycle) reflect(ctx context.Context, rec store.ObservationRecord, force bool) error {
	due := func(rec store.ObservationRecord) bool {
		if force {
			return rec.Observations != ""
		}
		return rec.ObservationTokens > c.set.ReflectTokens && !c.rt.ReflectedOversize(rec)
	}
	var text string
	var hints map[string]any
	var base store.ObservationRecord
	for attempt := 0; attempt < maxAttempts && due(rec); attempt++ {
		// A reflection that lost its write to appended lines is rebased, not redone.
		next, ok := Rebase(rec, base, text, c.Tokenizer)
		if !ok {
			var err error
			if text, hints, err = c.condense(ctx, rec); err != nil {
				return &memerr.Error{Code: memerr.CodeObservation, Op: "reflect", Msg: "reflector model failed", Err: err}
			}
			if text == "" {
				return memerr.Errorf(memerr.CodeObservation, "reflect", "reflector returned no observations; keeping generation %d", rec.Generation)
			}
			base = rec
			next, _ = Rebase(rec, base, text, c.Tokenizer)
		}
		stored, err := c.Store.PutObservations(ctx, next, rec.Version)
		if errors.Is(err, memerr.ErrConflict) {
			if rec, err = c.Store.GetObservations(ctx, c.key); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		if c.set.Scope == store.ScopeThread {
			c.saveHints(ctx, c.th.ID, hints)
		}
		oversize := stored.ObservationTokens > c.set.ReflectTokens
		c.rt.NoteOversize(stored, oversize)
		if oversize {
			c.Log.WarnContext(ctx, "agentmem: reflection did not bring the observations under reflection.observationTokens; reflecting again after the next observation",
				"key", c.key, "tokens", stored.ObservationTokens, "limit", c.set.ReflectTokens)
		}
		return nil
	}
	return nil
}

// observe asks the observer model for the observation lines of batch and
// returns them apart from the continuation hints.
func (c *cycle) observe(ctx context.Context, rec store.ObservationRecord, batch []message.Message, withThread bool) (string, map[string]any, error) {
	reply, err := c.generate(ctx, "observer", c.set.Observer, c.set.ObserverInstructions, ObserverInstructions, ObserverPrompt(rec, batch, withThread))
	text, hints := SplitHints(reply)
	return text, hints, err
}

// condense asks the reflector model for a new generation of rec's
// observations and returns it apart from the continuation hints.
func (c *cycle) condense(ctx context.Context, rec store.ObservationRecord) (string, map[string]any, error) {
	reply, err := c.generate(ctx, "reflector", c.set.Reflector, c.set.ReflectorInstructions, ReflectorInstructions, ReflectorPrompt(rec))
	text, hints := SplitHints(reply)
	return text, hints, err
}

// namedModel is a Model that names the model it calls (core.NamedModel):
// the span of a call carries the name.
type namedModel interface {
	ModelName() string
}

// generate calls a model (role names it in telemetry) with the observation
// timeout and cleans its output. A model that ignores its context is not
// waited for past the timeout.
func (c *cycle) generate(ctx context.Context, role string, model Model, instructions, def, prompt string) (string, error) {
	if instructions == "" {
		instructions = def
	}
	if c.set.Hints {
		instructions += "\n\n" + HintInstructions
	}
	if c.set.Instruction != "" {
		instructions += "\n\n" + c.set.Instruction
	}
	var name string
	if n, ok := model.(namedModel); ok {
		name = n.ModelName()
	}
	ctx, sp := c.Telemetry.Model(ctx, role, name)
	end := func(err error) error {
		c.Telemetry.ModelFailed(ctx, role, err)
		return sp.End(err)
	}
	cctx, cancel := context.WithTimeout(ctx, c.set.Timeout)
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
			return "", end(r.err)
		}
		return Clean(r.text), end(nil)
	case <-cctx.Done():
		return "", end(fmt.Errorf("no answer within %s: %w", c.set.Timeout, cctx.Err()))
	}
}

// saveHints stores the continuation hints of a reply on the thread; a
// failure loses only the hints.
func (c *cycle) saveHints(ctx context.Context, threadID string, hints map[string]any) {
	if !c.set.Hints || hints == nil {
		return
	}
	th, err := c.Store.GetThread(ctx, threadID)
	if err == nil {
		_, err = c.Store.UpdateThread(ctx, threadID, nil, HintsPatch(th.Metadata, hints))
	}
	if err != nil {
		c.Log.WarnContext(ctx, "agentmem: storing continuation hints failed", "thread", threadID, "err", err)
	}
}

package observe

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/agentmem/agentmem/core/internal/telemetry"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// Store is what the observer reads and writes: the observation records,
// the messages they cover and the threads that keep continuation hints.
// *store.Checked is one.
type Store interface {
	GetObservations(ctx context.Context, key string) (store.ObservationRecord, error)
	PutObservations(ctx context.Context, rec store.ObservationRecord, expectVersion int64) (store.ObservationRecord, error)
	ClearObservations(ctx context.Context, key string) (store.ObservationRecord, error)
	ListMessages(ctx context.Context, q store.MessageQuery) (store.MessagePage, error)
	ListWindow(ctx context.Context, q store.MessageQuery, fit store.WindowFit) (store.WindowPage, error)
	ListResourceMessages(ctx context.Context, q store.ResourceMessageQuery) ([]message.Message, error)
	GetMessages(ctx context.Context, ids []string) ([]message.Message, error)
	GetThread(ctx context.Context, id string) (store.Thread, error)
	ListThreads(ctx context.Context, q store.ThreadQuery) (store.ThreadPage, error)
	UpdateThread(ctx context.Context, id string, title *string, metadata map[string]any) (store.Thread, error)
}

// Model is the observer's and the reflector's text generation (core.Model).
type Model interface {
	Generate(ctx context.Context, system, prompt string) (string, error)
}

// Tokenizer counts with the memory's tokenizer.
type Tokenizer interface {
	Counter
	Encoding() string
	// Ensure counts a stored message whose count is missing or was made
	// with another encoding (in memory only).
	Ensure(msg *message.Message)
}

// Skipped reports stored messages whose decoding dropped parts.
type Skipped interface {
	Report(ctx context.Context, msgs []message.Message)
}

// Deps is what an Observer works over.
type Deps struct {
	Store     Store
	Tokenizer Tokenizer
	Skipped   Skipped
	Log       *slog.Logger
	Telemetry *telemetry.T
	// Jobs counts the background cycles and jobs (Memory.Close waits for
	// it).
	Jobs *sync.WaitGroup
}

// Observer is observational memory: it shows a record's observations to a
// turn, runs the observation and reflection cycles after a save (at once,
// buffered or in the background), and observes, reflects or clears on
// request. It owns the in-process locks and background jobs of the records.
type Observer struct {
	Deps
	rt Runtime
}

// New returns an Observer over d.
func New(d Deps) *Observer { return &Observer{Deps: d} }

// Settings are a validated, defaulted observational-memory configuration.
type Settings struct {
	Observer, Reflector   Model
	MessageTokens         int
	MaxTokensPerBatch     int
	ReflectTokens         int
	Scope                 store.Scope
	Background            bool
	Timeout               time.Duration
	MaxUnobserved         int
	ObserverInstructions  string
	ReflectorInstructions string
	Instruction           string
	ShareBudget           bool
	Hints                 bool
	Buffer                *BufferSettings // nil: no buffering
}

// Key is the record key of th's record.
func (s *Settings) Key(th store.Thread) string {
	return store.ObservationKey(s.Scope, th.ID, th.ResourceID)
}

// View is what a turn loads: the record, the unobserved messages of the
// turn's thread and, in resource scope, those of the resource's other
// threads.
type View struct {
	Rec   store.ObservationRecord
	Own   []message.Message
	Other []message.Message
	Past  bool // the thread has messages, observed or not (input echo filter)
	Hints []string
}

// SystemTexts are the texts of the system messages that show the view's
// observations and continuation hints; none without observations.
func (v View) SystemTexts() []string { return SystemTexts(v.Rec.Observations, v.Hints...) }

// Shown is what a turn's prompt shows of a record: the version and the
// texts of its observation system messages, and the hints shown with them.
type Shown struct {
	Version int64
	Texts   []string
	Hints   []string
}

// Shown is what a prompt built from v shows.
func (v View) Shown() *Shown {
	return &Shown{Version: v.Rec.Version, Texts: v.SystemTexts(), Hints: v.Hints}
}

// Reshow returns prompt with rec's observations in place of the shown ones
// and without the remembered messages (SourceMemory) rec has observed;
// when the prompt showed none, they follow its first system messages, up
// to instructions of them (the caller's instructions). system renders a
// text as a system message. s then shows rec.
func (s *Shown) Reshow(prompt []message.Message, rec store.ObservationRecord, instructions int, system func(text string) message.Message) []message.Message {
	old := make(map[string]bool, len(s.Texts))
	for _, text := range s.Texts {
		old[text] = true
	}
	observed := rec.ObservedFunc()
	out := make([]message.Message, 0, len(prompt))
	at := -1
	for _, msg := range prompt {
		switch {
		case msg.Role == message.RoleSystem && old[msg.Text()]:
			if at < 0 {
				at = len(out)
			}
			continue
		case msg.Source == message.SourceMemory && observed(msg.CreatedAt, msg.ID):
			continue
		}
		out = append(out, msg)
	}
	if at < 0 { // the prompt showed no observations: they follow the instructions
		for at = 0; at < len(out) && at < instructions && out[at].Role == message.RoleSystem; at++ {
		}
	}
	texts := SystemTexts(rec.Observations, s.Hints...)
	fresh := make([]message.Message, 0, len(texts))
	for _, text := range texts {
		fresh = append(fresh, system(text))
	}
	s.Version, s.Texts = rec.Version, texts
	return append(out[:at], append(fresh, out[at:]...)...)
}

// Load reads th's record and its newest unobserved messages (up to the
// cap).
func (o *Observer) Load(ctx context.Context, set *Settings, th store.Thread) (View, error) {
	c := o.cycle(ctx, set, th, Pending{})
	rec, err := o.Store.GetObservations(ctx, c.key)
	if err != nil {
		return View{}, err
	}
	msgs, err := c.unobserved(ctx, rec, store.Desc)
	if err != nil {
		return View{}, err
	}
	v := View{Rec: rec}
	if set.Hints {
		v.Hints = HintTexts(th.Metadata)
	}
	if set.Scope == store.ScopeThread {
		v.Own = msgs
	} else {
		for _, msg := range msgs {
			if msg.ThreadID == th.ID {
				v.Own = append(v.Own, msg)
			} else {
				v.Other = append(v.Other, msg)
			}
		}
	}
	switch {
	case len(v.Own) > 0 || rec.LastObservedAt.IsZero():
		v.Past = len(v.Own) > 0
	case set.Scope == store.ScopeThread:
		v.Past = true
	default: // a shared record says nothing about this thread
		page, err := o.Store.ListMessages(ctx, store.MessageQuery{ThreadID: th.ID, ResourceID: th.ResourceID, PerPage: 1})
		if err != nil {
			return View{}, err
		}
		v.Past = len(page.Messages) > 0
	}
	return v, nil
}

// Pending is what the caller of a cycle knows of the unobserved messages:
// Known lists them (nil: the cycle reads them), InFlight is the tokens of
// the turn's messages not stored yet (at a step of the agent loop), which
// count towards the thresholds but cannot be observed yet.
type Pending struct {
	Known    []message.Message
	InFlight int
}

// AfterSave runs a cycle of th's record after a turn saved messages (at
// Commit or at a step of the agent loop), or in background mode schedules
// one (Known then unused: the cycle reads what is stored when it runs). It
// never fails the turn: the error of a synchronous cycle is logged and
// returned for Turn.ObservationErr.
func (o *Observer) AfterSave(ctx context.Context, set *Settings, th store.Thread, p Pending) error {
	if !set.Background {
		return o.cycle(ctx, set, th, p).run(ctx)
	}
	// At most one cycle in flight per key, requests coalesce (see
	// Runtime.Schedule); the cycle outlives the caller's cancellation.
	bctx := context.WithoutCancel(ctx)
	o.rt.Schedule(set.Key(th), o.Jobs, func() {
		bctx, sp := o.Telemetry.Background(bctx, "observe", telemetry.ThreadAttrs(th.ID, th.ResourceID, 0)...)
		_ = sp.End(o.cycle(bctx, set, th, Pending{InFlight: p.InFlight}).run(bctx))
	})
	return nil
}

// Lock takes the in-process lock of a record key, waiting at most until
// ctx is done: a caller that changes which messages a record covers (a
// thread moving to another resource) keeps this process's cycles of the
// record out meanwhile. The returned func releases it.
func (o *Observer) Lock(ctx context.Context, key string) (func(), error) {
	return o.rt.Lock(ctx, key, true)
}

// ObserveNow observes every unobserved message of th's record now,
// whatever their tokens, then reflects when the observations pass the
// threshold; it waits for a cycle of the record running in this process
// (bounded by ctx) and returns the stored record. Its failures are
// returned: a failed batch leaves its messages unobserved.
func (o *Observer) ObserveNow(ctx context.Context, set *Settings, th store.Thread) (store.ObservationRecord, error) {
	return o.locked(ctx, set, th, func(c *cycle) (store.ObservationRecord, error) {
		if set.Buffer != nil { // buffered chunks first: their messages are not observed again
			if err := c.flush(ctx, set.Buffer); err != nil {
				return store.ObservationRecord{}, err
			}
		}
		rec, err := c.observeBatches(ctx, true, 0)
		if err != nil {
			return rec, err
		}
		return c.reflectNow(ctx, rec, false)
	})
}

// ReflectNow condenses th's record's observations into a new generation
// now, whatever their tokens (the store archives the previous one), and
// returns the stored record; one without observations is returned
// unchanged.
func (o *Observer) ReflectNow(ctx context.Context, set *Settings, th store.Thread) (store.ObservationRecord, error) {
	return o.locked(ctx, set, th, func(c *cycle) (store.ObservationRecord, error) {
		rec, err := o.Store.GetObservations(ctx, c.key)
		if err != nil {
			return rec, err
		}
		return c.reflectNow(ctx, rec, true)
	})
}

// locked runs f on a cycle of th's record holding the record's lock: it
// waits for a cycle of the record running in this process, at most until
// ctx is done.
func (o *Observer) locked(ctx context.Context, set *Settings, th store.Thread, f func(c *cycle) (store.ObservationRecord, error)) (store.ObservationRecord, error) {
	c := o.cycle(ctx, set, th, Pending{})
	unlock, err := o.rt.Lock(ctx, c.key, true)
	if err != nil {
		return store.ObservationRecord{}, err
	}
	defer unlock()
	return f(c)
}

// reflectNow reflects rec (see cycle.reflect) and returns the stored
// record.
func (c *cycle) reflectNow(ctx context.Context, rec store.ObservationRecord, force bool) (store.ObservationRecord, error) {
	if err := c.reflect(ctx, rec, force); err != nil {
		return rec, err
	}
	return c.Store.GetObservations(ctx, c.key)
}

// Clear resets th's record: its observations, cursor and archived
// generations go, and so do the continuation hints stored on th (on every
// thread of the resource in resource scope), so that stale ones do not
// come back with the next observations. It waits for a cycle of the record
// running in this process and returns the cleared record.
func (o *Observer) Clear(ctx context.Context, set *Settings, th store.Thread) (store.ObservationRecord, error) {
	return o.locked(ctx, set, th, func(c *cycle) (store.ObservationRecord, error) {
		rec, err := o.Store.ClearObservations(ctx, c.key)
		if err != nil {
			return rec, err
		}
		return rec, o.clearHints(ctx, set.Scope, th)
	})
}

// clearHints deletes the continuation hints of th, or of every thread of
// its resource in resource scope.
func (o *Observer) clearHints(ctx context.Context, scope store.Scope, th store.Thread) error {
	threads := []store.Thread{th}
	if scope == store.ScopeResource {
		page, err := o.Store.ListThreads(ctx, store.ThreadQuery{ResourceID: th.ResourceID, PerPage: store.PerPageAll})
		if err != nil {
			return err
		}
		threads = page.Threads
	}
	for _, t := range threads {
		if _, ok := t.Metadata[HintsKey]; !ok {
			continue
		}
		if _, err := o.Store.UpdateThread(ctx, t.ID, nil, map[string]any{HintsKey: nil}); err != nil {
			return err
		}
	}
	return nil
}

// run observes the record's unobserved messages when they pass the
// threshold, then reflects when the observations pass theirs. Failures are
// logged and returned; whatever was not stored is retried by a later cycle.
func (c *cycle) run(ctx context.Context) error {
	// A synchronous Commit never waits for another turn's cycle: what it
	// saved is observed by a later cycle.
	unlock, err := c.rt.Lock(ctx, c.key, c.set.Background)
	if errors.Is(err, ErrBusy) {
		return nil
	}
	if err != nil {
		return err
	}
	defer unlock()
	if c.set.Buffer != nil {
		if err := c.buffered(ctx, c.set.Buffer); err != nil {
			c.Log.WarnContext(ctx, "agentmem: buffered observation failed; it is retried on a later turn", "key", c.key, "err", err)
			return err
		}
		return nil
	}
	rec, err := c.observeBatches(ctx, false, c.p.InFlight)
	if err != nil {
		c.Log.WarnContext(ctx, "agentmem: observation failed; the messages stay unobserved and are observed on a later turn", "key", c.key, "err", err)
		return err
	}
	if err := c.reflect(ctx, rec, false); err != nil {
		c.Log.WarnContext(ctx, "agentmem: reflection failed; it is retried on a later turn", "key", c.key, "err", err)
		return err
	}
	return nil
}

// KeepUnobserved prepares a thread's move into the resource of key's
// record (or a copy's into it): it adds the thread's messages created
// before the record's cursor, and not among its observed ids, to its
// unobserved ids, since the record never saw them.
func KeepUnobserved(ctx context.Context, s Store, op, threadID, key string) error {
	for attempt := 0; attempt < maxAttempts; attempt++ {
		rec, err := s.GetObservations(ctx, key)
		if err != nil || rec.LastObservedAt.IsZero() {
			return err
		}
		page, err := s.ListMessages(ctx, store.MessageQuery{ThreadID: threadID, PerPage: store.PerPageAll,
			Range: store.DateRange{End: &rec.LastObservedAt, EndExclusive: true}, ExcludeIDs: rec.ObservedMessageIDs})
		if err != nil {
			return err
		}
		next, listed := rec.Clone(), make(map[string]bool, len(rec.UnobservedMessageIDs))
		for _, id := range rec.UnobservedMessageIDs {
			listed[id] = true
		}
		for _, msg := range page.Messages {
			if msg.Role != message.RoleSystem && !listed[msg.ID] {
				next.UnobservedMessageIDs = append(next.UnobservedMessageIDs, msg.ID)
			}
		}
		if len(next.UnobservedMessageIDs) == len(rec.UnobservedMessageIDs) {
			return nil
		}
		if _, err = s.PutObservations(ctx, next, rec.Version); !errors.Is(err, memerr.ErrConflict) {
			return err
		}
	}
	return memerr.Errorf(memerr.CodeConflict, op, "observations of %s kept changing", key)
}

// KeepCopiesUnobserved prepares copies of messages made in the resource of
// key's record (a clone in the same resource): a copy of a message the
// record lists as unobserved is listed too. The copy keeps its source's
// creation time, so by the record's cursor it would count as observed,
// which its source was not; copies of observed messages are observed by
// the same observations and stay so. idMap maps source ids to copy ids.
func KeepCopiesUnobserved(ctx context.Context, s Store, op, key string, idMap map[string]string) error {
	for attempt := 0; attempt < maxAttempts; attempt++ {
		rec, err := s.GetObservations(ctx, key)
		if err != nil || rec.Version == 0 {
			return err
		}
		next := rec.Clone()
		for _, id := range rec.UnobservedMessageIDs {
			if c, ok := idMap[id]; ok {
				next.UnobservedMessageIDs = append(next.UnobservedMessageIDs, c)
			}
		}
		if len(next.UnobservedMessageIDs) == len(rec.UnobservedMessageIDs) {
			return nil
		}
		if _, err = s.PutObservations(ctx, next, rec.Version); !errors.Is(err, memerr.ErrConflict) {
			return err
		}
	}
	return memerr.Errorf(memerr.CodeConflict, op, "observations of %s kept changing", key)
}

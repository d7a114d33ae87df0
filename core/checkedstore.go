package core

import (
	"context"
	"errors"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
)

// CheckedStore is the one place every Store call passes through: it refuses
// a nil or ended context before the driver runs, validates and normalises
// arguments, names the operation on every error and classifies failures
// (an ended context first, then the driver's *Error, then CodeStorage).
// Memory uses it for every storage call and storetest drives backends
// through it, so a rule written here holds on every backend.
//
// The optional capabilities (ThreadCreator, Resources, Observations,
// IndexQueue) are methods of CheckedStore too: without the capability a call
// returns ErrUnsupported, except CreateThread, which falls back to a check
// and SaveThread. CheckedStore is safe for concurrent use.
type CheckedStore struct {
	raw     store.Store
	creator store.ThreadCreator
	res     store.Resources
	obs     store.Observations
	queue   store.IndexQueue
}

// Check wraps s; a *CheckedStore is returned as it is.
func Check(s Store) *CheckedStore {
	if c, ok := s.(*CheckedStore); ok {
		return c
	}
	c := &CheckedStore{raw: s}
	c.creator, _ = s.(store.ThreadCreator)
	c.res, _ = s.(store.Resources)
	c.obs, _ = s.(store.Observations)
	c.queue, _ = s.(store.IndexQueue)
	return c
}

// Unwrap returns the driver.
func (c *CheckedStore) Unwrap() Store { return c.raw }

// Capabilities reports which optional capabilities the driver has.
func (c *CheckedStore) Capabilities() (creator, resources, observations, indexQueue bool) {
	return c.creator != nil, c.res != nil, c.obs != nil, c.queue != nil
}

var _ interface {
	store.Store
	store.ThreadCreator
	store.Resources
	store.Observations
	store.IndexQueue
} = (*CheckedStore)(nil)

// enter refuses a nil or ended context.
func enter(ctx context.Context, op string) error {
	if ctx == nil {
		return Errorf(CodeInvalidArgument, op, "nil context")
	}
	if e := memerr.Context(op, ctx.Err()); e != nil {
		return e
	}
	return nil
}

// classify maps a driver result: an ended context first (so that retry
// loops never retry a cancellation), then the driver's *Error with the
// operation named, then CodeStorage.
func classify(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	if e := memerr.Context(op, err); e != nil {
		return e
	}
	var e *Error
	if errors.As(err, &e) {
		if e.Code == CodeStorage && ctx.Err() != nil {
			return memerr.Context(op, ctx.Err())
		}
		if e.Op == "" {
			cp := *e
			cp.Op = op
			return &cp
		}
		return err
	}
	if ctx.Err() != nil {
		return memerr.Context(op, ctx.Err())
	}
	return memerr.WrapStorage(op, err)
}

// withOp names op on a validation error.
func withOp(op string, err error) error {
	var e *Error
	if errors.As(err, &e) && e.Op == "" {
		cp := *e
		cp.Op = op
		return &cp
	}
	return err
}

// checkIDs validates name/value pairs of ids.
func checkIDs(op string, pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if err := store.ValidateID(pairs[i], pairs[i+1]); err != nil {
			return withOp(op, err)
		}
	}
	return nil
}

func checkScope(op string, scope Scope, id string) error {
	switch scope {
	case ScopeThread:
		return checkIDs(op, "threadId", id)
	case ScopeResource:
		return checkIDs(op, "resourceId", id)
	}
	return Errorf(CodeInvalidArgument, op, "scope must be %q or %q, got %q", ScopeThread, ScopeResource, scope)
}

func checkMessages(op string, msgs []Message) error {
	for i := range msgs {
		if err := store.ValidateMessage(i, &msgs[i]); err != nil {
			return withOp(op, err)
		}
	}
	return nil
}

// checkThread applies the field rules of a stored thread.
func checkThread(op string, t *Thread) error {
	if err := checkIDs(op, "threadId", t.ID, "resourceId", t.ResourceID); err != nil {
		return err
	}
	return checkFields(op, t.Title, t.Metadata)
}

// checkFields validates a title and thread metadata.
func checkFields(op, title string, metadata map[string]any) error {
	if err := store.ValidateText("title", title); err != nil {
		return withOp(op, err)
	}
	return withOp(op, store.ValidateMetadata("metadata", metadata))
}

// checkIDList validates a list of message ids.
func checkIDList(op string, ids []string) error {
	return withOp(op, store.ValidateIDs("id", ids))
}

// checkBoundary validates a boundary candidate.
func checkBoundary(op string, b Boundary) error {
	if b.CreatedAt.IsZero() || b.MaxTokens < 0 || b.AtMaxRemoveTokens < 0 || b.SeenSeq < 0 {
		return Errorf(CodeInvalidArgument, op, "boundary needs a createdAt and non-negative limits")
	}
	return checkIDList(op, b.MessageIDs)
}

// SaveThread implements store.Threads.
func (c *CheckedStore) SaveThread(ctx context.Context, t Thread) (Thread, error) {
	const op = "SaveThread"
	if err := enter(ctx, op); err != nil {
		return Thread{}, err
	}
	if err := checkThread(op, &t); err != nil {
		return Thread{}, err
	}
	out, err := c.raw.SaveThread(ctx, t)
	return out, classify(ctx, op, err)
}

// CreateThread implements store.ThreadCreator: insert-only, ErrThreadExists
// when the id is taken. Without the driver capability it checks and saves,
// which is not atomic across concurrent creators.
func (c *CheckedStore) CreateThread(ctx context.Context, t Thread) (Thread, error) {
	const op = "CreateThread"
	if err := enter(ctx, op); err != nil {
		return Thread{}, err
	}
	if err := checkThread(op, &t); err != nil {
		return Thread{}, err
	}
	if c.creator != nil {
		out, err := c.creator.CreateThread(ctx, t)
		return out, classify(ctx, op, err)
	}
	switch _, err := c.raw.GetThread(ctx, t.ID); {
	case err == nil:
		return Thread{}, Errorf(CodeThreadExists, op, "thread %q already exists", t.ID)
	case !errors.Is(err, ErrThreadNotFound):
		return Thread{}, classify(ctx, op, err)
	}
	out, err := c.raw.SaveThread(ctx, t)
	return out, classify(ctx, op, err)
}

// GetThread implements store.Threads.
func (c *CheckedStore) GetThread(ctx context.Context, id string) (Thread, error) {
	const op = "GetThread"
	if err := enter(ctx, op); err != nil {
		return Thread{}, err
	}
	if err := checkIDs(op, "threadId", id); err != nil {
		return Thread{}, err
	}
	t, err := c.raw.GetThread(ctx, id)
	return t, classify(ctx, op, err)
}

// ListThreads implements store.Threads; q is normalised first.
func (c *CheckedStore) ListThreads(ctx context.Context, q ThreadQuery) (ThreadPage, error) {
	const op = "ListThreads"
	if err := enter(ctx, op); err != nil {
		return ThreadPage{}, err
	}
	if q.ResourceID != "" {
		if err := checkIDs(op, "resourceId", q.ResourceID); err != nil {
			return ThreadPage{}, err
		}
	}
	q, err := store.NormalizeThreadQuery(q)
	if err != nil {
		return ThreadPage{}, withOp(op, err)
	}
	p, err := c.raw.ListThreads(ctx, q)
	return p, classify(ctx, op, err)
}

// UpdateThread implements store.Threads.
func (c *CheckedStore) UpdateThread(ctx context.Context, id string, title *string, metadata map[string]any) (Thread, error) {
	const op = "UpdateThread"
	if err := enter(ctx, op); err != nil {
		return Thread{}, err
	}
	if err := checkIDs(op, "threadId", id); err != nil {
		return Thread{}, err
	}
	if title != nil {
		if err := checkFields(op, *title, nil); err != nil {
			return Thread{}, err
		}
	}
	if err := checkFields(op, "", metadata); err != nil {
		return Thread{}, err
	}
	t, err := c.raw.UpdateThread(ctx, id, title, metadata)
	return t, classify(ctx, op, err)
}

// DeleteThread implements store.Threads.
func (c *CheckedStore) DeleteThread(ctx context.Context, id string) error {
	const op = "DeleteThread"
	if err := enter(ctx, op); err != nil {
		return err
	}
	if err := checkIDs(op, "threadId", id); err != nil {
		return err
	}
	return classify(ctx, op, c.raw.DeleteThread(ctx, id))
}

// SaveMessages implements store.Messages.
func (c *CheckedStore) SaveMessages(ctx context.Context, msgs []Message) ([]Message, error) {
	const op = "SaveMessages"
	if err := enter(ctx, op); err != nil {
		return nil, err
	}
	if err := checkMessages(op, msgs); err != nil {
		return nil, err
	}
	if len(msgs) == 0 {
		return nil, nil
	}
	out, err := c.raw.SaveMessages(ctx, msgs)
	return out, classify(ctx, op, err)
}

// ListMessages implements store.Messages; q is normalised first.
func (c *CheckedStore) ListMessages(ctx context.Context, q MessageQuery) (MessagePage, error) {
	const op = "ListMessages"
	if err := enter(ctx, op); err != nil {
		return MessagePage{}, err
	}
	q, err := store.NormalizeMessageQuery(q)
	if err != nil {
		return MessagePage{}, withOp(op, err)
	}
	if q.ResourceID != "" {
		if err := checkIDs(op, "resourceId", q.ResourceID); err != nil {
			return MessagePage{}, err
		}
	}
	p, err := c.raw.ListMessages(ctx, q)
	return p, classify(ctx, op, err)
}

// GetMessages implements store.Messages.
func (c *CheckedStore) GetMessages(ctx context.Context, ids []string) ([]Message, error) {
	const op = "GetMessages"
	if err := enter(ctx, op); err != nil {
		return nil, err
	}
	if err := checkIDList(op, ids); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, nil
	}
	out, err := c.raw.GetMessages(ctx, ids)
	return out, classify(ctx, op, err)
}

// DeleteMessages implements store.Messages.
func (c *CheckedStore) DeleteMessages(ctx context.Context, ids []string) error {
	const op = "DeleteMessages"
	if err := enter(ctx, op); err != nil {
		return err
	}
	if err := checkIDList(op, ids); err != nil {
		return err
	}
	if len(ids) == 0 {
		return nil
	}
	return classify(ctx, op, c.raw.DeleteMessages(ctx, ids))
}

// GetWorkingMemory implements store.WorkingMemories.
func (c *CheckedStore) GetWorkingMemory(ctx context.Context, scope Scope, id string) (WorkingMemory, error) {
	const op = "GetWorkingMemory"
	if err := enter(ctx, op); err != nil {
		return WorkingMemory{}, err
	}
	if err := checkScope(op, scope, id); err != nil {
		return WorkingMemory{}, err
	}
	wm, err := c.raw.GetWorkingMemory(ctx, scope, id)
	return wm, classify(ctx, op, err)
}

// PutWorkingMemory implements store.WorkingMemories.
func (c *CheckedStore) PutWorkingMemory(ctx context.Context, scope Scope, id, data string, expectVersion int64) (WorkingMemory, error) {
	const op = "PutWorkingMemory"
	if err := enter(ctx, op); err != nil {
		return WorkingMemory{}, err
	}
	if err := checkScope(op, scope, id); err != nil {
		return WorkingMemory{}, err
	}
	if expectVersion < 0 {
		return WorkingMemory{}, Errorf(CodeInvalidArgument, op, "expectVersion must be >= 0")
	}
	if err := store.ValidateText("working memory", data); err != nil {
		return WorkingMemory{}, withOp(op, err)
	}
	wm, err := c.raw.PutWorkingMemory(ctx, scope, id, data, expectVersion)
	return wm, classify(ctx, op, err)
}

// AdvanceBoundary implements store.Boundaries.
func (c *CheckedStore) AdvanceBoundary(ctx context.Context, threadID, resourceID string, cand Boundary) (Boundary, error) {
	const op = "AdvanceBoundary"
	if err := enter(ctx, op); err != nil {
		return Boundary{}, err
	}
	if err := checkIDs(op, "threadId", threadID, "resourceId", resourceID); err != nil {
		return Boundary{}, err
	}
	if err := checkBoundary(op, cand); err != nil {
		return Boundary{}, err
	}
	b, err := c.raw.AdvanceBoundary(ctx, threadID, resourceID, cand)
	return b, classify(ctx, op, err)
}

// Close implements store.Store.
func (c *CheckedStore) Close() error { return c.raw.Close() }

func unsupported(op, capability string) error {
	return Errorf(CodeUnsupported, op, "the store does not implement store.%s", capability)
}

// GetResource implements store.Resources.
func (c *CheckedStore) GetResource(ctx context.Context, id string) (Resource, error) {
	const op = "GetResource"
	if err := enter(ctx, op); err != nil {
		return Resource{}, err
	}
	if c.res == nil {
		return Resource{}, unsupported(op, "Resources")
	}
	if err := checkIDs(op, "resourceId", id); err != nil {
		return Resource{}, err
	}
	r, err := c.res.GetResource(ctx, id)
	return r, classify(ctx, op, err)
}

// UpdateResource implements store.Resources.
func (c *CheckedStore) UpdateResource(ctx context.Context, id string, metadata map[string]any) (Resource, error) {
	const op = "UpdateResource"
	if err := enter(ctx, op); err != nil {
		return Resource{}, err
	}
	if c.res == nil {
		return Resource{}, unsupported(op, "Resources")
	}
	if err := checkIDs(op, "resourceId", id); err != nil {
		return Resource{}, err
	}
	if err := checkFields(op, "", metadata); err != nil {
		return Resource{}, err
	}
	r, err := c.res.UpdateResource(ctx, id, metadata)
	return r, classify(ctx, op, err)
}

// ListResourceMessages implements store.Observations.
func (c *CheckedStore) ListResourceMessages(ctx context.Context, q ResourceMessageQuery) ([]Message, error) {
	const op = "ListResourceMessages"
	if err := enter(ctx, op); err != nil {
		return nil, err
	}
	if c.obs == nil {
		return nil, unsupported(op, "Observations")
	}
	if err := store.ValidateResourceMessageQuery(q); err != nil {
		return nil, withOp(op, err)
	}
	out, err := c.obs.ListResourceMessages(ctx, q)
	return out, classify(ctx, op, err)
}

// GetObservations implements store.Observations.
func (c *CheckedStore) GetObservations(ctx context.Context, key string) (ObservationRecord, error) {
	const op = "GetObservations"
	if err := enter(ctx, op); err != nil {
		return ObservationRecord{}, err
	}
	if c.obs == nil {
		return ObservationRecord{}, unsupported(op, "Observations")
	}
	if _, _, err := store.ParseObservationKey(key); err != nil {
		return ObservationRecord{}, withOp(op, err)
	}
	r, err := c.obs.GetObservations(ctx, key)
	return r, classify(ctx, op, err)
}

// PutObservations implements store.Observations.
func (c *CheckedStore) PutObservations(ctx context.Context, rec ObservationRecord, expectVersion int64) (ObservationRecord, error) {
	const op = "PutObservations"
	if err := enter(ctx, op); err != nil {
		return ObservationRecord{}, err
	}
	if c.obs == nil {
		return ObservationRecord{}, unsupported(op, "Observations")
	}
	if _, _, err := store.ParseObservationKey(rec.Key); err != nil {
		return ObservationRecord{}, withOp(op, err)
	}
	if err := store.ValidateText("observations", rec.Observations); err != nil {
		return ObservationRecord{}, withOp(op, err)
	}
	if err := checkIDList(op, rec.ObservedMessageIDs); err != nil {
		return ObservationRecord{}, err
	}
	r, err := c.obs.PutObservations(ctx, rec, expectVersion)
	return r, classify(ctx, op, err)
}

// ListObservationGenerations implements store.Observations.
func (c *CheckedStore) ListObservationGenerations(ctx context.Context, key string) ([]ObservationRecord, error) {
	const op = "ListObservationGenerations"
	if err := enter(ctx, op); err != nil {
		return nil, err
	}
	if c.obs == nil {
		return nil, unsupported(op, "Observations")
	}
	if _, _, err := store.ParseObservationKey(key); err != nil {
		return nil, withOp(op, err)
	}
	out, err := c.obs.ListObservationGenerations(ctx, key)
	return out, classify(ctx, op, err)
}

// MarkUnindexed implements store.IndexQueue.
func (c *CheckedStore) MarkUnindexed(ctx context.Context, ids []string) error {
	const op = "MarkUnindexed"
	if err := enter(ctx, op); err != nil {
		return err
	}
	if c.queue == nil {
		return unsupported(op, "IndexQueue")
	}
	if err := checkIDList(op, ids); err != nil {
		return err
	}
	if len(ids) == 0 {
		return nil
	}
	return classify(ctx, op, c.queue.MarkUnindexed(ctx, ids))
}

// ClearUnindexed implements store.IndexQueue.
func (c *CheckedStore) ClearUnindexed(ctx context.Context, ids []string) error {
	const op = "ClearUnindexed"
	if err := enter(ctx, op); err != nil {
		return err
	}
	if c.queue == nil {
		return unsupported(op, "IndexQueue")
	}
	if err := checkIDList(op, ids); err != nil {
		return err
	}
	if len(ids) == 0 {
		return nil
	}
	return classify(ctx, op, c.queue.ClearUnindexed(ctx, ids))
}

// ListUnindexed implements store.IndexQueue.
func (c *CheckedStore) ListUnindexed(ctx context.Context, resourceID string, limit int) ([]Message, error) {
	const op = "ListUnindexed"
	if err := enter(ctx, op); err != nil {
		return nil, err
	}
	if c.queue == nil {
		return nil, unsupported(op, "IndexQueue")
	}
	if err := store.ValidateUnindexedQuery(resourceID, limit); err != nil {
		return nil, withOp(op, err)
	}
	out, err := c.queue.ListUnindexed(ctx, resourceID, limit)
	return out, classify(ctx, op, err)
}

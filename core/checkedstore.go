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
// The optional capabilities (ThreadCreator, Resources, ResourceLister,
// Observations, IndexQueue, WindowReader, BulkSaver) are methods of
// CheckedStore too: without the capability a call returns ErrUnsupported,
// except CreateThread, which falls back to a check and SaveThread,
// ListWindow, which falls back to ListMessages, and SaveMessagesBulk, which
// falls back to SaveMessages. CheckedStore is safe for concurrent use.
type CheckedStore struct {
	raw     store.Store
	creator store.ThreadCreator
	res     store.Resources
	lister  store.ResourceLister
	obs     store.Observations
	queue   store.IndexQueue
	window  store.WindowReader
	bulk    store.BulkSaver
	// releases: the driver keeps nothing of a saved batch, whose memory
	// SaveMessages then reuses (store.BatchReleaser).
	releases bool
}

// Check wraps s; a *CheckedStore is returned as it is.
func Check(s store.Store) *CheckedStore {
	if c, ok := s.(*CheckedStore); ok {
		return c
	}
	c := &CheckedStore{raw: s}
	c.creator, _ = s.(store.ThreadCreator)
	c.res, _ = s.(store.Resources)
	c.lister, _ = s.(store.ResourceLister)
	c.obs, _ = s.(store.Observations)
	c.queue, _ = s.(store.IndexQueue)
	c.window, _ = s.(store.WindowReader)
	c.bulk, _ = s.(store.BulkSaver)
	c.releases = store.Releases(s)
	return c
}

// Unwrap returns the driver.
func (c *CheckedStore) Unwrap() store.Store { return c.raw }

// Capabilities reports which optional capabilities the driver has.
func (c *CheckedStore) Capabilities() (creator, resources, observations, indexQueue bool) {
	return c.creator != nil, c.res != nil, c.obs != nil, c.queue != nil
}

var _ interface {
	store.Store
	store.ThreadCreator
	store.Resources
	store.ResourceLister
	store.Observations
	store.IndexQueue
	store.WindowReader
	store.BulkSaver
} = (*CheckedStore)(nil)

// enter refuses a nil or ended context.
func enter(ctx context.Context, op string) error {
	if ctx == nil {
		return memerr.Errorf(CodeInvalidArgument, op, "nil context")
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

// run is the shape of every checked call: a nil or ended context is refused,
// then the first failed check (arguments are validated when the call is
// built; each is pure), named with op; then the driver runs and its error is
// classified.
func run[T any](ctx context.Context, op string, do func() (T, error), checks ...error) (T, error) {
	var zero T
	if err := enter(ctx, op); err != nil {
		return zero, err
	}
	for _, err := range checks {
		if err != nil {
			return zero, withOp(op, err)
		}
	}
	out, err := do()
	return out, classify(ctx, op, err)
}

// run0 is run for calls that return only an error.
func run0(ctx context.Context, op string, do func() error, checks ...error) error {
	_, err := run(ctx, op, func() (struct{}, error) { return struct{}{}, do() }, checks...)
	return err
}

// missing is the error of a call to a capability the driver lacks.
func missing(present bool, capability string) error {
	if present {
		return nil
	}
	return memerr.Errorf(CodeUnsupported, "", "the store does not implement store.%s", capability)
}

// optionalID validates an id that may be empty.
func optionalID(name, id string) error {
	if id == "" {
		return nil
	}
	return store.ValidateID(name, id)
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
	return memerr.Errorf(CodeInvalidArgument, op, "scope must be %q or %q, got %q", ScopeThread, ScopeResource, scope)
}

// checkMessages applies validate (store.ValidateMessage or, for content
// already validated, store.ValidateStamp) to each message.
func checkMessages(op string, msgs []Message, validate func(int, *Message) error) error {
	for i := range msgs {
		if err := validate(i, &msgs[i]); err != nil {
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
func checkBoundary(op string, b store.Boundary) error {
	if b.CreatedAt.IsZero() || b.MaxTokens < 0 || b.AtMaxRemoveTokens < 0 || b.SeenSeq < 0 {
		return memerr.Errorf(CodeInvalidArgument, op, "boundary needs a createdAt and non-negative limits")
	}
	return checkIDList(op, b.MessageIDs)
}

// SaveThread implements store.Threads.
func (c *CheckedStore) SaveThread(ctx context.Context, t Thread) (Thread, error) {
	return run(ctx, "SaveThread", func() (Thread, error) { return c.raw.SaveThread(ctx, t) },
		checkThread("SaveThread", &t))
}

// CreateThread implements store.ThreadCreator: insert-only, ErrThreadExists
// when the id is taken. Without the driver capability it checks and saves,
// which is not atomic across concurrent creators.
func (c *CheckedStore) CreateThread(ctx context.Context, t Thread) (Thread, error) {
	const op = "CreateThread"
	return run(ctx, op, func() (Thread, error) {
		if c.creator != nil {
			return c.creator.CreateThread(ctx, t)
		}
		switch _, err := c.raw.GetThread(ctx, t.ID); {
		case err == nil:
			return Thread{}, memerr.Errorf(CodeThreadExists, op, "thread %q already exists", t.ID)
		case !errors.Is(err, ErrThreadNotFound):
			return Thread{}, err
		}
		return c.raw.SaveThread(ctx, t)
	}, checkThread(op, &t))
}

// GetThread implements store.Threads.
func (c *CheckedStore) GetThread(ctx context.Context, id string) (Thread, error) {
	return run(ctx, "GetThread", func() (Thread, error) { return c.raw.GetThread(ctx, id) },
		store.ValidateID("threadId", id))
}

// ListThreads implements store.Threads; q is normalised first.
func (c *CheckedStore) ListThreads(ctx context.Context, q store.ThreadQuery) (store.ThreadPage, error) {
	idErr := optionalID("resourceId", q.ResourceID)
	q, err := store.NormalizeThreadQuery(q)
	return run(ctx, "ListThreads", func() (store.ThreadPage, error) { return c.raw.ListThreads(ctx, q) },
		idErr, err)
}

// UpdateThread implements store.Threads.
func (c *CheckedStore) UpdateThread(ctx context.Context, id string, title *string, metadata map[string]any) (Thread, error) {
	const op = "UpdateThread"
	var titleErr error
	if title != nil {
		titleErr = checkFields(op, *title, nil)
	}
	return run(ctx, op, func() (Thread, error) { return c.raw.UpdateThread(ctx, id, title, metadata) },
		store.ValidateID("threadId", id), titleErr, checkFields(op, "", metadata))
}

// DeleteThread implements store.Threads.
func (c *CheckedStore) DeleteThread(ctx context.Context, id string) error {
	return run0(ctx, "DeleteThread", func() error { return c.raw.DeleteThread(ctx, id) },
		store.ValidateID("threadId", id))
}

// SaveMessages implements store.Messages.
func (c *CheckedStore) SaveMessages(ctx context.Context, msgs []Message) ([]Message, error) {
	return c.save(ctx, msgs, false, checkMessages("SaveMessages", msgs, store.ValidateMessage))
}

// SaveMessagesBulk implements store.BulkSaver, checked as SaveMessages;
// without the capability it is SaveMessages.
func (c *CheckedStore) SaveMessagesBulk(ctx context.Context, msgs []Message) ([]Message, error) {
	return c.save(ctx, msgs, true, checkMessages("SaveMessages", msgs, store.ValidateMessage))
}

// saveValidated is SaveMessages (SaveMessagesBulk when bulk) for messages
// whose content Memory has validated (store.ValidateContent, in
// validateMessage) and that nothing but prepare has changed since: the rest
// of store.ValidateMessage is checked, the content is not walked a second
// time.
func (c *CheckedStore) saveValidated(ctx context.Context, msgs []Message, bulk bool) ([]Message, error) {
	return c.save(ctx, msgs, bulk, checkMessages("SaveMessages", msgs, store.ValidateStamp))
}

func (c *CheckedStore) save(ctx context.Context, msgs []Message, bulk bool, check error) ([]Message, error) {
	return run(ctx, "SaveMessages", func() ([]Message, error) {
		switch {
		case len(msgs) == 0:
			return nil, nil
		case bulk && c.bulk != nil:
			return c.bulk.SaveMessagesBulk(ctx, msgs)
		}
		return c.raw.SaveMessages(ctx, msgs)
	}, check)
}

// ListMessages implements store.Messages; q is normalised first.
func (c *CheckedStore) ListMessages(ctx context.Context, q store.MessageQuery) (store.MessagePage, error) {
	q, err := store.NormalizeMessageQuery(q)
	return run(ctx, "ListMessages", func() (store.MessagePage, error) { return c.raw.ListMessages(ctx, q) },
		err, optionalID("resourceId", q.ResourceID))
}

// ListWindow implements store.WindowReader; q is normalised first and
// must list newest first without Include or IncludeTotal. Without the
// capability it lists the page with ListMessages, every row decoded.
func (c *CheckedStore) ListWindow(ctx context.Context, q store.MessageQuery, fit store.WindowFit) (store.WindowPage, error) {
	q, err := store.NormalizeMessageQuery(q)
	if err == nil && (q.Direction != store.Desc || len(q.Include) > 0 || q.IncludeTotal) {
		err = memerr.Errorf(memerr.CodeInvalidArgument, "ListWindow", "a window lists newest first, without include or total")
	}
	return run(ctx, "ListWindow", func() (store.WindowPage, error) {
		if c.window == nil {
			page, err := c.raw.ListMessages(ctx, q)
			return store.WindowPage{MessagePage: page}, err
		}
		page, err := c.window.ListWindow(ctx, q, fit)
		if err == nil && page.Bare != nil && len(page.Bare) != len(page.Messages) {
			err = memerr.Errorf(memerr.CodeStorage, "ListWindow", "the store marked %d of %d messages", len(page.Bare), len(page.Messages))
		}
		return page, err
	}, err, optionalID("resourceId", q.ResourceID))
}

// GetMessages implements store.Messages.
func (c *CheckedStore) GetMessages(ctx context.Context, ids []string) ([]Message, error) {
	return run(ctx, "GetMessages", func() ([]Message, error) {
		if len(ids) == 0 {
			return nil, nil
		}
		return c.raw.GetMessages(ctx, ids)
	}, store.ValidateIDs("id", ids))
}

// DeleteMessages implements store.Messages.
func (c *CheckedStore) DeleteMessages(ctx context.Context, ids []string) error {
	return run0(ctx, "DeleteMessages", func() error {
		if len(ids) == 0 {
			return nil
		}
		return c.raw.DeleteMessages(ctx, ids)
	}, store.ValidateIDs("id", ids))
}

// GetWorkingMemory implements store.WorkingMemories.
func (c *CheckedStore) GetWorkingMemory(ctx context.Context, scope Scope, id string) (store.WorkingMemory, error) {
	const op = "GetWorkingMemory"
	return run(ctx, op, func() (store.WorkingMemory, error) { return c.raw.GetWorkingMemory(ctx, scope, id) },
		checkScope(op, scope, id))
}

// PutWorkingMemory implements store.WorkingMemories.
func (c *CheckedStore) PutWorkingMemory(ctx context.Context, scope Scope, id, data string, expectVersion int64) (store.WorkingMemory, error) {
	const op = "PutWorkingMemory"
	var versionErr error
	if expectVersion < 0 {
		versionErr = memerr.Errorf(CodeInvalidArgument, op, "expectVersion must be >= 0")
	}
	return run(ctx, op, func() (store.WorkingMemory, error) {
		return c.raw.PutWorkingMemory(ctx, scope, id, data, expectVersion)
	},
		checkScope(op, scope, id), versionErr, store.ValidateText("working memory", data))
}

// AdvanceBoundary implements store.Boundaries.
func (c *CheckedStore) AdvanceBoundary(ctx context.Context, threadID, resourceID string, cand store.Boundary) (store.Boundary, error) {
	const op = "AdvanceBoundary"
	return run(ctx, op, func() (store.Boundary, error) { return c.raw.AdvanceBoundary(ctx, threadID, resourceID, cand) },
		checkIDs(op, "threadId", threadID, "resourceId", resourceID), checkBoundary(op, cand))
}

// Close implements store.Store.
func (c *CheckedStore) Close() error { return c.raw.Close() }

// GetResource implements store.Resources.
func (c *CheckedStore) GetResource(ctx context.Context, id string) (store.Resource, error) {
	return run(ctx, "GetResource", func() (store.Resource, error) { return c.res.GetResource(ctx, id) },
		missing(c.res != nil, "Resources"), store.ValidateID("resourceId", id))
}

// UpdateResource implements store.Resources.
func (c *CheckedStore) UpdateResource(ctx context.Context, id string, metadata map[string]any) (store.Resource, error) {
	const op = "UpdateResource"
	return run(ctx, op, func() (store.Resource, error) { return c.res.UpdateResource(ctx, id, metadata) },
		missing(c.res != nil, "Resources"), store.ValidateID("resourceId", id), checkFields(op, "", metadata))
}

// ListResources implements store.ResourceLister.
func (c *CheckedStore) ListResources(ctx context.Context, q store.ResourceQuery) (store.ResourcePage, error) {
	nq, qErr := store.NormalizeResourceQuery(q)
	return run(ctx, "ListResources", func() (store.ResourcePage, error) { return c.lister.ListResources(ctx, nq) },
		missing(c.lister != nil, "ResourceLister"), qErr)
}

// ListResourceMessages implements store.Observations.
func (c *CheckedStore) ListResourceMessages(ctx context.Context, q store.ResourceMessageQuery) ([]Message, error) {
	return run(ctx, "ListResourceMessages", func() ([]Message, error) { return c.obs.ListResourceMessages(ctx, q) },
		missing(c.obs != nil, "Observations"), store.ValidateResourceMessageQuery(q))
}

// GetObservations implements store.Observations.
func (c *CheckedStore) GetObservations(ctx context.Context, key string) (store.ObservationRecord, error) {
	return run(ctx, "GetObservations", func() (store.ObservationRecord, error) { return c.obs.GetObservations(ctx, key) },
		missing(c.obs != nil, "Observations"), checkKey(key))
}

// PutObservations implements store.Observations.
func (c *CheckedStore) PutObservations(ctx context.Context, rec store.ObservationRecord, expectVersion int64) (store.ObservationRecord, error) {
	return run(ctx, "PutObservations", func() (store.ObservationRecord, error) { return c.obs.PutObservations(ctx, rec, expectVersion) },
		missing(c.obs != nil, "Observations"), checkKey(rec.Key),
		store.ValidateText("observations", rec.Observations), store.ValidateIDs("id", rec.ObservedMessageIDs))
}

// ListObservationGenerations implements store.Observations.
func (c *CheckedStore) ListObservationGenerations(ctx context.Context, key string) ([]store.ObservationRecord, error) {
	return run(ctx, "ListObservationGenerations", func() ([]store.ObservationRecord, error) { return c.obs.ListObservationGenerations(ctx, key) },
		missing(c.obs != nil, "Observations"), checkKey(key))
}

// MarkUnindexed implements store.IndexQueue.
func (c *CheckedStore) MarkUnindexed(ctx context.Context, ids []string) error {
	return run0(ctx, "MarkUnindexed", func() error {
		if len(ids) == 0 {
			return nil
		}
		return c.queue.MarkUnindexed(ctx, ids)
	}, missing(c.queue != nil, "IndexQueue"), store.ValidateIDs("id", ids))
}

// ClearUnindexed implements store.IndexQueue.
func (c *CheckedStore) ClearUnindexed(ctx context.Context, ids []string) error {
	return run0(ctx, "ClearUnindexed", func() error {
		if len(ids) == 0 {
			return nil
		}
		return c.queue.ClearUnindexed(ctx, ids)
	}, missing(c.queue != nil, "IndexQueue"), store.ValidateIDs("id", ids))
}

// ListUnindexed implements store.IndexQueue.
func (c *CheckedStore) ListUnindexed(ctx context.Context, resourceID string, limit int) ([]Message, error) {
	return run(ctx, "ListUnindexed", func() ([]Message, error) { return c.queue.ListUnindexed(ctx, resourceID, limit) },
		missing(c.queue != nil, "IndexQueue"), store.ValidateUnindexedQuery(resourceID, limit))
}

// checkKey validates an observation key.
func checkKey(key string) error {
	_, _, err := store.ParseObservationKey(key)
	return err
}

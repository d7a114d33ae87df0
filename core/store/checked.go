package store

import (
	"context"
	"errors"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
)

// Checked is the one place every Store call passes through: it refuses
// a nil or ended context before the driver runs, validates and normalises
// arguments, names the operation on every error and classifies failures
// (an ended context first, then the driver's *memerr.Error, then memerr.CodeStorage).
// Memory uses it for every storage call and storetest drives backends
// through it, so a rule written here holds on every backend.
//
// The optional capabilities (ThreadCreator, Resources, ResourceLister,
// Observations, IndexQueue, WindowReader, BulkSaver, JointSaver) are methods
// of Checked too: without the capability a call returns memerr.ErrUnsupported,
// except CreateThread, which falls back to a check and SaveThread,
// ListWindow, which falls back to ListMessages, and SaveMessagesBulk, which
// falls back to SaveMessages. Checked is safe for concurrent use.
type Checked struct {
	raw     Store
	creator ThreadCreator
	res     Resources
	lister  ResourceLister
	obs     Observations
	queue   IndexQueue
	window  WindowReader
	bulk    BulkSaver
	joint   JointSaver
}

// Check wraps s; a *Checked is returned as it is.
func Check(s Store) *Checked {
	if c, ok := s.(*Checked); ok {
		return c
	}
	c := &Checked{raw: s}
	c.creator, _ = s.(ThreadCreator)
	c.res, _ = s.(Resources)
	c.lister, _ = s.(ResourceLister)
	c.obs, _ = s.(Observations)
	c.queue, _ = s.(IndexQueue)
	c.window, _ = s.(WindowReader)
	c.bulk, _ = s.(BulkSaver)
	c.joint, _ = s.(JointSaver)
	return c
}

// Unwrap returns the driver.
func (c *Checked) Unwrap() Store { return c.raw }

// Capabilities reports which optional capabilities the driver has.
func (c *Checked) Capabilities() (creator, resources, observations, indexQueue bool) {
	return c.creator != nil, c.res != nil, c.obs != nil, c.queue != nil
}

var _ interface {
	Store
	ThreadCreator
	Resources
	ResourceLister
	Observations
	IndexQueue
	WindowReader
	BulkSaver
	JointSaver
} = (*Checked)(nil)

// enter refuses a nil or ended context.
func enter(ctx context.Context, op string) error {
	if ctx == nil {
		return memerr.Errorf(memerr.CodeInvalidArgument, op, "nil context")
	}
	if e := memerr.Context(op, ctx.Err()); e != nil {
		return e
	}
	return nil
}

// classify maps a driver result: an ended context first (so that retry
// loops never retry a cancellation), then the driver's *memerr.Error with the
// operation named, then memerr.CodeStorage.
func classify(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	if e := memerr.Context(op, err); e != nil {
		return e
	}
	var e *memerr.Error
	if errors.As(err, &e) {
		if e.Is(memerr.ErrStorage) && ctx.Err() != nil {
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
			return zero, memerr.WithOp(op, err)
		}
	}
	end := callHook(ctx, op)
	out, err := do()
	return out, end(classify(ctx, op, err))
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
	return memerr.Errorf(memerr.CodeUnsupported, "", "the store does not implement %s", capability)
}

// optionalID validates an id that may be empty.
func optionalID(name, id string) error {
	if id == "" {
		return nil
	}
	return ValidateID(name, id)
}

// checkIDs validates name/value pairs of ids.
func checkIDs(op string, pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if err := ValidateID(pairs[i], pairs[i+1]); err != nil {
			return memerr.WithOp(op, err)
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
	return memerr.Errorf(memerr.CodeInvalidArgument, op, "scope must be %q or %q, got %q", ScopeThread, ScopeResource, scope)
}

// checkMessages applies validate (ValidateMessage or, for content
// already validated, ValidateStamp) to each message.
func checkMessages(op string, msgs []message.Message, validate func(int, *message.Message) error) error {
	for i := range msgs {
		if err := validate(i, &msgs[i]); err != nil {
			return memerr.WithOp(op, err)
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
	if err := ValidateText("title", title); err != nil {
		return memerr.WithOp(op, err)
	}
	return memerr.WithOp(op, ValidateMetadata("metadata", metadata))
}

// checkIDList validates a list of message ids.
func checkIDList(op string, ids []string) error {
	return memerr.WithOp(op, ValidateIDs("id", ids))
}

// checkBoundary validates a boundary candidate.
func checkBoundary(op string, b Boundary) error {
	if b.CreatedAt.IsZero() || b.MaxTokens < 0 || b.AtMaxRemoveTokens < 0 || b.SeenSeq < 0 {
		return memerr.Errorf(memerr.CodeInvalidArgument, op, "boundary needs a createdAt and non-negative limits")
	}
	return checkIDList(op, b.MessageIDs)
}

// SaveThread implements Threads.
func (c *Checked) SaveThread(ctx context.Context, t Thread) (Thread, error) {
	return run(ctx, "SaveThread", func() (Thread, error) { return c.raw.SaveThread(ctx, t) },
		checkThread("SaveThread", &t))
}

// CreateThread implements ThreadCreator: insert-only, memerr.ErrThreadExists
// when the id is taken. Without the driver capability it checks and saves,
// which is not atomic across concurrent creators.
func (c *Checked) CreateThread(ctx context.Context, t Thread) (Thread, error) {
	const op = "CreateThread"
	return run(ctx, op, func() (Thread, error) {
		if c.creator != nil {
			return c.creator.CreateThread(ctx, t)
		}
		switch _, err := c.raw.GetThread(ctx, t.ID); {
		case err == nil:
			return Thread{}, memerr.Errorf(memerr.CodeThreadExists, op, "thread %q already exists", t.ID)
		case !errors.Is(err, memerr.ErrThreadNotFound):
			return Thread{}, err
		}
		return c.raw.SaveThread(ctx, t)
	}, checkThread(op, &t))
}

// GetThread implements Threads.
func (c *Checked) GetThread(ctx context.Context, id string) (Thread, error) {
	return run(ctx, "GetThread", func() (Thread, error) { return c.raw.GetThread(ctx, id) },
		ValidateID("threadId", id))
}

// OwnedThread is GetThread for an operation op on behalf of resourceID: a
// thread of another resource fails with memerr.CodeResourceMismatch. An
// empty resourceID accepts any owner.
func (c *Checked) OwnedThread(ctx context.Context, op, threadID, resourceID string) (Thread, error) {
	if resourceID != "" {
		if err := memerr.WithOp(op, ValidateID("resourceId", resourceID)); err != nil {
			return Thread{}, err
		}
	}
	t, err := c.GetThread(ctx, threadID)
	if err != nil {
		return Thread{}, err
	}
	if resourceID != "" && t.ResourceID != resourceID {
		return Thread{}, &memerr.Error{Code: memerr.CodeResourceMismatch, Op: op,
			Msg: "Thread with id " + threadID + " is for resource with id " + t.ResourceID + " but resource " + resourceID + " was queried."}
	}
	return t, nil
}

// ListThreads implements Threads; q is normalised first.
func (c *Checked) ListThreads(ctx context.Context, q ThreadQuery) (ThreadPage, error) {
	idErr := optionalID("resourceId", q.ResourceID)
	q, err := NormalizeThreadQuery(q)
	return run(ctx, "ListThreads", func() (ThreadPage, error) { return c.raw.ListThreads(ctx, q) },
		idErr, err)
}

// UpdateThread implements Threads.
func (c *Checked) UpdateThread(ctx context.Context, id string, title *string, metadata map[string]any) (Thread, error) {
	const op = "UpdateThread"
	var titleErr error
	if title != nil {
		titleErr = checkFields(op, *title, nil)
	}
	return run(ctx, op, func() (Thread, error) { return c.raw.UpdateThread(ctx, id, title, metadata) },
		ValidateID("threadId", id), titleErr, checkFields(op, "", metadata))
}

// DeleteThread implements Threads.
func (c *Checked) DeleteThread(ctx context.Context, id string) error {
	return run0(ctx, "DeleteThread", func() error { return c.raw.DeleteThread(ctx, id) },
		ValidateID("threadId", id))
}

// SaveMessages implements Messages.
func (c *Checked) SaveMessages(ctx context.Context, msgs []message.Message) ([]message.Message, error) {
	return c.save(ctx, msgs, false, checkMessages("SaveMessages", msgs, ValidateMessage))
}

// SaveMessagesBulk implements BulkSaver, checked as SaveMessages;
// without the capability it is SaveMessages.
func (c *Checked) SaveMessagesBulk(ctx context.Context, msgs []message.Message) ([]message.Message, error) {
	return c.save(ctx, msgs, true, checkMessages("SaveMessages", msgs, ValidateMessage))
}

// SaveValidated is SaveMessages (SaveMessagesBulk when bulk) for messages
// whose content the caller has validated with ValidateContent and not
// changed since: the rest of ValidateMessage is checked, the content is not
// walked a second time.
func (c *Checked) SaveValidated(ctx context.Context, msgs []message.Message, bulk bool) ([]message.Message, error) {
	return c.save(ctx, msgs, bulk, checkMessages("SaveMessages", msgs, ValidateStamp))
}

func (c *Checked) save(ctx context.Context, msgs []message.Message, bulk bool, check error) ([]message.Message, error) {
	return run(ctx, "SaveMessages", func() ([]message.Message, error) {
		switch {
		case len(msgs) == 0:
			return nil, nil
		case bulk && c.bulk != nil:
			return c.bulk.SaveMessagesBulk(ctx, msgs)
		}
		return c.raw.SaveMessages(ctx, msgs)
	}, check)
}

// Database implements JointSaver; nil without the capability.
func (c *Checked) Database() any {
	if c.joint == nil {
		return nil
	}
	return c.joint.Database()
}

// SaveMessagesWith implements JointSaver, checked as SaveMessages.
func (c *Checked) SaveMessagesWith(ctx context.Context, msgs []message.Message, also []Statement) ([]message.Message, error) {
	return run(ctx, "SaveMessages", func() ([]message.Message, error) { return c.joint.SaveMessagesWith(ctx, msgs, also) },
		missing(c.joint != nil, "JointSaver"), checkMessages("SaveMessages", msgs, ValidateMessage))
}

// ListMessages implements Messages; q is normalised first.
func (c *Checked) ListMessages(ctx context.Context, q MessageQuery) (MessagePage, error) {
	q, err := NormalizeMessageQuery(q)
	return run(ctx, "ListMessages", func() (MessagePage, error) { return c.raw.ListMessages(ctx, q) },
		err, optionalID("resourceId", q.ResourceID))
}

// ListWindow implements WindowReader; q is normalised first and
// must list newest first without Include or IncludeTotal. Without the
// capability it lists the page with ListMessages, every row decoded.
func (c *Checked) ListWindow(ctx context.Context, q MessageQuery, fit WindowFit) (WindowPage, error) {
	q, err := NormalizeMessageQuery(q)
	if err == nil && (q.Direction != Desc || len(q.Include) > 0 || q.IncludeTotal) {
		err = memerr.Errorf(memerr.CodeInvalidArgument, "ListWindow", "a window lists newest first, without include or total")
	}
	return run(ctx, "ListWindow", func() (WindowPage, error) {
		if c.window == nil {
			page, err := c.raw.ListMessages(ctx, q)
			return WindowPage{MessagePage: page}, err
		}
		page, err := c.window.ListWindow(ctx, q, fit)
		if err == nil && page.Bare != nil && len(page.Bare) != len(page.Messages) {
			err = memerr.Errorf(memerr.CodeStorage, "ListWindow", "the store marked %d of %d messages", len(page.Bare), len(page.Messages))
		}
		return page, err
	}, err, optionalID("resourceId", q.ResourceID))
}

// GetMessages implements Messages.
func (c *Checked) GetMessages(ctx context.Context, ids []string) ([]message.Message, error) {
	return run(ctx, "GetMessages", func() ([]message.Message, error) {
		if len(ids) == 0 {
			return nil, nil
		}
		return c.raw.GetMessages(ctx, ids)
	}, ValidateIDs("id", ids))
}

// DeleteMessages implements Messages.
func (c *Checked) DeleteMessages(ctx context.Context, ids []string) error {
	return run0(ctx, "DeleteMessages", func() error {
		if len(ids) == 0 {
			return nil
		}
		return c.raw.DeleteMessages(ctx, ids)
	}, ValidateIDs("id", ids))
}

// GetWorkingMemory implements WorkingMemories.
func (c *Checked) GetWorkingMemory(ctx context.Context, scope Scope, id string) (WorkingMemory, error) {
	const op = "GetWorkingMemory"
	return run(ctx, op, func() (WorkingMemory, error) { return c.raw.GetWorkingMemory(ctx, scope, id) },
		checkScope(op, scope, id))
}

// PutWorkingMemory implements WorkingMemories.
func (c *Checked) PutWorkingMemory(ctx context.Context, scope Scope, id, data string, expectVersion int64) (WorkingMemory, error) {
	const op = "PutWorkingMemory"
	var versionErr error
	if expectVersion < 0 {
		versionErr = memerr.Errorf(memerr.CodeInvalidArgument, op, "expectVersion must be >= 0")
	}
	return run(ctx, op, func() (WorkingMemory, error) {
		return c.raw.PutWorkingMemory(ctx, scope, id, data, expectVersion)
	},
		checkScope(op, scope, id), versionErr, ValidateText("working memory", data))
}

// AdvanceBoundary implements Boundaries.
func (c *Checked) AdvanceBoundary(ctx context.Context, threadID, resourceID string, cand Boundary) (Boundary, error) {
	const op = "AdvanceBoundary"
	return run(ctx, op, func() (Boundary, error) { return c.raw.AdvanceBoundary(ctx, threadID, resourceID, cand) },
		checkIDs(op, "threadId", threadID, "resourceId", resourceID), checkBoundary(op, cand))
}

// Close implements Store.
func (c *Checked) Close() error { return c.raw.Close() }

// GetResource implements Resources.
func (c *Checked) GetResource(ctx context.Context, id string) (Resource, error) {
	return run(ctx, "GetResource", func() (Resource, error) { return c.res.GetResource(ctx, id) },
		missing(c.res != nil, "Resources"), ValidateID("resourceId", id))
}

// UpdateResource implements Resources.
func (c *Checked) UpdateResource(ctx context.Context, id string, metadata map[string]any) (Resource, error) {
	const op = "UpdateResource"
	return run(ctx, op, func() (Resource, error) { return c.res.UpdateResource(ctx, id, metadata) },
		missing(c.res != nil, "Resources"), ValidateID("resourceId", id), checkFields(op, "", metadata))
}

// ListResources implements ResourceLister.
func (c *Checked) ListResources(ctx context.Context, q ResourceQuery) (ResourcePage, error) {
	nq, qErr := NormalizeResourceQuery(q)
	return run(ctx, "ListResources", func() (ResourcePage, error) { return c.lister.ListResources(ctx, nq) },
		missing(c.lister != nil, "ResourceLister"), qErr)
}

// ListResourceMessages implements Observations.
func (c *Checked) ListResourceMessages(ctx context.Context, q ResourceMessageQuery) ([]message.Message, error) {
	return run(ctx, "ListResourceMessages", func() ([]message.Message, error) { return c.obs.ListResourceMessages(ctx, q) },
		missing(c.obs != nil, "Observations"), ValidateResourceMessageQuery(q))
}

// GetObservations implements Observations.
func (c *Checked) GetObservations(ctx context.Context, key string) (ObservationRecord, error) {
	return run(ctx, "GetObservations", func() (ObservationRecord, error) { return c.obs.GetObservations(ctx, key) },
		missing(c.obs != nil, "Observations"), checkKey(key))
}

// PutObservations implements Observations.
func (c *Checked) PutObservations(ctx context.Context, rec ObservationRecord, expectVersion int64) (ObservationRecord, error) {
	return run(ctx, "PutObservations", func() (ObservationRecord, error) { return c.obs.PutObservations(ctx, rec, expectVersion) },
		missing(c.obs != nil, "Observations"), checkKey(rec.Key),
		ValidateText("observations", rec.Observations), ValidateIDs("id", rec.ObservedMessageIDs),
		ValidateIDs("id", rec.UnobservedMessageIDs))
}

// ClearObservations implements Observations.
func (c *Checked) ClearObservations(ctx context.Context, key string) (ObservationRecord, error) {
	return run(ctx, "ClearObservations", func() (ObservationRecord, error) { return c.obs.ClearObservations(ctx, key) },
		missing(c.obs != nil, "Observations"), checkKey(key))
}

// ListObservationGenerations implements Observations.
func (c *Checked) ListObservationGenerations(ctx context.Context, key string) ([]ObservationRecord, error) {
	return run(ctx, "ListObservationGenerations", func() ([]ObservationRecord, error) { return c.obs.ListObservationGenerations(ctx, key) },
		missing(c.obs != nil, "Observations"), checkKey(key))
}

// MarkUnindexed implements IndexQueue.
func (c *Checked) MarkUnindexed(ctx context.Context, ids []string) error {
	return run0(ctx, "MarkUnindexed", func() error {
		if len(ids) == 0 {
			return nil
		}
		return c.queue.MarkUnindexed(ctx, ids)
	}, missing(c.queue != nil, "IndexQueue"), ValidateIDs("id", ids))
}

// ClearUnindexed implements IndexQueue.
func (c *Checked) ClearUnindexed(ctx context.Context, ids []string) error {
	return run0(ctx, "ClearUnindexed", func() error {
		if len(ids) == 0 {
			return nil
		}
		return c.queue.ClearUnindexed(ctx, ids)
	}, missing(c.queue != nil, "IndexQueue"), ValidateIDs("id", ids))
}

// ListUnindexed implements IndexQueue.
func (c *Checked) ListUnindexed(ctx context.Context, resourceID string, limit int) ([]message.Message, error) {
	return run(ctx, "ListUnindexed", func() ([]message.Message, error) { return c.queue.ListUnindexed(ctx, resourceID, limit) },
		missing(c.queue != nil, "IndexQueue"), ValidateUnindexedQuery(resourceID, limit))
}

// checkKey validates an observation key.
func checkKey(key string) error {
	_, _, err := ParseObservationKey(key)
	return err
}

// markBatch is how many message ids one MarkUnindexed call of
// MarkThreadUnindexed carries.
const markBatch = 500

// MarkThreadUnindexed marks every message of a thread unindexed, newest
// first, a page at a time (IndexQueue).
func (c *Checked) MarkThreadUnindexed(ctx context.Context, threadID string) error {
	q := MessageQuery{ThreadID: threadID, PerPage: markBatch, Direction: Desc}
	for {
		page, err := c.ListMessages(ctx, q)
		if err != nil {
			return err
		}
		ids := make([]string, len(page.Messages))
		for i := range page.Messages {
			ids[i] = page.Messages[i].ID
		}
		if err := c.MarkUnindexed(ctx, ids); err != nil {
			return err
		}
		if !page.HasMore {
			return nil
		}
		last := page.Messages[len(page.Messages)-1]
		q.Before = &Cursor{CreatedAt: last.CreatedAt, Seq: last.Seq}
	}
}

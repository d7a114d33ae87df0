package core

import (
	"context"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
)

// entry holds what every public entry point checks first: its context and
// that the Memory has a store.
type entry struct {
	store *store.Checked // nil without Options.Store
}

// open is the first step of every public entry point that takes a context:
// a nil context is refused with a typed error before anything runs (it
// would panic inside a driver, on SQLite while holding the pool's lock, so
// that every later write blocks), an ended one with CodeCanceled or
// CodeDeadlineExceeded; then the checked store is returned.
func (e *entry) open(ctx context.Context, op string) (*store.Checked, error) {
	if ctx == nil {
		return nil, memerr.Errorf(memerr.CodeInvalidArgument, op, "nil context")
	}
	if err := memerr.Context(op, ctx.Err()); err != nil {
		return nil, err
	}
	return e.checked()
}

// openThread is open for an entry point on one thread: the id is checked
// even when the call would otherwise do nothing.
func (e *entry) openThread(ctx context.Context, op, threadID string) (*store.Checked, error) {
	s, err := e.open(ctx, op)
	if err != nil {
		return nil, err
	}
	return s, memerr.WithOp(op, store.ValidateID("threadId", threadID))
}

// checked returns the checked store or ErrNoStorage.
func (e *entry) checked() (*store.Checked, error) {
	if e.store == nil {
		return nil, memerr.ErrNoStorage.New("")
	}
	return e.store, nil
}

// checkOptionalResource validates a resource id that may be empty ("any").
func checkOptionalResource(op, resourceID string) error {
	if resourceID == "" {
		return nil
	}
	return memerr.WithOp(op, store.ValidateID("resourceId", resourceID))
}

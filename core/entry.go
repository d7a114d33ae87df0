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
		return nil, memerr.Errorf(CodeInvalidArgument, op, "nil context")
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
		return nil, ErrNoStorage.New("")
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

// requireDeps fails when resolved settings need a dependency Memory was built
// without: semantic recall needs a vector store and an embedder (unless the
// vector store embeds), and a store with the capabilities the features use.
// New and every per-call Config go through it, so a per-call Config cannot
// turn on a feature the instance cannot serve.
func (c *configs) requireDeps(op string, s settings) error {
	if s.recall != nil {
		if c.opts.Vector == nil {
			return &Error{Code: CodeNoVectorStore, Op: op, Msg: ErrNoVectorStore.Msg()}
		}
		if c.opts.Embedder == nil && !c.opts.Vector.SelfEmbedding() {
			return &Error{Code: CodeNoEmbedder, Op: op, Msg: ErrNoEmbedder.Msg()}
		}
	}
	if c.store != nil {
		return requireCapabilities(op, c.store, s)
	}
	return nil
}

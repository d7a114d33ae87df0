package thread

import (
	"context"
	"errors"
	"time"

	"github.com/agentmem/agentmem/core/internal/indexing"
	"github.com/agentmem/agentmem/core/internal/recall"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// Clock stamps creation times, in the order of the memory's other writes.
type Clock interface {
	Stamp() time.Time
}

// Index is what the keeper needs of semantic recall; *recall.Engine is one.
type Index interface {
	// SaveIndexed saves a batch with save, or jointly with its vectors
	// (recall.Engine.SaveIndexed).
	SaveIndexed(ctx context.Context, s *store.Checked, rs *recall.Settings, batch []message.Message, prior *indexing.Prior,
		save func() ([]message.Message, error)) ([]message.Message, *indexing.Embedded, error)
	// OwnerChange marks a change of the thread or resource of stored
	// messages until end is called.
	OwnerChange() (end func())
	// Unindex deletes the vectors of msgs, logging failures.
	Unindex(ctx context.Context, msgs []message.Message)
	// DeleteThreadVectors deletes a thread's vectors under each resource.
	DeleteThreadVectors(ctx context.Context, threadID string, resources ...string) error
}

// Observer is what a move needs of observational memory;
// *observe.Observer is one.
type Observer interface {
	// Lock holds key's record against this process's observation cycles
	// until unlock is called.
	Lock(ctx context.Context, key string) (unlock func(), err error)
}

// Deps are what a Keeper is built over.
type Deps struct {
	Store    *store.Checked
	Rules    Rules
	Clock    Clock
	NewID    func() string
	Count    func(*message.Message) // counts a message's tokens unless counted
	Index    Index
	Observer Observer
	// Vectors: the memory has a vector store, so moves and deletes
	// have vector records to keep right.
	Vectors bool
}

// Keeper keeps threads and their messages in a store.
type Keeper struct {
	d Deps
}

// New returns a Keeper over d.
func New(d Deps) *Keeper { return &Keeper{d: d} }

// lookup reads a thread; found is false when it does not exist.
func (k *Keeper) lookup(ctx context.Context, id string) (store.Thread, bool, error) {
	th, err := k.d.Store.GetThread(ctx, id)
	if errors.Is(err, memerr.ErrThreadNotFound) {
		return store.Thread{}, false, nil
	}
	return th, err == nil, err
}

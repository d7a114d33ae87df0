package thread

import (
	"context"
	"errors"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
)

// Create creates (or replaces) th, stamped with its creation time.
func (k *Keeper) Create(ctx context.Context, th store.Thread) (store.Thread, error) {
	now := k.d.Clock.Stamp()
	th.CreatedAt, th.UpdatedAt = now, now
	return k.d.Store.SaveThread(ctx, th)
}

// Get returns a thread. With a non-empty resourceID, a thread of another
// resource is reported as ErrThreadNotFound (tenant isolation).
func (k *Keeper) Get(ctx context.Context, id, resourceID string) (store.Thread, error) {
	t, err := k.d.Store.GetThread(ctx, id)
	if err != nil {
		return store.Thread{}, err
	}
	if resourceID != "" && t.ResourceID != resourceID {
		return store.Thread{}, memerr.Errorf(memerr.CodeThreadNotFound, "GetThread", "Thread %s not found", id)
	}
	return t, nil
}

// Delete deletes a thread, its messages and its vectors; an unknown thread
// is fine.
func (k *Keeper) Delete(ctx context.Context, id string) error {
	s := k.d.Store
	t, err := s.GetThread(ctx, id)
	if errors.Is(err, memerr.ErrThreadNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	defer k.d.Index.OwnerChange()()
	if err := s.DeleteThread(ctx, id); err != nil {
		return err
	}
	return k.d.Index.DeleteThreadVectors(ctx, id, t.ResourceID)
}

package modeltest

import (
	"context"
	"fmt"
	"sync"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/sqlite"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
)

// writeHook counts the writes to the stores once armed and stops the
// process for good after the one it is set to, where the parent kills it.
type writeHook struct {
	mu     sync.Mutex
	armed  bool
	n      int
	names  []string // what each write since arming was
	stopAt int      // 0: only count
}

func (h *writeHook) wrote(what string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.armed {
		return
	}
	h.names = append(h.names, what)
	if h.n++; h.n == h.stopAt {
		fmt.Printf("AT write %d (%s)\n", h.n, what)
		select {} // the parent kills the process here
	}
}

// hookedStore is SQLite with every write reported to the hook after it
// is committed; the embedded store keeps every capability.
type hookedStore struct {
	*sqlite.Store
	h *writeHook
}

// after reports a write of a result-returning method to the hook.
func after[T any](h *writeHook, what string) func(T, error) (T, error) {
	return func(v T, err error) (T, error) {
		h.wrote(what)
		return v, err
	}
}

// afterErr reports a write of an error-only method to the hook.
func afterErr(h *writeHook, what string) func(error) error {
	return func(err error) error {
		h.wrote(what)
		return err
	}
}

func (s *hookedStore) SaveThread(ctx context.Context, t store.Thread) (store.Thread, error) {
	return after[store.Thread](s.h, "SaveThread")(s.Store.SaveThread(ctx, t))
}
func (s *hookedStore) CreateThread(ctx context.Context, t store.Thread) (store.Thread, error) {
	return after[store.Thread](s.h, "CreateThread")(s.Store.CreateThread(ctx, t))
}
func (s *hookedStore) UpdateThread(ctx context.Context, id string, title *string, md map[string]any) (store.Thread, error) {
	return after[store.Thread](s.h, "UpdateThread")(s.Store.UpdateThread(ctx, id, title, md))
}
func (s *hookedStore) DeleteThread(ctx context.Context, id string) error {
	return afterErr(s.h, "DeleteThread")(s.Store.DeleteThread(ctx, id))
}
func (s *hookedStore) MoveThread(ctx context.Context, id, res string) (store.Thread, error) {
	return after[store.Thread](s.h, "MoveThread")(s.Store.MoveThread(ctx, id, res))
}
func (s *hookedStore) SaveMessages(ctx context.Context, msgs []message.Message) ([]message.Message, error) {
	return after[[]message.Message](s.h, "SaveMessages")(s.Store.SaveMessages(ctx, msgs))
}
func (s *hookedStore) SaveMessagesBulk(ctx context.Context, msgs []message.Message) ([]message.Message, error) {
	return after[[]message.Message](s.h, "SaveMessagesBulk")(s.Store.SaveMessagesBulk(ctx, msgs))
}
func (s *hookedStore) DeleteMessages(ctx context.Context, ids []string) error {
	return afterErr(s.h, "DeleteMessages")(s.Store.DeleteMessages(ctx, ids))
}
func (s *hookedStore) PutWorkingMemory(ctx context.Context, sc store.Scope, id, data string, v int64) (store.WorkingMemory, error) {
	return after[store.WorkingMemory](s.h, "PutWorkingMemory")(s.Store.PutWorkingMemory(ctx, sc, id, data, v))
}
func (s *hookedStore) AdvanceBoundary(ctx context.Context, th, res string, b store.Boundary) (store.Boundary, error) {
	return after[store.Boundary](s.h, "AdvanceBoundary")(s.Store.AdvanceBoundary(ctx, th, res, b))
}
func (s *hookedStore) UpdateResource(ctx context.Context, id string, md map[string]any) (store.Resource, error) {
	return after[store.Resource](s.h, "UpdateResource")(s.Store.UpdateResource(ctx, id, md))
}

// PutObservations reports an activation of buffered chunks as such; the
// write of a new chunk comes from a background job, at no fixed point of
// an operation, and is no crash point.
func (s *hookedStore) PutObservations(ctx context.Context, rec store.ObservationRecord, v int64) (store.ObservationRecord, error) {
	cur, err := s.Store.GetObservations(ctx, rec.Key)
	if err == nil && len(rec.Buffer.Chunks) > len(cur.Buffer.Chunks) {
		return s.Store.PutObservations(ctx, rec, v)
	}
	what := "PutObservations"
	if err == nil && len(rec.Buffer.Chunks) < len(cur.Buffer.Chunks) {
		what = activationWrite
	}
	return after[store.ObservationRecord](s.h, what)(s.Store.PutObservations(ctx, rec, v))
}

// activationWrite names the write that activates buffered observations.
const activationWrite = "PutObservations activating buffered chunks"

func (s *hookedStore) ClearObservations(ctx context.Context, key string) (store.ObservationRecord, error) {
	return after[store.ObservationRecord](s.h, "ClearObservations")(s.Store.ClearObservations(ctx, key))
}
func (s *hookedStore) MarkUnindexed(ctx context.Context, ids []string) error {
	return afterErr(s.h, "MarkUnindexed")(s.Store.MarkUnindexed(ctx, ids))
}
func (s *hookedStore) ClearUnindexed(ctx context.Context, ids []string) error {
	return afterErr(s.h, "ClearUnindexed")(s.Store.ClearUnindexed(ctx, ids))
}

// hookedVectors is the local vector file with every write reported.
type hookedVectors struct {
	*local.Store
	h *writeHook
}

func (v *hookedVectors) Upsert(ctx context.Context, index string, recs []vector.Record) error {
	return afterErr(v.h, "vector Upsert")(v.Store.Upsert(ctx, index, recs))
}
func (v *hookedVectors) Delete(ctx context.Context, index string, f vector.Filter) error {
	return afterErr(v.h, "vector Delete")(v.Store.Delete(ctx, index, f))
}

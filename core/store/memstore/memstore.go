// Package memstore is an in-process core.Store: goroutine-safe, copies values
// in and out, and forgets everything when the process ends. It is the
// reference backend of the conformance suite and handy in tests.
package memstore

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/agentmem/agentmem/core"
)

// Store is an in-memory core.Store. The zero value is not usable; call New.
type Store struct {
	mu        sync.RWMutex
	threads   map[string]*threadRow
	messages  map[string]*core.Message
	byThread  map[string][]*core.Message // sorted by (CreatedAt, Seq)
	resources map[string]*resourceRow
	obs       map[string]*obsRow // observational memory by key
	unindexed map[string]bool    // ids of messages that still need indexing
	seq       int64
}

type threadRow struct {
	core.Thread
	wm core.WorkingMemory
}

type resourceRow struct {
	core.Resource
	wm core.WorkingMemory
}

var _ core.Store = (*Store)(nil)

// New returns an empty store.
func New() *Store {
	return &Store{
		threads:   map[string]*threadRow{},
		messages:  map[string]*core.Message{},
		byThread:  map[string][]*core.Message{},
		resources: map[string]*resourceRow{},
		obs:       map[string]*obsRow{},
		unindexed: map[string]bool{},
	}
}

// Close is a no-op.
func (s *Store) Close() error { return nil }

func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// SaveThread implements core.Store.
func (s *Store) SaveThread(ctx context.Context, t core.Thread) (core.Thread, error) {
	if err := core.ValidateID("threadId", t.ID); err != nil {
		return core.Thread{}, err
	}
	if err := core.ValidateID("resourceId", t.ResourceID); err != nil {
		return core.Thread{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t = t.Clone()
	if t.CreatedAt.IsZero() {
		t.CreatedAt = now()
	}
	if t.UpdatedAt.IsZero() {
		t.UpdatedAt = t.CreatedAt
	}
	// Microsecond precision, like the SQL stores.
	t.CreatedAt, t.UpdatedAt = t.CreatedAt.UTC().Truncate(time.Microsecond), t.UpdatedAt.UTC().Truncate(time.Microsecond)
	row := &threadRow{Thread: t}
	if old, ok := s.threads[t.ID]; ok {
		if old.ResourceID != t.ResourceID {
			return core.Thread{}, core.Errorf(core.CodeResourceMismatch, "SaveThread",
				"thread %q belongs to resource %q, not %q", t.ID, old.ResourceID, t.ResourceID)
		}
		row.CreatedAt, row.Boundary, row.wm = old.CreatedAt, old.Boundary, old.wm
	}
	s.threads[t.ID] = row
	return row.Thread.Clone(), nil
}

// GetThread implements core.Store.
func (s *Store) GetThread(ctx context.Context, id string) (core.Thread, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	row, ok := s.threads[id]
	if !ok {
		return core.Thread{}, core.Errorf(core.CodeThreadNotFound, "GetThread", "Thread %s not found", id)
	}
	return row.Thread.Clone(), nil
}

// ListThreads implements core.Store.
func (s *Store) ListThreads(ctx context.Context, q core.ThreadQuery) (core.ThreadPage, error) {
	q, err := core.NormalizeThreadQuery(q)
	if err != nil {
		return core.ThreadPage{}, err
	}
	s.mu.RLock()
	var all []core.Thread
	for _, row := range s.threads {
		if (q.ResourceID == "" || row.ResourceID == q.ResourceID) && metadataMatches(row.Metadata, q.Metadata) {
			all = append(all, row.Thread.Clone())
		}
	}
	s.mu.RUnlock()
	key := func(t core.Thread) time.Time {
		if q.OrderBy == "updatedAt" {
			return t.UpdatedAt
		}
		return t.CreatedAt
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := key(all[i]), key(all[j])
		if !a.Equal(b) {
			return a.Before(b) == (q.Direction == core.Asc)
		}
		return (all[i].ID < all[j].ID) == (q.Direction == core.Asc)
	})
	page := core.ThreadPage{Total: len(all), Page: q.Page, PerPage: q.PerPage}
	if q.PerPage == core.PerPageAll {
		page.Threads = all
		return page, nil
	}
	lo, hi := pageBounds(q.Page, q.PerPage, len(all))
	page.Threads = all[lo:hi]
	page.HasMore = hi < len(all)
	return page, nil
}

// pageBounds returns the slice bounds of page (perPage > 0) among n rows,
// without overflowing on huge caller-supplied values.
func pageBounds(page, perPage, n int) (lo, hi int) {
	lo = n
	if page <= n/perPage {
		lo = page * perPage // <= n
	}
	return lo, lo + min(perPage, n-lo)
}

func metadataMatches(md, filter map[string]any) bool {
	for k, want := range filter {
		got, ok := md[k]
		if !ok || !scalarEqual(got, want) {
			return false
		}
	}
	return true
}

func scalarEqual(a, b any) bool {
	fa, aok := toFloat(a)
	fb, bok := toFloat(b)
	if aok && bok {
		return fa == fb
	}
	return a == b
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	}
	return 0, false
}

// UpdateThread implements core.Store.
func (s *Store) UpdateThread(ctx context.Context, id string, title *string, metadata map[string]any) (core.Thread, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	row, ok := s.threads[id]
	if !ok {
		return core.Thread{}, core.Errorf(core.CodeThreadNotFound, "UpdateThread", "Thread %s not found", id)
	}
	if title != nil {
		row.Title = *title
	}
	if len(metadata) > 0 && row.Metadata == nil {
		row.Metadata = map[string]any{}
	}
	for k, v := range core.CloneMetadata(metadata) {
		if v == nil {
			delete(row.Metadata, k)
		} else {
			row.Metadata[k] = v
		}
	}
	s.touch(row)
	return row.Thread.Clone(), nil
}

// touch bumps UpdatedAt strictly forward.
func (s *Store) touch(row *threadRow) {
	t := now()
	if !t.After(row.UpdatedAt) {
		t = row.UpdatedAt.Add(time.Microsecond)
	}
	row.UpdatedAt = t
}

// DeleteThread implements core.Store.
func (s *Store) DeleteThread(ctx context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.byThread[id] {
		delete(s.messages, m.ID)
		delete(s.unindexed, m.ID)
	}
	delete(s.byThread, id)
	delete(s.threads, id)
	delete(s.obs, core.ObservationKey(core.ScopeThread, id, ""))
	return nil
}

// GetResource implements core.Store.
func (s *Store) GetResource(ctx context.Context, id string) (core.Resource, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	row, ok := s.resources[id]
	if !ok {
		return core.Resource{}, core.Errorf(core.CodeNotFound, "GetResource", "resource %s not found", id)
	}
	return row.clone(), nil
}

func (r *resourceRow) clone() core.Resource {
	out := r.Resource
	out.Metadata = core.CloneMetadata(r.Metadata)
	if out.Metadata == nil {
		out.Metadata = map[string]any{}
	}
	out.WorkingMemory = r.wm.Data
	return out
}

// UpdateResource implements core.Store.
func (s *Store) UpdateResource(ctx context.Context, id string, metadata map[string]any) (core.Resource, error) {
	if err := core.ValidateID("resourceId", id); err != nil {
		return core.Resource{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	row := s.resource(id)
	for k, v := range core.CloneMetadata(metadata) {
		if v == nil {
			delete(row.Metadata, k)
		} else {
			row.Metadata[k] = v
		}
	}
	row.UpdatedAt = now()
	return row.clone(), nil
}

func (s *Store) resource(id string) *resourceRow {
	row, ok := s.resources[id]
	if !ok {
		t := now()
		row = &resourceRow{Resource: core.Resource{ID: id, Metadata: map[string]any{}, CreatedAt: t, UpdatedAt: t}}
		s.resources[id] = row
	}
	return row
}

// GetWorkingMemory implements core.Store.
func (s *Store) GetWorkingMemory(ctx context.Context, scope core.Scope, id string) (core.WorkingMemory, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	switch scope {
	case core.ScopeThread:
		row, ok := s.threads[id]
		if !ok {
			return core.WorkingMemory{}, core.Errorf(core.CodeThreadNotFound, "GetWorkingMemory", "Thread %s not found", id)
		}
		return row.wm, nil
	case core.ScopeResource:
		if row, ok := s.resources[id]; ok {
			return row.wm, nil
		}
		return core.WorkingMemory{}, nil
	}
	return core.WorkingMemory{}, core.Errorf(core.CodeInvalidArgument, "GetWorkingMemory", "unknown scope %q", scope)
}

// PutWorkingMemory implements core.Store.
func (s *Store) PutWorkingMemory(ctx context.Context, scope core.Scope, id, data string, expect int64) (core.WorkingMemory, error) {
	const op = "PutWorkingMemory"
	s.mu.Lock()
	defer s.mu.Unlock()
	var wm *core.WorkingMemory
	switch scope {
	case core.ScopeThread:
		row, ok := s.threads[id]
		if !ok {
			return core.WorkingMemory{}, core.Errorf(core.CodeThreadNotFound, op, "Thread %s not found", id)
		}
		wm = &row.wm
	case core.ScopeResource:
		if err := core.ValidateID("resourceId", id); err != nil {
			return core.WorkingMemory{}, err
		}
		wm = &s.resource(id).wm
	default:
		return core.WorkingMemory{}, core.Errorf(core.CodeInvalidArgument, op, "unknown scope %q", scope)
	}
	if wm.Version != expect {
		return core.WorkingMemory{}, core.Errorf(core.CodeConflict, op, "working memory version is %d, expected %d", wm.Version, expect)
	}
	*wm = core.WorkingMemory{Data: data, Version: expect + 1, UpdatedAt: now()}
	return *wm, nil
}

// AdvanceBoundary implements core.Store.
func (s *Store) AdvanceBoundary(ctx context.Context, threadID, resourceID string, cand core.Boundary) (core.Boundary, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	row, ok := s.threads[threadID]
	if !ok {
		return core.Boundary{}, core.Errorf(core.CodeThreadNotFound, "AdvanceBoundary", "Thread %s not found", threadID)
	}
	if row.ResourceID != resourceID {
		return core.Boundary{}, core.Errorf(core.CodeResourceMismatch, "AdvanceBoundary",
			"thread %q belongs to resource %q, not %q", threadID, row.ResourceID, resourceID)
	}
	b := core.MergeBoundary(row.Boundary, cand)
	row.Boundary = &b
	return b.Clone(), nil
}

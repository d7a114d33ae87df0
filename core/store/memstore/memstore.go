// Package memstore is an in-process store.Store: goroutine-safe, copies values
// in and out, and forgets everything when the process ends. It is the
// reference backend of the conformance suite and handy in tests.
package memstore

import (
	"context"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// Store is an in-memory store.Store. The zero value is not usable; call New.
type Store struct {
	mu        sync.RWMutex
	threads   map[string]*threadRow
	messages  map[string]*message.Message
	byThread  map[string][]*message.Message // sorted by (CreatedAt, Seq)
	resources map[string]*resourceRow
	obs       map[string]*obsRow // observational memory by key
	unindexed map[string]bool    // ids of messages that still need indexing
	seq       int64
}

type threadRow struct {
	store.Thread
	wm store.WorkingMemory
}

type resourceRow struct {
	store.Resource
	wm store.WorkingMemory
}

var _ store.Store = (*Store)(nil)

// New returns an empty store.
func New() *Store {
	return &Store{
		threads:   map[string]*threadRow{},
		messages:  map[string]*message.Message{},
		byThread:  map[string][]*message.Message{},
		resources: map[string]*resourceRow{},
		obs:       map[string]*obsRow{},
		unindexed: map[string]bool{},
	}
}

// Close is a no-op.
func (s *Store) Close() error { return nil }

func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// SaveThread implements store.Threads.
func (s *Store) SaveThread(ctx context.Context, t store.Thread) (store.Thread, error) {
	return s.putThread(ctx, "SaveThread", t, false)
}

// CreateThread implements store.ThreadCreator.
func (s *Store) CreateThread(ctx context.Context, t store.Thread) (store.Thread, error) {
	return s.putThread(ctx, "CreateThread", t, true)
}

func (s *Store) putThread(ctx context.Context, op string, t store.Thread, create bool) (store.Thread, error) {
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
		if create {
			return store.Thread{}, memerr.Errorf(memerr.CodeThreadExists, op, "thread %q already exists", t.ID)
		}
		if old.ResourceID != t.ResourceID {
			return store.Thread{}, memerr.Errorf(memerr.CodeResourceMismatch, "SaveThread",
				"thread %q belongs to resource %q, not %q", t.ID, old.ResourceID, t.ResourceID)
		}
		row.CreatedAt, row.Boundary, row.wm = old.CreatedAt, old.Boundary, old.wm
	}
	s.threads[t.ID] = row
	return row.Thread.Clone(), nil
}

// GetThread implements store.Store.
func (s *Store) GetThread(ctx context.Context, id string) (store.Thread, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	row, ok := s.threads[id]
	if !ok {
		return store.Thread{}, memerr.Errorf(memerr.CodeThreadNotFound, "GetThread", "Thread %s not found", id)
	}
	return row.Thread.Clone(), nil
}

// ListThreads implements store.Store.
func (s *Store) ListThreads(ctx context.Context, q store.ThreadQuery) (store.ThreadPage, error) {
	s.mu.RLock()
	var all []store.Thread
	for _, row := range s.threads {
		if (q.ResourceID == "" || row.ResourceID == q.ResourceID) && metadataMatches(row.Metadata, q.Metadata) {
			all = append(all, row.Thread.Clone())
		}
	}
	s.mu.RUnlock()
	key := func(t store.Thread) time.Time {
		if q.OrderBy == "updatedAt" {
			return t.UpdatedAt
		}
		return t.CreatedAt
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := key(all[i]), key(all[j])
		if !a.Equal(b) {
			return a.Before(b) == (q.Direction == store.Asc)
		}
		return (all[i].ID < all[j].ID) == (q.Direction == store.Asc)
	})
	page := store.ThreadPage{Total: len(all), Page: q.Page, PerPage: q.PerPage}
	if q.PerPage == store.PerPageAll {
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

// UpdateThread implements store.Store.
func (s *Store) UpdateThread(ctx context.Context, id string, title *string, metadata map[string]any) (store.Thread, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	row, ok := s.threads[id]
	if !ok {
		return store.Thread{}, memerr.Errorf(memerr.CodeThreadNotFound, "UpdateThread", "Thread %s not found", id)
	}
	if title != nil {
		row.Title = *title
	}
	row.Metadata = store.MergeMetadata(row.Metadata, message.CloneMetadata(metadata))
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

// DeleteThread implements store.Store.
func (s *Store) DeleteThread(ctx context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.byThread[id] {
		delete(s.messages, m.ID)
		delete(s.unindexed, m.ID)
	}
	delete(s.byThread, id)
	delete(s.threads, id)
	delete(s.obs, store.ObservationKey(store.ScopeThread, id, ""))
	return nil
}

// GetResource implements store.Store.
func (s *Store) GetResource(ctx context.Context, id string) (store.Resource, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	row, ok := s.resources[id]
	if !ok {
		return store.Resource{}, memerr.Errorf(memerr.CodeNotFound, "GetResource", "resource %s not found", id)
	}
	return row.clone(), nil
}

// ListResources implements store.ResourceLister.
func (s *Store) ListResources(ctx context.Context, q store.ResourceQuery) (store.ResourcePage, error) {
	q, err := store.NormalizeResourceQuery(q)
	if err != nil {
		return store.ResourcePage{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	ids := make([]string, 0, len(s.resources))
	for id := range s.resources {
		if id > q.After {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	var page store.ResourcePage
	if len(ids) > q.PerPage {
		ids, page.HasMore = ids[:q.PerPage], true
	}
	for _, id := range ids {
		page.Resources = append(page.Resources, s.resources[id].clone())
	}
	return page, nil
}

func (r *resourceRow) clone() store.Resource {
	out := r.Resource
	out.Metadata = message.CloneMetadata(r.Metadata)
	if out.Metadata == nil {
		out.Metadata = map[string]any{}
	}
	out.WorkingMemory = r.wm.Data
	return out
}

// UpdateResource implements store.Store.
func (s *Store) UpdateResource(ctx context.Context, id string, metadata map[string]any) (store.Resource, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	row := s.resource(id)
	row.Metadata = store.MergeMetadata(row.Metadata, message.CloneMetadata(metadata))
	row.UpdatedAt = now()
	return row.clone(), nil
}

func (s *Store) resource(id string) *resourceRow {
	row, ok := s.resources[id]
	if !ok {
		t := now()
		row = &resourceRow{Resource: store.Resource{ID: id, Metadata: map[string]any{}, CreatedAt: t, UpdatedAt: t}}
		s.resources[id] = row
	}
	return row
}

// GetWorkingMemory implements store.Store.
func (s *Store) GetWorkingMemory(ctx context.Context, scope store.Scope, id string) (store.WorkingMemory, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	switch scope {
	case store.ScopeThread:
		row, ok := s.threads[id]
		if !ok {
			return store.WorkingMemory{}, memerr.Errorf(memerr.CodeThreadNotFound, "GetWorkingMemory", "Thread %s not found", id)
		}
		return row.wm, nil
	case store.ScopeResource:
		if row, ok := s.resources[id]; ok {
			return row.wm, nil
		}
		return store.WorkingMemory{}, nil
	}
	return store.WorkingMemory{}, memerr.Errorf(memerr.CodeInvalidArgument, "GetWorkingMemory", "unknown scope %q", scope)
}

// PutWorkingMemory implements store.Store.
func (s *Store) PutWorkingMemory(ctx context.Context, scope store.Scope, id, data string, expect int64) (store.WorkingMemory, error) {
	const op = "PutWorkingMemory"
	s.mu.Lock()
	defer s.mu.Unlock()
	var wm *store.WorkingMemory
	switch scope {
	case store.ScopeThread:
		row, ok := s.threads[id]
		if !ok {
			return store.WorkingMemory{}, memerr.Errorf(memerr.CodeThreadNotFound, op, "Thread %s not found", id)
		}
		wm = &row.wm
	case store.ScopeResource:
		wm = &s.resource(id).wm
	default:
		return store.WorkingMemory{}, memerr.Errorf(memerr.CodeInvalidArgument, op, "unknown scope %q", scope)
	}
	if wm.Version != expect {
		return store.WorkingMemory{}, memerr.Errorf(memerr.CodeConflict, op, "working memory version is %d, expected %d", wm.Version, expect)
	}
	*wm = store.WorkingMemory{Data: data, Version: expect + 1, UpdatedAt: now()}
	return *wm, nil
}

// AdvanceBoundary implements store.Store.
func (s *Store) AdvanceBoundary(ctx context.Context, threadID, resourceID string, cand store.Boundary) (store.Boundary, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	row, ok := s.threads[threadID]
	if !ok {
		return store.Boundary{}, memerr.Errorf(memerr.CodeThreadNotFound, "AdvanceBoundary", "Thread %s not found", threadID)
	}
	if row.ResourceID != resourceID {
		return store.Boundary{}, memerr.Errorf(memerr.CodeResourceMismatch, "AdvanceBoundary",
			"thread %q belongs to resource %q, not %q", threadID, row.ResourceID, resourceID)
	}
	var first time.Time
	if cand.SeenSeq > 0 {
		first = s.firstUnseen(threadID, cand.SeenSeq)
	}
	cand = store.ClampBoundary(cand, row.Boundary, first)
	b := store.MergeBoundary(row.Boundary, cand)
	row.Boundary = &b
	return b.Clone(), nil
}

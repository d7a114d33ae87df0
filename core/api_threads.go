package core

import (
	"context"

	"github.com/agentmem/agentmem/core/store"
)

// ThreadInput describes a thread to create.
type ThreadInput struct {
	ID         string // generated when empty
	ResourceID string
	Title      string
	Metadata   map[string]any
}

// CreateThread creates (or replaces) a thread. An empty ID is generated.
// With working memory enabled, a string Metadata["workingMemory"] is moved
// into working memory (the resource's in resource scope, the thread's in
// thread scope), as Mastra's saveThread does; it is not kept in the metadata.
func (m *Memory) CreateThread(ctx context.Context, in ThreadInput) (store.Thread, error) {
	const op = "CreateThread"
	if _, err := m.entry.open(ctx, op); err != nil {
		return store.Thread{}, err
	}
	if in.ID == "" {
		in.ID = m.opts.NewID()
	}
	if err := m.rules.CheckTitle(op, in.Title); err != nil {
		return store.Thread{}, err
	}
	meta, wm, err := m.metadataWorkingMemory(op, in.Metadata)
	if err != nil {
		return store.Thread{}, err
	}
	th, err := m.threads.Create(ctx, store.Thread{ID: in.ID, ResourceID: in.ResourceID, Title: in.Title, Metadata: meta})
	if err != nil || wm == nil {
		return th, err
	}
	return th, m.workingMemory.Save(ctx, m.conf.st.wm.settings(), th, *wm)
}

// GetThread returns a thread. With a non-empty resourceID, a thread of another
// resource is reported as ErrThreadNotFound (tenant isolation).
func (m *Memory) GetThread(ctx context.Context, id, resourceID string) (store.Thread, error) {
	if _, err := m.entry.open(ctx, "GetThread"); err != nil {
		return store.Thread{}, err
	}
	if err := store.ValidateID("threadId", id); err != nil {
		return store.Thread{}, err
	}
	if err := checkOptionalResource("GetThread", resourceID); err != nil {
		return store.Thread{}, err
	}
	return m.threads.Get(ctx, id, resourceID)
}

// ListThreads lists threads, newest first by default.
func (m *Memory) ListThreads(ctx context.Context, q store.ThreadQuery) (store.ThreadPage, error) {
	s, err := m.entry.open(ctx, "ListThreads")
	if err != nil {
		return store.ThreadPage{}, err
	}
	return s.ListThreads(ctx, q)
}

// ThreadUpdate is a partial thread update: a nil Title is left unchanged and
// Metadata is shallow-merged (a nil value deletes a key).
type ThreadUpdate struct {
	Title    *string
	Metadata map[string]any
}

// UpdateThread applies a partial update. A string Metadata["workingMemory"]
// is written into working memory, as in CreateThread.
func (m *Memory) UpdateThread(ctx context.Context, id string, up ThreadUpdate) (store.Thread, error) {
	const op = "UpdateThread"
	s, err := m.entry.open(ctx, op)
	if err != nil {
		return store.Thread{}, err
	}
	if err := store.ValidateID("threadId", id); err != nil {
		return store.Thread{}, err
	}
	if up.Title != nil {
		if err := m.rules.CheckTitle(op, *up.Title); err != nil {
			return store.Thread{}, err
		}
	}
	meta, wm, err := m.metadataWorkingMemory(op, up.Metadata)
	if err != nil {
		return store.Thread{}, err
	}
	th, err := s.UpdateThread(ctx, id, up.Title, meta)
	if err != nil || wm == nil {
		return th, err
	}
	return th, m.workingMemory.Save(ctx, m.conf.st.wm.settings(), th, *wm)
}

// metadataWorkingMemory splits a string "workingMemory" key off thread
// metadata when working memory is enabled, and validates it
// (workingmem.Keeper.FromMetadata).
func (m *Memory) metadataWorkingMemory(op string, meta map[string]any) (rest map[string]any, wm *string, err error) {
	if m.conf.st.wm == nil {
		return meta, nil, nil
	}
	return m.workingMemory.FromMetadata(op, m.conf.st.wm.settings(), meta)
}

// DeleteThread deletes a thread, its messages and its vectors.
func (m *Memory) DeleteThread(ctx context.Context, id string) (err error) {
	ctx, sp := m.spans.startOp(ctx, "DeleteThread", id, "", deleteMemory)
	defer func() { err = sp.End(err) }()
	if _, err := m.entry.open(ctx, "DeleteThread"); err != nil {
		return err
	}
	if err := store.ValidateID("threadId", id); err != nil {
		return err
	}
	return m.threads.Delete(ctx, id)
}

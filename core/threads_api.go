package core

import (
	"context"
	"errors"
)

// ThreadInput describes a thread to create.
type ThreadInput struct {
	ID         string // generated when empty
	ResourceID string
	Title      string
	Metadata   map[string]any
}

// CreateThread creates (or replaces) a thread. An empty ID is generated.
func (m *Memory) CreateThread(ctx context.Context, in ThreadInput) (Thread, error) {
	s, err := m.open(ctx, "CreateThread")
	if err != nil {
		return Thread{}, err
	}
	if in.ID == "" {
		in.ID = m.opts.NewID()
	}
	if err := m.checkTitle("CreateThread", in.Title); err != nil {
		return Thread{}, err
	}
	now := m.stamp()
	return s.SaveThread(ctx, Thread{ID: in.ID, ResourceID: in.ResourceID, Title: in.Title,
		Metadata: in.Metadata, CreatedAt: now, UpdatedAt: now})
}

// GetThread returns a thread. With a non-empty resourceID, a thread of another
// resource is reported as ErrThreadNotFound (tenant isolation).
func (m *Memory) GetThread(ctx context.Context, id, resourceID string) (Thread, error) {
	s, err := m.open(ctx, "GetThread")
	if err != nil {
		return Thread{}, err
	}
	if err := ValidateID("threadId", id); err != nil {
		return Thread{}, err
	}
	if err := checkOptionalResource("GetThread", resourceID); err != nil {
		return Thread{}, err
	}
	t, err := s.GetThread(ctx, id)
	if err != nil {
		return Thread{}, err
	}
	if resourceID != "" && t.ResourceID != resourceID {
		return Thread{}, Errorf(CodeThreadNotFound, "GetThread", "Thread %s not found", id)
	}
	return t, nil
}

// ListThreads lists threads, newest first by default.
func (m *Memory) ListThreads(ctx context.Context, q ThreadQuery) (ThreadPage, error) {
	s, err := m.open(ctx, "ListThreads")
	if err != nil {
		return ThreadPage{}, err
	}
	return s.ListThreads(ctx, q)
}

// ThreadUpdate is a partial thread update: a nil Title is left unchanged and
// Metadata is shallow-merged (a nil value deletes a key).
type ThreadUpdate struct {
	Title    *string
	Metadata map[string]any
}

// UpdateThread applies a partial update.
func (m *Memory) UpdateThread(ctx context.Context, id string, up ThreadUpdate) (Thread, error) {
	s, err := m.open(ctx, "UpdateThread")
	if err != nil {
		return Thread{}, err
	}
	if err := ValidateID("threadId", id); err != nil {
		return Thread{}, err
	}
	if up.Title != nil {
		if err := m.checkTitle("UpdateThread", *up.Title); err != nil {
			return Thread{}, err
		}
	}
	return s.UpdateThread(ctx, id, up.Title, up.Metadata)
}

// DeleteThread deletes a thread, its messages and its vectors.
func (m *Memory) DeleteThread(ctx context.Context, id string) error {
	s, err := m.open(ctx, "DeleteThread")
	if err != nil {
		return err
	}
	if err := ValidateID("threadId", id); err != nil {
		return err
	}
	t, err := s.GetThread(ctx, id)
	if errors.Is(err, ErrThreadNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := s.DeleteThread(ctx, id); err != nil {
		return err
	}
	return m.deleteVectors(ctx, VectorFilter{ResourceID: t.ResourceID, ThreadID: id})
}

// ownedThread loads a thread and checks it belongs to resourceID.
func (m *Memory) ownedThread(ctx context.Context, s *CheckedStore, op, threadID, resourceID string) (Thread, error) {
	if err := checkOptionalResource(op, resourceID); err != nil {
		return Thread{}, err
	}
	t, err := s.GetThread(ctx, threadID)
	if err != nil {
		return Thread{}, err
	}
	if resourceID != "" && t.ResourceID != resourceID {
		return Thread{}, &Error{Code: CodeResourceMismatch, Op: op,
			Msg: "Thread with id " + threadID + " is for resource with id " + t.ResourceID + " but resource " + resourceID + " was queried."}
	}
	return t, nil
}

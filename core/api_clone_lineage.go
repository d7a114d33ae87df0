package core

import (
	"context"
	"time"

	"github.com/agentmem/agentmem/core/internal/thread"
	"github.com/agentmem/agentmem/core/store"
)

// CloneInfo is the record CloneThread writes under a clone's
// metadata["clone"] (Mastra's ThreadCloneMetadata).
type CloneInfo struct {
	SourceThreadID string
	ClonedAt       time.Time // zero when the record has no readable time
	LastMessageID  string    // the last copied source message; "" when none was copied
}

// CloneInfoOf returns the clone record of t, and false when t is not a
// clone (Mastra's getCloneMetadata).
func CloneInfoOf(t store.Thread) (CloneInfo, bool) {
	info, ok := thread.CloneInfoOf(t)
	return CloneInfo(info), ok
}

// IsClone reports whether t was made by CloneThread (Mastra's isClone).
func IsClone(t store.Thread) bool {
	_, ok := thread.CloneInfoOf(t)
	return ok
}

// CloneSource returns the thread a clone was made from (Mastra's
// getSourceThread). found is false when threadID is unknown, is not a
// clone, or its source was deleted.
func (m *Memory) CloneSource(ctx context.Context, threadID string) (src store.Thread, found bool, err error) {
	if _, err := m.entry.openThread(ctx, "CloneSource", threadID); err != nil {
		return store.Thread{}, false, err
	}
	return m.threads.CloneSource(ctx, threadID)
}

// ListClones lists the threads cloned directly from sourceThreadID (not the
// clones of its clones) among the threads of resourceID, or of the source's
// resource when resourceID is "" (Mastra's listClones), newest first. An
// unknown source without resourceID has no clones.
func (m *Memory) ListClones(ctx context.Context, sourceThreadID, resourceID string) ([]store.Thread, error) {
	const op = "ListClones"
	if _, err := m.entry.openThread(ctx, op, sourceThreadID); err != nil {
		return nil, err
	}
	if err := checkOptionalResource(op, resourceID); err != nil {
		return nil, err
	}
	return m.threads.Clones(ctx, sourceThreadID, resourceID)
}

// CloneHistory returns the chain of clones that leads to threadID, from
// the original thread to threadID itself (Mastra's getCloneHistory): an
// original gives itself alone, an unknown id an empty list. The chain stops
// at a deleted source, and at a thread seen before (metadata edited into a
// cycle).
func (m *Memory) CloneHistory(ctx context.Context, threadID string) ([]store.Thread, error) {
	if _, err := m.entry.openThread(ctx, "CloneHistory", threadID); err != nil {
		return nil, err
	}
	return m.threads.CloneHistory(ctx, threadID)
}

package thread

import (
	"context"
	"time"

	"github.com/agentmem/agentmem/core/store"
)

// CloneInfo is the record Clone writes under a clone's metadata["clone"]
// (core.CloneInfo).
type CloneInfo struct {
	SourceThreadID string
	ClonedAt       time.Time // zero when the record has no readable time
	LastMessageID  string    // the last copied source message; "" when none was copied
}

// CloneInfoOf returns the clone record of t, and false when t is not a
// clone.
func CloneInfoOf(t store.Thread) (CloneInfo, bool) {
	rec, ok := t.Metadata["clone"].(map[string]any)
	if !ok {
		return CloneInfo{}, false
	}
	src, _ := rec["sourceThreadId"].(string)
	if src == "" {
		return CloneInfo{}, false
	}
	info := CloneInfo{SourceThreadID: src}
	info.LastMessageID, _ = rec["lastMessageId"].(string)
	if at, ok := rec["clonedAt"].(string); ok {
		info.ClonedAt, _ = time.Parse(time.RFC3339Nano, at)
	}
	return info, true
}

// CloneSource returns the thread a clone was made from. found is false
// when threadID is unknown, is not a clone, or its source was deleted.
func (k *Keeper) CloneSource(ctx context.Context, threadID string) (src store.Thread, found bool, err error) {
	th, ok, err := k.lookup(ctx, threadID)
	if err != nil || !ok {
		return store.Thread{}, false, err
	}
	info, ok := CloneInfoOf(th)
	if !ok || store.ValidateID("threadId", info.SourceThreadID) != nil {
		return store.Thread{}, false, nil
	}
	return k.lookup(ctx, info.SourceThreadID)
}

// Clones lists the threads cloned directly from sourceThreadID among the
// threads of resourceID, or of the source's resource when resourceID is
// "", newest first. An unknown source without resourceID has no clones.
func (k *Keeper) Clones(ctx context.Context, sourceThreadID, resourceID string) ([]store.Thread, error) {
	if resourceID == "" {
		src, ok, err := k.lookup(ctx, sourceThreadID)
		if err != nil || !ok {
			return []store.Thread{}, err
		}
		resourceID = src.ResourceID
	}
	page, err := k.d.Store.ListThreads(ctx, store.ThreadQuery{ResourceID: resourceID, PerPage: store.PerPageAll})
	if err != nil {
		return nil, err
	}
	out := []store.Thread{}
	for _, th := range page.Threads {
		if info, ok := CloneInfoOf(th); ok && info.SourceThreadID == sourceThreadID {
			out = append(out, th)
		}
	}
	return out, nil
}

// CloneHistory returns the chain of clones that leads to threadID, from
// the original thread to threadID itself: an original gives itself alone,
// an unknown id an empty list. The chain stops at a deleted source, and at
// a thread seen before (metadata edited into a cycle).
func (k *Keeper) CloneHistory(ctx context.Context, threadID string) ([]store.Thread, error) {
	var chain []store.Thread
	seen := map[string]bool{}
	for id := threadID; id != "" && !seen[id]; {
		seen[id] = true
		th, ok, err := k.lookup(ctx, id)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		chain = append(chain, th)
		info, _ := CloneInfoOf(th)
		id = info.SourceThreadID
		if id != "" && store.ValidateID("threadId", id) != nil {
			break // a hand-edited record that names no valid thread
		}
	}
	out := make([]store.Thread, len(chain))
	for i, th := range chain {
		out[len(chain)-1-i] = th
	}
	return out, nil
}

package core

import (
	"context"

	"github.com/agentmem/agentmem/core/internal/thread"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// CloneOptions describe a thread copy.
type CloneOptions struct {
	SourceThreadID string
	NewThreadID    string          // generated when empty; must not exist
	ResourceID     string          // default: the source's resource
	Title          *string         // default: "Clone of <source title>" ("" for an untitled source)
	Metadata       map[string]any  // merged into the clone's metadata
	MessageLimit   int             // keep only the newest N messages (0: all)
	Range          store.DateRange // only messages in this range
	MessageIDs     []string        // only these messages
}

// CloneThread copies a thread and its (selected) messages under new ids. The
// clone's metadata records {clone: {sourceThreadId, clonedAt, lastMessageId}};
// thread-scoped working memory and observations are copied (the active
// generation, keeping its number), and when the clone goes to another
// resource, the source resource's working memory and resource-scoped
// observations too, unless that resource has its own (never overwritten).
// Nothing is lost to a cursor that never saw it: the copied record lists
// that resource's own messages older than its cursor as unobserved, and a
// record of its own lists the copies older than its cursor (as MoveThread
// does); within one resource, the record lists the copies of the messages
// it lists as unobserved. A failure removes the partial clone.
func (m *Memory) CloneThread(ctx context.Context, o CloneOptions) (_ store.Thread, _ []message.Message, err error) {
	ctx, sp := m.spans.startOp(ctx, "CloneThread", o.SourceThreadID, o.ResourceID, "")
	defer func() { err = sp.End(err) }()
	if _, err := m.entry.open(ctx, "CloneThread"); err != nil {
		return store.Thread{}, nil, err
	}
	if err := store.ValidateID("threadId", o.SourceThreadID); err != nil {
		return store.Thread{}, nil, err
	}
	st, err := m.conf.settings(nil) // before the copies are saved (see recall.Write)
	if err != nil {
		return store.Thread{}, nil, err
	}
	th, copies, err := m.threads.Clone(ctx, thread.CloneOptions(o))
	if err != nil {
		return store.Thread{}, nil, err
	}
	m.effects.runEffects(ctx, m.effects.saveEffects(st, copies, nil, nil))
	return th, copies, nil
}

package core

import (
	"context"
	"errors"
	"time"
)

// CloneOptions describe a thread copy.
type CloneOptions struct {
	SourceThreadID string
	NewThreadID    string         // generated when empty; must not exist
	ResourceID     string         // default: the source's resource
	Title          *string        // default: "Clone of <source title>" ("" for an untitled source)
	Metadata       map[string]any // merged into the clone's metadata
	MessageLimit   int            // keep only the newest N messages (0: all)
	Range          DateRange      // only messages in this range
	MessageIDs     []string       // only these messages
}

// CloneThread copies a thread and its (selected) messages under new ids. The
// clone's metadata records {clone: {sourceThreadId, clonedAt, lastMessageId}};
// thread-scoped working memory and observations are copied (the active
// generation, keeping its number), and when the clone goes to another
// resource, the source resource's working memory and resource-scoped
// observations too, unless that resource has its own (never overwritten). A
// failure removes the partial clone.
func (m *Memory) CloneThread(ctx context.Context, o CloneOptions) (Thread, []Message, error) {
	const op = "CloneThread"
	s, err := m.open(ctx, "CloneThread")
	if err != nil {
		return Thread{}, nil, err
	}
	if err := ValidateID("threadId", o.SourceThreadID); err != nil {
		return Thread{}, nil, err
	}
	src, err := s.GetThread(ctx, o.SourceThreadID)
	if errors.Is(err, ErrThreadNotFound) {
		return Thread{}, nil, Errorf(CodeThreadNotFound, op, "Source thread with id %s not found", o.SourceThreadID)
	} else if err != nil {
		return Thread{}, nil, err
	}
	if o.NewThreadID == "" {
		o.NewThreadID = m.opts.NewID()
	}
	if o.ResourceID == "" {
		o.ResourceID = src.ResourceID
	}
	page, err := s.ListMessages(ctx, MessageQuery{ThreadID: src.ID, PerPage: PerPageAll, Range: o.Range})
	if err != nil {
		return Thread{}, nil, err
	}
	msgs := page.Messages
	if len(o.MessageIDs) > 0 {
		want := map[string]bool{}
		for _, id := range o.MessageIDs {
			want[id] = true
		}
		var sel []Message
		for _, msg := range msgs {
			if want[msg.ID] {
				sel = append(sel, msg)
			}
		}
		msgs = sel
	}
	if o.MessageLimit > 0 && len(msgs) > o.MessageLimit {
		msgs = msgs[len(msgs)-o.MessageLimit:]
	}
	title := ""
	if src.Title != "" {
		title = "Clone of " + src.Title
	}
	if o.Title != nil {
		title = *o.Title
	}
	meta := CloneMetadata(src.Metadata)
	if meta == nil {
		meta = map[string]any{}
	}
	for k, v := range CloneMetadata(o.Metadata) {
		meta[k] = v
	}
	info := map[string]any{"sourceThreadId": src.ID, "clonedAt": m.stamp().Format(time.RFC3339Nano)}
	copies := make([]Message, len(msgs))
	idMap := make(map[string]string, len(msgs))
	for i, msg := range msgs {
		c := msg.Clone()
		c.ID, c.ThreadID, c.ResourceID, c.Seq = m.opts.NewID(), o.NewThreadID, o.ResourceID, 0
		idMap[msg.ID] = c.ID
		copies[i] = c
		info["lastMessageId"] = msg.ID
	}
	meta["clone"] = info
	now := m.stamp()
	// Insert-only: of two concurrent clones to one id exactly one creates it.
	if err := m.checkTitle(op, title); err != nil {
		return Thread{}, nil, err
	}
	th, err := s.CreateThread(ctx, Thread{ID: o.NewThreadID, ResourceID: o.ResourceID, Title: title, Metadata: meta, CreatedAt: now, UpdatedAt: now})
	if errors.Is(err, ErrThreadExists) {
		return Thread{}, nil, Errorf(CodeThreadExists, op, "Thread with id %s already exists", o.NewThreadID)
	} else if err != nil {
		return Thread{}, nil, err
	}
	fail := func(err error) (Thread, []Message, error) {
		_ = s.DeleteThread(context.WithoutCancel(ctx), th.ID)
		return Thread{}, nil, err
	}
	if wm, err := s.GetWorkingMemory(ctx, ScopeThread, src.ID); err != nil {
		return fail(err)
	} else if wm.Version > 0 {
		if _, err := s.PutWorkingMemory(ctx, ScopeThread, th.ID, wm.Data, 0); err != nil {
			return fail(err)
		}
	}
	if o.ResourceID != src.ResourceID {
		// The new owner inherits the source resource's working memory unless
		// it already has its own (never overwritten).
		if wm, err := s.GetWorkingMemory(ctx, ScopeResource, src.ResourceID); err != nil {
			return fail(err)
		} else if wm.Version > 0 {
			if _, err := s.PutWorkingMemory(ctx, ScopeResource, o.ResourceID, wm.Data, 0); err != nil && !errors.Is(err, ErrConflict) {
				return fail(err)
			}
		}
	}
	if len(copies) > 0 {
		if copies, err = s.SaveMessages(ctx, copies); err != nil {
			return fail(err)
		}
	}
	if err := cloneObservations(ctx, s, ObservationKey(ScopeThread, src.ID, ""), ObservationKey(ScopeThread, th.ID, ""), idMap); err != nil {
		return fail(err)
	}
	if o.ResourceID != src.ResourceID {
		err := cloneObservations(ctx, s, ObservationKey(ScopeResource, "", src.ResourceID), ObservationKey(ScopeResource, "", o.ResourceID), idMap)
		if err != nil && !errors.Is(err, ErrConflict) {
			return fail(err)
		}
	}
	if st, err := m.settings(nil); err == nil {
		m.runEffects(ctx, m.saveEffects(st, copies, nil))
	}
	return th, copies, nil
}

// cloneObservations copies the active generation of the observational-memory
// record under from to the new record under to, keeping its generation number
// and remapping observed message ids to the copies (ids of messages not
// copied are dropped); archived generations stay with the source. The write
// is insert-only: an existing record under to is ErrConflict.
func cloneObservations(ctx context.Context, s *CheckedStore, from, to string, idMap map[string]string) error {
	if _, _, obs, _ := s.Capabilities(); !obs {
		return nil // a store without observations has none to copy
	}
	rec, err := s.GetObservations(ctx, from)
	if err != nil || rec.Version == 0 {
		return err
	}
	out := rec.Clone()
	out.Key, out.Version = to, 0
	out.ObservedMessageIDs = out.ObservedMessageIDs[:0]
	for _, id := range rec.ObservedMessageIDs {
		if n, ok := idMap[id]; ok {
			out.ObservedMessageIDs = append(out.ObservedMessageIDs, n)
		}
	}
	_, err = s.PutObservations(ctx, out, 0)
	return err
}

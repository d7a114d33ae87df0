package core

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/agentmem/agentmem/core/internal/observe"
	"github.com/agentmem/agentmem/core/memerr"
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
	const op = "CloneThread"
	ctx, sp := m.spans.startOp(ctx, op, o.SourceThreadID, o.ResourceID, "")
	defer func() { err = sp.End(err) }()
	s, err := m.entry.open(ctx, "CloneThread")
	if err != nil {
		return store.Thread{}, nil, err
	}
	if err := store.ValidateID("threadId", o.SourceThreadID); err != nil {
		return store.Thread{}, nil, err
	}
	src, err := s.GetThread(ctx, o.SourceThreadID)
	if errors.Is(err, memerr.ErrThreadNotFound) {
		return store.Thread{}, nil, memerr.Errorf(memerr.CodeThreadNotFound, op, "Source thread with id %s not found", o.SourceThreadID)
	} else if err != nil {
		return store.Thread{}, nil, err
	}
	st, err := m.conf.settings(nil) // before the copies are saved (see ownerChanges)
	if err != nil {
		return store.Thread{}, nil, err
	}
	if o.NewThreadID == "" {
		o.NewThreadID = m.opts.NewID()
	}
	if o.ResourceID == "" {
		o.ResourceID = src.ResourceID
	}
	msgs, err := cloneSelection(ctx, s, src.ID, o)
	if err != nil {
		return store.Thread{}, nil, err
	}
	copies, idMap, info := m.msgs.copyMessages(msgs, o, src.ID)
	th, err := m.msgs.createClone(ctx, s, src, o, info)
	if err != nil {
		return store.Thread{}, nil, err
	}
	if copies, err = cloneContents(ctx, s, src, th, copies, idMap); err != nil {
		_ = s.DeleteThread(context.WithoutCancel(ctx), th.ID)
		return store.Thread{}, nil, err
	}
	m.effects.runEffects(ctx, m.effects.saveEffects(st, copies, nil, nil))
	return th, copies, nil
}

// cloneSelection lists the source's messages that o selects: in o.Range,
// among o.MessageIDs when given, the newest o.MessageLimit.
func cloneSelection(ctx context.Context, s *store.Checked, threadID string, o CloneOptions) ([]message.Message, error) {
	page, err := s.ListMessages(ctx, store.MessageQuery{ThreadID: threadID, PerPage: store.PerPageAll, Range: o.Range})
	if err != nil {
		return nil, err
	}
	msgs := page.Messages
	if len(o.MessageIDs) > 0 {
		want := map[string]bool{}
		for _, id := range o.MessageIDs {
			want[id] = true
		}
		var sel []message.Message
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
	return msgs, nil
}

// copyMessages copies msgs under new ids into the clone. It returns the
// copies, the map from source to copy ids and the clone's metadata record
// {sourceThreadId, clonedAt, lastMessageId}.
func (ms *messages) copyMessages(msgs []message.Message, o CloneOptions, sourceID string) ([]message.Message, map[string]string, map[string]any) {
	info := map[string]any{"sourceThreadId": sourceID, "clonedAt": ms.clock.Stamp().Format(time.RFC3339Nano)}
	copies := make([]message.Message, len(msgs))
	idMap := make(map[string]string, len(msgs))
	for i, msg := range msgs {
		c := msg.Clone()
		c.ID, c.ThreadID, c.ResourceID, c.Seq = ms.opts.NewID(), o.NewThreadID, o.ResourceID, 0
		idMap[msg.ID] = c.ID
		copies[i] = c
		info["lastMessageId"] = msg.ID
	}
	return copies, idMap, info
}

// createClone creates the clone's thread with its title and metadata.
// Insert-only: of two concurrent clones to one id exactly one creates it.
func (ms *messages) createClone(ctx context.Context, s *store.Checked, src store.Thread, o CloneOptions, info map[string]any) (store.Thread, error) {
	const op = "CloneThread"
	title := ""
	if src.Title != "" {
		title = "Clone of " + src.Title
	}
	if o.Title != nil {
		title = *o.Title
	}
	meta := message.CloneMetadata(src.Metadata)
	if meta == nil {
		meta = map[string]any{}
	}
	for k := range moveDone(src.Metadata) {
		delete(meta, k) // the source's unfinished move is not the clone's
	}
	for k, v := range message.CloneMetadata(o.Metadata) {
		meta[k] = v
	}
	meta["clone"] = info
	now := ms.clock.Stamp()
	if err := ms.rules.checkTitle(op, title); err != nil {
		return store.Thread{}, err
	}
	th, err := s.CreateThread(ctx, store.Thread{ID: o.NewThreadID, ResourceID: o.ResourceID, Title: title, Metadata: meta, CreatedAt: now, UpdatedAt: now})
	if errors.Is(err, memerr.ErrThreadExists) {
		return store.Thread{}, memerr.Errorf(memerr.CodeThreadExists, op, "Thread with id %s already exists", o.NewThreadID)
	}
	return th, err
}

// cloneContents fills the created clone th: the source's thread working
// memory, the source resource's working memory when the clone goes to
// another resource (unless that resource has its own: never overwritten),
// the copies, and the observations (see cloneObservations). It returns the
// copies as stored.
func cloneContents(ctx context.Context, s *store.Checked, src, th store.Thread, copies []message.Message, idMap map[string]string) ([]message.Message, error) {
	moved := th.ResourceID != src.ResourceID
	if err := cloneWorkingMemory(ctx, s, store.ScopeThread, src.ID, th.ID); err != nil {
		return nil, err
	}
	if moved {
		if err := cloneWorkingMemory(ctx, s, store.ScopeResource, src.ResourceID, th.ResourceID); err != nil && !errors.Is(err, memerr.ErrConflict) {
			return nil, err
		}
	}
	if len(copies) > 0 {
		var err error
		if copies, err = s.SaveMessages(ctx, copies); err != nil {
			return nil, err
		}
	}
	if _, err := cloneObservations(ctx, s, store.ObservationKey(store.ScopeThread, src.ID, ""), store.ObservationKey(store.ScopeThread, th.ID, ""), idMap, nil); err != nil {
		return nil, err
	}
	if !moved {
		// The resource's record is the clone's too: what it has not
		// observed of the source it has not observed of the copies.
		return copies, keepCopiesUnobserved(ctx, s, th.ResourceID, idMap)
	}
	own := func(rec store.ObservationRecord) ([]string, error) { return ownUnobserved(ctx, s, th, rec) }
	key := store.ObservationKey(store.ScopeResource, "", th.ResourceID)
	copied, err := cloneObservations(ctx, s, store.ObservationKey(store.ScopeResource, "", src.ResourceID), key, idMap, own)
	if errors.Is(err, memerr.ErrConflict) || (err == nil && !copied) {
		// The resource keeps its own record, which never observed the
		// copies: those older than its cursor are listed as unobserved.
		err = keepUnobserved(ctx, s, "CloneThread", th.ID, key)
	}
	if err != nil {
		return nil, err
	}
	return copies, nil
}

// keepCopiesUnobserved lists, in the resource's record, the copies of the
// messages it lists as unobserved (observe.KeepCopiesUnobserved).
func keepCopiesUnobserved(ctx context.Context, s *store.Checked, resourceID string, idMap map[string]string) error {
	if _, _, obs, _ := s.Capabilities(); !obs {
		return nil // a store without observations has no record to keep them in
	}
	return observe.KeepCopiesUnobserved(ctx, s, "CloneThread", store.ObservationKey(store.ScopeResource, "", resourceID), idMap)
}

// cloneWorkingMemory copies the working memory of scope's from to to when
// from has one; the write is insert-only (ErrConflict when to has one).
func cloneWorkingMemory(ctx context.Context, s *store.Checked, scope store.Scope, from, to string) error {
	wm, err := s.GetWorkingMemory(ctx, scope, from)
	if err != nil || wm.Version == 0 {
		return err
	}
	_, err = s.PutWorkingMemory(ctx, scope, to, wm.Data, 0)
	return err
}

// cloneObservations copies the active generation of the observational-memory
// record under from to the new record under to, keeping its generation number
// and remapping observed (and unobserved) message ids to the copies (ids of messages not
// copied are dropped); archived generations stay with the source. The write
// is insert-only: an existing record under to is ErrConflict. unobserved,
// when given, returns the messages already under to that the copy never
// observed; they are listed as unobserved in it. It reports whether it
// wrote the copy.
func cloneObservations(ctx context.Context, s *store.Checked, from, to string, idMap map[string]string,
	unobserved func(store.ObservationRecord) ([]string, error)) (bool, error) {
	if _, _, obs, _ := s.Capabilities(); !obs {
		return false, nil // a store without observations has none to copy
	}
	rec, err := s.GetObservations(ctx, from)
	if err != nil || rec.Version == 0 {
		return false, err
	}
	out := rec.Clone()
	out.Key, out.Version = to, 0
	out.Buffer = store.ObservationBuffer{} // its messages stay unobserved in the copy
	out.ObservedMessageIDs = remapIDs(rec.ObservedMessageIDs, idMap)
	out.UnobservedMessageIDs = remapIDs(rec.UnobservedMessageIDs, idMap)
	if unobserved != nil {
		own, err := unobserved(out)
		if err != nil {
			return false, err
		}
		out.UnobservedMessageIDs = append(out.UnobservedMessageIDs, own...)
	}
	_, err = s.PutObservations(ctx, out, 0)
	return err == nil, err
}

// ownUnobserved returns the messages of the clone's resource, outside the
// clone, that rec (the source resource's record copied to it) would count
// as observed by time: created before its cursor and not among its
// observed ids. The clone's resource had no record, so nothing observed
// them; listed as unobserved they reach its prompts and next observation.
func ownUnobserved(ctx context.Context, s *store.Checked, clone store.Thread, rec store.ObservationRecord) ([]string, error) {
	if rec.LastObservedAt.IsZero() {
		return nil, nil
	}
	msgs, err := s.ListResourceMessages(ctx, store.ResourceMessageQuery{ResourceID: clone.ResourceID,
		Until: rec.LastObservedAt, Limit: math.MaxInt32, ExcludeIDs: rec.ObservedMessageIDs})
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, m := range msgs {
		if m.ThreadID != clone.ID && m.Role != message.RoleSystem {
			ids = append(ids, m.ID)
		}
	}
	return ids, nil
}

// remapIDs maps ids to the copies' ids, dropping those not copied.
func remapIDs(ids []string, idMap map[string]string) []string {
	var out []string
	for _, id := range ids {
		if n, ok := idMap[id]; ok {
			out = append(out, n)
		}
	}
	return out
}

package thread

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

// CloneOptions describe a thread copy (core.CloneOptions).
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

// Clone copies a thread and its selected messages under new ids, with
// its working memory and observations (see contents), and records its
// lineage in the clone's metadata (see CloneInfoOf). A failure removes the
// partial clone. It returns the clone and the copies as stored.
func (k *Keeper) Clone(ctx context.Context, o CloneOptions) (store.Thread, []message.Message, error) {
	const op = "CloneThread"
	s := k.d.Store
	src, err := s.GetThread(ctx, o.SourceThreadID)
	if errors.Is(err, memerr.ErrThreadNotFound) {
		return store.Thread{}, nil, memerr.Errorf(memerr.CodeThreadNotFound, op, "Source thread with id %s not found", o.SourceThreadID)
	} else if err != nil {
		return store.Thread{}, nil, err
	}
	if o.NewThreadID == "" {
		o.NewThreadID = k.d.NewID()
	}
	if o.ResourceID == "" {
		o.ResourceID = src.ResourceID
	}
	msgs, err := k.selection(ctx, src.ID, o)
	if err != nil {
		return store.Thread{}, nil, err
	}
	copies, idMap, info := k.copyMessages(msgs, o, src.ID)
	th, err := k.createClone(ctx, src, o, info)
	if err != nil {
		return store.Thread{}, nil, err
	}
	if copies, err = k.contents(ctx, src, th, copies, idMap); err != nil {
		_ = s.DeleteThread(context.WithoutCancel(ctx), th.ID)
		return store.Thread{}, nil, err
	}
	return th, copies, nil
}

// selection lists the source's messages that o selects: in o.Range,
// among o.MessageIDs when given, the newest o.MessageLimit.
func (k *Keeper) selection(ctx context.Context, threadID string, o CloneOptions) ([]message.Message, error) {
	page, err := k.d.Store.ListMessages(ctx, store.MessageQuery{ThreadID: threadID, PerPage: store.PerPageAll, Range: o.Range})
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
func (k *Keeper) copyMessages(msgs []message.Message, o CloneOptions, sourceID string) ([]message.Message, map[string]string, map[string]any) {
	info := map[string]any{"sourceThreadId": sourceID, "clonedAt": k.d.Clock.Stamp().Format(time.RFC3339Nano)}
	copies := make([]message.Message, len(msgs))
	idMap := make(map[string]string, len(msgs))
	for i, msg := range msgs {
		c := msg.Clone()
		c.ID, c.ThreadID, c.ResourceID, c.Seq = k.d.NewID(), o.NewThreadID, o.ResourceID, 0
		idMap[msg.ID] = c.ID
		copies[i] = c
		info["lastMessageId"] = msg.ID
	}
	return copies, idMap, info
}

// createClone creates the clone's thread with its title and metadata.
// Insert-only: of two concurrent clones to one id exactly one creates it.
func (k *Keeper) createClone(ctx context.Context, src store.Thread, o CloneOptions, info map[string]any) (store.Thread, error) {
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
	for key := range moveDone(src.Metadata) {
		delete(meta, key) // the source's unfinished move is not the clone's
	}
	for key, v := range message.CloneMetadata(o.Metadata) {
		meta[key] = v
	}
	meta["clone"] = info
	now := k.d.Clock.Stamp()
	if err := k.d.Rules.CheckTitle(op, title); err != nil {
		return store.Thread{}, err
	}
	th, err := k.d.Store.CreateThread(ctx, store.Thread{ID: o.NewThreadID, ResourceID: o.ResourceID, Title: title, Metadata: meta, CreatedAt: now, UpdatedAt: now})
	if errors.Is(err, memerr.ErrThreadExists) {
		return store.Thread{}, memerr.Errorf(memerr.CodeThreadExists, op, "Thread with id %s already exists", o.NewThreadID)
	}
	return th, err
}

// contents fills the created clone th: the source's thread working
// memory, the source resource's working memory when the clone goes to
// another resource (unless that resource has its own: never overwritten),
// the copies, and the observations (see cloneObservations; within one
// resource, see keepCopiesUnobserved). It returns the copies as stored.
func (k *Keeper) contents(ctx context.Context, src, th store.Thread, copies []message.Message, idMap map[string]string) ([]message.Message, error) {
	s := k.d.Store
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

// keepUnobserved lists the thread's messages that key's record would
// count as observed by time as unobserved in it (observe.KeepUnobserved).
func keepUnobserved(ctx context.Context, s *store.Checked, op, threadID, key string) error {
	if _, _, obs, _ := s.Capabilities(); !obs {
		return nil // a store without observations has no record to keep them in
	}
	return observe.KeepUnobserved(ctx, s, op, threadID, key)
}

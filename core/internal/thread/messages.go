package thread

import (
	"context"
	"reflect"
	"slices"

	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/internal/indexing"
	"github.com/agentmem/agentmem/core/internal/recall"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// Save validates, prepares and stores msgs, all or nothing: each needs a
// thread and a resource, system messages and transient signals are
// dropped, missing ids and times assigned, tokens counted. rs nil (recall
// off) saves without embedding; bulk writes through the store's
// store.BulkSaver when it has one. It returns the stored messages and, when
// the save embedded them first, what indexing has left to do.
func (k *Keeper) Save(ctx context.Context, msgs []message.Message, rs *recall.Settings, bulk bool) ([]message.Message, *indexing.Embedded, error) {
	const op = "SaveMessages"
	batch := make([]message.Message, 0, len(msgs))
	for i := range msgs {
		msg := msgs[i].Clone()
		msg.Tokens, msg.TokenEncoding = 0, ""
		if err := store.ValidateID("threadId", msg.ThreadID); err != nil {
			return nil, nil, err
		}
		if err := store.ValidateID("resourceId", msg.ResourceID); err != nil {
			return nil, nil, err
		}
		if err := k.d.Rules.ValidateMessage(op, &msg, At("", i, len(msgs))); err != nil {
			return nil, nil, err
		}
		if p, ok := k.d.Rules.Prepare(msg); ok {
			batch = append(batch, p)
		}
	}
	if len(batch) == 0 {
		return nil, nil, nil
	}
	budget.CountAll(batch, k.d.Count)
	s := k.d.Store
	return k.d.Index.SaveIndexed(ctx, s, rs, batch, nil, func() ([]message.Message, error) { return s.SaveValidated(ctx, batch, bulk) })
}

// Update is a partial message update; nil fields are unchanged.
type Update struct {
	ID       string
	Role     *message.Role
	ThreadID *string
	Content  *ContentUpdate
}

// ContentUpdate is a partial content update: non-nil Parts replace the
// parts, Metadata is merged one level deep (a nil value deletes a key).
type ContentUpdate struct {
	Parts    []message.Part
	Metadata map[string]any
}

// Update applies ups in order (several updates of one id apply to one
// saved message) and saves each changed message once; unknown ids are
// ignored. Of the changed messages whose text, thread or metadata changed,
// the stored versions' vectors are deleted when indexed (recall on), and
// the new versions returned as reindex, to be indexed. An update that moves
// a message to another thread is an owner change (see
// recall.Engine.OwnerChange).
func (k *Keeper) Update(ctx context.Context, ups []Update, indexed bool) (saved, reindex []message.Message, err error) {
	ids := make([]string, 0, len(ups))
	for _, u := range ups {
		if err := store.ValidateID("id", u.ID); err != nil {
			return nil, nil, err
		}
		ids = append(ids, u.ID)
	}
	s := k.d.Store
	current, err := s.GetMessages(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	changed, stale, reindex, err := k.applyUpdates(current, ups)
	if err != nil || len(changed) == 0 {
		return nil, nil, err
	}
	end := func() {}
	if slices.ContainsFunc(ups, func(u Update) bool { return u.ThreadID != nil }) {
		end = k.d.Index.OwnerChange()
	}
	saved, err = s.SaveMessages(ctx, changed)
	if err == nil && indexed {
		k.d.Index.Unindex(ctx, stale)
	}
	end()
	if err != nil {
		return nil, nil, err
	}
	return saved, reindex, nil
}

// applyUpdates applies ups to the stored messages current, in order. It
// returns each changed message once; of those whose text, thread or
// metadata changed, the stored version (stale, to unindex) and the new one
// (to reindex).
func (k *Keeper) applyUpdates(current []message.Message, ups []Update) (changed, stale, reindex []message.Message, err error) {
	byID := make(map[string]*message.Message, len(current))
	for i := range current {
		byID[current[i].ID] = &current[i]
	}
	orig := map[string]message.Message{}
	var order []string
	for _, u := range ups {
		cur, ok := byID[u.ID]
		if !ok {
			continue
		}
		next, err := k.updated(*cur, u)
		if err != nil {
			return nil, nil, nil, err
		}
		if _, seen := orig[u.ID]; !seen {
			orig[u.ID] = *cur
			order = append(order, u.ID)
		}
		*cur = next
	}
	for _, id := range order {
		next, was := *byID[id], orig[id]
		// Vector records carry the metadata (SemanticRecall.Filter reads it).
		if next.Text() != was.Text() || next.ThreadID != was.ThreadID || !reflect.DeepEqual(next.Content.Metadata, was.Content.Metadata) {
			stale = append(stale, was)
			reindex = append(reindex, next)
		}
		changed = append(changed, next)
	}
	return changed, stale, reindex, nil
}

// updated is cur with u applied, validated, its tokens counted anew when its
// content changed. Metadata merges one level deep; a nil value deletes a key.
func (k *Keeper) updated(cur message.Message, u Update) (message.Message, error) {
	next := cur.Clone()
	if u.Role != nil {
		next.Role = *u.Role
	}
	if u.ThreadID != nil {
		next.ThreadID = *u.ThreadID
	}
	if c := u.Content; c != nil {
		if c.Parts != nil {
			next.Content.Parts = message.Content{Parts: c.Parts}.Clone().Parts
		}
		if len(c.Metadata) > 0 && next.Content.Metadata == nil {
			next.Content.Metadata = map[string]any{}
		}
		for key, v := range message.CloneMetadata(c.Metadata) {
			if v == nil {
				delete(next.Content.Metadata, key)
			} else {
				next.Content.Metadata[key] = v
			}
		}
	}
	if err := k.d.Rules.ValidateMessage("UpdateMessages", &next, Place{}); err != nil { // next has its id
		return message.Message{}, err
	}
	if u.Content != nil {
		next.Tokens, next.TokenEncoding = 0, ""
		k.d.Count(&next)
	}
	return next, nil
}

// DeleteMessages deletes messages and their vectors; unknown ids are fine.
func (k *Keeper) DeleteMessages(ctx context.Context, ids []string) error {
	for _, id := range ids {
		if err := store.ValidateID("id", id); err != nil {
			return &memerr.Error{Code: memerr.CodeInvalidArgument, Op: "DeleteMessages", Msg: "All message IDs must be non-empty strings"}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	defer k.d.Index.OwnerChange()()
	s := k.d.Store
	var doomed []message.Message
	if k.d.Vectors {
		var err error
		if doomed, err = s.GetMessages(ctx, ids); err != nil {
			return err
		}
	}
	if err := s.DeleteMessages(ctx, ids); err != nil {
		return err
	}
	k.d.Index.Unindex(ctx, doomed)
	return nil
}

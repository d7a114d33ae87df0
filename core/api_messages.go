package core

import (
	"context"
	"github.com/agentmem/agentmem/core/memerr"
	"reflect"
	"slices"

	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/internal/observe"
	"github.com/agentmem/agentmem/core/internal/recall"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// SaveMessages validates and stores messages (the page's saveMessages). Every
// message needs ThreadID and ResourceID; its thread must exist and belong to
// that resource. System messages and transient signals are dropped; working
// memory tool parts and tags are stripped; missing IDs and timestamps are
// assigned. A batch is all or nothing. New messages are indexed for semantic
// recall when it is enabled; indexing failures never fail the save.
func (m *Memory) SaveMessages(ctx context.Context, msgs []message.Message, cfg *Config) ([]message.Message, error) {
	ctx, sp := m.spans.startSave(ctx, "SaveMessages", msgs)
	out, err := m.msgs.saveMessages(ctx, msgs, cfg, false)
	return out, sp.End(err)
}

// SaveMessagesBulk is SaveMessages for large batches of new messages, such
// as an import: the same checks, effects and result, written through the
// store's store.BulkSaver when it has one (less work per message, more per
// call), else through SaveMessages, and indexed for semantic recall through
// the vector store's vector.BulkLoader when it has one.
func (m *Memory) SaveMessagesBulk(ctx context.Context, msgs []message.Message, cfg *Config) ([]message.Message, error) {
	ctx, sp := m.spans.startSave(ctx, "SaveMessagesBulk", msgs)
	out, err := m.msgs.saveMessages(ctx, msgs, cfg, true)
	return out, sp.End(err)
}

// messages saves, updates, clones and moves messages for the message and
// thread API.
type messages struct {
	opts     *Options // the Memory's defaulted options: NewID
	conf     *configs
	entry    entry
	rules    rules
	clock    *clock
	tokens   *messageTokens
	rec      *recall.Engine
	observer *observe.Observer // nil without a store
	effects  *effects
}

// saveMessages is SaveMessages and SaveMessagesBulk (bulk).
func (ms *messages) saveMessages(ctx context.Context, msgs []message.Message, cfg *Config, bulk bool) ([]message.Message, error) {
	const op = "SaveMessages"
	s, err := ms.entry.open(ctx, "SaveMessages")
	if err != nil {
		return nil, err
	}
	st, err := ms.conf.settings(cfg)
	if err != nil {
		return nil, err
	}
	st.bulk = bulk
	batch := make([]message.Message, 0, len(msgs))
	for i := range msgs {
		msg := msgs[i].Clone()
		msg.Tokens, msg.TokenEncoding = 0, ""
		if err := store.ValidateID("threadId", msg.ThreadID); err != nil {
			return nil, err
		}
		if err := store.ValidateID("resourceId", msg.ResourceID); err != nil {
			return nil, err
		}
		if err := ms.rules.validateMessage(op, &msg, msgAt("", i, len(msgs))); err != nil {
			return nil, err
		}
		if p, ok := ms.rules.prepare(op, msg); ok {
			batch = append(batch, p)
		}
	}
	if len(batch) == 0 {
		return nil, nil
	}
	budget.CountAll(batch, ms.tokens.count)
	saved, e, err := ms.rec.SaveIndexed(ctx, s, st.recall, batch, nil, func() ([]message.Message, error) { return s.SaveValidated(ctx, batch, bulk) })
	if err != nil {
		return nil, err
	}
	// What is stored is indexed, whatever readOnly says about turns.
	ms.effects.runEffects(ctx, ms.effects.saveEffects(st, saved, nil, e))
	return saved, nil
}

// ContentUpdate is a partial content update: non-nil Parts replace the parts,
// Metadata is merged one level deep (a nil value deletes a key).
type ContentUpdate struct {
	Parts    []message.Part
	Metadata map[string]any
}

// MessageUpdate is a partial message update; nil fields are unchanged.
type MessageUpdate struct {
	ID       string
	Role     *message.Role
	ThreadID *string
	Content  *ContentUpdate
}

// UpdateMessages applies partial updates; unknown ids are ignored. Changed
// content is re-tokenized and re-indexed for semantic recall.
func (m *Memory) UpdateMessages(ctx context.Context, ups []MessageUpdate) ([]message.Message, error) {
	s, err := m.entry.open(ctx, "UpdateMessages")
	if err != nil {
		return nil, err
	}
	st, err := m.conf.settings(nil)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(ups))
	for _, u := range ups {
		if err := store.ValidateID("id", u.ID); err != nil {
			return nil, err
		}
		ids = append(ids, u.ID)
	}
	current, err := s.GetMessages(ctx, ids)
	if err != nil {
		return nil, err
	}
	changed, stale, reindex, err := m.msgs.applyUpdates(current, ups)
	if err != nil || len(changed) == 0 {
		return nil, err
	}
	return m.msgs.saveUpdates(ctx, s, st, ups, changed, stale, reindex)
}

// saveUpdates saves the updated messages, deletes the vectors of their
// stale versions and indexes the new ones; an update that moves a message
// to another thread is an owner change (see recall.Engine.OwnerChange).
func (ms *messages) saveUpdates(ctx context.Context, s *store.Checked, st settings, ups []MessageUpdate, changed, stale, reindex []message.Message) ([]message.Message, error) {
	end := func() {}
	if slices.ContainsFunc(ups, func(u MessageUpdate) bool { return u.ThreadID != nil }) {
		end = ms.rec.OwnerChange()
	}
	saved, err := s.SaveMessages(ctx, changed)
	if err == nil && st.recall != nil {
		ms.rec.Unindex(ctx, stale)
	}
	end()
	if err != nil {
		return nil, err
	}
	if st.recall != nil {
		ms.effects.runEffects(ctx, ms.effects.saveEffects(st, reindex, nil, nil))
	}
	return saved, nil
}

// applyUpdates applies ups to the stored messages current, in order (several
// updates of one id apply to one saved message). It returns each changed
// message once; of those whose text, thread or metadata changed, the stored version
// (stale, to unindex) and the new one (to reindex).
func (ms *messages) applyUpdates(current []message.Message, ups []MessageUpdate) (changed, stale, reindex []message.Message, err error) {
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
		next, err := ms.updated(*cur, u)
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
func (ms *messages) updated(cur message.Message, u MessageUpdate) (message.Message, error) {
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
		for k, v := range message.CloneMetadata(c.Metadata) {
			if v == nil {
				delete(next.Content.Metadata, k)
			} else {
				next.Content.Metadata[k] = v
			}
		}
	}
	if err := ms.rules.validateMessage("UpdateMessages", &next, msgPlace{}); err != nil { // next has its id
		return message.Message{}, err
	}
	if u.Content != nil {
		next.Tokens, next.TokenEncoding = 0, ""
		ms.tokens.count(&next)
	}
	return next, nil
}

// DeleteMessages deletes messages and their vectors; unknown ids are fine.
func (m *Memory) DeleteMessages(ctx context.Context, ids []string) error {
	s, err := m.entry.open(ctx, "DeleteMessages")
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := store.ValidateID("id", id); err != nil {
			return &memerr.Error{Code: memerr.CodeInvalidArgument, Op: "DeleteMessages", Msg: "All message IDs must be non-empty strings"}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	defer m.rec.OwnerChange()()
	var doomed []message.Message
	if m.opts.Vector != nil {
		if doomed, err = s.GetMessages(ctx, ids); err != nil {
			return err
		}
	}
	if err := s.DeleteMessages(ctx, ids); err != nil {
		return err
	}
	m.rec.Unindex(ctx, doomed)
	return nil
}

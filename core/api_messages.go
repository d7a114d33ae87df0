package core

import (
	"context"

	"github.com/agentmem/agentmem/core/internal/thread"
	"github.com/agentmem/agentmem/core/message"
)

// SaveMessages validates and stores messages (the page's saveMessages). Every
// message needs ThreadID and ResourceID; its thread must exist and belong to
// that resource. System messages and transient signals are dropped; working
// memory tool parts and tags are stripped; missing IDs and timestamps are
// assigned. A batch is all or nothing. New messages are indexed for semantic
// recall when it is enabled; indexing failures never fail the save.
func (m *Memory) SaveMessages(ctx context.Context, msgs []message.Message, cfg *Config) ([]message.Message, error) {
	ctx, sp := m.spans.startSave(ctx, "SaveMessages", msgs)
	out, err := m.saveMessages(ctx, msgs, cfg, false)
	return out, sp.End(err)
}

// SaveMessagesBulk is SaveMessages for large batches of new messages, such
// as an import: the same checks, effects and result, written through the
// store's store.BulkSaver when it has one (less work per message, more per
// call), else through SaveMessages, and indexed for semantic recall through
// the vector store's vector.BulkLoader when it has one.
func (m *Memory) SaveMessagesBulk(ctx context.Context, msgs []message.Message, cfg *Config) ([]message.Message, error) {
	ctx, sp := m.spans.startSave(ctx, "SaveMessagesBulk", msgs)
	out, err := m.saveMessages(ctx, msgs, cfg, true)
	return out, sp.End(err)
}

// saveMessages is SaveMessages and SaveMessagesBulk (bulk): the keeper
// saves, then what follows a save runs.
func (m *Memory) saveMessages(ctx context.Context, msgs []message.Message, cfg *Config, bulk bool) ([]message.Message, error) {
	if _, err := m.entry.open(ctx, "SaveMessages"); err != nil {
		return nil, err
	}
	st, err := m.conf.settings(cfg)
	if err != nil {
		return nil, err
	}
	st.bulk = bulk
	saved, e, err := m.threads.Save(ctx, msgs, st.recall, bulk)
	if err != nil || len(saved) == 0 {
		return nil, err
	}
	// What is stored is indexed, whatever readOnly says about turns.
	m.effects.runEffects(ctx, m.effects.saveEffects(st, saved, nil, e))
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
	if _, err := m.entry.open(ctx, "UpdateMessages"); err != nil {
		return nil, err
	}
	st, err := m.conf.settings(nil)
	if err != nil {
		return nil, err
	}
	tups := make([]thread.Update, len(ups))
	for i, u := range ups {
		tups[i] = thread.Update{ID: u.ID, Role: u.Role, ThreadID: u.ThreadID, Content: (*thread.ContentUpdate)(u.Content)}
	}
	saved, reindex, err := m.threads.Update(ctx, tups, st.recall != nil)
	if err != nil {
		return nil, err
	}
	if st.recall != nil {
		m.effects.runEffects(ctx, m.effects.saveEffects(st, reindex, nil, nil))
	}
	return saved, nil
}

// DeleteMessages deletes messages and their vectors; unknown ids are fine.
func (m *Memory) DeleteMessages(ctx context.Context, ids []string) error {
	if _, err := m.entry.open(ctx, "DeleteMessages"); err != nil {
		return err
	}
	return m.threads.DeleteMessages(ctx, ids)
}

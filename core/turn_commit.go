package core

import (
	"context"
	"github.com/agentmem/agentmem/core/message"

	"github.com/agentmem/agentmem/core/internal/thread"
	"github.com/agentmem/agentmem/core/internal/window"
	"github.com/agentmem/agentmem/core/memerr"
)

// Commit persists the turn: what its steps did not store yet (the
// filtered input, the response messages new or changed since the last
// Step, usually just the final answer) in one atomic save, then indexes
// them for semantic recall, generates a title and runs observational memory
// (observation and reflection, inside Commit or in the background; their
// failures are logged and never fail Commit, see ObservationErr). After
// Steps, response starts with the loop's messages as given to the last Step:
// a message at a position a Step saved is saved again only when it changed,
// under the same id. The output processors see the messages about to be
// saved. Read-only turns and turns with history disabled (and observational
// memory off) save nothing. A Commit that failed may be called again: it
// saves the same messages under the same ids.
func (t *Turn) Commit(ctx context.Context, response []message.Message) (err error) {
	const op = "Commit"
	ctx, sp := t.startTurnOp(ctx, op, response)
	defer func() { err = sp.End(err) }()
	if err := t.enter(ctx, op); err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.committed {
		return memerr.Errorf(memerr.CodeInvalidArgument, op, "turn already committed")
	}
	m := t.m
	resp, err := t.stamp(op, "response", response)
	if err != nil {
		return err
	}
	for i := range resp {
		resp[i].Tokens, resp[i].TokenEncoding = 0, "" // counted once when saved
	}
	loop, at, exacts := t.loopBatch(resp)
	loop, err = t.processOutput(ctx, loop)
	if err != nil {
		return err
	}
	t.committed = true
	if !t.saving() {
		return nil
	}
	batch := t.persistBatch(op, loop)
	if len(batch) == 0 {
		m.effects.runEffects(ctx, m.effects.saveEffects(t.st, nil, t, nil))
		return nil
	}
	s, err := m.entry.checked()
	if err != nil {
		t.committed = false
		return err
	}
	saved, e, err := m.rec.SaveIndexed(ctx, s, t.st.recall, batch, &t.prior, func() ([]message.Message, error) { return s.SaveMessages(ctx, batch) })
	if err != nil {
		t.committed = false
		return err
	}
	t.saves.input = true
	t.markSaved(at, exacts)
	m.effects.runEffects(ctx, m.effects.saveEffects(t.st, saved, t, e))
	return nil
}

// enter refuses a nil turn or context before Commit or Step touches
// anything.
func (t *Turn) enter(ctx context.Context, op string) error {
	if t == nil {
		return memerr.Errorf(memerr.CodeInvalidArgument, op, "nil turn (Begin failed?)")
	}
	if ctx == nil {
		return memerr.Errorf(memerr.CodeInvalidArgument, op, "nil context")
	}
	return nil
}

// stamp returns a copy of the messages given to Commit or Step (where names
// them in errors) as the turn's responses: assistant unless they say
// otherwise, validated, of the turn's thread and resource.
func (t *Turn) stamp(op, where string, msgs []message.Message) ([]message.Message, error) {
	resp := window.Clone(msgs)
	for i := range resp {
		r := &resp[i]
		if r.Role == "" {
			r.Role = message.RoleAssistant
		}
		if err := t.m.rules.ValidateMessage(op, r, thread.At(where, i, len(resp))); err != nil {
			return nil, err
		}
		if err := t.responseIDs(op, r); err != nil {
			return nil, err
		}
		r.ThreadID, r.ResourceID, r.Source = t.req.ThreadID, t.req.ResourceID, message.SourceResponse
	}
	return resp, nil
}

// responseIDs refuses a response message that names another thread or
// resource than the turn's, as Begin refuses such input: silently moving it
// would store it where its author did not mean it to go.
func (t *Turn) responseIDs(op string, r *message.Message) error {
	if r.ThreadID != "" && r.ThreadID != t.req.ThreadID {
		return memerr.Errorf(memerr.CodeInvalidArgument, op, "response message %q has threadId %q, the turn's is %q", r.ID, r.ThreadID, t.req.ThreadID)
	}
	if r.ResourceID != "" && r.ResourceID != t.req.ResourceID {
		return memerr.Errorf(memerr.CodeInvalidArgument, op, "response message %q has resourceId %q, the turn's is %q", r.ID, r.ResourceID, t.req.ResourceID)
	}
	return nil
}

package core

import (
	"encoding/json"
	"time"

	"github.com/agentmem/agentmem/core/internal/window"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
)

// WorkingMemoryToolName is the name of the tool that updates working memory.
const WorkingMemoryToolName = "updateWorkingMemory"

// validateMessage checks the role, the id when set, the content (one rule
// for every store, see store.ValidateContent) and the size cap.
func (m *Memory) validateMessage(op string, msg *Message) error {
	switch msg.Role {
	case RoleUser, RoleAssistant, RoleSignal, RoleSystem:
	default:
		return memerr.Errorf(CodeInvalidMessage, op, "message %q: invalid role %q", msg.ID, msg.Role)
	}
	if msg.ID != "" {
		if err := store.ValidateID("id", msg.ID); err != nil {
			return memerr.WithOp(op, err)
		}
	}
	if err := store.ValidateContent(msg); err != nil {
		return memerr.WithOp(op, err)
	}
	if bound, ok := msg.Content.EncodedSizeBound(); ok && bound <= m.opts.MaxMessageBytes {
		return nil // certainly under the cap: encoding it only to measure is waste
	}
	b, err := json.Marshal(msg.Content)
	if err != nil {
		return &Error{Code: CodeInvalidMessage, Op: op, Msg: "message " + msg.ID + " cannot be encoded", Err: err}
	}
	if len(b) > m.opts.MaxMessageBytes {
		return memerr.Errorf(CodeMessageTooLarge, op, "message %q is %d bytes, the limit is %d", msg.ID, len(b), m.opts.MaxMessageBytes)
	}
	return nil
}

// prepare makes a message persistable: strips what is never stored, assigns
// id and timestamp. The caller counts the tokens of the batch (budget.CountAll).
func (m *Memory) prepare(op string, msg Message) (Message, bool) {
	msg, ok := window.Persistable(msg, WorkingMemoryToolName)
	if !ok {
		return msg, false
	}
	if msg.ID == "" {
		msg.ID = m.opts.NewID()
	}
	if msg.CreatedAt.IsZero() {
		msg.CreatedAt = m.stamp()
	} else {
		msg.CreatedAt = msg.CreatedAt.UTC().Truncate(time.Microsecond)
	}
	msg.Content.Format = 2
	msg.Source = ""
	return msg, true
}

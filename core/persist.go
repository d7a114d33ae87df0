package core

import (
	"fmt"
	"time"

	"github.com/agentmem/agentmem/core/internal/window"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// msgPlace is where a message stands among the messages of a call: list
// names them ("input", "context", "step", "response"; "" for
// SaveMessages') and i is its index of n. An error names a message by it
// when the message has no id yet (ids are assigned when it is saved).
type msgPlace struct {
	list string
	i, n int
}

// msgAt is the place of the i-th of n messages of list.
func msgAt(list string, i, n int) msgPlace { return msgPlace{list: list, i: i, n: n} }

// name names msg in an error: by its id when it has one, else by its
// place and role.
func (p msgPlace) name(msg *message.Message) string {
	if msg.ID != "" {
		return fmt.Sprintf("message %q (role %q)", msg.ID, msg.Role)
	}
	s := fmt.Sprintf("message %d of %d (role %q, no id yet)", p.i+1, p.n, msg.Role)
	if p.list != "" {
		s = p.list + " " + s
	}
	return s
}

// rules are what a message or a title must be to be stored, and what
// makes a message storable (ids, creation times).
type rules struct {
	opts  *Options // the Memory's defaulted options: limits and NewID
	clock *clock
}

// validateMessage checks the role, the id when set, the content (one rule
// for every store, see store.ValidateContent) and the size cap; errors name
// the message by its id or its place.
func (r *rules) validateMessage(op string, msg *message.Message, place msgPlace) error {
	switch msg.Role {
	case message.RoleUser, message.RoleAssistant, message.RoleSignal, message.RoleSystem:
	default:
		return memerr.Errorf(memerr.CodeInvalidMessage, op, "%s: invalid role %q", place.name(msg), msg.Role)
	}
	if msg.ID != "" {
		if err := store.ValidateID("id", msg.ID); err != nil {
			return memerr.WithOp(op, err)
		}
	}
	if err := store.ValidateContent(msg); err != nil {
		return memerr.WithOp(op, err)
	}
	return r.checkMessageSize(op, msg, place)
}

// checkMessageSize refuses a message whose content, encoded as the stores
// keep it (message.MarshalStored: JSON, each text once), is over
// Options.MaxMessageBytes.
func (r *rules) checkMessageSize(op string, msg *message.Message, place msgPlace) error {
	if bound, ok := msg.Content.EncodedSizeBound(); ok && bound <= r.opts.MaxMessageBytes {
		return nil // certainly under the cap: encoding it only to measure is waste
	}
	b, err := message.MarshalStored(msg.Content)
	if err != nil {
		return &memerr.Error{Code: memerr.CodeInvalidMessage, Op: op, Msg: place.name(msg) + " cannot be encoded", Err: err}
	}
	if len(b) <= r.opts.MaxMessageBytes {
		return nil
	}
	text := 0
	for _, p := range msg.Content.Parts {
		text += len(p.Text)
	}
	return memerr.Errorf(memerr.CodeMessageTooLarge, op, "%s is %s bytes encoded as stored (JSON, with %s bytes of text), over the limit of %s bytes (Options.MaxMessageBytes)",
		place.name(msg), groupDigits(len(b)), groupDigits(text), groupDigits(r.opts.MaxMessageBytes))
}

// prepare makes a message persistable: strips what is never stored, assigns
// id and timestamp. The caller counts the tokens of the batch (budget.CountAll).
func (r *rules) prepare(op string, msg message.Message) (message.Message, bool) {
	msg, ok := window.Persistable(msg, WorkingMemoryToolName)
	if !ok {
		return msg, false
	}
	if msg.ID == "" {
		msg.ID = r.opts.NewID()
	}
	if msg.CreatedAt.IsZero() {
		msg.CreatedAt = r.clock.Stamp()
	} else {
		msg.CreatedAt = msg.CreatedAt.UTC().Truncate(time.Microsecond)
	}
	msg.Content.Format = 2
	msg.Source = ""
	return msg, true
}

package thread

import (
	"fmt"
	"strconv"
	"time"

	"github.com/agentmem/agentmem/core/internal/window"
	"github.com/agentmem/agentmem/core/internal/workingmem"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// Place is where a message stands among the messages of a call: list
// names them ("input", "context", "step", "response"; "" for
// SaveMessages') and i is its index of n. An error names a message by it
// when the message has no id yet (ids are assigned when it is saved).
type Place struct {
	list string
	i, n int
}

// At is the place of the i-th of n messages of list.
func At(list string, i, n int) Place { return Place{list: list, i: i, n: n} }

// name names msg in an error: by its id when it has one, else by its
// place and role.
func (p Place) name(msg *message.Message) string {
	if msg.ID != "" {
		return fmt.Sprintf("message %q (role %q)", msg.ID, msg.Role)
	}
	s := fmt.Sprintf("message %d of %d (role %q, no id yet)", p.i+1, p.n, msg.Role)
	if p.list != "" {
		s = p.list + " " + s
	}
	return s
}

// Rules are what a message or a title must be to be stored, and what
// makes a message storable (ids, creation times).
type Rules struct {
	MaxMessageBytes int // Options.MaxMessageBytes, defaulted
	MaxTitleBytes   int // Options.MaxTitleBytes, defaulted
	NewID           func() string
	Clock           Clock
}

// ValidateMessage checks the role, the id when set, the content (one rule
// for every store, see store.ValidateContent) and the size cap; errors name
// the message by its id or its place.
func (r Rules) ValidateMessage(op string, msg *message.Message, place Place) error {
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
// MaxMessageBytes.
func (r Rules) checkMessageSize(op string, msg *message.Message, place Place) error {
	if bound, ok := msg.Content.EncodedSizeBound(); ok && bound <= r.MaxMessageBytes {
		return nil // certainly under the cap: encoding it only to measure is waste
	}
	b, err := message.MarshalStored(msg.Content)
	if err != nil {
		return &memerr.Error{Code: memerr.CodeInvalidMessage, Op: op, Msg: place.name(msg) + " cannot be encoded", Err: err}
	}
	if len(b) <= r.MaxMessageBytes {
		return nil
	}
	text := 0
	for _, p := range msg.Content.Parts {
		text += len(p.Text)
	}
	return memerr.Errorf(memerr.CodeMessageTooLarge, op, "%s is %s bytes encoded as stored (JSON, with %s bytes of text), over the limit of %s bytes (Options.MaxMessageBytes)",
		place.name(msg), groupDigits(len(b)), groupDigits(text), groupDigits(r.MaxMessageBytes))
}

// CheckTitle refuses a title over MaxTitleBytes.
func (r Rules) CheckTitle(op, title string) error {
	if len(title) > r.MaxTitleBytes {
		return memerr.Errorf(memerr.CodeTooLarge, op, "title is %d bytes, the limit is %d", len(title), r.MaxTitleBytes)
	}
	return nil
}

// Prepare makes a message persistable: strips what is never stored, assigns
// id and timestamp. The caller counts the tokens of the batch (budget.CountAll).
func (r Rules) Prepare(msg message.Message) (message.Message, bool) {
	msg, ok := window.Persistable(msg, workingmem.ToolName)
	if !ok {
		return msg, false
	}
	if msg.ID == "" {
		msg.ID = r.NewID()
	}
	if msg.CreatedAt.IsZero() {
		msg.CreatedAt = r.Clock.Stamp()
	} else {
		msg.CreatedAt = msg.CreatedAt.UTC().Truncate(time.Microsecond)
	}
	msg.Content.Format = 2
	msg.Source = ""
	return msg, true
}

// groupDigits writes a size n >= 0 with its digits in groups of three
// ("4,194,304"), so that sizes near a limit can be compared at a glance.
func groupDigits(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

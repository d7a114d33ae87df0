package core

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// WorkingMemoryToolName is the name of the tool that updates working memory.
const WorkingMemoryToolName = "updateWorkingMemory"

var workingMemoryTagRE = regexp.MustCompile(`(?s)<working_memory>.*?</working_memory>`)

// persistable returns the message as it should be stored, or false when
// nothing of it is stored: system messages, transient signals, partial tool
// calls, working-memory tool parts and <working_memory> tags are removed.
func persistable(msg Message) (Message, bool) {
	if msg.Role == RoleSystem || isTransientSignal(&msg) {
		return msg, false
	}
	if !slices.ContainsFunc(msg.Content.Parts, unpersisted) {
		return msg, len(msg.Content.Parts) > 0 // the common case: nothing to strip, nothing to copy
	}
	parts := make([]Part, 0, len(msg.Content.Parts))
	for _, p := range msg.Content.Parts {
		if unpersisted(p) {
			if p.Type != PartText {
				continue
			}
			p.Text = strings.TrimSpace(workingMemoryTagRE.ReplaceAllString(p.Text, ""))
			if p.Text == "" {
				continue
			}
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return msg, false
	}
	msg.Content.Parts = parts
	return msg, true
}

// unpersisted reports whether a part is dropped (a partial tool call, the
// working-memory tool) or has its working-memory tags stripped when saved.
func unpersisted(p Part) bool {
	switch {
	case p.Type == PartToolInvocation && p.ToolInvocation != nil:
		return p.ToolInvocation.State == message.ToolStatePartialCall || p.ToolInvocation.ToolName == WorkingMemoryToolName
	case p.Type == PartText:
		return strings.Contains(p.Text, "<working_memory>")
	}
	return false
}

func isTransientSignal(m *Message) bool {
	sig, ok := m.Content.Metadata["signal"].(map[string]any)
	return ok && sig["transient"] == true
}

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
	if bound, ok := encodedSizeBound(&msg.Content); ok && bound <= m.opts.MaxMessageBytes {
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

// encodedSizeBound is an upper bound of len(json.Marshal(c)), or false when
// c has metadata (arbitrary values; measured by encoding). JSON escaping
// turns one input byte into at most 6 ("\u003c"), every field costs less
// than 64 bytes of name and punctuation, and the v4 mirrors MarshalJSON
// derives repeat each part's content at most once (hence twice the parts).
func encodedSizeBound(c *Content) (int, bool) {
	if len(c.Metadata) > 0 {
		return 0, false
	}
	const field, esc = 64, 6
	parts := 0
	for i := range c.Parts {
		p := &c.Parts[i]
		n := len(p.Type) + len(p.Text) + len(p.Reasoning) + len(p.Data) + len(p.MimeType) + len(p.Filename) + len(p.ProviderMetadata)
		for k, v := range p.Extra {
			n += len(k) + len(v)
		}
		for _, d := range p.Details {
			n += len(d.Type) + len(d.Text) + len(d.Data) + len(d.Signature) + 4*field/esc
		}
		if ti := p.ToolInvocation; ti != nil {
			n += len(ti.State) + len(ti.ToolCallID) + len(ti.ToolName) + len(ti.Args) + len(ti.Result) + len(ti.ErrorText) + 8*field/esc + 20
		}
		if src := p.Source; src != nil {
			n += len(src.SourceType) + len(src.ID) + len(src.URL) + len(src.Title) + len(src.ProviderMetadata) + 5*field/esc
		}
		parts += esc*n + (8+len(p.Extra))*field
	}
	n := len(c.ProviderMetadata)
	for k, v := range c.Extra {
		n += len(k) + len(v) + field/esc
	}
	return 2*parts + esc*n + 8*field, true
}

// prepare makes a message persistable: strips what is never stored, assigns
// id and timestamp. The caller counts the tokens of the batch (budget.CountAll).
func (m *Memory) prepare(op string, msg Message) (Message, bool) {
	msg, ok := persistable(msg)
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

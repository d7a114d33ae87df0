package core

import (
	"encoding/json"
	"regexp"
	"strings"
	"unicode/utf8"
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
	parts := make([]Part, 0, len(msg.Content.Parts))
	for _, p := range msg.Content.Parts {
		switch {
		case p.Type == PartToolInvocation && p.ToolInvocation != nil &&
			(p.ToolInvocation.State == ToolStatePartialCall || p.ToolInvocation.ToolName == WorkingMemoryToolName):
			continue
		case p.Type == PartText && strings.Contains(p.Text, "<working_memory>"):
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

func isTransientSignal(m *Message) bool {
	sig, ok := m.Content.Metadata["signal"].(map[string]any)
	return ok && sig["transient"] == true
}

// validateMessage checks role, ids and that every string is valid UTF-8 (JSON
// encoding would otherwise replace bad bytes silently), and the size cap.
func (m *Memory) validateMessage(op string, msg *Message) error {
	bad := func(format string, a ...any) error {
		e := Errorf(CodeInvalidMessage, op, format, a...)
		return e
	}
	switch msg.Role {
	case RoleUser, RoleAssistant, RoleSignal, RoleSystem:
	default:
		return bad("message %q: invalid role %q", msg.ID, msg.Role)
	}
	if msg.ID != "" {
		if err := ValidateID("id", msg.ID); err != nil {
			return err
		}
	}
	for i, p := range msg.Content.Parts {
		if p.Type == "" {
			return bad("message %q part %d: missing type", msg.ID, i)
		}
		strs := []string{p.Type, p.Text, p.Reasoning, p.Data, p.MimeType, p.Filename}
		raws := []json.RawMessage{p.ProviderMetadata}
		if ti := p.ToolInvocation; ti != nil {
			if ti.ToolCallID == "" || ti.ToolName == "" {
				return bad("message %q part %d: tool invocation needs toolCallId and toolName", msg.ID, i)
			}
			switch ti.State {
			case ToolStateCall, ToolStateResult, ToolStatePartialCall:
			default:
				if ti.State == "" {
					return bad("message %q part %d: tool invocation without state", msg.ID, i)
				}
			}
			strs = append(strs, ti.ToolCallID, ti.ToolName, ti.State, ti.ErrorText)
			raws = append(raws, ti.Args, ti.Result)
		} else if p.Type == PartToolInvocation {
			return bad("message %q part %d: tool-invocation part without toolInvocation", msg.ID, i)
		}
		for _, d := range p.Details {
			strs = append(strs, d.Text, d.Data, d.Signature)
		}
		for _, r := range p.Extra {
			raws = append(raws, r)
		}
		for _, s := range strs {
			if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
				return bad("message %q part %d: text must be valid UTF-8 without NUL", msg.ID, i)
			}
		}
		for _, r := range raws {
			if len(r) > 0 && (!utf8.Valid(r) || !json.Valid(r)) {
				return bad("message %q part %d: invalid JSON value", msg.ID, i)
			}
		}
	}
	if !validUTF8Value(msg.Content.Metadata) {
		return bad("message %q: metadata has invalid UTF-8", msg.ID)
	}
	b, err := json.Marshal(msg.Content)
	if err != nil {
		return &Error{Code: CodeInvalidMessage, Op: op, Msg: "message " + msg.ID + " cannot be encoded", Err: err}
	}
	if len(b) > m.opts.MaxMessageBytes {
		return Errorf(CodeMessageTooLarge, op, "message %q is %d bytes, the limit is %d", msg.ID, len(b), m.opts.MaxMessageBytes)
	}
	return nil
}

func validUTF8Value(v any) bool {
	switch x := v.(type) {
	case string:
		return utf8.ValidString(x)
	case map[string]any:
		for k, e := range x {
			if !utf8.ValidString(k) || !validUTF8Value(e) {
				return false
			}
		}
	case []any:
		for _, e := range x {
			if !validUTF8Value(e) {
				return false
			}
		}
	}
	return true
}

package message

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/google/uuid"
)

// PlaceholderToolName is the tool name stored for a tool call or result whose
// name is not known (format 2 requires one): a call without a function name,
// or a result whose call is not in sight. Adapters write it; readers test
// names with IsPlaceholderToolName, which also accepts the older spelling.
const PlaceholderToolName = "unknown_tool"

// legacyPlaceholderToolName is the placeholder the langchaingo adapter wrote
// before PlaceholderToolName was shared.
const legacyPlaceholderToolName = "unknown"

// IsPlaceholderToolName reports whether name stands for an unknown tool: it
// is empty, PlaceholderToolName or the older "unknown".
func IsPlaceholderToolName(name string) bool {
	return name == "" || name == PlaceholderToolName || name == legacyPlaceholderToolName
}

// toolCallIDPrefix starts every generated tool-call id, as OpenAI's do.
const toolCallIDPrefix = "call_"

// NewToolCallID returns a fresh tool-call id for a call or result that came
// without one: "call_" and 32 random hex digits, so ids generated in
// different turns or processes never collide.
func NewToolCallID() string {
	return toolCallIDPrefix + strings.ReplaceAll(uuid.NewString(), "-", "")
}

// CanonicalArgs returns tool-call arguments in the one form every store gives
// back: valid JSON compacted with HTML characters escaped (what
// encoding/json produces for a json.RawMessage), any other text as a JSON
// string holding it, and nil for empty or blank arguments. Adapters keep the
// caller's exact text elsewhere when it differs from the result.
func CanonicalArgs(args json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(args)) == 0 {
		return nil
	}
	if json.Valid(args) {
		if b, err := json.Marshal(args); err == nil {
			return b
		}
	}
	b, err := json.Marshal(string(args))
	if err != nil { // a Go string always encodes; keep the contract anyway
		return nil
	}
	return b
}

// ToolCall returns the assistant message of a model's call of tool name
// with args (a part in state "call"): the first of the two messages the
// adapters store for a tool call, the other being ToolResult's. An empty id
// gets a fresh one (NewToolCallID); args are kept in canonical form
// (CanonicalArgs).
func ToolCall(id, name string, args json.RawMessage) Message {
	if id == "" {
		id = NewToolCallID()
	}
	return Message{Role: RoleAssistant, Content: Content{Format: 2, Parts: []Part{{Type: PartToolInvocation,
		ToolInvocation: &ToolInvocation{State: ToolStateCall, ToolCallID: id, ToolName: name, Args: CanonicalArgs(args)}}}}}
}

// ToolResult returns the message holding the result of the call in call
// (a ToolCall message; its first call part): an assistant message with the
// invocation in state "result", carrying the call's id, name and args, as
// the adapters store a tool's answer. Memory pairs it with its call by the
// id, and never separates the two when it trims. A result that is not JSON
// is stored as a JSON string. It returns false when call holds no tool call.
func ToolResult(call Message, result json.RawMessage) (Message, bool) {
	for _, p := range call.Content.Parts {
		if ti := p.ToolInvocation; ti != nil {
			return Message{Role: RoleAssistant, ThreadID: call.ThreadID, ResourceID: call.ResourceID, Content: Content{Format: 2,
				Parts: []Part{{Type: PartToolInvocation, ToolInvocation: &ToolInvocation{State: ToolStateResult, ToolCallID: ti.ToolCallID,
					ToolName: ti.ToolName, Args: append(json.RawMessage(nil), ti.Args...), Result: CanonicalArgs(result)}}}}}, true
		}
	}
	return Message{}, false
}

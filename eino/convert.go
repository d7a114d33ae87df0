package eino

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/cloudwego/eino/schema"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/message"
)

// MetadataKey is the content.metadata key under which a converted message
// keeps the fields of its schema.Message that format 2 cannot express (Name,
// Extra, ResponseMeta, tool-call index/type/extra, multi-content layout, the
// tool role). The value is plain JSON, so it survives storage unchanged.
const MetadataKey = "eino"

// ExtraIDKey is the schema.Message.Extra key that carries the id of a stored
// message. ToEino sets it on every message that has an id and FromEino turns
// it back into core.Message.ID, so a message loaded from memory and passed
// back as input is recognised as already stored.
const ExtraIDKey = "agentmem_id"

// msgMeta is the content.metadata[MetadataKey] value.
type msgMeta struct {
	// Role is "tool" for a schema.Tool message (stored as an assistant
	// message holding one tool-invocation part in state "result").
	Role         string               `json:"role,omitempty"`
	Name         string               `json:"name,omitempty"`
	Extra        map[string]any       `json:"extra,omitempty"`
	ResponseMeta *schema.ResponseMeta `json:"responseMeta,omitempty"`
	// Layout lists the content pieces in order when the message has
	// multi-content parts; without it, the first reasoning part is
	// ReasoningContent and the first text part is Content.
	Layout []layoutEntry `json:"layout,omitempty"`
	// Calls holds the tool-call fields without a format-2 equivalent, by id.
	Calls map[string]callMeta `json:"calls,omitempty"`
	// Tool holds tool-message fields the result part does not reproduce.
	Tool *toolMeta `json:"tool,omitempty"`
}

// layoutEntry describes one content piece of a schema.Message. Entries that
// are not Inline consume the next non-tool core part.
type layoutEntry struct {
	// F is the source field: "reasoning" (ReasoningContent), "content"
	// (Content), "multi" (MultiContent), "input" (UserInputMultiContent) or
	// "output" (AssistantGenMultiContent).
	F string `json:"f"`
	// Part is the multi-content part with the data moved into the core part
	// cleared (text, url, base64 data); for Inline entries, the whole part.
	Part json.RawMessage `json:"part,omitempty"`
	// Data names the field whose value is the core part's Data: "url",
	// "base64" or "uri" ("" when none was set).
	Data   string `json:"data,omitempty"`
	Inline bool   `json:"inline,omitempty"`
}

// callMeta keeps the schema.ToolCall fields format 2 has no place for.
type callMeta struct {
	Index *int           `json:"index,omitempty"`
	Type  *string        `json:"type,omitempty"` // set when not "function"
	Extra map[string]any `json:"extra,omitempty"`
	// Arguments is the original argument text when the part's args (valid,
	// compact JSON) do not reproduce it byte for byte.
	Arguments *string `json:"arguments,omitempty"`
	NoID      bool    `json:"noId,omitempty"`   // the call had no id; one was generated
	NoName    bool    `json:"noName,omitempty"` // the call had no name; a placeholder is stored
}

// toolMeta keeps tool-message fields the result part does not reproduce.
type toolMeta struct {
	ToolName *string `json:"toolName,omitempty"` // original ToolName when it differs
	NoID     bool    `json:"noId,omitempty"`
}

// callInfo is what a tool result needs from its call.
type callInfo struct {
	name string
	args json.RawMessage
}

// FromEino converts eino messages to format-2 messages, one per schema.Message.
// A tool message becomes an assistant message with one tool-invocation part in
// state "result"; its tool name and arguments are taken from the earlier
// assistant message that made the call (matched by id). Fields without a
// format-2 equivalent go to content.metadata[MetadataKey], so ToEino restores
// the messages exactly (Extra values as JSON would decode them; nil and empty
// maps and slices are not told apart; MessageOutputPart.StreamingMeta, which
// eino never serialises, is dropped).
func FromEino(msgs []*schema.Message) ([]message.Message, error) {
	return fromEino(msgs, nil)
}

// MessageFromEino converts one eino message. A tool message's name comes from
// its ToolName (its arguments are unknown); use FromEino for conversations.
func MessageFromEino(msg *schema.Message) (message.Message, error) {
	out, err := fromEino([]*schema.Message{msg}, nil)
	if err != nil {
		return message.Message{}, err
	}
	return out[0], nil
}

// fromEino converts msgs; known holds tool calls made before msgs. Calls and
// results without an id get fresh ids (message.NewToolCallID), so such ids of
// different turns of a thread never collide.
func fromEino(msgs []*schema.Message, known map[string]callInfo) ([]message.Message, error) {
	calls := make(map[string]callInfo, len(known))
	for id, c := range known {
		calls[id] = c
	}
	out := make([]message.Message, 0, len(msgs))
	var lastCalls []string // generated ids of the last assistant's id-less calls
	for i, msg := range msgs {
		if msg == nil {
			return nil, fmt.Errorf("agentmem/eino: message %d is nil", i)
		}
		cm, err := messageFromEino(msg, calls, &lastCalls)
		if err != nil {
			return nil, fmt.Errorf("agentmem/eino: message %d: %w", i, err)
		}
		out = append(out, cm)
	}
	return out, nil
}

// messageFromEino converts one message. calls maps the ids of the tool calls
// seen so far to their names and arguments; lastCalls holds the ids generated
// for the last assistant message's id-less calls.
func messageFromEino(msg *schema.Message, calls map[string]callInfo, lastCalls *[]string) (message.Message, error) {
	var out message.Message
	var meta msgMeta
	role, metaRole, err := roleFromEino(msg.Role)
	if err != nil {
		return out, err
	}
	out.Role, meta.Role = role, metaRole
	out.Content.Format = 2
	meta.Name = msg.Name
	meta.ResponseMeta = msg.ResponseMeta
	out.ID, meta.Extra = extraFromEino(msg.Extra)

	parts, layout, err := contentFromEino(msg)
	out.Content.Parts = parts
	if err != nil {
		return out, err
	}
	if hasMultiContent(msg) {
		meta.Layout = layout
	}
	toolCallsFromEino(msg, &out, &meta, calls, lastCalls)
	if msg.Role == schema.Tool {
		part, tm := toolResultFromEino(msg, calls, lastCalls)
		out.Content.Parts = append(out.Content.Parts, part)
		meta.Tool = tm
	}

	if m := meta.toMap(); m != nil {
		out.Content.Metadata = map[string]any{MetadataKey: m}
	}
	return out, nil
}

// roleFromEino maps an eino role to a format-2 role and the msgMeta.Role that
// tells a tool message apart from the assistant message it is stored as.
func roleFromEino(r schema.RoleType) (message.Role, string, error) {
	switch r {
	case schema.User:
		return message.RoleUser, "", nil
	case schema.Assistant:
		return message.RoleAssistant, "", nil
	case schema.System:
		return message.RoleSystem, "", nil
	case schema.Tool:
		return message.RoleAssistant, string(schema.Tool), nil
	default:
		return "", "", fmt.Errorf("unknown role %q", r)
	}
}

// extraFromEino splits Extra into the stored message id (ExtraIDKey) and the
// remaining entries, normalised to plain JSON values for the metadata.
func extraFromEino(in map[string]any) (string, map[string]any) {
	if len(in) == 0 {
		return "", nil
	}
	var id string
	extra := make(map[string]any, len(in))
	for k, v := range in {
		if s, ok := v.(string); ok && k == ExtraIDKey && s != "" {
			id = s
			continue
		}
		extra[k] = v
	}
	return id, normalizeMap(extra)
}

// hasMultiContent reports whether msg has multi-content parts, whose order
// relative to Content and ReasoningContent only a layout can keep.
func hasMultiContent(msg *schema.Message) bool {
	return len(msg.MultiContent) > 0 || len(msg.UserInputMultiContent) > 0 || len(msg.AssistantGenMultiContent) > 0
}

// contentFromEino converts the content pieces of msg to core parts, in field
// order, with a layout entry per piece. On error it returns the parts so far.
func contentFromEino(msg *schema.Message) ([]message.Part, []layoutEntry, error) {
	var parts []message.Part
	var layout []layoutEntry
	if msg.ReasoningContent != "" {
		parts = append(parts, message.Part{Type: message.PartReasoning, Reasoning: msg.ReasoningContent})
		layout = append(layout, layoutEntry{F: "reasoning"})
	}
	// A tool message's Content is its result, stored in the result part.
	if msg.Content != "" && msg.Role != schema.Tool {
		parts = append(parts, core.TextPart(msg.Content))
		layout = append(layout, layoutEntry{F: "content"})
	}
	parts, layout, err := appendPartsFromEino(parts, layout, msg.MultiContent, legacyPartToCore)
	if err != nil {
		return parts, layout, err
	}
	parts, layout, err = appendPartsFromEino(parts, layout, msg.UserInputMultiContent, inputPartToCore)
	if err != nil {
		return parts, layout, err
	}
	return appendPartsFromEino(parts, layout, msg.AssistantGenMultiContent, outputPartToCore)
}

// appendPartsFromEino converts multi-content parts with conv, appending a
// layout entry for each and a core part for those that yield one.
func appendPartsFromEino[P any](parts []message.Part, layout []layoutEntry, in []P, conv func(P) (*message.Part, layoutEntry, error)) ([]message.Part, []layoutEntry, error) {
	for _, p := range in {
		part, e, err := conv(p)
		if err != nil {
			return parts, layout, err
		}
		layout = append(layout, e)
		if part != nil {
			parts = append(parts, *part)
		}
	}
	return parts, layout, nil
}

// toolCallsFromEino appends a call part per tool call of msg, records each
// call in calls (for the tool results that follow) and keeps in meta what the
// part cannot hold. An assistant message with calls resets lastCalls to the
// ids generated for its id-less calls.
func toolCallsFromEino(msg *schema.Message, out *message.Message, meta *msgMeta, calls map[string]callInfo, lastCalls *[]string) {
	if len(msg.ToolCalls) > 0 {
		*lastCalls = (*lastCalls)[:0]
	}
	for _, tc := range msg.ToolCalls {
		ti, cm := toolCallFromEino(tc)
		if cm.NoID {
			*lastCalls = append(*lastCalls, ti.ToolCallID)
		}
		if !cm.empty() {
			if meta.Calls == nil {
				meta.Calls = map[string]callMeta{}
			}
			meta.Calls[ti.ToolCallID] = cm
		}
		calls[ti.ToolCallID] = callInfo{name: tc.Function.Name, args: ti.Args}
		out.Content.Parts = append(out.Content.Parts, message.Part{Type: message.PartToolInvocation, ToolInvocation: ti})
	}
}

// toolCallFromEino converts one tool call to an invocation in state "call",
// with a generated id and a placeholder name when it has none, and returns
// the fields format 2 cannot express.
func toolCallFromEino(tc schema.ToolCall) (*message.ToolInvocation, callMeta) {
	var cm callMeta
	id := tc.ID
	if id == "" {
		id = message.NewToolCallID()
		cm.NoID = true
	}
	cm.Index = tc.Index
	if tc.Type != "function" {
		t := tc.Type
		cm.Type = &t
	}
	cm.Extra = normalizeMap(tc.Extra)
	args, orig := argsToJSON(tc.Function.Arguments)
	cm.Arguments = orig
	name := tc.Function.Name
	if name == "" {
		name, cm.NoName = message.PlaceholderToolName, true
	}
	return &message.ToolInvocation{State: message.ToolStateCall, ToolCallID: id, ToolName: name, Args: args}, cm
}

// toolResultFromEino converts a tool message to a result part; its name and
// arguments come from the matching call in calls. The toolMeta is nil when
// the part reproduces the message.
func toolResultFromEino(msg *schema.Message, calls map[string]callInfo, lastCalls *[]string) (message.Part, *toolMeta) {
	var tm toolMeta
	id := msg.ToolCallID
	if id == "" {
		tm.NoID = true
		id = nextResultID(lastCalls)
	}
	call, found := calls[id]
	name := msg.ToolName
	if message.IsPlaceholderToolName(name) && found {
		name = call.name
	}
	if name == "" {
		name = message.PlaceholderToolName
	}
	if name != msg.ToolName {
		orig := msg.ToolName
		tm.ToolName = &orig
	}
	part := message.Part{Type: message.PartToolInvocation, ToolInvocation: &message.ToolInvocation{
		State: message.ToolStateResult, ToolCallID: id, ToolName: name, Args: cloneRaw(call.args), Result: resultToJSON(msg.Content)}}
	if tm == (toolMeta{}) {
		return part, nil
	}
	return part, &tm
}

// nextResultID is the id for an id-less tool result: id-less results answer
// the last assistant's id-less calls in order, so each takes the next
// generated call id; a fresh id when none is left.
func nextResultID(lastCalls *[]string) string {
	if len(*lastCalls) > 0 {
		id := (*lastCalls)[0]
		*lastCalls = (*lastCalls)[1:]
		return id
	}
	return message.NewToolCallID()
}

func (c *callMeta) empty() bool {
	return c.Index == nil && c.Type == nil && len(c.Extra) == 0 && c.Arguments == nil && !c.NoID && !c.NoName
}

// empty reports whether meta carries nothing.
func (m *msgMeta) empty() bool {
	return m.Role == "" && m.Name == "" && len(m.Extra) == 0 && m.ResponseMeta == nil &&
		len(m.Layout) == 0 && len(m.Calls) == 0 && m.Tool == nil
}

// toMap returns meta as plain JSON values, or nil when it is empty.
func (m *msgMeta) toMap() map[string]any {
	if m.empty() {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil
	}
	return out
}

// readMeta decodes content.metadata[MetadataKey]; nil when absent or malformed.
func readMeta(c *message.Content) *msgMeta {
	v, ok := c.Metadata[MetadataKey]
	if !ok {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m msgMeta
	if err := json.Unmarshal(b, &m); err != nil {
		return nil
	}
	return &m
}

// normalizeMap returns m with every value as encoding/json would decode it;
// values that cannot be encoded are dropped. nil for an empty map.
func normalizeMap(m map[string]any) map[string]any {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		b, err := json.Marshal(v)
		if err != nil {
			continue
		}
		var n any
		if err := json.Unmarshal(b, &n); err != nil {
			continue
		}
		out[k] = n
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// argsToJSON returns tool-call arguments in canonical form
// (message.CanonicalArgs), plus the original text when that does not
// reproduce it (whitespace, escaping, invalid JSON).
func argsToJSON(s string) (json.RawMessage, *string) {
	args := message.CanonicalArgs(json.RawMessage(s))
	if args == nil && s == "" {
		return nil, nil
	}
	if string(args) == s {
		return args, nil
	}
	return args, &s
}

// argsText is the inverse of argsToJSON for parts without metadata.
func argsText(args json.RawMessage) string {
	if len(args) == 0 {
		return ""
	}
	return string(args)
}

// resultToJSON stores a tool message's content: a canonical JSON object or
// array as itself, anything else as a JSON string.
func resultToJSON(content string) json.RawMessage {
	if len(content) > 0 && (content[0] == '{' || content[0] == '[') {
		if c := message.CanonicalArgs(json.RawMessage(content)); string(c) == content {
			return c
		}
	}
	b, _ := json.Marshal(content)
	return b
}

// resultText is the tool-message content of a result part.
func resultText(ti *message.ToolInvocation) string {
	r := bytes.TrimSpace(ti.Result)
	if len(r) == 0 {
		return ti.ErrorText
	}
	if r[0] == '"' {
		var s string
		if json.Unmarshal(r, &s) == nil {
			return s
		}
	}
	return string(ti.Result)
}

func cloneRaw(r json.RawMessage) json.RawMessage {
	if r == nil {
		return nil
	}
	return append(json.RawMessage(nil), r...)
}

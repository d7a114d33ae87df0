package core

import (
	"encoding/json"

	"github.com/agentmem/agentmem/core/message"
)

// Role is who produced a message.
type Role = message.Role

// Source tells where a prompt message came from, so trimming and persistence
// can tell remembered history from the live turn.
type Source = message.Source

// Message is a stored conversation message (MastraDBMessage, format 2).
type Message = message.Message

// Content is the body of a format-2 message. Parts is the source of truth; the
// AI SDK v4 mirrors (content, toolInvocations, reasoning,
// experimental_attachments) are derived when encoding and accepted when decoding.
type Content = message.Content

// Part is one ordered element of a message. Only the fields of its Type are
// used; fields this package does not know are kept in Extra so an unknown part
// type survives a decode/encode round trip unchanged.
type Part = message.Part

// Constants of package message.
const (
	RoleUser           = message.RoleUser
	RoleAssistant      = message.RoleAssistant
	RoleSystem         = message.RoleSystem
	RoleSignal         = message.RoleSignal
	SourceInput        = message.SourceInput
	SourceResponse     = message.SourceResponse
	SourceMemory       = message.SourceMemory
	SourceRecall       = message.SourceRecall
	SourceContext      = message.SourceContext
	SourceSystem       = message.SourceSystem
	PartText           = message.PartText
	PartReasoning      = message.PartReasoning
	PartToolInvocation = message.PartToolInvocation
	PartFile           = message.PartFile
	PartSource         = message.PartSource
	PartStepStart      = message.PartStepStart
)

// TextPart returns a text part.
func TextPart(text string) Part { return message.TextPart(text) }

// NewMessage returns a message with one text part. ID and CreatedAt are
// assigned on save when empty.
func NewMessage(role Role, text string) Message { return message.NewMessage(role, text) }

// ToolCall returns the assistant message of a model's call of tool name
// with args; an empty id gets a fresh one. See message.ToolCall.
func ToolCall(id, name string, args json.RawMessage) Message { return message.ToolCall(id, name, args) }

// ToolResult returns the message holding the result of the tool call in
// call, which memory pairs with the call by its id (false when call holds no
// tool call). See message.ToolResult.
func ToolResult(call Message, result json.RawMessage) (Message, bool) {
	return message.ToolResult(call, result)
}

package core

import "github.com/agentmem/agentmem/core/message"

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

// ReasoningDetail is one element of a reasoning part's details.
type ReasoningDetail = message.ReasoningDetail

// ToolInvocation is a tool call and, once it has run, its result.
type ToolInvocation = message.ToolInvocation

// SourceRef is a URL source cited by the model.
type SourceRef = message.SourceRef

// Constants of package message.
const (
	RoleUser             = message.RoleUser
	RoleAssistant        = message.RoleAssistant
	RoleSystem           = message.RoleSystem
	RoleSignal           = message.RoleSignal
	SourceInput          = message.SourceInput
	SourceResponse       = message.SourceResponse
	SourceMemory         = message.SourceMemory
	SourceRecall         = message.SourceRecall
	SourceContext        = message.SourceContext
	SourceSystem         = message.SourceSystem
	PartText             = message.PartText
	PartReasoning        = message.PartReasoning
	PartToolInvocation   = message.PartToolInvocation
	PartFile             = message.PartFile
	PartSource           = message.PartSource
	PartStepStart        = message.PartStepStart
	ToolStatePartialCall = message.ToolStatePartialCall
	ToolStateCall        = message.ToolStateCall
	ToolStateResult      = message.ToolStateResult
)

// TextPart returns a text part.
func TextPart(text string) Part { return message.TextPart(text) }

// NewMessage returns a message with one text part. ID and CreatedAt are
// assigned on save when empty.
func NewMessage(role Role, text string) Message { return message.NewMessage(role, text) }

// CloneMetadata deep-copies JSON-like metadata (maps, slices and scalars);
// stores use it to copy metadata in and out.
func CloneMetadata(m map[string]any) map[string]any { return message.CloneMetadata(m) }

// Less orders messages by (CreatedAt, Seq), the total order of a thread.
func Less(a, b *Message) bool { return message.Less(a, b) }

// ToolGroups partitions msgs (by index) into linked groups: messages that share
// a tool call id (a call and its result, even in different rows) form one group.
func ToolGroups(msgs []Message) [][]int { return message.ToolGroups(msgs) }

package eino

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/schema"
)

// extraAgenticKey is the schema.Message.Extra key under which a message
// converted from a schema.AgenticMessage keeps that message's JSON, so the
// agentic message comes back exactly from memory.
const extraAgenticKey = "agentmem_agentic"

// agenticToMessages converts agentic messages to schema messages, the form
// the memory stores. An agentic message becomes one message per run of
// blocks that are not tool results and one schema.Tool message per
// function-tool result; each carries the JSON of its blocks (as an agentic
// message of the same role) in Extra, the first also the message's
// ResponseMeta and Extra.
func agenticToMessages(msgs []*schema.AgenticMessage) ([]*schema.Message, error) {
	var out []*schema.Message
	for i, am := range msgs {
		if am == nil {
			continue // as the schema.Message middleware skips nil messages
		}
		var group []*schema.ContentBlock
		first := true
		flush := func() error {
			if len(group) == 0 && !(first && len(am.ContentBlocks) == 0) {
				return nil
			}
			part := &schema.AgenticMessage{Role: am.Role, ContentBlocks: group}
			if first {
				part.ResponseMeta, part.Extra = am.ResponseMeta, am.Extra
			}
			msg, err := agenticToMessage(part)
			if err != nil {
				return fmt.Errorf("agentmem/eino: agentic message %d: %w", i, err)
			}
			out = append(out, msg)
			group, first = nil, false
			return nil
		}
		for _, b := range am.ContentBlocks {
			if b != nil && b.FunctionToolResult != nil {
				if err := flush(); err != nil {
					return nil, err
				}
				group = []*schema.ContentBlock{b}
				if err := flush(); err != nil {
					return nil, err
				}
				continue
			}
			group = append(group, b)
		}
		if err := flush(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// agenticToMessage converts one agentic message whose blocks are either all
// not tool results or one tool result.
func agenticToMessage(am *schema.AgenticMessage) (*schema.Message, error) {
	raw, err := json.Marshal(am)
	if err != nil {
		return nil, err
	}
	msg := &schema.Message{Extra: map[string]any{extraAgenticKey: string(raw)}}
	switch am.Role {
	case schema.AgenticRoleTypeSystem:
		msg.Role = schema.System
	case schema.AgenticRoleTypeUser:
		msg.Role = schema.User
	case schema.AgenticRoleTypeAssistant:
		msg.Role = schema.Assistant
	default:
		return nil, fmt.Errorf("unknown agentic role %q", am.Role)
	}
	var text []string
	for _, b := range am.ContentBlocks {
		switch {
		case b == nil:
		case b.FunctionToolResult != nil:
			r := b.FunctionToolResult
			msg.Role, msg.ToolCallID, msg.ToolName = schema.Tool, r.CallID, r.Name
			for _, c := range r.Content {
				if c != nil && c.Text != nil {
					text = append(text, c.Text.Text)
				}
			}
		case b.FunctionToolCall != nil:
			c := b.FunctionToolCall
			msg.ToolCalls = append(msg.ToolCalls, schema.ToolCall{ID: c.CallID, Type: "function",
				Function: schema.FunctionCall{Name: c.Name, Arguments: c.Arguments}})
		case b.Reasoning != nil:
			msg.ReasoningContent += b.Reasoning.Text
		case b.UserInputText != nil:
			text = append(text, b.UserInputText.Text)
		case b.AssistantGenText != nil:
			text = append(text, b.AssistantGenText.Text)
		}
	}
	msg.Content = strings.Join(text, "\n")
	return msg, nil
}

// messagesToAgentic converts schema messages back: a message that carries
// its agentic JSON is decoded from it; any other one (for example stored by
// the schema.Message middleware or another adapter) is rebuilt from its
// fields, a tool message as a user message holding the function-tool result.
func messagesToAgentic(msgs []*schema.Message) ([]*schema.AgenticMessage, error) {
	out := make([]*schema.AgenticMessage, 0, len(msgs))
	for i, msg := range msgs {
		if msg == nil {
			return nil, fmt.Errorf("agentmem/eino: message %d is nil", i)
		}
		if raw, ok := msg.Extra[extraAgenticKey].(string); ok {
			var am schema.AgenticMessage
			if err := json.Unmarshal([]byte(raw), &am); err != nil {
				return nil, fmt.Errorf("agentmem/eino: message %d: agentic JSON: %w", i, err)
			}
			out = append(out, &am)
			continue
		}
		am, err := agenticFromFields(msg)
		if err != nil {
			return nil, fmt.Errorf("agentmem/eino: message %d: %w", i, err)
		}
		out = append(out, am)
	}
	return out, nil
}

func agenticFromFields(msg *schema.Message) (*schema.AgenticMessage, error) {
	am := &schema.AgenticMessage{}
	switch msg.Role {
	case schema.System:
		am.Role = schema.AgenticRoleTypeSystem
		am.ContentBlocks = []*schema.ContentBlock{schema.NewContentBlock(&schema.UserInputText{Text: msg.Content})}
	case schema.User:
		am.Role = schema.AgenticRoleTypeUser
		am.ContentBlocks = []*schema.ContentBlock{schema.NewContentBlock(&schema.UserInputText{Text: msg.Content})}
	case schema.Tool:
		am.Role = schema.AgenticRoleTypeUser
		am.ContentBlocks = []*schema.ContentBlock{{Type: schema.ContentBlockTypeFunctionToolResult,
			FunctionToolResult: &schema.FunctionToolResult{CallID: msg.ToolCallID, Name: msg.ToolName,
				Content: []*schema.FunctionToolResultContentBlock{{Type: schema.FunctionToolResultContentBlockTypeText,
					Text: &schema.UserInputText{Text: msg.Content}}}}}}
	case schema.Assistant:
		am.Role = schema.AgenticRoleTypeAssistant
		if msg.ReasoningContent != "" {
			am.ContentBlocks = append(am.ContentBlocks, schema.NewContentBlock(&schema.Reasoning{Text: msg.ReasoningContent}))
		}
		if msg.Content != "" {
			am.ContentBlocks = append(am.ContentBlocks, schema.NewContentBlock(&schema.AssistantGenText{Text: msg.Content}))
		}
		for _, tc := range msg.ToolCalls {
			am.ContentBlocks = append(am.ContentBlocks, schema.NewContentBlock(&schema.FunctionToolCall{
				CallID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments}))
		}
	default:
		return nil, fmt.Errorf("unknown role %q", msg.Role)
	}
	return am, nil
}

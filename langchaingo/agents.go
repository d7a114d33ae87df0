package langchaingo

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/prompts"
)

// wireMessage is the JSON form of one chat message (MarshalMessages).
type wireMessage struct {
	Type             llms.ChatMessageType `json:"type"`
	Content          string               `json:"content"`
	Role             string               `json:"role,omitempty"`
	Name             string               `json:"name,omitempty"`
	ToolCallID       string               `json:"tool_call_id,omitempty"`
	ToolCalls        []wireToolCall       `json:"tool_calls,omitempty"`
	FunctionCall     *llms.FunctionCall   `json:"function_call,omitempty"`
	ReasoningContent string               `json:"reasoning_content,omitempty"`
}

// MarshalMessages encodes chat messages as a JSON array that keeps every
// field of the six langchaingo message types: {"type", "content", "role",
// "name", "tool_call_id", "tool_calls", "function_call",
// "reasoning_content"}. UnmarshalMessages decodes it.
func MarshalMessages(msgs []llms.ChatMessage) (string, error) {
	wire := make([]wireMessage, 0, len(msgs))
	for i, msg := range msgs {
		msg, err := normalize(msg)
		if err != nil {
			return "", fmt.Errorf("message %d: %w", i, err)
		}
		w := wireMessage{Type: msg.GetType(), Content: msg.GetContent()}
		switch m := msg.(type) {
		case llms.AIChatMessage:
			w.ToolCalls, w.FunctionCall, w.ReasoningContent = toWire(m.ToolCalls), m.FunctionCall, m.ReasoningContent
		case llms.GenericChatMessage:
			w.Role, w.Name = m.Role, m.Name
		case llms.FunctionChatMessage:
			w.Name = m.Name
		case llms.ToolChatMessage:
			w.ToolCallID = m.ID
		}
		wire = append(wire, w)
	}
	b, err := json.Marshal(wire)
	return string(b), err
}

// UnmarshalMessages decodes the JSON of MarshalMessages into value messages.
func UnmarshalMessages(s string) ([]llms.ChatMessage, error) {
	var wire []wireMessage
	if err := json.Unmarshal([]byte(s), &wire); err != nil {
		return nil, fmt.Errorf("langchaingo memory: decoding history: %w", err)
	}
	out := make([]llms.ChatMessage, 0, len(wire))
	for i, w := range wire {
		switch w.Type {
		case llms.ChatMessageTypeAI:
			ai := llms.AIChatMessage{Content: w.Content, FunctionCall: w.FunctionCall, ReasoningContent: w.ReasoningContent}
			for _, tc := range w.ToolCalls {
				ai.ToolCalls = append(ai.ToolCalls, tc.toolCall())
			}
			out = append(out, ai)
		case llms.ChatMessageTypeHuman:
			out = append(out, llms.HumanChatMessage{Content: w.Content})
		case llms.ChatMessageTypeSystem:
			out = append(out, llms.SystemChatMessage{Content: w.Content})
		case llms.ChatMessageTypeGeneric:
			out = append(out, llms.GenericChatMessage{Content: w.Content, Role: w.Role, Name: w.Name})
		case llms.ChatMessageTypeFunction:
			out = append(out, llms.FunctionChatMessage{Name: w.Name, Content: w.Content})
		case llms.ChatMessageTypeTool:
			out = append(out, llms.ToolChatMessage{ID: w.ToolCallID, Content: w.Content})
		default:
			return nil, fmt.Errorf("langchaingo memory: history message %d: %w: %q", i, llms.ErrUnexpectedChatMessageType, w.Type)
		}
	}
	return out, nil
}

// HistoryPlaceholder is a prompts.MessageFormatter that inserts the history
// a buffer returned under Key (default "history"): a JSON string from
// WithReturnMessagesAsJSON or a []llms.ChatMessage. It is the way to give an
// OpenAI functions agent structured history through agents.Executor:
//
//	mem := lcmem.NewConversationBuffer(lcmem.WithReturnMessagesAsJSON(), lcmem.WithOutputKey("output"))
//	agent := agents.NewOpenAIFunctionsAgent(llm, tools, agents.NewOpenAIOption().WithExtraMessages(
//		[]prompts.MessageFormatter{lcmem.HistoryPlaceholder{}}))
//	exec := agents.NewExecutor(agent, agents.WithMemory(mem), agents.WithReturnIntermediateSteps())
type HistoryPlaceholder struct {
	// Key is the memory key; default "history".
	Key string
}

var _ prompts.MessageFormatter = HistoryPlaceholder{}

func (p HistoryPlaceholder) key() string {
	if p.Key == "" {
		return "history"
	}
	return p.Key
}

// FormatMessages returns the history messages in values[Key]; an absent or
// empty value gives none.
func (p HistoryPlaceholder) FormatMessages(values map[string]any) ([]llms.ChatMessage, error) {
	switch v := values[p.key()].(type) {
	case nil:
		return nil, nil
	case string:
		if len(bytes.TrimSpace([]byte(v))) == 0 {
			return nil, nil
		}
		return UnmarshalMessages(v)
	case []llms.ChatMessage:
		return append([]llms.ChatMessage(nil), v...), nil
	default:
		return nil, fmt.Errorf("%w: variable %q has type %T", prompts.ErrNeedChatMessageList, p.key(), v)
	}
}

// GetInputVariables returns []string{Key}.
func (p HistoryPlaceholder) GetInputVariables() []string { return []string{p.key()} }

func isJSONObject(s string) bool {
	b := bytes.TrimSpace([]byte(s))
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}

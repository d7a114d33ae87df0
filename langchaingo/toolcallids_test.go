package langchaingo

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
)

// Providers such as googleai return tool calls without ids; their results
// then have no id either and pair with the calls by position. Such a
// conversation must come back unchanged, and the prompt a buffer builds must
// keep the call (name and arguments) paired with its result.
func TestToolCallsWithoutIDs(t *testing.T) {
	ctx := context.Background()
	conv := []llms.ChatMessage{
		llms.HumanChatMessage{Content: "Weather in Paris and Rome?"},
		llms.AIChatMessage{ToolCalls: []llms.ToolCall{
			{FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: `{"city":"Paris"}`}},
			{FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: `{"city":"Rome"}`}},
		}},
		llms.ToolChatMessage{Content: "sunny"},
		llms.ToolChatMessage{Content: "rainy"},
		llms.AIChatMessage{Content: "Paris is sunny, Rome rainy."},
	}
	msgs, err := MessagesToCore(conv)
	require.NoError(t, err)
	require.Equal(t, conv, MessagesFromCore(msgs))
	call := msgs[1].Content.Parts[1].ToolInvocation
	res := msgs[3].Content.Parts[0].ToolInvocation
	require.Equal(t, call.ToolCallID, res.ToolCallID)
	require.Equal(t, "weather", res.ToolName)
	require.JSONEq(t, `{"city":"Rome"}`, string(res.Args))

	// Added one message at a time, the results find their calls in the store.
	h := NewChatMessageHistory()
	for _, m := range conv {
		require.NoError(t, h.AddMessage(ctx, m))
	}
	got, err := h.Messages(ctx)
	require.NoError(t, err)
	require.Equal(t, conv, got)

	b := NewConversationBuffer(WithChatHistory(h), WithReturnMessages(true))
	v, err := b.LoadMemoryVariables(ctx, map[string]any{"input": "And tomorrow?"})
	require.NoError(t, err)
	require.Equal(t, conv, v["history"])
}

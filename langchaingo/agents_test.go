package langchaingo

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/memory"
	"github.com/tmc/langchaingo/prompts"
	"github.com/tmc/langchaingo/schema"
	"github.com/tmc/langchaingo/tools"
)

type calculator struct{}

func (calculator) Name() string        { return "calculator" }
func (calculator) Description() string { return "evaluates arithmetic" }
func (calculator) Call(_ context.Context, in string) (string, error) {
	if in == "2+2" {
		return "4", nil
	}
	return "?", nil
}

// agentLLM answers turn 1 with a tool call and then "4", turn 2 with text.
func agentLLM() *recordingLLM {
	return &recordingLLM{responses: []*llms.ContentChoice{
		{ToolCalls: []llms.ToolCall{{ID: "call_1", Type: "function",
			FunctionCall: &llms.FunctionCall{Name: "calculator", Arguments: `{"__arg1":"2+2"}`}}}},
		{Content: "2+2 is 4."},
		{Content: "You asked me what 2+2 is."},
	}}
}

func roles(req []llms.MessageContent) []llms.ChatMessageType {
	var out []llms.ChatMessageType
	for _, m := range req {
		out = append(out, m.Role)
	}
	return out
}

// langchaingo issue #1181: agents.Executor rejects the []llms.ChatMessage
// history a functions agent's MessagesPlaceholder needs.
func TestUpstreamExecutorRejectsStructuredHistory(t *testing.T) {
	t.Parallel()
	mem := memory.NewConversationBuffer(memory.WithReturnMessages(true))
	agent := agents.NewOpenAIFunctionsAgent(agentLLM(), []tools.Tool{calculator{}}, agents.NewOpenAIOption().WithExtraMessages(
		[]prompts.MessageFormatter{prompts.MessagesPlaceholder{VariableName: "history"}}))
	_, err := chains.Run(context.Background(), agents.NewExecutor(agent, agents.WithMemory(mem)), "what is 2+2?")
	assert.ErrorIs(t, err, agents.ErrExecutorInputNotString)
}

// The JSON-string history and HistoryPlaceholder give a functions agent the
// previous turns as separate messages, tool calls included, and the
// intermediate steps the executor returns are saved.
func TestExecutorWithStructuredHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for name, outputKey := range map[string]string{"output key": "output", "no output key": ""} {
		t.Run(name, func(t *testing.T) {
			llm := agentLLM()
			mem := NewConversationBuffer(WithReturnMessagesAsJSON(), WithOutputKey(outputKey))
			agent := agents.NewOpenAIFunctionsAgent(llm, []tools.Tool{calculator{}}, agents.NewOpenAIOption().WithExtraMessages(
				[]prompts.MessageFormatter{HistoryPlaceholder{}}))
			exec := agents.NewExecutor(agent, agents.WithMemory(mem), agents.WithReturnIntermediateSteps())

			out, err := chains.Call(ctx, exec, map[string]any{"input": "what is 2+2?"})
			require.NoError(t, err)
			assert.Equal(t, "2+2 is 4.", out["output"])
			out, err = chains.Call(ctx, exec, map[string]any{"input": "what did I ask?"})
			require.NoError(t, err)
			assert.Equal(t, "You asked me what 2+2 is.", out["output"])

			reqs := llm.requests()
			require.Len(t, reqs, 3)
			assert.Equal(t, []llms.ChatMessageType{"system", "human", "ai", "tool", "ai", "human"}, roles(reqs[2]))
			assert.Equal(t, llms.ToolCall{ID: "call_1", Type: "function",
				FunctionCall: &llms.FunctionCall{Name: "calculator", Arguments: `{"__arg1":"2+2"}`}}, reqs[2][2].Parts[0])
			assert.Equal(t, llms.ToolCallResponse{ToolCallID: "call_1", Content: "4"}, reqs[2][3].Parts[0])

			msgs, err := mem.ChatHistory.Messages(ctx)
			require.NoError(t, err)
			require.Len(t, msgs, 6)
			assert.Equal(t, llms.ToolChatMessage{ID: "call_1", Content: "4"}, msgs[2])
			assert.Equal(t, llms.AIChatMessage{Content: "2+2 is 4."}, msgs[3])
		})
	}
}

// Upstream needs OutputKey "output" with intermediate steps; this package
// saves them either way.
func TestUpstreamIntermediateStepsNeedOutputKey(t *testing.T) {
	t.Parallel()
	agent := agents.NewOpenAIFunctionsAgent(agentLLM(), []tools.Tool{calculator{}})
	exec := agents.NewExecutor(agent, agents.WithMemory(memory.NewConversationBuffer()), agents.WithReturnIntermediateSteps())
	_, err := chains.Call(context.Background(), exec, map[string]any{"input": "what is 2+2?"})
	assert.ErrorIs(t, err, memory.ErrInvalidInputValues)
}

// With intermediate steps and no output key, this package saves the steps
// (upstream fails, see above) but keeps them out of the rendered text: the
// next prompt's history is "Human: …\nAI: …" with the final answer only,
// exactly what upstream renders when given OutputKey "output".
func TestIntermediateStepsStayOutOfRenderedText(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	run := func(mem schema.Memory) string {
		agent := agents.NewConversationalAgent(scripted("Thought: Do I need to use a tool? Yes\nAction: calculator\nAction Input: 2+2",
			"Thought: Do I need to use a tool? No\nAI: 2+2 is 4."), []tools.Tool{calculator{}})
		exec := agents.NewExecutor(agent, agents.WithMemory(mem), agents.WithReturnIntermediateSteps())
		out, err := chains.Call(ctx, exec, map[string]any{"input": "what is 2+2?"})
		require.NoError(t, err)
		require.NotEmpty(t, out["intermediateSteps"])
		vars, err := mem.LoadMemoryVariables(ctx, map[string]any{"input": "next"})
		require.NoError(t, err)
		return vars["history"].(string)
	}
	up := run(memory.NewConversationBuffer(memory.WithOutputKey("output")))
	ours := NewConversationBuffer()
	assert.Equal(t, up, run(ours))
	assert.Equal(t, "Human: what is 2+2?\nAI:  2+2 is 4.", up) // the agent keeps the space after "AI:"
	// The steps are stored: the messages form shows the call and its result.
	ours.ReturnMessages = true
	vars, err := ours.LoadMemoryVariables(ctx, map[string]any{})
	require.NoError(t, err)
	msgs := vars["history"].([]llms.ChatMessage)
	require.Len(t, msgs, 4)
	assert.Equal(t, "calculator", msgs[1].(llms.AIChatMessage).ToolCalls[0].FunctionCall.Name)
	assert.Equal(t, llms.ChatMessageTypeTool, msgs[2].GetType())
}

func TestStepsToMessages(t *testing.T) {
	t.Parallel()
	steps := []schema.AgentStep{
		{Action: schema.AgentAction{Tool: "a", ToolInput: "x", Log: "L1", ToolID: "1"}, Observation: "o1"},
		{Action: schema.AgentAction{Tool: "b", ToolInput: `{"k":1}`, Log: "L1", ToolID: "2"}, Observation: "o2"},
		{Observation: "could not parse"},
		{Action: schema.AgentAction{Tool: "updateWorkingMemory", ToolInput: "secret", Log: "L2"}, Observation: "ok"},
		{Action: schema.AgentAction{Tool: "c", ToolInput: "y", Log: "L3"}, Observation: "o3"},
	}
	got := StepsToMessages(steps)
	require.Len(t, got, 5)
	assert.Equal(t, llms.AIChatMessage{Content: "L1", ToolCalls: []llms.ToolCall{
		{ID: "1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "a", Arguments: `{"__arg1":"x"}`}},
		{ID: "2", Type: "function", FunctionCall: &llms.FunctionCall{Name: "b", Arguments: `{"k":1}`}},
	}}, got[0])
	assert.Equal(t, llms.ToolChatMessage{ID: "1", Content: "o1"}, got[1])
	assert.Equal(t, llms.ToolChatMessage{ID: "2", Content: "o2"}, got[2])
	c := got[3].(llms.AIChatMessage)
	require.Len(t, c.ToolCalls, 1)
	assert.NotEmpty(t, c.ToolCalls[0].ID, "a step without id gets one")
	assert.Equal(t, llms.ToolChatMessage{ID: c.ToolCalls[0].ID, Content: "o3"}, got[4])
	assert.True(t, validPairs(got))
}

func TestHistoryPlaceholder(t *testing.T) {
	t.Parallel()
	p := HistoryPlaceholder{}
	assert.Equal(t, []string{"history"}, p.GetInputVariables())
	msgs, err := p.FormatMessages(map[string]any{"history": ""})
	require.NoError(t, err)
	assert.Empty(t, msgs)
	msgs, err = p.FormatMessages(map[string]any{})
	require.NoError(t, err)
	assert.Empty(t, msgs)
	in := []llms.ChatMessage{llms.HumanChatMessage{Content: "a"}}
	msgs, err = p.FormatMessages(map[string]any{"history": in})
	require.NoError(t, err)
	assert.Equal(t, in, msgs)
	_, err = p.FormatMessages(map[string]any{"history": 3})
	assert.ErrorIs(t, err, prompts.ErrNeedChatMessageList)
	_, err = HistoryPlaceholder{Key: "h"}.FormatMessages(map[string]any{"h": "not json"})
	assert.Error(t, err)
}

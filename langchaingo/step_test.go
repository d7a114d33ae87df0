package langchaingo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/prompts"
	"github.com/tmc/langchaingo/tools"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/tokenizer"
)

const (
	loopSteps    = 20
	loopBudget   = 8000
	resultTokens = 5000
)

// reportText is a text of at least n tokens under tk.
func reportText(tk *tokenizer.Tokenizer, tag string, n int) string {
	var b strings.Builder
	b.WriteString(tag)
	for tk.Count(b.String()) < n {
		for range 25 {
			fmt.Fprintf(&b, " %s line %d of the report", tag, b.Len())
		}
	}
	return b.String()
}

// reportTool returns a report of resultTokens tokens for the id it is given.
type reportTool struct{ tk *tokenizer.Tokenizer }

func (reportTool) Name() string        { return "report" }
func (reportTool) Description() string { return "a long report" }
func (r reportTool) Call(_ context.Context, id string) (string, error) {
	return reportText(r.tk, id, resultTokens), nil
}

// loopLLM calls the report tool loopSteps times, then answers, recording
// every request.
type loopLLM struct {
	mu    sync.Mutex
	calls [][]llms.MessageContent
}

func (l *loopLLM) GenerateContent(_ context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.calls)
	l.calls = append(l.calls, msgs)
	if n == loopSteps {
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "All reports read."}}}, nil
	}
	id := fmt.Sprint("c", n)
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{ToolCalls: []llms.ToolCall{{ID: id, Type: "function",
		FunctionCall: &llms.FunctionCall{Name: "report", Arguments: `{"__arg1":"` + id + `"}`}}}}}}, nil
}

func (l *loopLLM) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, l, prompt, options...)
}

// sentTokens counts a request as memory counts messages: its text, tool
// calls and tool results.
func sentTokens(tk *tokenizer.Tokenizer, req []llms.MessageContent) int {
	total := budget.ReplyPriming
	for _, mc := range req {
		m := core.Message{Role: core.RoleAssistant, Content: core.Content{Format: 2}}
		switch mc.Role {
		case llms.ChatMessageTypeSystem:
			m.Role = core.RoleSystem
		case llms.ChatMessageTypeHuman:
			m.Role = core.RoleUser
		}
		for _, p := range mc.Parts {
			switch p := p.(type) {
			case llms.TextContent:
				m.Content.Parts = append(m.Content.Parts, core.TextPart(p.Text))
			case llms.ToolCall:
				m.Content.Parts = append(m.Content.Parts, core.Part{Type: core.PartToolInvocation, ToolInvocation: &message.ToolInvocation{
					State: message.ToolStateCall, ToolCallID: p.ID, ToolName: p.FunctionCall.Name, Args: json.RawMessage(p.FunctionCall.Arguments)}})
			case llms.ToolCallResponse:
				r, _ := json.Marshal(p.Content)
				m.Content.Parts = append(m.Content.Parts, core.Part{Type: core.PartToolInvocation, ToolInvocation: &message.ToolInvocation{
					State: message.ToolStateResult, ToolCallID: p.ToolCallID, ToolName: p.Name, Result: r}})
			}
		}
		total += budget.MessageTokens(tk, &m)
	}
	return total
}

// An agents.Executor over a functions agent wrapped with StepAgent: a
// 20-step loop of 5k-token tool results under an 8k token buffer, on a
// thread with history, never sends the model a request over budget, the
// newest result always whole, every call with its result; the executor's
// steps, and what SaveContext stores, are whole.
func TestStepAgentBudget(t *testing.T) {
	ctx := context.Background()
	tk := tokenizer.Default()
	mem, err := core.New(core.Options{Store: memstore.New(), Tokenizer: tk})
	require.NoError(t, err)
	for i := range 6 {
		turn, err := mem.Begin(ctx, core.TurnRequest{ThreadID: "lc-loop", ResourceID: "r",
			Input: []core.Message{core.NewMessage(core.RoleUser, reportText(tk, fmt.Sprint("q", i), 300))}})
		require.NoError(t, err)
		require.NoError(t, turn.Commit(ctx, []core.Message{core.NewMessage(core.RoleAssistant, reportText(tk, fmt.Sprint("a", i), 300))}))
	}
	buf := NewConversationTokenBuffer(nil, loopBudget, WithMemory(mem), WithThread("lc-loop", "r"), WithReturnMessagesAsJSON(), WithOutputKey("output"))
	llm := &loopLLM{}
	agent := agents.NewOpenAIFunctionsAgent(llm, []tools.Tool{reportTool{tk}}, agents.NewOpenAIOption().WithExtraMessages(
		[]prompts.MessageFormatter{HistoryPlaceholder{}}))
	exec := agents.NewExecutor(StepAgent(agent, buf), agents.WithMemory(buf), agents.WithMaxIterations(loopSteps+5), agents.WithReturnIntermediateSteps())
	out, err := chains.Call(ctx, exec, map[string]any{"input": "Read the reports."})
	require.NoError(t, err)
	require.Equal(t, "All reports read.", out["output"])

	require.Len(t, llm.calls, loopSteps+1)
	for n, req := range llm.calls {
		if got := sentTokens(tk, req); got > loopBudget {
			t.Fatalf("call %d: request of %d tokens, budget %d", n, got, loopBudget)
		}
		results := map[string]string{}
		for _, mc := range req {
			for _, p := range mc.Parts {
				if r, ok := p.(llms.ToolCallResponse); ok {
					results[r.ToolCallID] = r.Content
				}
			}
		}
		require.Len(t, results, n, "call %d: a call or its result left the request", n)
		if n > 0 {
			id := fmt.Sprint("c", n-1)
			last := req[len(req)-1].Parts[0]
			require.Equal(t, llms.ToolCallResponse{ToolCallID: id, Content: reportText(tk, id, resultTokens)}, last, "call %d: newest result not last and whole", n)
		}
	}
	if !strings.Contains(fmt.Sprint(llm.calls[loopSteps]), "elided") {
		t.Fatal("the last request elided nothing; the loop did not exercise the budget")
	}
	msgs, err := buf.ChatHistory.Messages(ctx)
	require.NoError(t, err)
	n := 0
	for _, m := range msgs {
		if tm, ok := m.(llms.ToolChatMessage); ok {
			n++
			require.Equal(t, reportText(tk, tm.ID, resultTokens), tm.Content, "stored result of %s", tm.ID)
		}
	}
	require.Equal(t, loopSteps, n)
}

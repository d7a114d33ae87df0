package langchaingo_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/prompts"
	"github.com/tmc/langchaingo/tools"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
	lcmem "github.com/agentmem/agentmem/langchaingo"
)

// pageLLM reads three pages with a tool, then answers; it prints the size
// of every tool result it is sent.
type pageLLM struct{ calls int }

func (p *pageLLM) GenerateContent(_ context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	var sizes []string
	for _, mc := range msgs {
		for _, part := range mc.Parts {
			if r, ok := part.(llms.ToolCallResponse); ok {
				sizes = append(sizes, fmt.Sprintf("%s:%d", r.ToolCallID, len(r.Content)))
			}
		}
	}
	fmt.Println("model call", p.calls, "tool results", sizes)
	p.calls++
	if p.calls > 3 {
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "Every page says hello."}}}, nil
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{ToolCalls: []llms.ToolCall{{ID: fmt.Sprint("page_", p.calls), Type: "function",
		FunctionCall: &llms.FunctionCall{Name: "page", Arguments: `{"__arg1":"next"}`}}}}}}, nil
}

func (p *pageLLM) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, p, prompt, options...)
}

// pages returns a long page.
type pages struct{}

func (pages) Name() string        { return "page" }
func (pages) Description() string { return "reads the next page" }
func (pages) Call(context.Context, string) (string, error) {
	return strings.Repeat("This page says hello. ", 100), nil
}

// An agents.Executor whose agent is wrapped with StepAgent: every model call
// of the run is fitted to the token buffer's budget, the oldest observations
// elided to a stub, the newest whole.
func ExampleStepAgent() {
	ctx := context.Background()
	mem, err := core.New(core.Options{Store: memstore.New()})
	if err != nil {
		panic(err)
	}
	buf := lcmem.NewConversationTokenBuffer(nil, 1500, lcmem.WithMemory(mem), lcmem.WithThread("pages", "ada"),
		lcmem.WithReturnMessagesAsJSON(), lcmem.WithOutputKey("output"))
	agent := agents.NewOpenAIFunctionsAgent(&pageLLM{}, []tools.Tool{pages{}}, agents.NewOpenAIOption().WithExtraMessages(
		[]prompts.MessageFormatter{lcmem.HistoryPlaceholder{}}))
	exec := agents.NewExecutor(lcmem.StepAgent(agent, buf), agents.WithMemory(buf))
	out, err := chains.Run(ctx, exec, "Read three pages.")
	if err != nil {
		panic(err)
	}
	fmt.Println(out)
	// Output:
	// model call 0 tool results []
	// model call 1 tool results [page_1:2200]
	// model call 2 tool results [page_1:2200 page_2:2200]
	// model call 3 tool results [page_1:129 page_2:2200 page_3:2200]
	// Every page says hello.
}

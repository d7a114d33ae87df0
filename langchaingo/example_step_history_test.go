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

// historyLLM answers "Noted." and prints the conversation it is sent (all
// but system messages).
type historyLLM struct{}

func (historyLLM) GenerateContent(_ context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	var seen []string
	for _, mc := range msgs {
		for _, part := range mc.Parts {
			if t, ok := part.(llms.TextContent); ok && mc.Role != llms.ChatMessageTypeSystem {
				seen = append(seen, fmt.Sprintf("%s %q", mc.Role, t.Text))
			}
		}
	}
	fmt.Println("model sees:", strings.Join(seen, ", "))
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "Noted."}}}, nil
}

func (h historyLLM) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, h, prompt, options...)
}

// An agent loop over two turns: the buffer hands the agent the history as
// messages (WithReturnMessagesAsJSON, under the executor's output key
// WithOutputKey("output")), HistoryPlaceholder puts them into the agent's
// prompt, and StepAgent fits every model call of a turn to the budget. The
// second turn's model call sees the first turn.
func ExampleStepAgent_history() {
	ctx := context.Background()
	mem, err := core.New(core.Options{Store: memstore.New()})
	if err != nil {
		panic(err)
	}
	var toolset []tools.Tool // the agent's tools

	buf := lcmem.NewConversationTokenBuffer(nil, 2000, lcmem.WithMemory(mem), lcmem.WithThread("chat-1", "ada"),
		lcmem.WithReturnMessagesAsJSON(), lcmem.WithOutputKey("output"))
	agent := agents.NewOpenAIFunctionsAgent(historyLLM{}, toolset, agents.NewOpenAIOption().WithExtraMessages(
		[]prompts.MessageFormatter{lcmem.HistoryPlaceholder{}}))
	exec := agents.NewExecutor(lcmem.StepAgent(agent, buf), agents.WithMemory(buf))
	for _, input := range []string{"Hi, I am Ada.", "What is my name?"} {
		if _, err := chains.Run(ctx, exec, input); err != nil {
			panic(err)
		}
	}
	// Output:
	// model sees: human "Hi, I am Ada."
	// model sees: human "Hi, I am Ada.", ai "Noted.", human "What is my name?"
}

package langchaingo_test

import (
	"context"
	"fmt"

	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
	lcmem "github.com/agentmem/agentmem/langchaingo"
)

// cannedLLM answers from a fixed list, offline.
type cannedLLM struct{ answers []string }

func (c *cannedLLM) GenerateContent(_ context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	answer := c.answers[0]
	c.answers = c.answers[1:]
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: answer}}}, nil
}

func (c *cannedLLM) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, c, prompt, options...)
}

func ExampleNewConversationBuffer() {
	ctx := context.Background()
	// Any store.Store works here; sqlite.Open(ctx, "./memory.db") persists.
	mem, err := core.New(core.Options{Store: memstore.New()})
	if err != nil {
		panic(err)
	}
	buffer := lcmem.NewConversationBuffer(lcmem.WithMemory(mem), lcmem.WithThread("conversation-1", "user-42"))
	chain := chains.NewConversation(&cannedLLM{answers: []string{"Hello Jim!", "You are Jim."}}, buffer)

	for _, input := range []string{"Hi! I'm Jim", "Who am I?"} {
		answer, err := chains.Run(ctx, chain, input)
		if err != nil {
			panic(err)
		}
		fmt.Println(answer)
	}
	vars, err := buffer.LoadMemoryVariables(ctx, map[string]any{})
	if err != nil {
		panic(err)
	}
	fmt.Println(vars["history"])
	// Output:
	// Hello Jim!
	// You are Jim.
	// Human: Hi! I'm Jim
	// AI: Hello Jim!
	// Human: Who am I?
	// AI: You are Jim.
}

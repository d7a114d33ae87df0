package eino_test

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
	einomem "github.com/agentmem/agentmem/eino"
)

// countingModel answers with the number of messages it received.
type countingModel struct{}

func (countingModel) Generate(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	for _, m := range in {
		fmt.Printf("  model sees %s: %s\n", m.Role, m.Content)
	}
	return schema.AssistantMessage(fmt.Sprintf("I saw %d messages.", len(in)), nil), nil
}

func (c countingModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	out, err := c.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{out}), nil
}

// A graph with memory around its ChatModel node: the load node puts the
// system prompt and the thread's history before the new message, the save
// node stores the turn.
func Example() {
	ctx := context.Background()
	mem, err := core.New(core.Options{Store: memstore.New()})
	if err != nil {
		panic(err)
	}
	em := einomem.New(mem, einomem.Options{System: []string{"You are terse."}})

	g := compose.NewGraph[[]*schema.Message, *schema.Message]()
	_ = g.AddLambdaNode("load", em.LoadLambda())
	_ = g.AddChatModelNode("model", countingModel{})
	_ = g.AddLambdaNode("save", em.SaveLambda())
	_ = g.AddEdge(compose.START, "load")
	_ = g.AddEdge("load", "model")
	_ = g.AddEdge("model", "save")
	_ = g.AddEdge("save", compose.END)
	run, err := g.Compile(ctx)
	if err != nil {
		panic(err)
	}

	for _, q := range []string{"Hi, I am Ada.", "What is my name?"} {
		fmt.Println("user:", q)
		out, err := run.Invoke(einomem.WithThread(ctx, "thread-1", "ada"), []*schema.Message{schema.UserMessage(q)})
		if err != nil {
			panic(err)
		}
		fmt.Println("assistant:", out.Content)
	}
	// Output:
	// user: Hi, I am Ada.
	//   model sees system: You are terse.
	//   model sees user: Hi, I am Ada.
	// assistant: I saw 2 messages.
	// user: What is my name?
	//   model sees system: You are terse.
	//   model sees user: Hi, I am Ada.
	//   model sees assistant: I saw 2 messages.
	//   model sees user: What is my name?
	// assistant: I saw 4 messages.
}

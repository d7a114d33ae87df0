// Command eino shows agentmem in a CloudWeGo eino graph: a compiled graph
// START → load → ChatModel → save → END keeps a conversation in the embedded
// SQLite database ./memory.db. It is offline: the chat model is a small
// scripted stand-in.
//
// Run it twice; the second process continues the conversation of the first:
//
//	go run ./examples/eino            # turn 1: introduces the user
//	go run ./examples/eino            # turn 2: the model remembers
//	go run ./examples/eino "Any message of your own"
//	go run ./examples/eino -reset     # forget the thread
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"strings"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/sqlite"
	einomem "github.com/agentmem/agentmem/eino"
)

const (
	threadID   = "eino-example"
	resourceID = "ada"
)

// script is what the user says on each run when no message is given.
var script = []string{
	"Hi! I'm Ada and I like green tea.",
	"What do I like to drink?",
	"Thanks, that's all.",
}

func main() {
	db := flag.String("db", sqlite.DefaultPath, "SQLite database file")
	reset := flag.Bool("reset", false, "delete the example thread and exit")
	flag.Parse()
	if err := run(context.Background(), *db, *reset, strings.Join(flag.Args(), " ")); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, db string, reset bool, message string) error {
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		return err
	}
	defer st.Close()
	mem, err := core.New(core.Options{Store: st, Config: core.Config{
		MessageHistory: &core.MessageHistory{MaxTokens: 2000},
	}})
	if err != nil {
		return err
	}
	defer mem.Close(ctx)
	if reset {
		fmt.Println("thread deleted")
		return mem.DeleteThread(ctx, threadID)
	}

	em := einomem.New(mem, einomem.Options{System: []string{"You are a friendly assistant with a good memory."}})
	g := compose.NewGraph[[]*schema.Message, *schema.Message]()
	for _, err := range []error{
		g.AddLambdaNode("load", em.LoadLambda()),
		g.AddChatModelNode("model", scriptedModel{}),
		g.AddLambdaNode("save", em.SaveLambda()),
		g.AddEdge(compose.START, "load"),
		g.AddEdge("load", "model"),
		g.AddEdge("model", "save"),
		g.AddEdge("save", compose.END),
	} {
		if err != nil {
			return err
		}
	}
	graph, err := g.Compile(ctx)
	if err != nil {
		return err
	}

	if message == "" {
		res, err := mem.Recall(ctx, core.RecallQuery{ThreadID: threadID, PerPage: store.PerPageAll})
		var ce *core.Error
		if err != nil && !(errors.As(err, &ce) && ce.Code == core.CodeThreadNotFound) {
			return err
		}
		turn := len(res.Messages) / 2
		message = script[min(turn, len(script)-1)]
	}
	fmt.Printf("user: %s\n", message)
	out, err := graph.Invoke(einomem.WithThread(ctx, threadID, resourceID), []*schema.Message{schema.UserMessage(message)})
	if err != nil {
		return err
	}
	fmt.Printf("assistant: %s\n", out.Content)
	fmt.Printf("(saved in %s; run again to continue, or -reset)\n", db)
	return nil
}

// scriptedModel is an offline stand-in for a chat model. It prints the
// prompt the load node built and answers from the conversation it is given.
type scriptedModel struct{}

// Generate implements model.BaseChatModel with a scripted reply.
func (scriptedModel) Generate(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	fmt.Printf("loaded prompt: %d messages\n", len(in))
	for _, m := range in {
		fmt.Printf("  %-9s %s\n", m.Role+":", m.Content)
	}
	last := in[len(in)-1].Content
	var name, drink string
	for _, m := range in {
		if m.Role != schema.User {
			continue
		}
		if i := strings.Index(m.Content, "I'm "); i >= 0 && name == "" {
			name = strings.Fields(m.Content[i+4:])[0]
		}
		if i := strings.Index(m.Content, "and I like "); i >= 0 && drink == "" {
			drink = strings.TrimRight(m.Content[i+11:], ".!")
		}
	}
	answer := "Noted."
	switch {
	case strings.Contains(last, "I'm") && name != "":
		answer = fmt.Sprintf("Nice to meet you, %s!", name)
	case strings.Contains(strings.ToLower(last), "drink") && drink != "":
		answer = fmt.Sprintf("You like %s.", drink)
	case strings.Contains(strings.ToLower(last), "drink"):
		answer = "I don't know yet. What do you like?"
	case name != "":
		answer = fmt.Sprintf("You're welcome, %s.", name)
	}
	return schema.AssistantMessage(answer, nil), nil
}

// Stream implements model.BaseChatModel: Generate's reply as one chunk.
func (s scriptedModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	out, err := s.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{out}), nil
}

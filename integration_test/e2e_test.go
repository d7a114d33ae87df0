package integration_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/postgres"
	einomem "github.com/agentmem/agentmem/eino"
	"github.com/agentmem/agentmem/internal/testenv"
	lcmem "github.com/agentmem/agentmem/langchaingo"
)

// recordingLLM is a scripted langchaingo model that records every prompt.
type recordingLLM struct {
	mu      sync.Mutex
	prompts []string
}

func (r *recordingLLM) GenerateContent(_ context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	var b strings.Builder
	for _, m := range msgs {
		for _, p := range m.Parts {
			if t, ok := p.(llms.TextContent); ok {
				b.WriteString(t.Text + "\n")
			}
		}
	}
	r.mu.Lock()
	r.prompts = append(r.prompts, b.String())
	n := len(r.prompts)
	r.mu.Unlock()
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: fmt.Sprintf("Noted (reply %d). Anything else you would like to plan?", n)}}}, nil
}

func (r *recordingLLM) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, r, prompt, options...)
}

func (r *recordingLLM) last() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.prompts[len(r.prompts)-1]
}

// e2eMemory opens a Memory on a PostgreSQL schema and a Weaviate class prefix.
func e2eMemory(t *testing.T, schema, prefix string) *core.Memory {
	t.Helper()
	s, err := postgres.Open(bg, testenv.Postgres(t), postgres.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	mem, err := core.New(core.Options{Store: s, Vector: openWeaviate(t, prefix), Config: e2eConfig()})
	if err != nil {
		t.Fatal(err)
	}
	return mem
}

func e2eNames(t *testing.T) (schema, prefix string) {
	openPG(t, nil) // fails or skips without a server
	id := rand.Int64N(1 << 40)
	schema = fmt.Sprintf("e2e_%d", id)
	t.Cleanup(func() {
		s, err := postgres.Open(context.Background(), testenv.Postgres(t), postgres.WithSchema(schema))
		if err == nil {
			_, _ = s.Pool().Exec(context.Background(), `DROP SCHEMA "`+schema+`" CASCADE`)
			_ = s.Close()
		}
	})
	return schema, fmt.Sprintf("E2e%d", id)
}

// checkTrimmed asserts the fact of turn 2 left the history window.
func checkTrimmed(t *testing.T, mem *core.Memory, thread string) {
	t.Helper()
	th, err := mem.GetThread(bg, thread, "user-1")
	if err != nil || th.Boundary == nil {
		t.Fatalf("no boundary after 20 turns: %+v %v", th, err)
	}
	tr, err := mem.Begin(bg, core.TurnRequest{ThreadID: thread, ResourceID: "user-1", Config: &core.Config{ReadOnly: core.Bool(true), SemanticRecall: &core.SemanticRecall{Disabled: true}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range tr.Messages() {
		if strings.Contains(m.Text(), "Zanzibarina") {
			t.Fatal("turn 2 is still in the history window; the test would prove nothing")
		}
	}
}

// TestEndToEndLangchaingo: a conversation chain through the langchaingo adapter on PostgreSQL
// + Weaviate, 20 turns; then a new Memory recalls a fact from turn 2 that the
// token budget trimmed from history long ago.
func TestEndToEndLangchaingo(t *testing.T) {
	schema, prefix := e2eNames(t)
	mem := e2eMemory(t, schema, prefix)
	llm := &recordingLLM{}
	chain := chains.NewConversation(llm, lcmem.NewConversationBuffer(lcmem.WithMemory(mem), lcmem.WithThread("lc-thread", "user-1")))
	for _, turn := range e2eTurns() {
		if _, err := chains.Run(bg, chain, turn); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Contains(llm.last(), "Zanzibarina") {
		t.Fatal("the last filler turn still saw turn 2")
	}
	checkTrimmed(t, mem, "lc-thread")

	fresh := e2eMemory(t, schema, prefix) // a new process on the same servers
	llm2 := &recordingLLM{}
	chain2 := chains.NewConversation(llm2, lcmem.NewConversationBuffer(lcmem.WithMemory(fresh), lcmem.WithThread("lc-thread", "user-1")))
	if _, err := chains.Run(bg, chain2, e2eQuestion); err != nil {
		t.Fatal(err)
	}
	if p := llm2.last(); !strings.Contains(p, "Zanzibarina") || !strings.Contains(p, "Reykjavik") {
		t.Fatalf("the new Memory did not recall turn 2; prompt:\n%s", p)
	}
}

// scriptedChat is an eino chat model that records prompts.
type scriptedChat struct {
	mu      sync.Mutex
	prompts [][]*schema.Message
}

func (s *scriptedChat) Generate(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prompts = append(s.prompts, in)
	return schema.AssistantMessage(fmt.Sprintf("Noted (reply %d). Anything else you would like to plan?", len(s.prompts)), nil), nil
}

func (s *scriptedChat) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	out, err := s.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{out}), nil
}

func (s *scriptedChat) lastText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, m := range s.prompts[len(s.prompts)-1] {
		b.WriteString(m.Content + "\n")
	}
	return b.String()
}

func einoGraph(t *testing.T, mem *core.Memory, chat *scriptedChat) compose.Runnable[[]*schema.Message, *schema.Message] {
	t.Helper()
	em := einomem.New(mem, einomem.Options{System: []string{"You help plan meals."}})
	g := compose.NewGraph[[]*schema.Message, *schema.Message]()
	for _, err := range []error{
		g.AddLambdaNode("load", em.LoadLambda()), g.AddChatModelNode("model", chat), g.AddLambdaNode("save", em.SaveLambda()),
		g.AddEdge(compose.START, "load"), g.AddEdge("load", "model"), g.AddEdge("model", "save"), g.AddEdge("save", compose.END),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	run, err := g.Compile(bg)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// TestEndToEndEino: the same through an eino graph.
func TestEndToEndEino(t *testing.T) {
	schemaName, prefix := e2eNames(t)
	mem := e2eMemory(t, schemaName, prefix)
	chat := &scriptedChat{}
	run := einoGraph(t, mem, chat)
	for _, turn := range e2eTurns() {
		if _, err := run.Invoke(einomem.WithThread(bg, "eino-thread", "user-1"), []*schema.Message{schema.UserMessage(turn)}); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Contains(chat.lastText(), "Zanzibarina") {
		t.Fatal("the last filler turn still saw turn 2")
	}
	checkTrimmed(t, mem, "eino-thread")

	fresh := e2eMemory(t, schemaName, prefix)
	chat2 := &scriptedChat{}
	if _, err := einoGraph(t, fresh, chat2).Invoke(einomem.WithThread(bg, "eino-thread", "user-1"), []*schema.Message{schema.UserMessage(e2eQuestion)}); err != nil {
		t.Fatal(err)
	}
	if p := chat2.lastText(); !strings.Contains(p, "Zanzibarina") || !strings.Contains(p, "Reykjavik") {
		t.Fatalf("the new Memory did not recall turn 2; prompt:\n%s", p)
	}
}

package eino_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
	einomem "github.com/agentmem/agentmem/eino"
)

// pageModel reads three pages with a tool, then answers; it prints the size
// of every tool result it is sent.
type pageModel struct{ calls int }

func (p *pageModel) Generate(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	var sizes []string
	for _, m := range in {
		if m.Role == schema.Tool {
			sizes = append(sizes, fmt.Sprintf("%s:%d", m.ToolCallID, len(m.Content)))
		}
	}
	fmt.Println("model call", p.calls, "tool results", sizes)
	p.calls++
	if p.calls > 3 {
		return schema.AssistantMessage("Every page says hello.", nil), nil
	}
	id := fmt.Sprint("page_", p.calls)
	return schema.AssistantMessage("", []schema.ToolCall{{ID: id, Type: "function", Function: schema.FunctionCall{Name: "page", Arguments: `{}`}}}), nil
}

func (p *pageModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	out, err := p.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{out}), nil
}

func (p *pageModel) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return p, nil }

// pageTool returns a long page.
type pageTool struct{}

func (pageTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "page", Desc: "reads the next page"}, nil
}

func (pageTool) InvokableRun(context.Context, string, ...tool.Option) (string, error) {
	return strings.Repeat("This page says hello. ", 100), nil
}

// A react agent built with NewReact: every model call of a run is fitted to
// the token budget, the oldest tool results elided to a stub, the newest
// whole; the run is saved whole.
func ExampleMemory_NewReact() {
	ctx := context.Background()
	mem, err := core.New(core.Options{Store: memstore.New(), Config: core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 1500}}})
	if err != nil {
		panic(err)
	}
	ra, err := einomem.New(mem, einomem.Options{}).NewReact(ctx, &react.AgentConfig{ToolCallingModel: &pageModel{},
		ToolsConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{pageTool{}}}})
	if err != nil {
		panic(err)
	}
	out, err := ra.Generate(einomem.WithThread(ctx, "pages", "ada"), []*schema.Message{schema.UserMessage("Read three pages.")})
	if err != nil {
		panic(err)
	}
	fmt.Println(out.Content)
	// Output:
	// model call 0 tool results []
	// model call 1 tool results [page_1:2200]
	// model call 2 tool results [page_1:2200 page_2:2200]
	// model call 3 tool results [page_1:129 page_2:2200 page_3:2200]
	// Every page says hello.
}

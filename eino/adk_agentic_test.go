package eino_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/agentmem/agentmem/core"
	einomem "github.com/agentmem/agentmem/eino"
)

// scriptedAgentic is an agentic model answering like agentScript and
// recording its prompts.
type scriptedAgentic struct {
	t       *testing.T
	mu      sync.Mutex
	prompts [][]*schema.AgenticMessage
}

func (s *scriptedAgentic) Generate(_ context.Context, in []*schema.AgenticMessage, _ ...model.Option) (*schema.AgenticMessage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.prompts)
	s.prompts = append(s.prompts, in)
	switch n {
	case 0:
		return &schema.AgenticMessage{Role: schema.AgenticRoleTypeAssistant, ContentBlocks: []*schema.ContentBlock{
			schema.NewContentBlock(&schema.FunctionToolCall{CallID: "call_w", Name: "weather", Arguments: `{"city":"Paris"}`})}}, nil
	case 1:
		if r := in[len(in)-1].ContentBlocks[0].FunctionToolResult; r == nil || r.CallID != "call_w" {
			s.t.Errorf("second model call does not end with the tool result: %s", agenticRoles(in))
		}
		return assistantAgentic("It is 21 degrees in Paris."), nil
	}
	return assistantAgentic("Yes, Paris."), nil
}

func (s *scriptedAgentic) Stream(ctx context.Context, in []*schema.AgenticMessage, opts ...model.Option) (*schema.StreamReader[*schema.AgenticMessage], error) {
	m, err := s.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.AgenticMessage{m}), nil
}

func assistantAgentic(text string) *schema.AgenticMessage {
	return &schema.AgenticMessage{Role: schema.AgenticRoleTypeAssistant, ContentBlocks: []*schema.ContentBlock{
		schema.NewContentBlock(&schema.AssistantGenText{Text: text})}}
}

// agenticRoles renders role and block types, e.g. "user[user_input_text]".
func agenticRoles(msgs []*schema.AgenticMessage) string {
	var parts []string
	for _, m := range msgs {
		var blocks []string
		for _, b := range m.ContentBlocks {
			blocks = append(blocks, string(b.Type))
		}
		parts = append(parts, fmt.Sprintf("%s[%s]", m.Role, strings.Join(blocks, " ")))
	}
	return strings.Join(parts, ",")
}

// The ADK middleware on a ChatModelAgent over *schema.AgenticMessage: the
// run's tool call, tool result and answer are stored, and the next run's
// prompt holds them, as agentic messages, between the instruction and the
// new input.
func TestADKMiddlewareAgentic(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(fmt.Sprintf("streaming=%v", streaming), func(t *testing.T) {
			cm := &scriptedAgentic{t: t}
			mem := newMemory(t, nil, core.Config{})
			agent, err := adk.NewTypedChatModelAgent(ctx, &adk.TypedChatModelAgentConfig[*schema.AgenticMessage]{
				Name: "weather", Description: "weather agent", Instruction: "You answer weather questions.",
				Model:       cm,
				ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{weatherTool{}}}},
				Handlers:    []adk.TypedChatModelAgentMiddleware[*schema.AgenticMessage]{einomem.New(mem, einomem.Options{}).AgenticMiddleware()},
			})
			must(t, err)
			runner := adk.NewTypedRunner(adk.TypedRunnerConfig[*schema.AgenticMessage]{Agent: agent, EnableStreaming: streaming})
			c := einomem.WithThread(ctx, "agentic", "alice")
			for _, q := range []string{"Weather in Paris?", "Was that Paris?"} {
				if err := drainErr(runner.Query(c, q)); err != nil {
					t.Fatal(err)
				}
			}
			cm.mu.Lock()
			p2 := cm.prompts[2]
			cm.mu.Unlock()
			want := "system[user_input_text],user[user_input_text],assistant[function_tool_call],user[function_tool_result]," +
				"assistant[assistant_gen_text],user[user_input_text]"
			if got := agenticRoles(p2); got != want {
				t.Fatalf("second prompt %s\nwant %s", got, want)
			}
			if got := p2[2].ContentBlocks[0].FunctionToolCall; got.CallID != "call_w" || got.Arguments != `{"city":"Paris"}` {
				t.Fatalf("call %+v", got)
			}
			checkStoredRuns(t, mem, "agentic")
		})
	}
}

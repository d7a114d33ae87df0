package eino_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/agentmem/agentmem/core"
	einomem "github.com/agentmem/agentmem/eino"
)

// reportTool returns a long report for Paris and a short one elsewhere.
type reportTool struct{}

func (reportTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "report", Desc: "city report", ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
		"city": {Type: schema.String, Required: true}})}, nil
}

func (reportTool) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	var in struct{ City string }
	if err := json.Unmarshal([]byte(args), &in); err != nil {
		return "", err
	}
	if in.City == "Paris" {
		return strings.Repeat("p", 150), nil
	}
	return "rome ok" + strings.Repeat("r", 93), nil
}

// A model that returns tool calls without ids (as some providers do): the
// calls of different turns must not be linked to each other, so trimming the
// old turn's long tool exchange keeps the new turn's exchange (and does not
// move the boundary past the new turn).
func TestIDLessToolCallsOfDifferentTurnsStayApart(t *testing.T) {
	call := func(city string) *schema.Message {
		return schema.AssistantMessage("", []schema.ToolCall{{Type: "function",
			Function: schema.FunctionCall{Name: "report", Arguments: `{"city":"` + city + `"}`}}})
	}
	cm := &scripted{t: t, reply: func(n int, in []*schema.Message) *schema.Message {
		switch n {
		case 0:
			return call("Paris")
		case 1:
			return schema.AssistantMessage("Paris done.", nil)
		case 2:
			return call("Rome")
		case 3:
			return schema.AssistantMessage("Rome done.", nil)
		case 4, 5:
			return schema.AssistantMessage("ok", nil)
		}
		return nil
	}}
	mem := newMemory(t, nil, core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 300, AtMaxRemoveTokens: core.Int(0)}})
	agent, err := einomem.New(mem, einomem.Options{}).NewReact(ctx, &react.AgentConfig{ToolCallingModel: cm,
		ToolsConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{reportTool{}}}, MaxStep: 10})
	must(t, err)
	c := einomem.WithThread(ctx, "ids", "alice")
	for _, q := range []string{"Paris?", "Rome?", "Summary?", "Again?"} {
		_, err := agent.Generate(c, []*schema.Message{schema.UserMessage(q)})
		must(t, err)
	}
	for _, n := range []int{4, 5} {
		p := cm.prompt(n)
		var b strings.Builder
		for _, m := range p {
			b.WriteString(m.Content + "|")
			for _, tc := range m.ToolCalls {
				b.WriteString(tc.Function.Arguments + "|")
			}
		}
		got := b.String()
		for _, want := range []string{"Rome?", `{"city":"Rome"}`, "rome ok", "Rome done."} {
			if !strings.Contains(got, want) {
				t.Fatalf("prompt %d lost %q: %s\n%s", n, want, roles(p), got)
			}
		}
	}
}

package eino_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
	einomem "github.com/agentmem/agentmem/eino"
)

// lineObserver answers every observer or reflector call with one line.
type lineObserver struct{ calls atomic.Int64 }

func (o *lineObserver) Generate(context.Context, string, string) (string, error) {
	return fmt.Sprintf("- [2026-10-30] (high) observation %d of the earlier talk", o.calls.Add(1)), nil
}

// A react agent over a thread whose stored messages are past
// Observation.MessageTokens: the first model call of the run already gets
// the observations instead of those messages (the step before it observed
// them), and later calls keep them.
func TestReactStepObserves(t *testing.T) {
	s := memstore.New()
	obs := &lineObserver{}
	om := func(tokens int) core.Config {
		return core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{ObserverModel: obs, ReflectorModel: obs,
			Observation: core.ObservationConfig{MessageTokens: tokens}, Reflection: core.ReflectionConfig{ObservationTokens: 100000}}}
	}
	before, err := core.New(core.Options{Store: s, Config: om(100000)})
	must(t, err)
	for i := range 6 {
		turn, err := before.Begin(ctx, core.TurnRequest{ThreadID: "om-loop", ResourceID: "r",
			Input: []core.Message{core.NewMessage(core.RoleUser, fmt.Sprintf("old question %d about the reports", i))}})
		must(t, err)
		must(t, turn.Commit(ctx, []core.Message{core.NewMessage(core.RoleAssistant, fmt.Sprintf("old answer %d about the reports", i))}))
	}
	mem, err := core.New(core.Options{Store: s, Config: om(60)})
	must(t, err)
	cm := &scripted{t: t, reply: func(n int, in []*schema.Message) *schema.Message {
		if n == 2 {
			return schema.AssistantMessage("Done.", nil)
		}
		id := fmt.Sprint("c", n)
		return schema.AssistantMessage("", []schema.ToolCall{{ID: id, Type: "function", Function: schema.FunctionCall{Name: "report", Arguments: `{"id":"` + id + `"}`}}})
	}}
	ra, err := einomem.New(mem, einomem.Options{}).NewReact(ctx, &react.AgentConfig{ToolCallingModel: cm,
		ToolsConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{shortTool{}}}, MaxStep: 10})
	must(t, err)
	_, err = ra.Generate(einomem.WithThread(ctx, "om-loop", "r"), []*schema.Message{schema.UserMessage("Read the reports.")})
	must(t, err)
	if obs.calls.Load() == 0 {
		t.Fatal("the observer was never called")
	}
	for n, prompt := range cm.prompts {
		var text strings.Builder
		for _, m := range prompt {
			text.WriteString(m.Content + "\n")
		}
		if strings.Contains(text.String(), "old question 0") || !strings.Contains(text.String(), "observation 1 of the earlier talk") {
			t.Fatalf("call %d: the prompt shows the observed messages or lacks the observations:\n%s", n, text.String())
		}
	}
}

// shortTool answers every call with a short report.
type shortTool struct{}

func (shortTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "report", Desc: "a report", ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
		"id": {Type: schema.String, Required: true}})}, nil
}

func (shortTool) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	return "report " + args, nil
}

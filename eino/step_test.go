package eino_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
	einomem "github.com/agentmem/agentmem/eino"
	"github.com/agentmem/agentmem/tokenizer"
)

const (
	loopSteps     = 20
	loopBudget    = 8000
	resultTokens  = 5000
	historyTokens = 300
)

// reportText is a text of at least n tokens under tk.
func reportText(tk *tokenizer.Tokenizer, tag string, n int) string {
	var b strings.Builder
	b.WriteString(tag)
	for tk.Count(b.String()) < n {
		for range 25 {
			fmt.Fprintf(&b, " %s line %d of the report", tag, b.Len())
		}
	}
	return b.String()
}

// longReportTool returns a report of resultTokens tokens per call.
type longReportTool struct{ tk *tokenizer.Tokenizer }

func (longReportTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "report", Desc: "a long report", ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
		"id": {Type: schema.String, Required: true}})}, nil
}

func (r longReportTool) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	var in struct{ ID string }
	if err := json.Unmarshal([]byte(args), &in); err != nil {
		return "", err
	}
	return reportText(r.tk, in.ID, resultTokens), nil
}

// loopMemory is a Memory with an 8k-token budget over a thread that already
// holds six turns of history.
func loopMemory(t *testing.T, thread string) (*core.Memory, *tokenizer.Tokenizer) {
	t.Helper()
	return loopMemoryOn(t, memstore.New(), thread)
}

// loopMemoryOn is loopMemory on the store s.
func loopMemoryOn(t *testing.T, s store.Store, thread string) (*core.Memory, *tokenizer.Tokenizer) {
	t.Helper()
	tk := tokenizer.Default()
	mem, err := core.New(core.Options{Store: s, Tokenizer: tk,
		Config: core.Config{LastMessages: core.AllMessages, MessageHistory: &core.MessageHistory{MaxTokens: loopBudget}}})
	must(t, err)
	for i := range 6 {
		turn, err := mem.Begin(ctx, core.TurnRequest{ThreadID: thread, ResourceID: "r",
			Input: []core.Message{core.NewMessage(core.RoleUser, reportText(tk, fmt.Sprint("q", i), historyTokens))}})
		must(t, err)
		must(t, turn.Commit(ctx, []core.Message{core.NewMessage(core.RoleAssistant, reportText(tk, fmt.Sprint("a", i), historyTokens))}))
	}
	return mem, tk
}

// loopModel calls the report tool loopSteps times, then answers. It checks
// every prompt it is sent: within the budget (counted afresh with the
// tokenizer), every call with its result, and the newest result whole.
func loopModel(t *testing.T, tk *tokenizer.Tokenizer) *scripted {
	return &scripted{t: t, reply: func(n int, in []*schema.Message) *schema.Message {
		checkLoopPrompt(t, tk, n, in)
		if n == loopSteps {
			return schema.AssistantMessage("All reports read.", nil)
		}
		id := fmt.Sprint("c", n)
		return schema.AssistantMessage("", []schema.ToolCall{{ID: id, Type: "function",
			Function: schema.FunctionCall{Name: "report", Arguments: `{"id":"` + id + `"}`}}})
	}}
}

func checkLoopPrompt(t *testing.T, tk *tokenizer.Tokenizer, n int, in []*schema.Message) {
	t.Helper()
	msgs, err := einomem.FromEino(in)
	if err != nil {
		t.Errorf("call %d: %v", n, err)
		return
	}
	total := budget.ReplyPriming
	for i := range msgs {
		total += budget.MessageTokens(tk, &msgs[i])
	}
	if total > loopBudget {
		t.Errorf("call %d: prompt of %d tokens, budget %d", n, total, loopBudget)
	}
	calls, results := map[string]bool{}, map[string]string{}
	for _, m := range in {
		for _, tc := range m.ToolCalls {
			calls[tc.ID] = true
		}
		if m.Role == schema.Tool {
			results[m.ToolCallID] = m.Content
		}
	}
	for i := range n {
		id := fmt.Sprint("c", i)
		if !calls[id] || results[id] == "" {
			t.Errorf("call %d: call %s or its result left the prompt", n, id)
		}
	}
	if n > 0 {
		last := in[len(in)-1]
		id := fmt.Sprint("c", n-1)
		if last.Role != schema.Tool || last.ToolCallID != id || last.Content != reportText(tk, id, resultTokens) {
			t.Errorf("call %d: the newest tool result is not last and whole: %s %.60q", n, last.Role, last.Content)
		}
	}
}

// checkLoopStored checks that the loop's results were saved whole.
func checkLoopStored(t *testing.T, mem *core.Memory, tk *tokenizer.Tokenizer, thread string) {
	t.Helper()
	n := 0
	for _, m := range stored(t, mem, thread) {
		for _, p := range m.Content.Parts {
			if ti := p.ToolInvocation; ti != nil && ti.State == message.ToolStateResult {
				n++
				var got string
				if json.Unmarshal(ti.Result, &got) != nil || got != reportText(tk, ti.ToolCallID, resultTokens) {
					t.Fatalf("stored result of %s is not whole: %.60s", ti.ToolCallID, ti.Result)
				}
			}
		}
	}
	if n != loopSteps {
		t.Fatalf("stored %d tool results, want %d", n, loopSteps)
	}
}

// A react agent built with NewReact: a 20-step loop of 5k-token tool
// results under an 8k budget never sends the model a prompt over budget,
// the newest result always whole; the run is saved whole.
func TestReactStepBudget(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		mem, tk := loopMemory(t, "react-loop")
		cm := loopModel(t, tk)
		ra, err := einomem.New(mem, einomem.Options{System: []string{"Read every report."}}).NewReact(ctx, &react.AgentConfig{ToolCallingModel: cm,
			ToolsConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{longReportTool{tk}}}, MaxStep: 4*loopSteps + 10})
		must(t, err)
		c := einomem.WithThread(ctx, "react-loop", "r")
		in := []*schema.Message{schema.UserMessage("Read the reports.")}
		if streaming {
			sr, err := ra.Stream(c, in)
			must(t, err)
			readAll(t, sr)
		} else {
			_, err = ra.Generate(c, in)
			must(t, err)
		}
		if cm.calls != loopSteps+1 {
			t.Fatalf("the model was called %d times", cm.calls)
		}
		checkLoopStored(t, mem, tk, "react-loop")
	}
}

// The ADK middleware: the same loop on a ChatModelAgent.
func TestADKStepBudget(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		mem, tk := loopMemory(t, "adk-loop")
		cm := loopModel(t, tk)
		agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
			Name: "reader", Description: "reads reports", Instruction: "Read every report.", Model: cm, MaxIterations: loopSteps + 5,
			ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{longReportTool{tk}}}},
			Handlers:    []adk.ChatModelAgentMiddleware{einomem.New(mem, einomem.Options{}).Middleware()},
		})
		must(t, err)
		runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, EnableStreaming: streaming})
		drain(t, runner.Query(einomem.WithThread(ctx, "adk-loop", "r"), "Read the reports."))
		if cm.calls != loopSteps+1 {
			t.Fatalf("the model was called %d times", cm.calls)
		}
		checkLoopStored(t, mem, tk, "adk-loop")
	}
}

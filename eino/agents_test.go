package eino_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/message"
	einomem "github.com/agentmem/agentmem/eino"
)

// weatherTool answers {"city": ...} with a fixed temperature.
type weatherTool struct{}

func (weatherTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "weather", Desc: "current weather", ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
		"city": {Type: schema.String, Required: true}})}, nil
}

func (weatherTool) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	var in struct{ City string }
	if err := json.Unmarshal([]byte(args), &in); err != nil {
		return "", err
	}
	return `{"city":"` + in.City + `","temp":21}`, nil
}

// agentScript: the first run calls the tool, then answers; the second run
// answers directly.
func agentScript(t *testing.T) *scripted {
	return &scripted{t: t, reply: func(n int, in []*schema.Message) *schema.Message {
		switch n {
		case 0:
			return schema.AssistantMessage("", []schema.ToolCall{{ID: "call_w", Type: "function",
				Function: schema.FunctionCall{Name: "weather", Arguments: `{"city":"Paris"}`}}})
		case 1:
			last := in[len(in)-1]
			if last.Role != schema.Tool || last.ToolCallID != "call_w" {
				t.Errorf("second model call does not end with the tool result: %s", roles(in))
			}
			return schema.AssistantMessage("It is 21 degrees in Paris.", nil)
		case 2:
			return schema.AssistantMessage("Yes, Paris.", nil)
		}
		return nil
	}}
}

// checkStoredRuns checks what two agent turns stored.
func checkStoredRuns(t *testing.T, mem *core.Memory, thread string) {
	t.Helper()
	all := stored(t, mem, thread)
	got := einomem.ToEino(all)
	if r := roles(got); r != "user,assistant[calls],tool,assistant,user,assistant" {
		t.Fatalf("stored %s\n%s", r, dump(all))
	}
	call := all[1].Content.Parts[0].ToolInvocation
	res := all[2].Content.Parts[0].ToolInvocation
	if call.State != message.ToolStateCall || res.State != message.ToolStateResult || call.ToolCallID != "call_w" || res.ToolCallID != call.ToolCallID ||
		res.ToolName != "weather" || string(res.Args) != `{"city":"Paris"}` || string(res.Result) != `{"city":"Paris","temp":21}` {
		t.Fatalf("tool call/result not linked:\n%s", dump(all[1:3]))
	}
}

// checkAgentThread checks what two agent turns stored and what the second
// turn's prompt held.
func checkAgentThread(t *testing.T, mem *core.Memory, thread string, prompt2 []*schema.Message) {
	t.Helper()
	checkStoredRuns(t, mem, thread)
	// The second turn's prompt holds the call and its result, paired.
	var i int
	for i = range prompt2 {
		if len(prompt2[i].ToolCalls) > 0 {
			break
		}
	}
	if i+1 >= len(prompt2) || prompt2[i].ToolCalls[0].ID != "call_w" || prompt2[i+1].Role != schema.Tool || prompt2[i+1].ToolCallID != "call_w" {
		t.Fatalf("second prompt not paired: %s", roles(prompt2))
	}
	if last := prompt2[len(prompt2)-1]; last.Role != schema.User || last.Content != "Was that Paris?" {
		t.Fatalf("second prompt does not end with the input: %s", dump(last))
	}
}

// The react agent with one tool over two turns, run with Generate, with
// Stream read to the end and with Stream closed after its first chunk, each
// with and without a WithMessageFuture of the caller: every message of the
// run is stored before the next turn begins, tool call and result linked;
// the next prompt is the one eino-examples' memory example builds (system
// prompt, stored history, new input); and the caller's future still sees
// every message, tool result included.
func TestReactAgent(t *testing.T) {
	for _, mode := range []string{"generate", "stream", "stream-closed-early"} {
		for _, callerFuture := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/callerFuture=%v", mode, callerFuture), func(t *testing.T) {
				runReactTurns(t, mode, callerFuture)
			})
		}
	}
}

func runReactTurns(t *testing.T, mode string, callerFuture bool) {
	cm := agentScript(t)
	mem := newMemory(t, nil, core.Config{})
	m := einomem.New(mem, einomem.Options{System: []string{"Be brief."}})
	a, err := react.NewAgent(ctx, &react.AgentConfig{ToolCallingModel: cm, MessageModifier: m.StepModifier(nil),
		ToolsConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{weatherTool{}}}, MaxStep: 10})
	must(t, err)
	ra := m.WrapReact(a)
	c := einomem.WithThread(ctx, "react", "alice")
	answers := []string{"It is 21 degrees in Paris.", "Yes, Paris."}
	for i, q := range []string{"Weather in Paris?", "Was that Paris?"} {
		in := []*schema.Message{schema.UserMessage(q)}
		var opts []agent.AgentOption
		var fut react.MessageFuture
		if callerFuture {
			var opt agent.AgentOption
			opt, fut = react.WithMessageFuture()
			opts = append(opts, opt)
		}
		turnMode := mode
		if mode == "stream-closed-early" && i == 1 {
			turnMode = "stream" // the prompt of this turn shows what the first one saved
		}
		switch turnMode {
		case "generate":
			out, err := ra.Generate(c, in, opts...)
			must(t, err)
			if out.Content != answers[i] {
				t.Fatalf("turn %d: %q", i+1, out.Content)
			}
		case "stream":
			sr, err := ra.Stream(c, in, opts...)
			must(t, err)
			out, err := schema.ConcatMessages(readAll(t, sr))
			must(t, err)
			if out.Content != answers[i] {
				t.Fatalf("turn %d: %q", i+1, out.Content)
			}
		case "stream-closed-early":
			sr, err := ra.Stream(c, in, opts...)
			must(t, err)
			if _, err := sr.Recv(); err != nil {
				t.Fatal(err)
			}
			sr.Close()
		}
		if fut != nil {
			if got, want := futureRoles(t, fut, turnMode != "generate"), []string{"assistant[calls],tool,assistant", "assistant"}[i]; got != want {
				t.Fatalf("turn %d: the caller's future saw %s, want %s", i+1, got, want)
			}
		}
	}
	p2 := cm.prompt(2)
	want := []*schema.Message{schema.SystemMessage("Be brief."), schema.UserMessage("Weather in Paris?"),
		schema.AssistantMessage("", []schema.ToolCall{{ID: "call_w", Type: "function",
			Function: schema.FunctionCall{Name: "weather", Arguments: `{"city":"Paris"}`}}}),
		schema.ToolMessage(`{"city":"Paris","temp":21}`, "call_w", schema.WithToolName("weather")),
		schema.AssistantMessage(answers[0], nil), schema.UserMessage("Was that Paris?")}
	if got := promptText(p2); got != promptText(want) {
		t.Fatalf("second prompt\n%s\nwant (eino-examples' memory example)\n%s", got, promptText(want))
	}
	checkAgentThread(t, mem, "react", p2)
}

// futureRoles reads a MessageFuture to its end.
func futureRoles(t *testing.T, fut react.MessageFuture, streams bool) string {
	t.Helper()
	var msgs []*schema.Message
	if streams {
		it := fut.GetMessageStreams()
		for {
			s, ok, err := it.Next()
			must(t, err)
			if !ok {
				break
			}
			m, err := schema.ConcatMessageStream(s)
			must(t, err)
			msgs = append(msgs, m)
		}
	} else {
		it := fut.GetMessages()
		for {
			m, ok, err := it.Next()
			must(t, err)
			if !ok {
				break
			}
			msgs = append(msgs, m)
		}
	}
	return roles(msgs)
}

// promptText renders the fields of a prompt a model reads.
func promptText(msgs []*schema.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "%s %q name=%q id=%q", m.Role, m.Content, m.ToolName, m.ToolCallID)
		for _, tc := range m.ToolCalls {
			fmt.Fprintf(&b, " call(%s %s %s)", tc.ID, tc.Function.Name, tc.Function.Arguments)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// The ADK middleware on a ChatModelAgent over two runner queries, with and
// without streaming.
func TestADKMiddleware(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		cm := agentScript(t)
		mem := newMemory(t, nil, core.Config{})
		em := einomem.New(mem, einomem.Options{})
		agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
			Name: "weather", Description: "weather agent", Instruction: "You answer weather questions.",
			Model:       cm,
			ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{weatherTool{}}}},
			Handlers:    []adk.ChatModelAgentMiddleware{em.Middleware()},
		})
		must(t, err)
		runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, EnableStreaming: streaming})
		c := einomem.WithThread(ctx, "adk", "alice")
		for _, q := range []string{"Weather in Paris?", "Was that Paris?"} {
			drain(t, runner.Query(c, q))
		}
		p2 := cm.prompt(2)
		if p2[0].Role != schema.System || p2[0].Content != "You answer weather questions." {
			t.Fatalf("instruction not first: %s", dump(p2[0]))
		}
		checkAgentThread(t, mem, "adk", p2)

		// Without a thread the run fails.
		if err := drainErr(runner.Query(ctx, "hi")); err == nil {
			t.Fatal("a run without thread did not fail")
		}
	}
}

// An agent without tools runs another graph; the middleware works there too.
func TestADKMiddlewareNoTools(t *testing.T) {
	cm := &scripted{t: t, reply: func(n int, _ []*schema.Message) *schema.Message {
		return schema.AssistantMessage([]string{"Hello Ada.", "Your name is Ada."}[n], nil)
	}}
	mem := newMemory(t, nil, core.Config{})
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "chat", Description: "chat", Model: cm,
		Handlers: []adk.ChatModelAgentMiddleware{einomem.New(mem, einomem.Options{}).Middleware()}})
	must(t, err)
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent})
	c := einomem.WithThread(ctx, "plain", "ada")
	drain(t, runner.Query(c, "I am Ada."))
	drain(t, runner.Query(c, "What is my name?"))
	if got := roles(cm.prompt(1)); got != "user,assistant,user" {
		t.Fatalf("second prompt = %s", got)
	}
	if n := len(stored(t, mem, "plain")); n != 4 {
		t.Fatalf("stored %d messages", n)
	}
}

func drain(t *testing.T, iter *adk.AsyncIterator[*adk.AgentEvent]) {
	t.Helper()
	if err := drainErr(iter); err != nil {
		t.Fatal(err)
	}
}

// drainErr consumes the events (and their message streams) of a run.
func drainErr[M adk.MessageType](iter *adk.AsyncIterator[*adk.TypedAgentEvent[M]]) error {
	var first error
	for {
		ev, ok := iter.Next()
		if !ok {
			return first
		}
		if ev.Err != nil && first == nil {
			first = ev.Err
		}
		if ev.Output != nil && ev.Output.MessageOutput != nil && ev.Output.MessageOutput.IsStreaming {
			if _, err := ev.Output.MessageOutput.GetMessage(); err != nil && first == nil {
				first = err
			}
		}
	}
}

func TestMemoryToolAdapter(t *testing.T) {
	var got json.RawMessage
	mt := einomem.Tool(core.Tool{Name: core.WorkingMemoryToolName, Description: "update notes",
		Parameters: json.RawMessage(`{"type":"object","properties":{"memory":{"type":"string"}},"required":["memory"]}`),
		Call: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
			got = args
			return json.RawMessage(`{"success":true}`), nil
		}})
	info, err := mt.Info(ctx)
	must(t, err)
	js, err := info.ToJSONSchema()
	must(t, err)
	if info.Name != core.WorkingMemoryToolName || js == nil || js.Required[0] != "memory" {
		t.Fatalf("info = %+v %+v", info, js)
	}
	out, err := mt.InvokableRun(ctx, `{"memory":"likes tea"}`)
	must(t, err)
	if out != `{"success":true}` || string(got) != `{"memory":"likes tea"}` {
		t.Fatalf("run: %s %s", out, got)
	}
	if ts := einomem.Tools([]core.Tool{{Name: "a"}}); len(ts) != 1 || !reflect.ValueOf(ts[0]).IsValid() {
		t.Fatal("Tools")
	}
}

// slowTool answers after a delay that depends on its argument, so parallel
// calls finish in reverse order.
type slowTool struct{}

func (slowTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "slow", Desc: "slow echo"}, nil
}

func (slowTool) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	var in struct{ Delay int }
	_ = json.Unmarshal([]byte(args), &in)
	time.Sleep(time.Duration(in.Delay) * time.Millisecond)
	return args, nil
}

// Parallel tool results are stored in the order of the calls.
func TestReactParallelToolOrder(t *testing.T) {
	cm := &scripted{t: t, reply: func(n int, _ []*schema.Message) *schema.Message {
		if n == 0 {
			return schema.AssistantMessage("", []schema.ToolCall{
				{ID: "first", Type: "function", Function: schema.FunctionCall{Name: "slow", Arguments: `{"delay":60}`}},
				{ID: "second", Type: "function", Function: schema.FunctionCall{Name: "slow", Arguments: `{"delay":0}`}},
			})
		}
		return schema.AssistantMessage("done", nil)
	}}
	mem := newMemory(t, nil, core.Config{})
	ra, err := einomem.New(mem, einomem.Options{}).NewReact(ctx, &react.AgentConfig{ToolCallingModel: cm, ToolsConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{slowTool{}}}})
	must(t, err)
	_, err = ra.Generate(einomem.WithThread(ctx, "par", "r"), []*schema.Message{schema.UserMessage("go")})
	must(t, err)
	all := stored(t, mem, "par")
	if len(all) != 5 || all[2].ToolCallIDs()[0] != "first" || all[3].ToolCallIDs()[0] != "second" {
		t.Fatalf("stored %s", dump(all))
	}
}

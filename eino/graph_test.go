package eino_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store/memstore"
	einomem "github.com/agentmem/agentmem/eino"
	"github.com/agentmem/agentmem/internal/testenv"
)

// memoryGraph compiles START → load → model → save → END.
func memoryGraph(t testing.TB, mem *einomem.Memory, cm *scripted, opts ...compose.NewGraphOption) compose.Runnable[[]*schema.Message, *schema.Message] {
	t.Helper()
	g := compose.NewGraph[[]*schema.Message, *schema.Message](opts...)
	must(t, g.AddLambdaNode("load", mem.LoadLambda()))
	must(t, g.AddChatModelNode("model", cm))
	must(t, g.AddLambdaNode("save", mem.SaveLambda()))
	must(t, g.AddEdge(compose.START, "load"))
	must(t, g.AddEdge("load", "model"))
	must(t, g.AddEdge("model", "save"))
	must(t, g.AddEdge("save", compose.END))
	r, err := g.Compile(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// promptTokens counts an eino prompt the way the core budget does.
func promptTokens(t testing.TB, prompt []*schema.Message) int {
	t.Helper()
	cm, err := einomem.FromEino(prompt)
	if err != nil {
		t.Fatal(err)
	}
	for i := range cm {
		cm[i].Tokens = budget.MessageTokens(testenv.ByteTokenizer{}, &cm[i])
	}
	return budget.PromptTokens(cm)
}

func stripIDs(msgs []*schema.Message) []*schema.Message {
	out := make([]*schema.Message, len(msgs))
	for i, m := range msgs {
		c := *m
		if c.Extra != nil {
			c.Extra = map[string]any{}
			for k, v := range m.Extra {
				if k != einomem.ExtraIDKey {
					c.Extra[k] = v
				}
			}
			if len(c.Extra) == 0 {
				c.Extra = nil
			}
		}
		out[i] = &c
	}
	return out
}

// Three turns through a compiled graph: system prompt first, history in
// order, a client-side tool call and its result paired by id, and the token
// budget respected (the oldest message is trimmed in turn 3).
func TestGraphThreeTurns(t *testing.T) {
	const system = "You are a weather bot."
	const budget = 180
	u1 := schema.UserMessage("What's the weather in Paris?")
	call := schema.ToolCall{ID: "call_1", Type: "function", Function: schema.FunctionCall{Name: "weather", Arguments: `{"city":"Paris"}`}}
	a1 := schema.AssistantMessage("", []schema.ToolCall{call})
	a1.ResponseMeta = &schema.ResponseMeta{FinishReason: "tool_calls", Usage: &schema.TokenUsage{PromptTokens: 20, CompletionTokens: 5, TotalTokens: 25}}
	tool := schema.ToolMessage(`{"temp":21}`, "call_1", schema.WithToolName("weather"))
	a2 := schema.AssistantMessage("It is 21 degrees in Paris.", nil)
	u3 := schema.UserMessage("Thanks! Should I take an umbrella tomorrow?")
	a3 := schema.AssistantMessage("No, it stays dry.", nil)

	cm := &scripted{t: t, reply: func(n int, _ []*schema.Message) *schema.Message {
		return []*schema.Message{a1, a2, a3}[n]
	}}
	store := memstore.New()
	mem := newMemory(t, store, core.Config{MessageHistory: &core.MessageHistory{MaxTokens: budget, AtMaxRemoveTokens: core.Int(0)}})
	em := einomem.New(mem, einomem.Options{System: []string{system}})
	run := memoryGraph(t, em, cm)

	inputs := [][]*schema.Message{{u1}, {tool}, {u3}}
	for i, in := range inputs {
		out, err := run.Invoke(einomem.WithThread(ctx, "weather", "alice"), in)
		if err != nil {
			t.Fatalf("turn %d: %v", i+1, err)
		}
		if want := []*schema.Message{a1, a2, a3}[i]; out != want {
			t.Fatalf("turn %d: output %v, want the model's message", i+1, out)
		}
	}

	sys := schema.SystemMessage(system)
	want := [][]*schema.Message{
		{sys, u1},
		{sys, u1, a1, tool},
		{sys, a1, tool, a2, u3}, // u1 trimmed by the budget
	}
	for i, w := range want {
		got := cm.prompt(i)
		if !reflect.DeepEqual(stripIDs(got), w) {
			t.Fatalf("turn %d prompt:\n%s\nwant:\n%s", i+1, dump(stripIDs(got)), dump(w))
		}
		if n := promptTokens(t, got); n > budget {
			t.Fatalf("turn %d prompt has %d tokens, budget %d", i+1, n, budget)
		}
		// History carries the stored ids; the input does not have one yet.
		for j, m := range got[1 : len(got)-1] {
			if id, _ := m.Extra[einomem.ExtraIDKey].(string); id == "" {
				t.Fatalf("turn %d: history message %d has no id", i+1, j)
			}
		}
	}
	p3 := cm.prompt(2)
	if p3[1].ToolCalls[0].ID != p3[2].ToolCallID || p3[2].Role != schema.Tool {
		t.Fatalf("turn 3: tool call and result not paired: %s", roles(p3))
	}

	// Storage: six messages, the tool result linked to its call.
	all := stored(t, mem, "weather")
	if len(all) != 6 {
		t.Fatalf("stored %d messages: %s", len(all), dump(all))
	}
	res := all[2].Content.Parts[0].ToolInvocation
	if all[1].Content.Parts[0].ToolInvocation.ToolCallID != "call_1" || res.State != message.ToolStateResult ||
		res.ToolCallID != "call_1" || res.ToolName != "weather" || string(res.Args) != `{"city":"Paris"}` {
		t.Fatalf("stored tool messages: %s", dump(all[1:3]))
	}
	if got := stripIDs(einomem.ToEino(all)); !reflect.DeepEqual(got, []*schema.Message{u1, a1, tool, a2, u3, a3}) {
		t.Fatalf("stored conversation:\n%s", dump(got))
	}
	th, err := store.GetThread(ctx, "weather")
	if err != nil || th.Boundary == nil || len(th.Boundary.MessageIDs) != 1 || th.Boundary.MessageIDs[0] != all[0].ID {
		t.Fatalf("boundary after trim = %+v (%v)", th.Boundary, err)
	}
}

// The boundary persists through the adapter: messages trimmed once stay out
// of later prompts even when they would fit again, also in a new Memory.
func TestGraphBoundaryPersists(t *testing.T) {
	store := memstore.New()
	cfg := core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 200, AtMaxRemoveTokens: core.Int(0)}}
	text := func(tag string, cost int) string { return tag + strings.Repeat(".", cost-3-len(tag)) }
	cm := &scripted{t: t, reply: func(n int, _ []*schema.Message) *schema.Message {
		return schema.AssistantMessage(text(fmt.Sprintf("a%d", n+1), 30), nil)
	}}
	run := memoryGraph(t, einomem.New(newMemory(t, store, cfg), einomem.Options{}), cm)
	turn := func(run compose.Runnable[[]*schema.Message, *schema.Message], in ...*schema.Message) {
		t.Helper()
		if _, err := run.Invoke(einomem.WithThread(ctx, "t", "r"), in); err != nil {
			t.Fatal(err)
		}
	}
	turn(run, schema.UserMessage(text("u1", 30)))
	turn(run, schema.UserMessage(text("u2", 30)))
	// A large instruction (never stored) forces u1 and a1 out.
	turn(run, schema.SystemMessage(text("big", 100)), schema.UserMessage(text("u3", 30)))
	if got := contents(cm.prompt(2)); got != "big,a2,u2,u3" && got != "big,u2,a2,u3" {
		t.Fatalf("turn 3 prompt = %s", got)
	}
	th, _ := store.GetThread(ctx, "t")
	if th.Boundary == nil {
		t.Fatal("no boundary after trimming")
	}
	// Without the instruction a1 would fit again (183 tokens ≤ 200), but the
	// boundary keeps it out; also for a new Memory over the same store.
	turn(run, schema.UserMessage(text("u4", 30)))
	if got := contents(cm.prompt(3)); got != "u2,a2,u3,a3,u4" {
		t.Fatalf("turn 4 prompt = %s", got)
	}
	fresh := &scripted{t: t, reply: cm.reply}
	turn(memoryGraph(t, einomem.New(newMemory(t, store, cfg), einomem.Options{}), fresh), schema.UserMessage(text("u5", 10)))
	if got := contents(fresh.prompt(0)); strings.Contains(got, "a1") || strings.Contains(got, "u1") {
		t.Fatalf("new memory loaded trimmed messages: %s", got)
	}
}

// contents lists the tag (text before the first '.') of each message.
func contents(msgs []*schema.Message) string {
	var tags []string
	for _, m := range msgs {
		tags = append(tags, strings.SplitN(m.Content, ".", 2)[0])
	}
	return strings.Join(tags, ",")
}

// A read-only invocation loads memory but writes nothing: no thread, no
// messages, no boundary.
func TestGraphReadOnly(t *testing.T) {
	store := memstore.New()
	cfg := core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 60, AtMaxRemoveTokens: core.Int(0)}}
	cm := &scripted{t: t, reply: func(n int, _ []*schema.Message) *schema.Message {
		return schema.AssistantMessage("reply number "+fmt.Sprint(n), nil)
	}}
	mem := newMemory(t, store, cfg)
	run := memoryGraph(t, einomem.New(mem, einomem.Options{}), cm)

	ro := einomem.WithConfig(einomem.WithThread(ctx, "new", "r"), &core.Config{ReadOnly: core.Bool(true)})
	if _, err := run.Invoke(ro, []*schema.Message{schema.UserMessage("hello")}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.GetThread(ctx, "new"); err == nil {
		t.Fatal("read-only turn created the thread")
	}

	for i := 0; i < 3; i++ {
		if _, err := run.Invoke(einomem.WithThread(ctx, "t", "r"), []*schema.Message{schema.UserMessage(fmt.Sprintf("message %d", i))}); err != nil {
			t.Fatal(err)
		}
	}
	before := stored(t, mem, "t")
	thBefore, _ := store.GetThread(ctx, "t")
	ro = einomem.WithConfig(einomem.WithThread(ctx, "t", "r"), &core.Config{ReadOnly: core.Bool(true)})
	if _, err := run.Invoke(ro, []*schema.Message{schema.UserMessage("a long question that forces trimming of history")}); err != nil {
		t.Fatal(err)
	}
	if n := len(cm.prompt(4)); n >= len(before)+1 {
		t.Fatalf("read-only prompt was not trimmed: %s", roles(cm.prompt(4)))
	}
	after := stored(t, mem, "t")
	thAfter, _ := store.GetThread(ctx, "t")
	if len(after) != len(before) || !reflect.DeepEqual(thAfter.Boundary, thBefore.Boundary) {
		t.Fatalf("read-only turn wrote: %d → %d messages, boundary %+v → %+v", len(before), len(after), thBefore.Boundary, thAfter.Boundary)
	}
}

// The graph streamed end to end: chunks pass through the save node and the
// saved assistant message equals the concatenated stream.
func TestGraphStream(t *testing.T) {
	answer := &schema.Message{Role: schema.Assistant, Content: "Streaming is fun to watch.", ReasoningContent: "think",
		ResponseMeta: &schema.ResponseMeta{FinishReason: "stop", Usage: &schema.TokenUsage{PromptTokens: 9, CompletionTokens: 7, TotalTokens: 16}}}
	cm := &scripted{t: t, chunks: splitContent, reply: func(int, []*schema.Message) *schema.Message { return answer }}
	mem := newMemory(t, nil, core.Config{})
	run := memoryGraph(t, einomem.New(mem, einomem.Options{}), cm)

	sr, err := run.Stream(einomem.WithThread(ctx, "s", "r"), []*schema.Message{schema.UserMessage("stream please")})
	if err != nil {
		t.Fatal(err)
	}
	chunks := readAll(t, sr)
	if len(chunks) < 3 {
		t.Fatalf("stream was not passed through: %d chunks", len(chunks))
	}
	want, err := schema.ConcatMessages(chunks)
	if err != nil {
		t.Fatal(err)
	}
	if want.Content != answer.Content {
		t.Fatalf("concatenated content %q", want.Content)
	}
	all := stored(t, mem, "s")
	if len(all) != 2 {
		t.Fatalf("stored %d messages", len(all))
	}
	if got := stripIDs(einomem.MessageToEino(all[1])); !reflect.DeepEqual(got, []*schema.Message{want}) {
		t.Fatalf("saved %s\nwant %s", dump(got), dump(want))
	}

	// A second streamed turn sees the first.
	sr, err = run.Stream(einomem.WithThread(ctx, "s", "r"), []*schema.Message{schema.UserMessage("again")})
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, sr)
	if got := roles(cm.prompt(1)); got != "user,assistant,user" {
		t.Fatalf("second prompt = %s", got)
	}
}

// Concurrent invocations of one compiled graph on different threads, with
// the turn held in the context, in a GenState graph state, and in state
// handlers on the ChatModel node.
func TestGraphConcurrent(t *testing.T) {
	mem := newMemory(t, nil, core.Config{})
	em := einomem.New(mem, einomem.Options{})
	echo := func(_ int, in []*schema.Message) *schema.Message {
		return schema.AssistantMessage("re: "+in[len(in)-1].Content, nil)
	}

	byCtx := memoryGraph(t, em, &scripted{t: t, reply: echo})
	byState := memoryGraph(t, em, &scripted{t: t, reply: echo}, compose.WithGenLocalState(einomem.GenState))

	type myState struct {
		einomem.TurnState
		Steps int // the application's own state, beside the turn's
	}
	g := compose.NewGraph[[]*schema.Message, *schema.Message](compose.WithGenLocalState(func(context.Context) *myState { return &myState{} }))
	must(t, g.AddChatModelNode("model", &scripted{t: t, reply: echo},
		compose.WithStatePreHandler(einomem.PreHandler[*myState](em)),
		compose.WithStatePostHandler(einomem.PostHandler[*myState](em))))
	must(t, g.AddEdge(compose.START, "model"))
	must(t, g.AddEdge("model", compose.END))
	byHandlers, err := g.Compile(ctx)
	must(t, err)

	runs := map[string]compose.Runnable[[]*schema.Message, *schema.Message]{"ctx": byCtx, "state": byState, "handlers": byHandlers}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for name, run := range runs {
		for th := 0; th < 8; th++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				thread := fmt.Sprintf("%s-%d", name, th)
				for i := 0; i < 3; i++ {
					c := einomem.WithThread(ctx, thread, "r")
					out, err := run.Invoke(c, []*schema.Message{schema.UserMessage(fmt.Sprintf("%s #%d", thread, i))})
					if err != nil {
						errs <- err
						return
					}
					if want := fmt.Sprintf("re: %s #%d", thread, i); out.Content != want {
						errs <- fmt.Errorf("got %q want %q", out.Content, want)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for name := range runs {
		for th := 0; th < 8; th++ {
			thread := fmt.Sprintf("%s-%d", name, th)
			all := stored(t, mem, thread)
			if len(all) != 6 {
				t.Fatalf("%s: %d messages", thread, len(all))
			}
			for i, m := range all {
				if !strings.Contains(m.Text(), thread+" #") {
					t.Fatalf("%s message %d = %q", thread, i, m.Text())
				}
			}
		}
	}
}

// The stream post-handler passes chunks and saves at the end of the stream.
func TestStreamPostHandler(t *testing.T) {
	mem := newMemory(t, nil, core.Config{})
	em := einomem.New(mem, einomem.Options{})
	cm := &scripted{t: t, chunks: splitContent, reply: func(int, []*schema.Message) *schema.Message {
		return schema.AssistantMessage("chunked answer here", nil)
	}}
	g := compose.NewGraph[[]*schema.Message, *schema.Message](compose.WithGenLocalState(einomem.GenState))
	must(t, g.AddChatModelNode("model", cm,
		compose.WithStatePreHandler(einomem.PreHandler[*einomem.TurnState](em)),
		compose.WithStreamStatePostHandler(einomem.StreamPostHandler[*einomem.TurnState](em))))
	must(t, g.AddEdge(compose.START, "model"))
	must(t, g.AddEdge("model", compose.END))
	run, err := g.Compile(ctx)
	must(t, err)
	sr, err := run.Stream(einomem.WithThread(ctx, "sp", "r"), []*schema.Message{schema.UserMessage("hi")})
	must(t, err)
	if n := len(readAll(t, sr)); n < 2 {
		t.Fatalf("%d chunks", n)
	}
	all := stored(t, mem, "sp")
	if len(all) != 2 || all[1].Text() != "chunked answer here" {
		t.Fatalf("stored %s", dump(all))
	}
}

func TestGraphErrors(t *testing.T) {
	mem := newMemory(t, nil, core.Config{})
	em := einomem.New(mem, einomem.Options{})
	run := memoryGraph(t, em, &scripted{t: t, reply: func(int, []*schema.Message) *schema.Message { return schema.AssistantMessage("x", nil) }})
	if _, err := run.Invoke(ctx, []*schema.Message{schema.UserMessage("hi")}); err == nil || !strings.Contains(err.Error(), "WithThread") {
		t.Fatalf("without thread: %v", err)
	}
	// A save node without a load node.
	g := compose.NewGraph[*schema.Message, *schema.Message]()
	must(t, g.AddLambdaNode("save", em.SaveLambda()))
	must(t, g.AddEdge(compose.START, "save"))
	must(t, g.AddEdge("save", compose.END))
	r, err := g.Compile(ctx)
	must(t, err)
	if _, err := r.Invoke(einomem.WithThread(ctx, "t", "r"), schema.AssistantMessage("x", nil)); err == nil || !strings.Contains(err.Error(), "no pending turn") {
		t.Fatalf("save without load: %v", err)
	}
}

package integration_test

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/memory"
	upalloydb "github.com/tmc/langchaingo/memory/alloydb"
	"github.com/tmc/langchaingo/util/alloydbutil"
	"github.com/tmc/langchaingo/util/cloudsqlutil"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	einomem "github.com/agentmem/agentmem/eino"
	lcmem "github.com/agentmem/agentmem/langchaingo"
	"github.com/agentmem/agentmem/langchaingo/alloydb"
	"github.com/agentmem/agentmem/langchaingo/cloudsql"
)

// toolModel asks for the weather tool, then answers with the result.
type toolModel struct{}

func (toolModel) Generate(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	if last := in[len(in)-1]; last.Role == schema.Tool {
		return schema.AssistantMessage("It is "+last.Content+".", nil), nil
	}
	return schema.AssistantMessage("", []schema.ToolCall{{ID: "call_w", Type: "function",
		Function: schema.FunctionCall{Name: "weather", Arguments: `{"city":"Paris"}`}}}), nil
}

func (m toolModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	out, err := m.Generate(ctx, in, opts...)
	return schema.StreamReaderFromArray([]*schema.Message{out}), err
}

// A client-side tool result sent as an eino turn's input is completed by
// core's Begin from the history it loads (the call's name and arguments),
// so the adapter's turn makes exactly the round trips of a plain turn: the
// lookup the adapter made before Begin (one more Recall) is gone.
func TestEinoToolResultTurnRoundTrips(t *testing.T) {
	counter := &queryCounter{}
	mem, err := core.New(core.Options{Store: openPG(t, counter)})
	if err != nil {
		t.Fatal(err)
	}
	em := einomem.New(mem, einomem.Options{})
	chain := compose.NewChain[[]*schema.Message, *schema.Message]()
	chain.AppendLambda(em.LoadLambda()).AppendChatModel(toolModel{}).AppendLambda(em.SaveLambda())
	run, err := chain.Compile(bg)
	if err != nil {
		t.Fatal(err)
	}
	turn := func(thread string, in *schema.Message) int64 {
		t.Helper()
		before := counter.n.Load()
		if _, err := run.Invoke(einomem.WithThread(bg, thread, "r"), []*schema.Message{in}); err != nil {
			t.Fatal(err)
		}
		return counter.n.Load() - before
	}
	for _, thread := range []string{"tool", "plain"} {
		turn(thread, schema.UserMessage("Weather in Paris?")) // stores the tool call
	}
	plain := turn("plain", schema.UserMessage("And in Rome?"))
	tool := turn("tool", schema.ToolMessage("21 degrees", "call_w")) // no ToolName: only the id links it
	t.Logf("statements per turn: plain input %d, tool-result input %d", plain, tool)
	if tool != plain {
		t.Fatalf("a tool-result turn made %d statements, a plain turn %d: the adapter looks the call up itself", tool, plain)
	}
	res, err := mem.Recall(bg, core.RecallQuery{ThreadID: "tool", ResourceID: "r", PerPage: store.PerPageAll})
	if err != nil {
		t.Fatal(err)
	}
	ti := res.Messages[2].Content.Parts[0].ToolInvocation
	if ti == nil || ti.ToolName != "weather" || string(ti.Args) != `{"city":"Paris"}` || ti.ToolCallID != "call_w" {
		t.Fatalf("stored tool result not completed from its call: %+v", res.Messages[2])
	}
}

// langchaingo/alloydb and langchaingo/cloudsql import the session upstream's
// memory/alloydb history wrote (same table, same schema), so a buffer over
// them renders the conversation upstream's buffer renders; new messages go to
// agentmem's tables and upstream's rows stay until Clear.
func TestLangchaingoPostgresHistoriesImportUpstream(t *testing.T) {
	s := openPG(t, nil)
	engine, err := alloydbutil.NewPostgresEngine(bg, alloydbutil.WithPool(s.Pool()))
	if err != nil {
		t.Fatal(err)
	}
	if err := engine.InitChatHistoryTable(bg, "chat", alloydbutil.WithSchemaName(s.Schema())); err != nil {
		t.Fatal(err)
	}
	up, err := upalloydb.NewChatMessageHistory(bg, engine, "chat", "jim", upalloydb.WithSchemaName(s.Schema()))
	if err != nil {
		t.Fatal(err)
	}
	upBuf := memory.NewConversationBuffer(memory.WithChatHistory(&up))
	for _, q := range []string{"Hi, I am Jim.", "I live in Lyon."} {
		if err := upBuf.SaveContext(bg, map[string]any{"input": q}, map[string]any{"text": "ok: " + q}); err != nil {
			t.Fatal(err)
		}
	}
	want, err := upBuf.LoadMemoryVariables(bg, nil)
	if err != nil {
		t.Fatal(err)
	}

	ah, err := alloydb.NewChatMessageHistory(bg, engine, "chat", "jim", alloydb.WithSchemaName(s.Schema()))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := cloudsql.NewChatMessageHistory(bg, cloudsqlutil.PostgresEngine{Pool: s.Pool()}, "chat", "jim", cloudsql.WithSchemaName(s.Schema()))
	if err != nil {
		t.Fatal(err)
	}
	for name, h := range map[string]*lcmem.ConversationBuffer{
		"alloydb":  lcmem.NewConversationBuffer(lcmem.WithChatHistory(&ah)),
		"cloudsql": lcmem.NewConversationBuffer(lcmem.WithChatHistory(&cs)),
	} {
		got, err := h.LoadMemoryVariables(bg, nil)
		if err != nil {
			t.Fatal(name, err)
		}
		if got["history"] != want["history"] {
			t.Fatalf("%s: history %q, upstream %q", name, got["history"], want["history"])
		}
	}

	// Tool messages round-trip (upstream fails reading them back).
	call := llms.AIChatMessage{ToolCalls: []llms.ToolCall{{ID: "c1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: `{"city":"Lyon"}`}}}}
	if err := ah.AddMessages(bg, []llms.ChatMessage{call, llms.ToolChatMessage{ID: "c1", Content: "sunny"}}); err != nil {
		t.Fatal(err)
	}
	msgs, err := cs.Messages(bg)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 6 || msgs[5].(llms.ToolChatMessage).ID != "c1" || msgs[4].(llms.AIChatMessage).ToolCalls[0].FunctionCall.Name != "weather" {
		t.Fatalf("messages after adding a tool call: %#v", msgs)
	}
	upMsgs, err := up.Messages(bg)
	if err != nil || len(upMsgs) != 4 {
		t.Fatalf("upstream's table changed: %v %v", upMsgs, err)
	}
	if err := ah.Clear(bg); err != nil {
		t.Fatal(err)
	}
	if upMsgs, err = up.Messages(bg); err != nil || len(upMsgs) != 0 {
		t.Fatalf("Clear left upstream rows: %v %v", upMsgs, err)
	}
	if msgs, err = cs.Messages(bg); err != nil || len(msgs) != 0 {
		t.Fatalf("Clear left messages: %v %v", msgs, err)
	}
}

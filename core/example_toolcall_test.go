package core_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// A turn whose model called a tool: the call and its result are two
// messages (ToolCall, then ToolResult of it), committed with the answer;
// the next turn's history holds them paired by the call's id.
func ExampleToolCall() {
	ctx := context.Background()
	mem, err := core.New(core.Options{Store: memstore.New()})
	if err != nil {
		panic(err)
	}
	turn, err := mem.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "u",
		Input: []core.Message{core.NewMessage(core.RoleUser, "Where is order A-1?")}})
	if err != nil {
		panic(err)
	}
	call := core.ToolCall("call_1", "lookupOrder", json.RawMessage(`{"orderId":"A-1"}`))
	result, _ := core.ToolResult(call, json.RawMessage(`{"carrier":"DHL"}`))
	answer := core.NewMessage(core.RoleAssistant, "It ships with DHL.")
	if err := turn.Commit(ctx, []core.Message{call, result, answer}); err != nil {
		panic(err)
	}

	next, err := mem.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "u",
		Input: []core.Message{core.NewMessage(core.RoleUser, "Thanks!")}})
	if err != nil {
		panic(err)
	}
	for _, m := range next.Messages() {
		for _, p := range m.Content.Parts {
			if ti := p.ToolInvocation; ti != nil {
				fmt.Println(strings.TrimSpace(fmt.Sprintf("%s %s: %s %s(%s) %s", m.Source, m.Role, ti.State, ti.ToolName, ti.Args, ti.Result)))
			} else {
				fmt.Printf("%s %s: %s\n", m.Source, m.Role, p.Text)
			}
		}
	}
	// Output:
	// memory user: Where is order A-1?
	// memory assistant: call lookupOrder({"orderId":"A-1"})
	// memory assistant: result lookupOrder({"orderId":"A-1"}) {"carrier":"DHL"}
	// memory assistant: It ships with DHL.
	// input user: Thanks!
}

// ToolCall gives a call without an id a fresh one; ToolResult of a message
// without a tool call reports false; a result that is not JSON is stored as
// a JSON string.
func TestToolCallHelpers(t *testing.T) {
	call := core.ToolCall("", "f", json.RawMessage(`not json`))
	ti := call.Content.Parts[0].ToolInvocation
	if ti.ToolCallID == "" || string(ti.Args) != `"not json"` || call.Role != core.RoleAssistant {
		t.Errorf("ToolCall without id: %+v", ti)
	}
	res, ok := core.ToolResult(call, json.RawMessage(`plain text`))
	if rt := res.Content.Parts[0].ToolInvocation; !ok || rt.ToolCallID != ti.ToolCallID || rt.State != "result" || string(rt.Result) != `"plain text"` {
		t.Errorf("ToolResult: %+v, %v", rt, ok)
	}
	if _, ok := core.ToolResult(core.NewMessage(core.RoleAssistant, "hi"), nil); ok {
		t.Error("ToolResult of a message without a tool call reports true")
	}
}

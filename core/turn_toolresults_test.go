package core_test

import (
	"encoding/json"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// A tool result sent as input without its call's name or arguments (a
// client-side tool answering an earlier call) is completed by Begin from the
// call in the loaded history, with either placeholder name; a result whose
// call is not in the history keeps what it had.
func TestBeginFillsToolResultsFromHistory(t *testing.T) {
	for _, placeholder := range []string{message.PlaceholderToolName, "unknown"} {
		s := memstore.New()
		mem := newMem(t, s, core.Config{RetainFullInput: core.Bool(true)})
		call := core.Message{Role: core.RoleAssistant, ThreadID: "t", ResourceID: "r", CreatedAt: T(1),
			Content: core.Content{Format: 2, Parts: []core.Part{{Type: core.PartToolInvocation, ToolInvocation: &message.ToolInvocation{
				State: message.ToolStateCall, ToolCallID: "c1", ToolName: "weather", Args: json.RawMessage(`{"city":"Paris"}`)}}}}}
		turn, err := mem.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r",
			Input: []core.Message{core.NewMessage(core.RoleUser, "Weather?")}})
		if err != nil {
			t.Fatal(err)
		}
		if err := turn.Commit(ctx, []core.Message{call}); err != nil {
			t.Fatal(err)
		}
		result := func(id string) core.Message {
			return core.Message{Role: core.RoleAssistant, Content: core.Content{Format: 2, Parts: []core.Part{{Type: core.PartToolInvocation,
				ToolInvocation: &message.ToolInvocation{State: message.ToolStateResult, ToolCallID: id, ToolName: placeholder, Result: json.RawMessage(`"21"`)}}}}}
		}
		turn, err = mem.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{result("c1"), result("c9")}})
		if err != nil {
			t.Fatal(err)
		}
		var got []*message.ToolInvocation
		for _, m := range turn.Messages() {
			if m.Source == core.SourceInput {
				got = append(got, m.Content.Parts[0].ToolInvocation)
			}
		}
		if len(got) != 2 {
			t.Fatalf("placeholder %q: input not in the prompt: %+v", placeholder, got)
		}
		if got[0].ToolName != "weather" || string(got[0].Args) != `{"city":"Paris"}` {
			t.Fatalf("placeholder %q: result of c1 not completed: %+v", placeholder, got[0])
		}
		if got[1].ToolName != placeholder || got[1].Args != nil {
			t.Fatalf("placeholder %q: result of an unknown call changed: %+v", placeholder, got[1])
		}
	}
}

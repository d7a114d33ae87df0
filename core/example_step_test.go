package core_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// An agent loop: Begin builds the first prompt, Step fits every later model
// call to the budget (the oldest tool results of the loop become stubs, the
// newest stays whole), Commit stores the whole loop.
func ExampleTurn_Step() {
	ctx := context.Background()
	mem, err := core.New(core.Options{Store: memstore.New(), Config: core.Config{
		MessageHistory: &core.MessageHistory{MaxTokens: 1500},
	}})
	if err != nil {
		panic(err)
	}
	turn, err := mem.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "u",
		Input: []core.Message{core.NewMessage(core.RoleUser, "Summarise the three pages.")}})
	if err != nil {
		panic(err)
	}
	var produced []core.Message
	for i := range 3 {
		id := fmt.Sprint("call_", i)
		page, _ := json.Marshal(strings.Repeat(fmt.Sprintf("page %d says hello. ", i), 100))
		produced = append(produced,
			core.Message{Role: core.RoleAssistant, Content: core.Content{Format: 2, Parts: []core.Part{{Type: core.PartToolInvocation,
				ToolInvocation: &message.ToolInvocation{State: message.ToolStateCall, ToolCallID: id, ToolName: "fetch"}}}}},
			core.Message{Role: core.RoleAssistant, Content: core.Content{Format: 2, Parts: []core.Part{{Type: core.PartToolInvocation,
				ToolInvocation: &message.ToolInvocation{State: message.ToolStateResult, ToolCallID: id, ToolName: "fetch", Result: page}}}}})
		prompt, err := turn.Step(ctx, produced) // the prompt of the next model call
		if err != nil {
			panic(err)
		}
		var sizes []string
		for _, m := range prompt {
			for _, p := range m.Content.Parts {
				if ti := p.ToolInvocation; ti != nil && ti.State == message.ToolStateResult {
					sizes = append(sizes, fmt.Sprintf("%s:%d bytes", ti.ToolCallID, len(ti.Result)))
				}
			}
		}
		fmt.Println(sizes)
	}
	if err := turn.Commit(ctx, append(produced, core.NewMessage(core.RoleAssistant, "All three pages say hello."))); err != nil {
		panic(err)
	}
	// Output:
	// [call_0:1902 bytes]
	// [call_0:1902 bytes call_1:1902 bytes]
	// [call_0:134 bytes call_1:134 bytes call_2:1902 bytes]
}

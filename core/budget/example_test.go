package budget_test

import (
	"encoding/json"
	"fmt"

	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/message"
)

// Fit keeps the turn's input whatever it costs, then the newest history while
// it fits: the tool call alone would fit, but it goes with its result.
func ExampleFit() {
	text := func(role message.Role, s string, tokens int, src message.Source) message.Message {
		m := message.NewMessage(role, s)
		m.Tokens, m.Source = tokens, src
		return m
	}
	tool := func(state string, tokens int) message.Message {
		inv := &message.ToolInvocation{State: state, ToolCallID: "call_1", ToolName: "weather", Args: json.RawMessage(`{}`)}
		return message.Message{Role: message.RoleAssistant, Tokens: tokens, Source: message.SourceMemory,
			Content: message.Content{Format: 2, Parts: []message.Part{{Type: message.PartToolInvocation, ToolInvocation: inv}}}}
	}
	msgs := []message.Message{
		text(message.RoleUser, "Weather in Paris?", 10, message.SourceMemory),
		tool(message.ToolStateCall, 15),
		tool(message.ToolStateResult, 20),
		text(message.RoleAssistant, "Sunny, 24°C.", 10, message.SourceMemory),
		text(message.RoleUser, "And tomorrow?", 10, message.SourceInput),
	}
	r := budget.Fit(msgs, budget.Policy{
		Limit:     50,
		Overhead:  5,
		Protected: func(m *message.Message) bool { return m.Source == message.SourceInput },
	})
	for _, m := range budget.Apply(msgs, r.Keep) {
		fmt.Println(m.Role, m.Text())
	}
	fmt.Println("used", r.Used, "of 50; history groups kept:", r.Kept)
	// Output:
	// assistant Sunny, 24°C.
	// user And tomorrow?
	// used 25 of 50; history groups kept: 1
}

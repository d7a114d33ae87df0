package budget

import (
	"testing"

	"github.com/agentmem/agentmem/core/message"
)

// countedBytes sums the text MessageTokens reads (text, reasoning, a
// tool call's name, arguments, result and error) and stops after the
// message that reaches the limit.
func TestCountedBytes(t *testing.T) {
	tool := message.Message{Content: message.Content{Parts: []message.Part{
		{Type: message.PartReasoning, Reasoning: "de"},
		{Type: message.PartToolInvocation, ToolInvocation: &message.ToolInvocation{ToolName: "f", Args: []byte(`{}`), Result: []byte(`1`), ErrorText: "x"}},
	}}}
	msgs := []message.Message{message.NewMessage(message.RoleUser, "abc"), tool, message.NewMessage(message.RoleUser, "ghij")}
	for _, c := range []struct{ limit, want int }{{1 << 20, 3 + 2 + 1 + 2 + 1 + 1 + 4}, {3, 3}, {4, 10}} {
		if n := countedBytes(msgs, c.limit); n != c.want {
			t.Errorf("countedBytes(limit %d) = %d, want %d", c.limit, n, c.want)
		}
	}
}

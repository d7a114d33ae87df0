package budget_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/message"
)

func msg(id string, tokens int, source message.Source) message.Message {
	m := message.NewMessage(message.RoleUser, id)
	m.ID, m.Tokens, m.Source = id, tokens, source
	return m
}

func call(id, callID string, tokens int, state string) message.Message {
	m := message.Message{ID: id, Role: message.RoleAssistant, Tokens: tokens, Source: message.SourceMemory}
	m.Content.Parts = []message.Part{{Type: message.PartToolInvocation, ToolInvocation: &message.ToolInvocation{
		State: state, ToolCallID: callID, ToolName: "f", Args: json.RawMessage(`{}`)}}}
	return m
}

func kept(msgs []message.Message, r budget.Result) []string {
	var ids []string
	for _, m := range budget.Apply(msgs, r.Keep) {
		ids = append(ids, m.ID)
	}
	return ids
}

func TestFit(t *testing.T) {
	mem := message.SourceMemory
	msgs := []message.Message{
		msg("a", 10, mem), call("c", "x", 5, message.ToolStateCall), msg("b", 10, mem),
		call("r", "x", 5, message.ToolStateResult), msg("d", 30, mem), msg("in", 50, message.SourceInput),
	}
	input := func(m *message.Message) bool { return m.Source == message.SourceInput }
	cases := []struct {
		name string
		p    budget.Policy
		want []string
	}{
		{"everything fits", budget.Policy{Limit: 200, Protected: input}, []string{"a", "c", "b", "r", "d", "in"}},
		{"newest first, contiguous", budget.Policy{Limit: 100, Protected: input}, []string{"c", "b", "r", "d", "in"}},
		{"a call goes with its result", budget.Policy{Limit: 90, Protected: input}, []string{"b", "d", "in"}},
		{"contiguous stops at the first misfit", budget.Policy{Limit: 79, Protected: input}, []string{"in"}},
		{"best fit keeps scanning", budget.Policy{Limit: 79, Protected: input, BestFit: true}, []string{"c", "b", "r", "in"}},
		{"protected whatever it costs", budget.Policy{Limit: 1, Protected: input}, []string{"in"}},
		{"overhead counts", budget.Policy{Limit: 100, Overhead: 20, Protected: input}, []string{"d", "in"}},
		{"rank decides", budget.Policy{Limit: 70, Protected: input, Rank: func(g [][]int) [][]int { return g }}, []string{"a", "c", "r", "in"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := budget.Fit(msgs, c.p)
			if got := kept(msgs, r); !slices.Equal(got, c.want) {
				t.Fatalf("kept %v, want %v", got, c.want)
			}
			if r.Used > c.p.Limit && r.Kept > 0 {
				t.Fatalf("used %d over limit %d", r.Used, c.p.Limit)
			}
		})
	}
}

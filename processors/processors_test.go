package processors_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/processors"
)

var ctx = context.Background()

func msg(id string, role core.Role, src core.Source, tokens int) core.Message {
	m := core.NewMessage(role, id)
	m.ID, m.Source, m.Tokens = id, src, tokens
	return m
}

func tool(id string, src core.Source, name, callID string) core.Message {
	m := core.Message{ID: id, Role: core.RoleAssistant, Source: src, Tokens: 10, Content: core.Content{Parts: []core.Part{
		{Type: core.PartToolInvocation, ToolInvocation: &message.ToolInvocation{State: message.ToolStateResult, ToolCallID: callID, ToolName: name, Args: []byte(`{}`), Result: []byte(`{}`)}},
	}}}
	return m
}

func ids(msgs []core.Message) string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.ID)
	}
	return strings.Join(out, ",")
}

// TestTokenLimiter: system messages over the limit fail with ErrTokenLimit;
// remembered messages are fitted best-fit or contiguous from the newest, and
// the input is never dropped.
func TestTokenLimiter(t *testing.T) {
	sys := msg("sys", core.RoleSystem, core.SourceSystem, 50)
	_, err := processors.TokenLimiter{Limit: 50}.ProcessInput(ctx, core.ProcessorInput{Messages: []core.Message{sys, msg("u", core.RoleUser, core.SourceInput, 1)}})
	if !errors.Is(err, core.ErrTokenLimit) || !strings.Contains(err.Error(), "System messages alone exceed token limit") {
		t.Fatalf("system over limit: %v", err)
	}
	_, err = processors.TokenLimiter{Limit: 500}.ProcessInput(ctx, core.ProcessorInput{Messages: []core.Message{sys}})
	if !errors.Is(err, core.ErrTokenLimit) {
		t.Fatalf("no messages: %v", err)
	}
	prompt := []core.Message{sys,
		msg("m1", core.RoleUser, core.SourceMemory, 10),
		msg("m2", core.RoleAssistant, core.SourceMemory, 100),
		msg("m3", core.RoleUser, core.SourceMemory, 10),
		msg("in", core.RoleUser, core.SourceInput, 20)}
	// Budget 3 + 50 + 20 used; 100 left: m3 fits (10), m2 does not (100), m1 fits (10) in best-fit.
	out, err := processors.TokenLimiter{Limit: 173}.ProcessInput(ctx, core.ProcessorInput{Messages: prompt})
	if err != nil || ids(out) != "sys,m1,m3,in" {
		t.Fatalf("best-fit = %s, %v", ids(out), err)
	}
	out, _ = processors.TokenLimiter{Limit: 173, Strategy: processors.Contiguous}.ProcessInput(ctx, core.ProcessorInput{Messages: prompt})
	if ids(out) != "sys,m3,in" {
		t.Fatalf("contiguous = %s", ids(out))
	}
	// The input is never dropped even when it alone is over budget.
	out, _ = processors.TokenLimiter{Limit: 60}.ProcessInput(ctx, core.ProcessorInput{Messages: prompt})
	if ids(out) != "sys,in" {
		t.Fatalf("input dropped: %s", ids(out))
	}
}

// TestToolCallFilter: remembered tool calls leave the prompt (all, or only
// the excluded tools'), the response's after FilterAfterToolSteps steps.
func TestToolCallFilter(t *testing.T) {
	prompt := []core.Message{
		msg("u1", core.RoleUser, core.SourceMemory, 1),
		tool("h-weather", core.SourceMemory, "weather", "c1"),
		tool("h-search", core.SourceMemory, "search", "c2"),
		msg("u2", core.RoleUser, core.SourceInput, 1),
		tool("r-weather", core.SourceResponse, "weather", "c3"),
	}
	run := func(f processors.ToolCallFilter) string {
		out, err := f.ProcessInput(ctx, core.ProcessorInput{Messages: prompt})
		if err != nil {
			t.Fatal(err)
		}
		return ids(out)
	}
	if got := run(processors.ToolCallFilter{}); got != "u1,u2,r-weather" {
		t.Fatalf("default = %s", got)
	}
	if got := run(processors.ToolCallFilter{Exclude: []string{"weather"}}); got != "u1,h-search,u2,r-weather" {
		t.Fatalf("exclude weather = %s", got)
	}
	one := 1
	if got := run(processors.ToolCallFilter{FilterAfterToolSteps: &one}); got != "u1,u2,r-weather" {
		t.Fatalf("last step = %s", got)
	}
	zero := 0
	if got := run(processors.ToolCallFilter{FilterAfterToolSteps: &zero}); got != "u1,u2" {
		t.Fatalf("zero steps = %s", got)
	}
	if got := run(processors.ToolCallFilter{Exclude: []string{}}); got != "u1,h-weather,h-search,u2,r-weather" {
		t.Fatalf("empty exclude = %s", got)
	}
	// preserveModelOutput keeps a compact stand-in for a removed result.
	withOutput := tool("w", core.SourceMemory, "weather", "c7")
	withOutput.Content.Parts[0].ProviderMetadata = []byte(`{"mastra":{"modelOutput":"21C, sunny"}}`)
	out, _ := processors.ToolCallFilter{PreserveModelOutput: true}.ProcessInput(ctx, core.ProcessorInput{Messages: []core.Message{withOutput}})
	if len(out) != 1 || out[0].Text() != "weather result:\n21C, sunny" {
		t.Fatalf("preserveModelOutput = %+v", out)
	}

	// A message keeping text loses only its tool part.
	mixed := tool("mixed", core.SourceMemory, "weather", "c9")
	mixed.Content.Parts = append(mixed.Content.Parts, core.TextPart("it is sunny"))
	out, _ = processors.ToolCallFilter{}.ProcessInput(ctx, core.ProcessorInput{Messages: []core.Message{mixed}})
	if len(out) != 1 || len(out[0].Content.Parts) != 1 || out[0].Text() != "it is sunny" {
		t.Fatalf("mixed = %+v", out)
	}
}

// Processors run inside a real turn after memory's own steps.
func ExampleToolCallFilter() {
	f := processors.ToolCallFilter{Exclude: []string{"weather"}}
	out, _ := f.ProcessInput(context.Background(), core.ProcessorInput{Messages: []core.Message{
		tool("old-call", core.SourceMemory, "weather", "c1"), msg("question", core.RoleUser, core.SourceInput, 1),
	}})
	fmt.Println(ids(out))
	// Output: question
}

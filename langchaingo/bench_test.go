package langchaingo

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"testing"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/memory"
	"github.com/tmc/langchaingo/schema"
)

// benchHistory is a 1,600-message conversation of ordinary English turns.
func benchHistory() []llms.ChatMessage {
	msgs := make([]llms.ChatMessage, 0, 1600)
	for i := range 800 {
		msgs = append(msgs,
			llms.HumanChatMessage{Content: fmt.Sprintf("Question %d: could you remind me what we decided about the project timeline, the budget and who owns the next milestone?", i)},
			llms.AIChatMessage{Content: fmt.Sprintf("Answer %d: we agreed to ship the beta in March, keep the budget at 40k and Dana owns the migration milestone; the review is on Friday.", i)})
	}
	return msgs
}

// BenchmarkTokenBuffer measures one turn (SaveContext then
// LoadMemoryVariables) of a ConversationTokenBuffer with a 2,000-token limit
// on a 1,600-message history: upstream langchaingo v0.1.14 versus this
// package. Building and storing the history is not timed. Upstream's warning
// log line per token count goes to io.Discard.
func BenchmarkTokenBuffer(b *testing.B) {
	ctx := context.Background()
	history := benchHistory()
	in := map[string]any{"input": "And what about the launch party?"}
	out := map[string]any{"text": "The launch party is planned for the first Friday after the beta ships."}
	turn := func(b *testing.B, m schema.Memory) {
		if err := m.SaveContext(ctx, in, out); err != nil {
			b.Fatal(err)
		}
		vars, err := m.LoadMemoryVariables(ctx, in)
		if err != nil {
			b.Fatal(err)
		}
		if s, _ := vars["history"].(string); s == "" {
			b.Fatal("empty history")
		}
	}
	b.Run("upstream", func(b *testing.B) {
		log.SetOutput(io.Discard)
		defer log.SetOutput(os.Stderr)
		for b.Loop() {
			b.StopTimer()
			m := memory.NewConversationTokenBuffer(nil, 2000, memory.WithChatHistory(
				memory.NewChatMessageHistory(memory.WithPreviousMessages(history))))
			b.StartTimer()
			turn(b, m)
		}
	})
	b.Run("agentmem", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			h := NewChatMessageHistory(WithPreviousMessages(history))
			if err := h.prepare(ctx); err != nil { // stores (and tokenizes) the history once
				b.Fatal(err)
			}
			m := NewConversationTokenBuffer(nil, 2000, WithChatHistory(h))
			b.StartTimer()
			turn(b, m)
		}
	})
}

package integration_test

import (
	"fmt"
	"io"
	"log"
	"os"
	"testing"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/memory"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
)

const turnHistory = 1600

// BenchmarkTurn1600 compares one turn over a 1,600-message history: upstream
// langchaingo v0.1.14 ConversationTokenBuffer (one SaveContext +
// LoadMemoryVariables, 2,000-token limit, in-memory history) against agentmem
// (Commit + Begin, 2,000-token budget, real tiktoken counts, memstore).
func BenchmarkTurn1600(b *testing.B) {
	texts := [2]string{
		"Could you summarise what we decided about the quarterly budget and who owns the follow-up items?",
		"We agreed to cut travel by ten percent, Maria owns the vendor review and Tom drafts the hiring plan by Friday.",
	}
	b.Run("upstream", func(b *testing.B) {
		log.SetOutput(io.Discard) // upstream logs one warning per token count
		defer log.SetOutput(os.Stderr)
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			var msgs []llms.ChatMessage
			for j := 0; j < turnHistory; j++ {
				if j%2 == 0 {
					msgs = append(msgs, llms.HumanChatMessage{Content: texts[0]})
				} else {
					msgs = append(msgs, llms.AIChatMessage{Content: texts[1]})
				}
			}
			hist := memory.NewChatMessageHistory(memory.WithPreviousMessages(msgs))
			buf := memory.NewConversationTokenBuffer(nil, 2000, memory.WithChatHistory(hist))
			b.StartTimer()
			if err := buf.SaveContext(bg, map[string]any{"input": "What did we decide?"}, map[string]any{"output": "Travel is cut by ten percent."}); err != nil {
				b.Fatal(err)
			}
			if _, err := buf.LoadMemoryVariables(bg, map[string]any{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("agentmem", func(b *testing.B) {
		s := memstore.New()
		mem, err := core.New(core.Options{Store: s, Config: core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 2000}}})
		if err != nil {
			b.Fatal(err)
		}
		seedThread(b, s, mem, "t", turnHistory)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			turn, err := mem.Begin(bg, core.TurnRequest{ThreadID: "t", ResourceID: "bench",
				Input: []core.Message{core.NewMessage(core.RoleUser, fmt.Sprint("What did we decide? ", i))}})
			if err != nil {
				b.Fatal(err)
			}
			if err := turn.Commit(bg, []core.Message{core.NewMessage(core.RoleAssistant, "Travel is cut by ten percent.")}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

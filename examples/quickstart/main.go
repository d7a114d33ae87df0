// Command quickstart shows agentmem's main job on the embedded SQLite default:
// it creates a thread, runs a short multi-turn conversation (including a tool
// call) through Begin/Commit, recalls it, and prints what a model would see.
// It needs no network and finishes in seconds.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/sqlite"
	"github.com/agentmem/agentmem/core/vector/local"
)

func main() {
	if err := run(context.Background()); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "agentmem-quickstart-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	store, err := sqlite.Open(ctx, filepath.Join(dir, "memory.db"))
	if err != nil {
		return err
	}
	defer store.Close()
	vectors := local.New()
	mem, err := core.New(core.Options{
		Store:    store,
		Vector:   vectors,
		Embedder: local.NewHashEmbedder(384), // offline stand-in for a real embedding model
		Config: core.Config{
			MessageHistory: &core.MessageHistory{MaxTokens: 300},
			SemanticRecall: &core.SemanticRecall{TopK: 2, MessageRange: &core.MessageRange{Before: 0, After: 1}},
		},
	})
	if err != nil {
		return err
	}
	thread, err := mem.CreateThread(ctx, core.ThreadInput{ResourceID: "user-456", Title: "Order support"})
	if err != nil {
		return err
	}
	turns := []struct {
		user   string
		answer []core.Message
	}{
		{"Hi! My order A-1 has not arrived. Where is it?", []core.Message{toolCall("call-1", "lookupOrder", `{"orderId":"A-1"}`, `{"eta":"2026-10-30","carrier":"DHL"}`),
			core.NewMessage(core.RoleAssistant, "Order A-1 ships with DHL and arrives on 2026-10-30.")}},
		{"Great. By the way, I am allergic to peanuts, please remember that for gift baskets.", reply("Noted: no peanuts in gift baskets.")},
		{"Can you tell me a long story about shipping containers?", reply(story())},
		{"What carrier was my order using again?", reply("Your order A-1 is with DHL.")},
	}
	for i, turn := range turns {
		t, err := mem.Begin(ctx, core.TurnRequest{ThreadID: thread.ID, ResourceID: thread.ResourceID,
			System: []string{"You are a friendly support agent."},
			Input:  []core.Message{core.NewMessage(core.RoleUser, turn.user)}})
		if err != nil {
			return err
		}
		prompt := t.Messages()
		fmt.Printf("--- turn %d: the model sees %d messages, %d tokens (budget 300)\n", i+1, len(prompt), core.PromptTokens(prompt))
		for _, m := range prompt {
			fmt.Printf("  [%-8s %-9s] %s\n", m.Source, m.Role, summary(m))
		}
		if err := t.Commit(ctx, turn.answer); err != nil {
			return err
		}
	}
	all, err := mem.Recall(ctx, core.RecallQuery{ThreadID: thread.ID, ResourceID: thread.ResourceID, PerPage: core.PerPageAll})
	if err != nil {
		return err
	}
	fmt.Printf("--- storage keeps all %d messages; the token budget only moved the thread's boundary\n", len(all.Messages))
	hits, err := mem.Recall(ctx, core.RecallQuery{ThreadID: thread.ID, ResourceID: thread.ResourceID,
		VectorSearch: "peanut allergy", Config: &core.Config{LastMessages: core.NoHistory}})
	if err != nil {
		return err
	}
	fmt.Println("--- semantic recall for \"peanut allergy\":")
	for _, m := range hits.Messages {
		fmt.Printf("  %s: %s\n", m.Role, summary(m))
	}
	return nil
}

func reply(text string) []core.Message {
	return []core.Message{core.NewMessage(core.RoleAssistant, text)}
}

func toolCall(id, name, args, result string) core.Message {
	return core.Message{Role: core.RoleAssistant, Content: core.Content{Parts: []core.Part{{Type: core.PartToolInvocation,
		ToolInvocation: &core.ToolInvocation{State: core.ToolStateResult, ToolCallID: id, ToolName: name,
			Args: json.RawMessage(args), Result: json.RawMessage(result)}}}}}
}

func story() string {
	s := "Once upon a time, a shipping container crossed the ocean."
	for i := 0; i < 12; i++ {
		s += " It carried toys, books and machines from port to port, and every sailor knew its number."
	}
	return s
}

func summary(m core.Message) string {
	var out string
	for _, p := range m.Content.Parts {
		switch {
		case p.ToolInvocation != nil:
			out += fmt.Sprintf("[tool %s(%s) -> %s] ", p.ToolInvocation.ToolName, p.ToolInvocation.Args, p.ToolInvocation.Result)
		case p.Type == core.PartText:
			out += p.Text
		}
	}
	if len(out) > 90 {
		out = out[:87] + "..."
	}
	return out
}

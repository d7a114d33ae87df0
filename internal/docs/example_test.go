package docs_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/sqlite"
)

// exampleDir returns a fresh directory and a function that removes it.
func exampleDir() (string, func()) {
	dir, err := os.MkdirTemp("", "agentmem-docs-")
	if err != nil {
		panic(err)
	}
	return dir, func() { os.RemoveAll(dir) }
}

// callModel stands for the call to the model: it answers every prompt with
// one assistant message.
func callModel(prompt []core.Message) []core.Message {
	return []core.Message{core.NewMessage(core.RoleAssistant, fmt.Sprintf("(an answer to %d messages)", len(prompt)))}
}

// The turn: Begin builds the prompt from memory, Commit stores the input and
// the model's answer. README.md shows it from the first blank line on.
func Example_turn() {
	dir, cleanup := exampleDir()
	defer cleanup()
	dbPath := filepath.Join(dir, "memory.db") // in a program: sqlite.DefaultPath

	ctx := context.Background()
	store, err := sqlite.Open(ctx, dbPath)
	if err != nil {
		panic(err)
	}
	defer store.Close()
	mem, err := core.New(core.Options{
		Store:  store,
		Config: core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 8000}},
	})
	if err != nil {
		panic(err)
	}
	defer mem.Close(ctx)

	for _, question := range []string{"Where is my order?", "And when does it arrive?"} {
		turn, err := mem.Begin(ctx, core.TurnRequest{
			ThreadID: "thread-123", ResourceID: "user-456",
			System: []string{"You are a support agent."}, // counted in the budget, never stored
			Input:  []core.Message{core.NewMessage(core.RoleUser, question)},
		})
		if err != nil {
			panic(err)
		}
		prompt := turn.Messages() // instructions, working memory, history, recall, input
		for _, m := range prompt {
			fmt.Printf("%-6s %-9s %s\n", m.Source, m.Role, m.Text())
		}
		if err := turn.Commit(ctx, callModel(prompt)); err != nil { // one atomic save
			panic(err)
		}
	}
	// Output:
	// system system    You are a support agent.
	// input  user      Where is my order?
	// system system    You are a support agent.
	// memory user      Where is my order?
	// memory assistant (an answer to 2 messages)
	// input  user      And when does it arrive?
}

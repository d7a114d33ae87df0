package langchaingo_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tmc/langchaingo/chains"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/sqlite"
	lcmem "github.com/agentmem/agentmem/langchaingo"
)

// exampleDB returns a database path in a fresh directory and a function that
// removes it.
func exampleDB() (string, func()) {
	dir, err := os.MkdirTemp("", "agentmem-example-")
	if err != nil {
		panic(err)
	}
	return filepath.Join(dir, "memory.db"), func() { os.RemoveAll(dir) }
}

// A langchaingo conversation chain whose memory is kept in SQLite under a
// token budget. README.md shows this example from its first blank line on
// (a test keeps the two equal).
func Example_conversationChain() {
	dbPath, cleanup := exampleDB() // in a program: sqlite.DefaultPath, ./memory.db
	defer cleanup()
	llm := &cannedLLM{answers: []string{"Hello Jim!", "You are Jim."}} // any llms.Model

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

	// Where the chain used memory.NewConversationBuffer():
	buffer := lcmem.NewConversationBuffer(lcmem.WithMemory(mem), lcmem.WithThread("conversation-1", "user-42"))
	chain := chains.NewConversation(llm, buffer)
	for _, input := range []string{"Hi! I'm Jim", "Who am I?"} {
		answer, err := chains.Run(ctx, chain, input)
		if err != nil {
			panic(err)
		}
		fmt.Println(answer)
	}
	// Output:
	// Hello Jim!
	// You are Jim.
}

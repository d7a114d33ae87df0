package sqlite3_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	lcmem "github.com/agentmem/agentmem/langchaingo"
	"github.com/agentmem/agentmem/langchaingo/sqlite3"
)

// A drop-in for langchaingo's memory/sqlite3: the session's history lives in
// the database file and feeds a conversation buffer.
func ExampleNewSqliteChatMessageHistory() {
	dir, err := os.MkdirTemp("", "agentmem-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	ctx := context.Background()
	h := sqlite3.NewSqliteChatMessageHistory(
		sqlite3.WithDBAddress(filepath.Join(dir, "chat.db")),
		sqlite3.WithSession("alice"),
	)
	if err := h.AddUserMessage(ctx, "Hi, I am Alice."); err != nil {
		panic(err)
	}
	if err := h.AddAIMessage(ctx, "Hello Alice!"); err != nil {
		panic(err)
	}

	buffer := lcmem.NewConversationBuffer(lcmem.WithChatHistory(h))
	vars, err := buffer.LoadMemoryVariables(ctx, map[string]any{})
	if err != nil {
		panic(err)
	}
	fmt.Println(vars["history"])
	// Output:
	// Human: Hi, I am Alice.
	// AI: Hello Alice!
}
